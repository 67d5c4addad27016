"""Every job runs against a clock: a time limit after which it is stopped, and steps
after which heavy work yields its slot to other users.

    clock = JobClock.start(context, settings=settings, queue="episodes")
    with stops_recorded(store, clock, context=context, user_id=user_id):
        build(..., checkpoint=clock.at, step_over=clock.step_over)
    # clock.at("building pc 2026-06-01") raises at the limit, or when the worker stops;
    # step_over() says when a build should queue the rest as a new job and return

Python cannot stop a thread from outside, so the heavy code calls `checkpoint()` between
bounded pieces of work (a day, an episode, a detector's pass over one episode):

- past `limit_s` it raises `JobLimitReached`; the task records the stop (`job_stops`,
  shown by `timetrace status` and `/healthz`) and fails visibly, without a retry that
  would only time out again (what it finished stays: a build saves each day in its own
  transaction). Work is cut smaller before that: a build yields after `step_s` at the
  end of a day and queues the rest as a new job;
- when the worker is stopping (SIGTERM) and its grace time is over, procrastinate asks
  running jobs to abort: `checkpoint()` raises `JobAborted`, the job goes back to the
  queue at once, and the process exits within seconds.

A job that is stuck where no checkpoint is reached (waiting on a lock, say) cannot be
stopped this way; the health check reports it as running past its limit.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass

from procrastinate import JobContext, RetryStrategy
from procrastinate.exceptions import JobAborted
from procrastinate.jobs import Job
from procrastinate.retry import RetryDecision

from app.errors import TimeTraceError
from app.job_requests import IMPORT_QUEUE
from app.settings import Settings
from app.store.jobs import JobStop, JobStore

log = logging.getLogger("timetrace.worker")


class JobLimitReached(TimeTraceError):
    """The job ran past its time limit and was stopped."""


def limit_for(queue: str, *, settings: Settings) -> float:
    """The time limit of a job on this queue, in seconds."""
    return settings.import_limit_s if queue == IMPORT_QUEUE else settings.job_limit_s


@dataclass(slots=True)
class JobClock:
    context: JobContext | None
    limit_s: float
    step_s: float
    started: float
    doing: str = ""  # what the job is at, for the record of a stop (no captured text)

    @classmethod
    def start(cls, context: JobContext | None, *, settings: Settings, queue: str) -> JobClock:
        return cls(
            context=context,
            limit_s=limit_for(queue, settings=settings),
            step_s=min(settings.job_step_s, limit_for(queue, settings=settings)),
            started=time.monotonic(),
        )

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def checkpoint(self) -> None:
        """Raise when the worker is stopping or the job is past its limit."""
        if self.context is not None and self.context.should_abort():
            raise JobAborted("the worker is stopping; the job goes back to the queue")
        if self.elapsed() > self.limit_s:
            at = f" while {self.doing}" if self.doing else ""
            raise JobLimitReached(f"stopped at its {self.limit_s:g} s limit{at}")

    def at(self, doing: str) -> None:
        """A checkpoint that also says what comes next (for the record of a stop)."""
        self.doing = doing
        self.checkpoint()

    def step_over(self) -> bool:
        """True once the job has held its slot for a whole step: time to yield."""
        return self.elapsed() > self.step_s


@contextlib.contextmanager
def stops_recorded(
    store: JobStore, clock: JobClock, *, context: JobContext, user_id: int | None
) -> Iterator[None]:
    """Record a stop at the limit (`job_stops`) before it fails the job."""
    try:
        yield
    except JobLimitReached as exc:
        job = context.job
        store.record_job_stop(
            JobStop(
                user_id=user_id,
                job_id=job.id or 0,
                task_name=job.task_name,
                reason=exc.message,
                outcome="failed",
                ran_s=round(clock.elapsed(), 3),
                limit_s=clock.limit_s,
            )
        )
        log.warning("job %s (%s) %s", job.id, job.task_name, exc.message)
        raise


class BoundedRetry(RetryStrategy):
    """procrastinate's backoff, except that a job stopped at its limit is not retried
    (it would time out again; the stop is recorded instead) and a job aborted because
    the worker stopped is retried at once."""

    def get_retry_decision(self, *, exception: BaseException, job: Job) -> RetryDecision | None:
        if isinstance(exception, JobLimitReached):
            return None
        if isinstance(exception, JobAborted):
            return RetryDecision(retry_in={"seconds": 0})
        return super().get_retry_decision(exception=exception, job=job)
