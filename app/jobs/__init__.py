"""The one procrastinate App. Task families live one module each beside this file.

timetrace worker            # runs them
timetrace serve --worker    # runs them inside the API process

Tasks take ids, never objects; the running process's `Services` reach them through
procrastinate's job context (`services_of(context)`).

The worker is two: the pyramid's queues (episodes, rollups, maintenance) on their
own slots, and the model queue on `TIMETRACE_MODEL_SLOTS` slots of its own, so a
backlog of slow model calls never keeps a sitting from closing or a digest from
updating.
"""

from __future__ import annotations

import asyncio
import contextlib
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
MODEL_QUEUE = "models"
PYRAMID_QUEUES = ("episodes", "rollups", "maintenance")
IMPORT_QUEUE = "imports"
# The main worker's queues: an import may hold one of its slots, a model job never does.
MAIN_QUEUES = (*PYRAMID_QUEUES, IMPORT_QUEUE)


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
    """Run the worker until stopped (or, with wait=False, until the queues are empty):
    `concurrency` slots for the pyramid's queues (and imports) and `TIMETRACE_MODEL_SLOTS` for the
    model queue. Draining (wait=False) runs one worker over every queue."""
    connector = worker_connector(services.url, settings=services.settings)
    context = {_SERVICES: services}
    with jobs_app.replace_connector(connector):
        async with jobs_app.open_async():
            if not wait:
                await jobs_app.run_worker_async(
                    concurrency=concurrency,
                    wait=False,
                    install_signal_handlers=install_signal_handlers,
                    additional_context=context,
                )
                return
            models = asyncio.create_task(
                jobs_app.run_worker_async(
                    queues=[MODEL_QUEUE],
                    name="models",
                    concurrency=services.settings.model_slots,
                    install_signal_handlers=False,  # the pyramid worker's stop ends both
                    additional_context=context,
                )
            )
            try:
                await jobs_app.run_worker_async(
                    queues=list(MAIN_QUEUES),
                    name="pyramid",
                    concurrency=concurrency,
                    install_signal_handlers=install_signal_handlers,
                    additional_context=context,
                )
            finally:
                models.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await models
