"""Keeping the worker alive.

    await supervise(services, session=run_one_worker, wait=True, stop=asyncio.Event())

- Jobs of a dead worker: while a session runs, every third of `worker_stalled_s` the
  jobs left `doing` by a worker that stopped sending heartbeats (killed mid-job) go
  back to the queue, each exactly once (`Store.recover_stalled_jobs`).
- The database going away (a restart, a dropped connection) ends procrastinate's worker
  ("side task failed … stopping worker"). The session is started again once the
  database answers, with backoff from 1 s to 30 s. When it has not answered for
  `worker_give_up_s`, counted from when the stalled-job recovery first found it gone
  (procrastinate notices a lost database tens of seconds later, if at all before),
  `WorkerGaveUpError` is raised, whether the session has ended yet or not, so that the
  process exits non-zero and a supervisor (systemd, compose) restarts it.
- SIGINT/SIGTERM (when asked to handle them) stop the worker: nothing new starts,
  running jobs get `worker_shutdown_s`, then are asked to abort at their next
  checkpoint and go back to the queue (app/jobs/limits.py). The session is waited for
  `STOP_GRACE_S` more at most: a job that reaches no checkpoint is left behind (see
  `run_worker`'s exit_if_jobs_hang), so a stop takes seconds whatever is running.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.errors import DatabaseError, WorkerGaveUpError

if TYPE_CHECKING:
    from app.runtime.services import Services

log = logging.getLogger("timetrace.worker")

FIRST_BACKOFF_S = 1.0
MAX_BACKOFF_S = 30.0
# A session that ran this long was healthy: a failure after it starts a new count.
HEALTHY_SESSION_S = 60.0
# After `worker_shutdown_s`, how long aborting jobs get to reach a checkpoint.
STOP_GRACE_S = 4.0


async def supervise(
    services: Services,
    *,
    session: Callable[[], Awaitable[None]],
    wait: bool,
    stop: asyncio.Event,
    install_signal_handlers: bool,
) -> None:
    settings = services.settings
    backoff = FIRST_BACKOFF_S
    with _stop_on_signals(stop) if install_signal_handlers else contextlib.nullcontext():
        while not stop.is_set():
            started = time.monotonic()
            database = _Database()
            error = await _run_session(services, session=session, stop=stop, database=database)
            if stop.is_set() or (error is None and not wait):
                return
            if isinstance(error, WorkerGaveUpError) or (not wait and error is not None):
                raise error
            if time.monotonic() - started >= HEALTHY_SESSION_S:
                backoff = FIRST_BACKOFF_S
            log.warning("the worker stopped (%s); starting it again", _describe(error))
            # Back off until the database answers; give up when it has not for too long,
            # counted from when it was first seen gone (the session notices later).
            failed_at = database.away_since or time.monotonic()
            while not stop.is_set():
                await _sleep(backoff, stop)
                backoff = min(backoff * 2, MAX_BACKOFF_S)
                try:
                    await asyncio.to_thread(services.store.ping)
                    break
                except DatabaseError as exc:
                    error = exc
                if time.monotonic() - failed_at >= settings.worker_give_up_s:
                    raise _gave_up(settings.worker_give_up_s, error)


@dataclass
class _Database:
    """Since when the stalled-job recovery has found the database away (None: it
    answered last time)."""

    away_since: float | None = None


async def _run_session(
    services: Services,
    *,
    session: Callable[[], Awaitable[None]],
    stop: asyncio.Event,
    database: _Database,
) -> BaseException | None:
    """Run one worker session with the stalled-job recovery beside it, until it ends,
    `stop` is set or the recovery gives up on the database; the exception that ended it,
    if any."""
    worker = asyncio.ensure_future(session())
    recovery = asyncio.create_task(_recover_stalled_jobs(services, database))
    stopping = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({worker, stopping, recovery}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        stop.set()  # cancelled from outside: stop gracefully, then go on cancelling
        raise
    finally:
        # The recovery first: procrastinate stops its heartbeats while its jobs wind down,
        # and they must not be taken for a dead worker's.
        for task in (recovery, stopping):
            task.cancel()
        await asyncio.gather(recovery, stopping, return_exceptions=True)
        if not worker.done():
            worker.cancel()  # procrastinate stops: running jobs get worker_shutdown_s, then abort
        # Bounded: a job that never reaches a checkpoint must not hold the stop.
        await asyncio.wait({worker}, timeout=services.settings.worker_shutdown_s + STOP_GRACE_S)
        if not worker.done():
            log.warning("a running job did not stop in time; leaving it to be recovered")
    if not recovery.cancelled():  # it ends only by giving up
        return recovery.exception()
    if not worker.done() or worker.cancelled():
        return None
    return worker.exception()


async def _recover_stalled_jobs(services: Services, database: _Database) -> None:
    """Requeue stalled jobs every third of `worker_stalled_s`; raise `WorkerGaveUpError`
    once the database has not answered for `worker_give_up_s`, counted from the start of
    the first try that failed (a try waits for a connection for up to 10 s; once the
    database is away, no longer than the give-up time left)."""
    settings = services.settings
    stalled_after_s = settings.worker_stalled_s
    give_up_s = settings.worker_give_up_s
    while True:
        tried = time.monotonic()
        left = None if database.away_since is None else database.away_since + give_up_s - tried
        try:
            recovered = await asyncio.wait_for(
                asyncio.to_thread(
                    services.store.recover_stalled_jobs, stalled_after_s=stalled_after_s
                ),
                timeout=None if left is None else max(left, 0.0),
            )
            database.away_since = None
            if recovered:
                log.warning("requeued %d job(s) of a worker that stopped answering", recovered)
        except (DatabaseError, TimeoutError) as exc:  # the session notices a lost database later
            database.away_since = database.away_since or tried
            log.info("stalled-job recovery skipped: %s", _describe(exc))
            if time.monotonic() - database.away_since >= give_up_s:
                raise _gave_up(give_up_s, exc) from exc
        await asyncio.sleep(stalled_after_s / 3)


async def _sleep(seconds: float, stop: asyncio.Event) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


def _gave_up(give_up_s: float, error: BaseException | None) -> WorkerGaveUpError:
    return WorkerGaveUpError(
        f"the database did not answer for {give_up_s:g} s; the worker gives up ({_describe(error)})"
    )


def _describe(error: BaseException | None) -> str:
    if error is None:
        return "its database connection failed"
    return getattr(error, "message", None) or f"{type(error).__name__}: {error}"


@contextlib.contextmanager
def _stop_on_signals(stop: asyncio.Event) -> Iterator[None]:
    loop = asyncio.get_running_loop()
    previous = {signum: signal.getsignal(signum) for signum in (signal.SIGINT, signal.SIGTERM)}
    for signum in previous:
        loop.add_signal_handler(signum, stop.set)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            loop.remove_signal_handler(signum)
            signal.signal(signum, handler)
