"""The one procrastinate App. Task families live one module each beside this file.

timetrace worker            # runs them
timetrace serve --worker    # runs them inside the API process
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from procrastinate import App, PsycopgConnector

from app.settings import Settings

if TYPE_CHECKING:
    from app.runtime.services import Services

jobs_app = App(
    connector=PsycopgConnector(),
    import_paths=["app.jobs.maintenance", "app.jobs.pyramid", "app.jobs.enrich"],
)
_services: Services | None = None


def current_services() -> Services:
    """The store and settings of the running worker (tasks take ids, not objects)."""
    if _services is None:
        raise RuntimeError("no worker is running: use run_worker()")
    return _services


def worker_connector(url: str, *, settings: Settings) -> PsycopgConnector:
    return PsycopgConnector(
        conninfo=url,
        min_size=1,
        max_size=max(2, settings.pool_max_size // 2),
        kwargs={"options": f"-c timetrace.idle_gap_s={settings.idle_gap_s} -c timezone=UTC"},
    )


async def run_worker(
    services: Services,
    *,
    concurrency: int = 2,
    wait: bool = True,
    install_signal_handlers: bool = True,
) -> None:
    """Run the worker until stopped (or, with wait=False, until the queues are empty)."""
    import app.jobs.enrich
    import app.jobs.maintenance
    import app.jobs.pyramid  # noqa: F401  (registers the tasks)

    global _services
    _services = services
    try:
        connector = worker_connector(services.url, settings=services.settings)
        with jobs_app.replace_connector(connector):
            async with jobs_app.open_async():
                await jobs_app.run_worker_async(
                    concurrency=concurrency,
                    wait=wait,
                    install_signal_handlers=install_signal_handlers,
                )
    finally:
        _services = None
