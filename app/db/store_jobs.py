"""The job queue's fairness and limits, as the health check and the job shells see them
(sql/queries_jobs.sql, migration 0017)."""

from __future__ import annotations

from dataclasses import asdict

from app.db.base import Queries
from app.db.queries import QUERIES
from app.store import JobOverLimit, JobStop, StuckUser


class PostgresJobLimits(Queries):
    def jobs_past_limit(self, *, limit_s: float, import_limit_s: float) -> list[JobOverLimit]:
        return self._all_as(
            JobOverLimit,
            "jobs_past_limit",
            {"limit_s": limit_s, "import_limit_s": import_limit_s},
        )

    def stuck_users(self, *, stuck_after_s: float) -> list[StuckUser]:
        return self._all_as(StuckUser, "stuck_users", {"stuck_after_s": stuck_after_s})

    def record_job_stop(self, stop: JobStop) -> None:
        params = asdict(stop)
        params.pop("stopped_at")
        with self.pool.connection() as conn:
            conn.execute(QUERIES["record_job_stop"], params)

    def recent_job_stops(self, *, since_s: float) -> list[JobStop]:
        return self._all_as(JobStop, "recent_job_stops", {"since_s": since_s})

    def prune_job_stops(self, *, older_than_s: float) -> None:
        with self.pool.connection() as conn:
            conn.execute(QUERIES["prune_job_stops"], {"older_than_s": older_than_s})
