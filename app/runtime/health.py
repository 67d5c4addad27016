"""How a running TimeTrace is doing: the database and the job queue (and the door
events its ActivityWatch door set aside). One check for `GET /healthz` and
`timetrace status`.

    report = check_health(services.store, settings=services.settings)
    report.status        # "ok" or "degraded" (/healthz answers 503 when degraded)
    report.problems      # what makes it degraded, in words
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from app.errors import DatabaseError
from app.settings import Settings
from app.store.accounts import AccountStore
from app.store.awdoor import AwSetAsideRow
from app.store.jobs import JobHealth, JobOverLimit, JobStop, JobStore, StuckUser


@dataclass(frozen=True, slots=True)
class HealthReport:
    database: str  # "ok" | "unreachable"
    jobs: JobHealth | None
    problems: list[str] = field(default_factory=list)
    over_limit: list[JobOverLimit] = field(default_factory=list)  # running past their limit
    stuck: list[StuckUser] = field(default_factory=list)  # users whose queue has not moved
    stops: list[JobStop] = field(default_factory=list)  # stopped at their limit lately
    # Door events the conversion set aside (app/awdoor/live.py), by user and reason.
    set_aside: list[AwSetAsideRow] = field(default_factory=list)

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
        for stop in self.stops:
            when = stop.stopped_at.strftime("%Y-%m-%d %H:%M:%S %Z") if stop.stopped_at else ""
            out.append(
                f"stopped   job {stop.job_id} {stop.task_name} (user {stop.user_id}) {when}: "
                f"{stop.reason}; {stop.outcome}"
            )
        for aside in self.set_aside:
            out.append(
                f"aw door   {aside.events} event(s) of user {aside.user_id} set aside: "
                f"{aside.reason}"
            )
        out.append(f"status    {self.status}")
        out += [f"          - {problem}" for problem in self.problems]
        return out

    def document(self) -> dict[str, Any]:
        """The report as JSON (no captured text: safe without a token)."""
        return {
            "status": self.status,
            "database": self.database,
            **({"jobs": self.jobs.model_dump()} if self.jobs else {}),
            **({"problems": self.problems} if self.problems else {}),
            **(
                {"over_limit": [j.model_dump() for j in self.over_limit]} if self.over_limit else {}
            ),
            **({"stuck_users": [u.model_dump() for u in self.stuck]} if self.stuck else {}),
            **(
                {"stopped_jobs": [_stop_document(stop) for stop in self.stops]}
                if self.stops
                else {}
            ),
            **(
                {"aw_set_aside": [a.model_dump() for a in self.set_aside]} if self.set_aside else {}
            ),
        }


def _stop_document(stop: JobStop) -> dict[str, Any]:
    """A stop for /healthz, which needs no token: without its reason (the device and day
    it was at are the user's business; `timetrace status` shows them)."""
    out = stop.model_dump()
    del out["reason"]
    out["stopped_at"] = stop.stopped_at.isoformat() if stop.stopped_at else None
    return out


class HealthStore(AccountStore, JobStore, Protocol):
    """Health reads the database's answer, the job queue and what the door set aside."""

    def aw_set_aside_counts(self) -> list[AwSetAsideRow]: ...


def check_health(store: HealthStore, *, settings: Settings) -> HealthReport:
    """Degraded when the database does not answer, when a job sits on a worker that
    stopped sending heartbeats, when the oldest waiting job is older than
    `health_queue_age_s` (no worker running, or one that cannot keep up), when a job runs
    past its time limit (`job_limit_s`, imports `import_limit_s`), when a user has due
    jobs but none running and none started for `health_stuck_s`, or when a job was
    stopped at its limit within that time (the stop is listed either way for a day).
    Door events set aside are listed, not a problem: the conversion goes on without them."""
    try:
        store.ping()
        jobs = store.job_health(stalled_after_s=settings.worker_stalled_s)
        over_limit = store.jobs_past_limit(
            limit_s=settings.job_limit_s, import_limit_s=settings.import_limit_s
        )
        stuck = store.stuck_users(stuck_after_s=settings.health_stuck_s)
        stops = store.recent_job_stops(since_s=86_400)
        set_aside = store.aw_set_aside_counts()
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
    for job in over_limit:
        problems.append(
            f"job {job.job_id} ({job.task_name}, user {job.user_id}) has run "
            f"{job.running_s:.0f} s, past its limit"
        )
    for user in stuck:
        problems.append(
            f"user {user.user_id}'s {user.lane} jobs have not moved for {user.still_s:.0f} s"
        )
    recent = [s for s in stops if s.stopped_at is not None and _age_s(s) <= settings.health_stuck_s]
    if recent:
        problems.append(
            f"{len(recent)} job(s) stopped at their time limit lately; the latest: job "
            f"{recent[0].job_id} ({recent[0].task_name}, user {recent[0].user_id})"
        )
    return HealthReport(
        database="ok",
        jobs=jobs,
        problems=problems,
        over_limit=over_limit,
        stuck=stuck,
        stops=stops,
        set_aside=set_aside,
    )


def _age_s(stop: JobStop) -> float:
    assert stop.stopped_at is not None
    return (datetime.now(UTC) - stop.stopped_at).total_seconds()
