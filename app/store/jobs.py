"""The job queue as the domain sees it: requests to enqueue, its health and limits."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from app.store.row import Row

JobArgs = dict[str, int | str]


class JobRequest(Row):
    """A job to enqueue; one waiting job per queueing lock, one running per lock."""

    task_name: str
    queue: str
    args: JobArgs
    queueing_lock: str | None = None
    lock: str | None = None
    priority: int = 0


class JobHealth(Row):
    """The job queue at a glance (/healthz, `timetrace status`)."""

    waiting: int  # due to run now
    oldest_waiting_s: float | None  # since the oldest of them last became due
    running: int
    stalled: int  # running on a worker that stopped sending heartbeats
    failed: int
    workers: int  # with a recent heartbeat


class JobOverLimit(Row):
    """A job still running past its time limit (app/jobs/limits.py)."""

    job_id: int
    task_name: str
    user_id: int | None
    running_s: float


class StuckUser(Row):
    """A user with jobs due in a lane ('main': the pyramid's, or 'models') none of whose
    jobs there has started for `still_s`."""

    user_id: int
    lane: str
    still_s: float


class JobStop(Row):
    """A job stopped at its time limit: what it was at, and what became of it."""

    user_id: int | None
    job_id: int
    task_name: str
    reason: str  # ids, days and seconds only: never captured text
    outcome: str  # "continued" (the rest queued) or "failed"
    ran_s: float
    limit_s: float
    stopped_at: datetime | None = None


class JobStore(Protocol):
    def defer(self, jobs: Sequence[JobRequest]) -> int:
        """Enqueue jobs; one already waiting under the same queueing lock is kept. Returns
        how many were added."""
        ...

    def recover_stalled_jobs(self, *, stalled_after_s: float) -> int:
        """Put back in the queue each job left running by a worker silent for longer than
        `stalled_after_s` (ended `aborted` instead when a twin already waits). Returns how
        many."""
        ...

    def job_health(self, *, stalled_after_s: float) -> JobHealth: ...

    def jobs_past_limit(self, *, limit_s: float, import_limit_s: float) -> list[JobOverLimit]:
        """Jobs running for longer than their limit (imports have their own)."""
        ...

    def stuck_users(self, *, stuck_after_s: float) -> list[StuckUser]: ...

    def record_job_stop(self, stop: JobStop) -> None: ...

    def recent_job_stops(self, *, since_s: float) -> list[JobStop]: ...

    def prune_job_stops(self, *, older_than_s: float) -> None: ...
