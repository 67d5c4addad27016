"""The job queue, as the store sees it: jobs enqueued through procrastinate's public API
in the transaction of the write that asks for them (episodes and digests defer their
follow-ups here), stalled jobs put back, the queue's health, and its fairness and
limits (sql/queries/jobs.sql, migration 0017). The store knows jobs only as the
`JobRequest` rows it is handed: their names and arguments, never what they do."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from psycopg_pool import ConnectionPool

from app.db.base import Queries
from app.db.connection import Connection
from app.db.queries import QUERIES
from app.store.jobs import JobRequest, JobStop

if TYPE_CHECKING:
    from procrastinate import App

# A pass requeues at most this many stalled jobs (a crash leaves one per worker slot).
_MAX_RECOVERED = 1_000


class PostgresJobStore(Queries):
    """Deferral, recovery and the queue's limits (mixed into PostgresStore)."""

    _jobs_app: App | None
    _jobs_lock: threading.Lock

    def _open_jobs(self, pool: ConnectionPool[Connection]) -> None:
        self._jobs_app = None
        self._jobs_lock = threading.Lock()

    @property
    def _jobs(self) -> App:
        """Jobs are enqueued through procrastinate's public API, on our own connection,
        so that a job is committed or rolled back with the change that asks for it. The
        App is made at the first deferral: a process that only reads (`timetrace tool`)
        never imports procrastinate."""
        with self._jobs_lock:
            if self._jobs_app is None:
                from procrastinate import App, SyncPsycopgConnector

                self._jobs_app = App(connector=SyncPsycopgConnector())
                self._jobs_app.open(self.pool)
            return self._jobs_app

    def defer(self, jobs: Sequence[JobRequest]) -> int:
        with self.pool.connection() as conn:
            return self._defer(conn, jobs)

    def _defer(self, conn: Connection, jobs: Sequence[JobRequest]) -> int:
        from procrastinate.exceptions import AlreadyEnqueued

        added = 0
        # Queueing-lock order: transactions that defer several jobs lock them in one order.
        for job in sorted(jobs, key=lambda j: j.queueing_lock or ""):
            deferrer = self._jobs.configure_task(
                job.task_name,
                queue=job.queue,
                lock=job.lock,
                queueing_lock=job.queueing_lock,
                priority=job.priority,
                connection=conn,
            )
            try:
                with conn.transaction():  # a savepoint: a waiting twin must not abort the caller
                    if job.queueing_lock is not None and self._waiting(conn, job.queueing_lock):
                        continue
                    deferrer.defer(**job.args)
            except AlreadyEnqueued:
                continue  # a twin deferred without the advisory lock won the race
            added += 1
        return added

    @staticmethod
    def _waiting(conn: Connection, queueing_lock: str) -> bool:
        """True when a job already waits under this queueing lock; it then cannot start
        before this transaction commits. The advisory lock serialises deferrals of one
        key, so a duplicate is skipped here instead of failing the unique index (an ERROR
        line in the server log for every de-duplicated job)."""
        params = {"queueing_lock": queueing_lock}
        conn.execute(QUERIES["lock_queueing_lock"], params)
        return conn.execute(QUERIES["job_waiting"], params).fetchone() is not None

    def recover_stalled_jobs(self, *, stalled_after_s: float) -> int:
        recovered = 0
        with self.pool.connection() as conn:
            while recovered < _MAX_RECOVERED:
                with conn.transaction():  # one job at a time: its row stays locked meanwhile
                    row = conn.execute(
                        QUERIES["next_stalled_job"], {"stalled_after_s": stalled_after_s}
                    ).fetchone()
                    if row is None:
                        break
                    conn.execute(
                        QUERIES["requeue_job"],
                        {
                            "job_id": row["id"],
                            "retry_at": None,
                            "priority": None,
                            "queue": None,
                            "lock": None,
                        },
                    )
                recovered += 1
        return recovered

    def record_job_stop(self, stop: JobStop) -> None:
        params = dict(stop)
        params.pop("stopped_at")
        with self.pool.connection() as conn:
            conn.execute(QUERIES["record_job_stop"], params)
