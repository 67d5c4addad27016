"""The one procrastinate App. Task families live one module each beside this file.

timetrace worker            # runs them
timetrace serve --worker    # runs them inside the API process
"""

from __future__ import annotations

from procrastinate import App, PsycopgConnector

from app.settings import Settings

# Queues, in the order a worker should care: interactive first, rollups later.
QUEUES = ("interactive", "episodes", "rollups", "maintenance")

jobs_app = App(
    connector=PsycopgConnector(),
    import_paths=["app.jobs.maintenance"],
)


def worker_connector(url: str, *, settings: Settings) -> PsycopgConnector:
    return PsycopgConnector(
        conninfo=url,
        min_size=1,
        max_size=max(2, settings.pool_max_size // 2),
        kwargs={"options": f"-c timetrace.idle_gap_s={settings.idle_gap_s} -c timezone=UTC"},
    )


async def run_worker(
    url: str,
    *,
    settings: Settings,
    concurrency: int = 2,
    wait: bool = True,
    install_signal_handlers: bool = True,
) -> None:
    """Run the worker until stopped (or, with wait=False, until the queues are empty)."""
    import app.jobs.maintenance  # noqa: F401  (registers the tasks)

    with jobs_app.replace_connector(worker_connector(url, settings=settings)):
        async with jobs_app.open_async():
            await jobs_app.run_worker_async(
                concurrency=concurrency,
                wait=wait,
                install_signal_handlers=install_signal_handlers,
            )
