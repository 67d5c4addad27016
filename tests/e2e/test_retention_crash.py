"""The retention job killed with SIGKILL at each of its checkpoints, as it happens: a
worker runs `apply_retention_tiers` and is held at a named point by a lock this test
takes (a real PostgreSQL lock wait, seen in `pg_stat_activity`), then killed there. A
new worker finishes the job: nothing before the saved expiry is left in any table, the
dry run taken after the crash is what the finishing run reports, and every table ends as
after a run that was never interrupted (docs/retention.md, "The job")."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from app.db.connection import connect
from app.jobs import jobs_app
from app.jobs.retention import apply_retention_tiers
from app.pyramid.retention import apply_retention
from app.runtime.services import Services
from app.settings import Settings
from app.store.accounts import UserContext
from app.store.retention import ExpiryCounts
from tests.db.test_jobs import with_app
from tests.db.test_retention import MARK, SPAN, _load, _months, _tables_holding
from tests.faults import (
    FAST_WORKER,
    jobs_by_status,
    kill9,
    reaped,
    spawn,
    timetrace_env,
    wait_for,
)
from tests.helpers import Preloaded

# What the job's log line says it removed (app/jobs/retention.py).
REPORT = re.compile(
    r"retention: (?P<records>\d+) records, (?P<analyses>\d+) analyses, "
    r"(?P<aw_events>\d+) door events, (?P<turns>\d+) conversation turns, "
    r"(?P<episodes>\d+) episode texts, (?P<digests>\d+) digest titles; "
    r"(?P<months>\d+) months dropped"
)
COUNTED = ("records", "analyses", "aw_events", "turns", "episodes", "digests")


@dataclass(frozen=True)
class Checkpoint:
    """Where the job is held: the table this test locks, in which mode, and the statement
    the job's backend then waits in (with what it must already hold)."""

    table: str
    mode: str
    waits_in: str
    holds: str | None  # a relation the waiting transaction already holds a lock on


CHECKPOINTS = {
    # The expiry is committed; the first month's drop waits for its lock on records.
    "expiry-saved": Checkpoint(
        "records", "ACCESS SHARE", "LOCK TABLE records IN ACCESS EXCLUSIVE MODE", None
    ),
    # Inside the drop of January: records locked, its analyses being deleted.
    "partition-drop": Checkpoint(
        "record_analyses", "SHARE", "DELETE FROM record_analyses", "records"
    ),
    # January and March dropped; inside the user's row deletion, February's records
    # deleted (uncommitted), the door's events next.
    "row-deletion": Checkpoint("aw_events", "SHARE", "DELETE FROM aw_events", "records_2003_02"),
}


def _setup(services: Services, conn: Any, user: UserContext) -> None:
    """Sentinels in every table raw text reaches, a keeper whose record holds February,
    the pyramid built, and 30-day tiers that drop digest titles too: after the job no
    table may hold the sentinel at all."""
    _load(services, conn, user)
    services.store.set_retention(
        user_id=user.user_id, raw_days=30, episode_days=30, keep_digest_titles=False
    )


def _waiting(conn: Any, point: Checkpoint) -> int | None:
    """The backend of the job held at `point`: waiting for a lock in its statement, in a
    transaction that already holds `point.holds` (None when not there yet)."""
    row = conn.execute(
        "SELECT a.pid FROM pg_stat_activity a WHERE a.datname = current_database()"
        " AND a.wait_event_type = 'Lock' AND strpos(a.query, %s) > 0"
        " AND (%s::text IS NULL OR EXISTS (SELECT 1 FROM pg_locks l"
        "      WHERE l.pid = a.pid AND l.granted AND l.relation = to_regclass(%s)))",
        [point.waits_in, point.holds, point.holds],
    ).fetchone()
    return None if row is None else int(row["pid"])


def _activity(conn: Any) -> list[dict[str, Any]]:
    """The database's other backends, for a failure's message."""
    return conn.execute(
        "SELECT pid, state, wait_event_type, wait_event, left(query, 120) AS query"
        " FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
    ).fetchall()


def _claim_daily_runs(conn: Any) -> None:
    """Mark the daily retention job deferred for its last and next cron times, as a
    worker's periodic deferrer marks it: a worker started within 10 minutes after 03:41
    UTC defers the day's run at once (procrastinate's `max_delay`), and that run would
    expire everything before this test's job, which then finds nothing to remove and never
    meets the locked table. The deferrer skips a time already marked."""
    (periodic,) = [
        p for p in jobs_app.periodic_registry.periodic_tasks.values()
        if p.task.name == apply_retention_tiers.name
    ]  # fmt: skip
    now, cron = datetime.now(UTC), periodic.croniter  # the deferrer's own iterator
    times = []
    for step in (cron.get_prev, cron.get_next):
        cron.set_current(start_time=now)
        times.append(step(float))
    for at in times:
        conn.execute(
            "INSERT INTO procrastinate_periodic_defers (task_name, periodic_id, defer_timestamp)"
            " VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
            [periodic.task.name, periodic.periodic_id, round(at)],
        )


def _retention_jobs(conn: Any) -> list[int]:
    row = conn.execute(
        "SELECT array_agg(id ORDER BY id) AS ids FROM procrastinate_jobs WHERE task_name = %s",
        [apply_retention_tiers.name],
    ).fetchone()
    return list(row["ids"] or [])


def _idle(conn: Any) -> bool:
    return not set(jobs_by_status(conn)) & {"todo", "doing"}


def _job_status(conn: Any, job_id: int) -> str:
    row = conn.execute("SELECT status::text AS s FROM procrastinate_jobs WHERE id = %s", [job_id])
    return str(row.fetchone()["s"])


def _left_before_expiry(conn: Any, user: UserContext) -> dict[str, int]:
    """What the user still has before the saved expiry, in every table that holds titles,
    URLs, descriptions, summaries, text or embeddings of that time."""
    t = conn.execute(
        "SELECT raw_expired_before AS raw, episodes_expired_day AS day FROM retention"
        " WHERE user_id = %s",
        [user.user_id],
    ).fetchone()
    assert t["raw"] is not None and t["day"] is not None
    q = {
        "records": "SELECT count(*) AS n FROM records WHERE user_id = %s AND ts_start < %s",
        "record_analyses": "SELECT count(*) AS n FROM record_analyses"
        " WHERE user_id = %s AND ts_start < %s",
        "aw_events": "SELECT count(*) AS n FROM aw_events WHERE user_id = %s AND ts < %s",
        "labels": "SELECT count(*) AS n FROM labels WHERE user_id = %s AND note <> ''"
        " AND touched && tstzrange(NULL, %s)",
        "conversation_turns": "SELECT count(*) AS n FROM conversation_turns"
        " WHERE user_id = %s AND reach && tstzrange(NULL, %s)",
    }
    left = {}
    for table, sql in q.items():
        left[table] = int(conn.execute(sql, [user.user_id, t["raw"]]).fetchone()["n"])
    left["episode_text"] = int(
        conn.execute(
            "SELECT count(*) AS n FROM episodes WHERE user_id = %s AND day_local < %s AND"
            " (summary IS NOT NULL OR summary_raw IS NOT NULL OR summary_embedding IS NOT NULL"
            "  OR fts IS NOT NULL OR cues <> '[]' OR tags <> '[]' OR title LIKE '%% · %%')",
            [user.user_id, t["day"]],
        ).fetchone()["n"]
    )
    left["digest_narratives"] = int(
        conn.execute(
            "SELECT count(*) AS n FROM digests WHERE user_id = %s AND period_start < %s"
            " AND narrative IS NOT NULL",
            [user.user_id, t["raw"]],
        ).fetchone()["n"]
    )
    return left


# Every table the job reads or writes; in each, the columns that say when a row was
# written (they differ between two databases whatever the job does) are left out.
END_TABLES = (
    "retention",
    "records",
    "record_analyses",
    "aw_events",
    "labels",
    "conversations",
    "conversation_turns",
    "build_marks",
    "episodes",
    "digests",
    "signals",
)


def _end_state(conn: Any) -> dict[str, Any]:
    """Every row of the tables the job touches (both databases are copies of one template
    loaded the same way: ids agree), and the months of records."""
    # A worker makes the months around today ahead of their rows; the data is older.
    ahead = f"records_{datetime.now(UTC):%Y_%m}"
    state: dict[str, Any] = {"months": [m for m in _months(conn) if m < ahead]}
    for table in END_TABLES:
        columns = [
            r["name"]
            for r in conn.execute(
                "SELECT attname AS name FROM pg_attribute WHERE attrelid = %s::regclass"
                " AND attnum > 0 AND NOT attisdropped AND attname NOT LIKE '%%\\_at'"
                " AND attname <> 'sources_through' ORDER BY attnum",
                [table],
            )
        ]
        rows = conn.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
        state[table] = sorted(repr(sorted(r.items())) for r in rows)
    return state


def _removed(counts: ExpiryCounts) -> dict[str, int]:
    return {k: getattr(counts, k) for k in COUNTED}


_UNINTERRUPTED: dict[str, Any] = {}


def _uninterrupted(
    other_db: Callable[..., AbstractContextManager[tuple[Services, Any]]],
    user: UserContext,
    now: datetime,
) -> dict[str, Any]:
    """The same database retained by one run that nobody stopped (computed once)."""
    if not _UNINTERRUPTED:
        with other_db(SPAN) as (services, conn):
            _setup(services, conn, user)
            preview = apply_retention(services.store, now=now, dry_run=True)
            report = apply_retention(services.store, now=now)
            _UNINTERRUPTED.update(
                preview=_removed(preview.removed),
                report=_removed(report.removed),
                months=[m.month for m in report.months],
                state=_end_state(conn),
            )
    return _UNINTERRUPTED


@pytest.mark.slow
@pytest.mark.preloaded(SPAN)
@pytest.mark.parametrize("where", list(CHECKPOINTS))
def test_a_retention_job_killed_at_a_checkpoint_is_finished_by_the_next_worker(
    where: str,
    services: Services,
    preloaded: Preloaded,
    conn: Any,
    db_url: str,
    settings: Settings,
    tmp_path: Path,
    other_db: Any,
) -> None:
    user, point = preloaded.user, CHECKPOINTS[where]
    _setup(services, conn, user)
    assert _tables_holding(conn, MARK), "the sentinels are stored before the job"
    _claim_daily_runs(conn)
    env = timetrace_env(db_url, tmp_path, **FAST_WORKER)
    first_log, second_log = tmp_path / "killed.log", tmp_path / "restarted.log"
    workers = [spawn(["worker"], env, first_log)]
    with reaped(workers), connect(db_url, settings=settings) as holder:
        # What loading deferred runs first: no other job may hold the lock's table.
        assert wait_for(lambda: _idle(conn), timeout=120, interval=0.05), jobs_by_status(conn)
        holder.execute(f"LOCK TABLE {point.table} IN {point.mode} MODE")
        job_id = with_app(db_url, settings, lambda: apply_retention_tiers.defer_async(timestamp=0))
        assert wait_for(lambda: _waiting(conn, point) is not None, timeout=60, interval=0.01), (
            where,
            _activity(conn),
            first_log.read_text()[-3000:],
        )
        # Held where claimed: the job is running, its expiry is committed, and (read on
        # the holder's connection, which holds its lock already) what the checkpoint says.
        backend = _waiting(conn, point)
        assert _job_status(conn, job_id) == "doing"
        assert _retention_jobs(conn) == [job_id]  # no other run expired anything first
        saved = services.store.get_retention(user_id=user.user_id)
        assert saved is not None and saved.raw_expired_before is not None
        if where == "expiry-saved":
            old = holder.execute(
                "SELECT count(*) AS n FROM records WHERE user_id = %s AND ts_start < %s",
                [user.user_id, saved.raw_expired_before],
            ).fetchone()
            assert old is not None and old["n"] > 1_000  # nothing removed yet
        months = _months(conn)
        if where == "row-deletion":
            assert "records_2003_01" not in months and "records_2003_03" not in months
        else:
            assert {"records_2003_01", "records_2003_02", "records_2003_03"} <= set(months)
        kill9(workers[0])
        holder.rollback()
        # The killed worker's transaction ends with its backend (rolled back).
        assert wait_for(
            lambda: (
                conn.execute(
                    "SELECT count(*) AS n FROM pg_stat_activity WHERE pid = %s", [backend]
                ).fetchone()["n"]
                == 0
            ),
            timeout=30,
        )
        assert _job_status(conn, job_id) == "doing"
        # What is still there before the saved expiry: the dry run counts it.
        now = datetime.now(UTC)
        preview = apply_retention(services.store, now=now, dry_run=True)
        assert preview.removed.records > 0 and preview.removed.episodes > 0
        workers.append(spawn(["worker"], env, second_log))
        assert wait_for(lambda: _job_status(conn, job_id) == "succeeded", timeout=120), (
            _job_status(conn, job_id),
            second_log.read_text()[-3000:],
        )
        assert _retention_jobs(conn) == [job_id]
    # Nothing before the expiry is left anywhere, and no table holds an expired title.
    left = _left_before_expiry(conn, user)
    assert left == dict.fromkeys(left, 0), left
    assert _tables_holding(conn, MARK) == {}
    # The finishing run reported what the dry run after the crash counted; a dry run now
    # finds nothing.
    found = REPORT.search(second_log.read_text())
    assert found is not None, second_log.read_text()[-3000:]
    assert {k: int(found[k]) for k in COUNTED} == _removed(preview.removed)
    assert int(found["months"]) == len(preview.months)
    assert _removed(
        apply_retention(services.store, now=now, dry_run=True).removed
    ) == dict.fromkeys(COUNTED, 0)
    # Every table as after a run that was never interrupted.
    clean = _uninterrupted(other_db, user, now)
    assert clean["preview"] == clean["report"]
    if where != "row-deletion":  # nothing had been removed when it was killed
        assert _removed(preview.removed) == clean["report"]
    assert clean["months"]
    got = _end_state(conn)
    for table, rows in clean["state"].items():
        assert got[table] == rows, table
