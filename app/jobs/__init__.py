"""The one procrastinate App. Task families live one module each beside this file.

timetrace worker            # runs them
timetrace serve --worker    # runs them inside the API process

Tasks take ids, never objects; the running process's `Services` reach them through
procrastinate's job context (`services_of(context)`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from procrastinate import App, JobContext, PsycopgConnector

from app.db.connection import session_options
from app.settings import Settings

if TYPE_CHECKING:
    from app.runtime.services import Services

jobs_app = App(
    connector=PsycopgConnector(),
    import_paths=[
        "app.jobs.maintenance",
        "app.jobs.pyramid",
        "app.jobs.enrich",
        "app.jobs.imports",
    ],
)
_SERVICES = "services"


def services_of(context: JobContext) -> Services:
    """The store and settings of the worker running this job."""
    services: Services = context.additional_context[_SERVICES]
    return services


def worker_connector(url: str, *, settings: Settings) -> PsycopgConnector:
    return PsycopgConnector(
        conninfo=url,
        min_size=1,
        max_size=max(2, settings.pool_max_size // 2),
        kwargs={"options": session_options(settings)},
    )


async def run_worker(
    services: Services,
    *,
    concurrency: int = 2,
    wait: bool = True,
    install_signal_handlers: bool = True,
) -> None:
    """Run the worker until stopped (or, with wait=False, until the queues are empty)."""
    connector = worker_connector(services.url, settings=services.settings)
    with jobs_app.replace_connector(connector):
        async with jobs_app.open_async():
            await jobs_app.run_worker_async(
                concurrency=concurrency,
                wait=wait,
                install_signal_handlers=install_signal_handlers,
                additional_context={_SERVICES: services},
            )
