"""procrastinate's job manager, on the worker's own connector. It runs named SQL, so it
lives below the seam with the rest of the storage code; the worker (`app/jobs`) installs
it. Its changes keep the queue from wedging or filling PostgreSQL's log
(sql/migrations/0006_crash_safety.sql) and take jobs fairly:

- a job put back to `todo` (a retry after an error) whose twin already waits under the
  same queueing lock ends `aborted` and leaves the work to the twin; procrastinate's own
  retry would fail on the twin's unique index and leave the job `doing` for good,
  holding its lock, so that the twin could never run;
- a periodic job whose previous run still waits is skipped before it is inserted, not
  refused by the unique index (an ERROR line in the server log every tick);
- jobs are taken fairly (`timetrace_fetch_job`, migration 0017): one running job per
  user on the pyramid's worker and one on the model worker, users in turn, so that no
  user's backlog holds every slot while others wait.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from procrastinate.jobs import Job
from procrastinate.manager import JobManager

from app.db.queries import QUERIES


class RequeueingJobManager(JobManager):
    async def fetch_job(self, queues: Iterable[str] | None, worker_id: int) -> Job | None:
        row = await self.connector.execute_query_one_async(
            query=QUERIES["fetch_job_fairly"], queues=queues, worker_id=worker_id
        )
        return None if row["id"] is None else Job.from_row(row)

    async def retry_job_by_id_async(
        self,
        job_id: int,
        retry_at: datetime.datetime,
        priority: int | None = None,
        queue: str | None = None,
        lock: str | None = None,
    ) -> None:
        await self.connector.execute_query_async(
            query=QUERIES["requeue_job"],
            job_id=job_id,
            retry_at=retry_at,
            priority=priority,
            queue=queue,
            lock=lock,
        )

    async def defer_periodic_job(
        self, job: Job, periodic_id: str, defer_timestamp: int
    ) -> int | None:
        if job.queueing_lock is not None and await self.list_jobs_async(
            queueing_lock=job.queueing_lock, status="todo"
        ):
            return None  # the previous tick's job still waits: it will do this one's work
        return await super().defer_periodic_job(job, periodic_id, defer_timestamp)
