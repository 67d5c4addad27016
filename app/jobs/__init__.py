"""The one procrastinate App. Task families live one module each beside this file.

timetrace worker            # runs them
timetrace serve --worker    # runs them inside the API process

Tasks take ids, never objects; the running process's `Services` reach them through
procrastinate's job context (`services_of(context)`). `run_worker` keeps the worker
alive through crashes and database restarts (`app/jobs/supervisor.py`).

The worker is two: the pyramid's queues (episodes, rollups, maintenance, imports) on
their own slots, and the model queue on `TIMETRACE_MODEL_SLOTS` slots of its own, so a
backlog of slow model calls never keeps a sitting from closing or a digest from
updating.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from procrastinate import App, JobContext, PsycopgConnector

from app.db.connection import session_options
from app.db.job_manager import RequeueingJobManager
from app.job_requests import (
    EPISODE_QUEUE,
    IMPORT_QUEUE,
    MAINTENANCE_QUEUE,
    MODEL_QUEUE,
    ROLLUP_QUEUE,
)
from app.settings import Settings

if TYPE_CHECKING:
    from app.runtime.services import Services

T = TypeVar("T")

jobs_app = App(
    connector=PsycopgConnector(),
    import_paths=[
        "app.jobs.maintenance",
        "app.jobs.retention",
        "app.jobs.pyramid",
        "app.jobs.enrich",
        "app.jobs.imports",
        "app.jobs.user_rules",
    ],
)
jobs_app.job_manager = RequeueingJobManager(connector=jobs_app.connector)
_SERVICES = "services"
PYRAMID_QUEUES = (EPISODE_QUEUE, ROLLUP_QUEUE, MAINTENANCE_QUEUE)
# The main worker's queues: an import may hold one of its slots, a model job never does.
MAIN_QUEUES = (*PYRAMID_QUEUES, IMPORT_QUEUE)
ALL_QUEUES = (*MAIN_QUEUES, MODEL_QUEUE)
# A worker process runs two procrastinate workers: the pyramid's and the model queue's.
WORKERS_PER_PROCESS = 2


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
    exit_if_jobs_hang: bool = False,
    hung_exit_code: Callable[[], int] = lambda: 0,
) -> None:
    """Run the worker until stopped (a signal, or `stop` set), or, with wait=False, until
    the queues are empty: `concurrency` slots for the pyramid's queues (and imports) and
    `TIMETRACE_MODEL_SLOTS` for the model queue; draining (wait=False) runs one worker
    over every queue. Raises `WorkerGaveUpError` when the database stays away. With
    `exit_if_jobs_hang` (the commands), a job still running once the worker has stopped
    ends the process at once (os._exit, with `hung_exit_code()`) instead of holding it."""
    from app.jobs.supervisor import supervise

    settings = services.settings

    async def one_worker(*, queues: tuple[str, ...], name: str, slots: int) -> None:
        await jobs_app.run_worker_async(
            queues=list(queues),  # procrastinate sends it as a PostgreSQL array
            name=name,
            concurrency=slots,
            wait=wait,
            install_signal_handlers=False,
            additional_context={_SERVICES: services},
            update_heartbeat_interval=settings.worker_heartbeat_s,
            stalled_worker_timeout=settings.worker_stalled_s,
            # Requeued stalled jobs send no notification: poll as often as they come.
            fetch_job_polling_interval=min(5.0, settings.worker_stalled_s / 3),
            # On a stop, running jobs get this long; then they are asked to abort (their
            # checkpoints raise, app/jobs/limits.py) and go back to the queue.
            shutdown_graceful_timeout=settings.worker_shutdown_s,
        )

    async def session() -> None:
        connector = worker_connector(services.url, settings=settings)
        with jobs_app.replace_connector(connector):
            async with jobs_app.open_async():
                if not wait:
                    await one_worker(queues=ALL_QUEUES, name="drain", slots=concurrency)
                    return
                await _until_one_ends(
                    one_worker(queues=(MODEL_QUEUE,), name="models", slots=settings.model_slots),
                    one_worker(queues=MAIN_QUEUES, name="pyramid", slots=concurrency),
                )

    # Sync jobs run on threads counted by the worker: one that cannot be stopped must not
    # keep a stopping process alive.
    threads = _JobThreads()
    asyncio.get_running_loop().set_default_executor(threads)
    await supervise(
        services,
        session=session,
        wait=wait,
        stop=stop or asyncio.Event(),
        install_signal_handlers=install_signal_handlers,
    )
    if exit_if_jobs_hang:
        _exit_if_jobs_hang(threads, code=hung_exit_code())


class _JobThreads(ThreadPoolExecutor):
    """The event loop's default executor in a worker (procrastinate runs sync tasks on
    it): it counts what runs on it, and shutting it down never waits for a running job."""

    def __init__(self) -> None:
        super().__init__(thread_name_prefix="timetrace-job")
        self._count = threading.Lock()
        self.running = 0

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        def counted() -> T:
            try:
                return fn(*args, **kwargs)
            finally:
                with self._count:
                    self.running -= 1

        with self._count:
            self.running += 1
        return super().submit(counted)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        super().shutdown(wait=False, cancel_futures=True)


def _exit_if_jobs_hang(threads: _JobThreads, *, grace_s: float = 2.0, code: int = 0) -> None:
    """At the end of a stopped worker: when a job is still running on its thread (it
    reached no checkpoint, e.g. it waits on a lock), leave the process at once instead of
    waiting for it (the event loop's teardown and interpreter exit would). Its job stays
    `doing` until a worker recovers it as stalled. The grace lets a job that is only
    slow to reach its checkpoint (a loaded machine) stop there instead. `code`: the exit
    status (what a signal that stopped the process would have given)."""
    deadline = time.monotonic() + grace_s
    while threads.running and time.monotonic() < deadline:
        time.sleep(0.05)
    if threads.running:
        logging.getLogger("timetrace.worker").warning(
            "%d job(s) did not stop; exiting without them (they are recovered as stalled)",
            threads.running,
        )
        logging.shutdown()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


async def _until_one_ends(*workers: Coroutine[Any, Any, None]) -> None:
    """Run the workers together until one of them ends (a lost database ends each);
    then stop the others gracefully, and raise what ended the first, if anything."""
    tasks = [asyncio.ensure_future(worker) for worker in workers]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()  # procrastinate stops gracefully: running jobs finish
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
    for task in done:
        error = None if task.cancelled() else task.exception()
        if error is not None:
            raise error
