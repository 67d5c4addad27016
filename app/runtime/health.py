"""How a running TimeTrace is doing: the database and the job queue. One check for
`GET /healthz` and `timetrace status`.

    report = check_health(services.store, settings=services.settings)
    report.status        # "ok" or "degraded"
    report.problems      # what makes it degraded, in words
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from app.errors import DatabaseError
from app.settings import Settings
from app.store import JobHealth, Store


@dataclass(frozen=True, slots=True)
class HealthReport:
    database: str  # "ok" | "unreachable"
    jobs: JobHealth | None
    problems: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        return "degraded" if self.problems else "ok"

    def lines(self) -> list[str]:
        """The report for a terminal."""
        out = [f"database  {self.database}"]
        if (jobs := self.jobs) is not None:
            oldest = f" (oldest {jobs.oldest_waiting_s:.0f} s)" if jobs.oldest_waiting_s else ""
            out.append(
                f"jobs      {jobs.waiting} waiting{oldest}, {jobs.running} running, "
                f"{jobs.stalled} stalled, {jobs.failed} failed; "
                f"{jobs.workers} worker{'s' if jobs.workers != 1 else ''} alive"
            )
        out.append(f"status    {self.status}")
        out += [f"          - {problem}" for problem in self.problems]
        return out

    def document(self) -> dict[str, Any]:
        """The report as JSON (no captured text: safe without a token)."""
        return {
            "status": self.status,
            "database": self.database,
            **({"jobs": asdict(self.jobs)} if self.jobs else {}),
            **({"problems": self.problems} if self.problems else {}),
        }


def check_health(store: Store, *, settings: Settings) -> HealthReport:
    """Degraded when the database does not answer, when a job sits on a worker that
    stopped sending heartbeats, or when the oldest waiting job is older than
    `health_queue_age_s` (no worker running, or one that cannot keep up)."""
    try:
        store.ping()
        jobs = store.job_health(stalled_after_s=settings.worker_stalled_s)
    except DatabaseError:
        return HealthReport(database="unreachable", jobs=None, problems=["no database"])
    problems = []
    if jobs.stalled:
        problems.append(f"{jobs.stalled} job(s) on a worker that stopped answering")
    age = jobs.oldest_waiting_s
    if age is not None and age > settings.health_queue_age_s:
        problems.append(
            f"the oldest waiting job has waited {age:.0f} s "
            f"(over {settings.health_queue_age_s:g} s): is a worker running?"
        )
    return HealthReport(database="ok", jobs=jobs, problems=problems)
