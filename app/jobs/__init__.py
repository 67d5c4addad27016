"""The one procrastinate App. Task families live one module each beside this file.

timetrace worker            # runs them
timetrace serve --worker    # runs them inside the API process

Tasks take ids, never objects; the running process's `Services` reach them through
procrastinate's job context (`services_of(context)`). `run_worker` keeps the worker
alive through crashes and database restarts (`app/jobs/supervisor.py`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from procrastinate import App, JobContext, PsycopgConnector

from app.db.connection import session_options
from app.jobs.queue import RequeueingJobManager
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
jobs_app.job_manager = RequeueingJobManager(connector=jobs_app.connector)
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
    stop: asyncio.Event | None = None,
) -> None:
    """Run the worker until stopped (a signal, or `stop` set), or, with wait=False, until
    the queues are empty. Raises `WorkerGaveUpError` when the database stays away."""
    from app.jobs.supervisor import supervise

    async def session() -> None:
        settings = services.settings
        connector = worker_connector(services.url, settings=settings)
        with jobs_app.replace_connector(connector):
            async with jobs_app.open_async():
                await jobs_app.run_worker_async(
                    concurrency=concurrency,
                    wait=wait,
                    install_signal_handlers=False,
                    additional_context={_SERVICES: services},
                    update_heartbeat_interval=settings.worker_heartbeat_s,
                    stalled_worker_timeout=settings.worker_stalled_s,
                    # Requeued stalled jobs send no notification: poll as often as they come.
                    fetch_job_polling_interval=min(5.0, settings.worker_stalled_s / 3),
                )

    await supervise(
        services,
        session=session,
        wait=wait,
        stop=stop or asyncio.Event(),
        install_signal_handlers=install_signal_handlers,
    )
