"""Crashes, as they happen: a worker and a back-fill killed with SIGKILL at random points
and started again end with exactly the pyramid of a run that was never interrupted."""

from __future__ import annotations

import random
import signal
import time
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from app.jobs import WORKERS_PER_PROCESS
from app.pyramid.build import pending_jobs
from app.runtime.services import Services
from tests.faults import (
    FAST_WORKER,
    ingest_days,
    jobs_by_status,
    kill9,
    pyramid_snapshot,
    reaped,
    spawn,
    timetrace_env,
    wait_for,
)
from tests.helpers import SampleRecipe, ingest_sample

# Two months (March and April 2003), sparse enough (a record every ~5 minutes) to build
# in seconds; as ingested, and as built by one uninterrupted back-fill.
TWO_MONTHS = SampleRecipe(start=date(2003, 3, 1), days=61, seed=11, mean_record_s=300)
TWO_MONTHS_INGESTED = replace(TWO_MONTHS, built=False)
APRIL = date(2003, 4, 1)


def uninterrupted(other_db: Callable[..., AbstractContextManager[tuple[Services, Any]]]) -> Any:
    """The pyramid of the same records built in one go, in a database of its own."""
    with other_db(TWO_MONTHS) as (_, conn):
        return pyramid_snapshot(conn)


def _newest_worker(conn: Any) -> int:
    row = conn.execute("SELECT COALESCE(max(id), 0) AS id FROM procrastinate_workers").fetchone()
    return int(row["id"])


def _running(conn: Any, *, worker_after: int) -> list[str]:
    """What the worker started last (its id is above `worker_after`) is running."""
    rows = conn.execute(
        "SELECT task_name FROM procrastinate_jobs WHERE status = 'doing' AND worker_id > %s",
        [worker_after],
    )
    return sorted(r["task_name"] for r in rows)


def _workers_alive(conn: Any) -> int:
    row = conn.execute(
        "SELECT count(*) AS n FROM procrastinate_workers "
        "WHERE last_heartbeat > now() - interval '1 second'"
    ).fetchone()
    return int(row["n"])


@pytest.mark.slow
def test_a_worker_killed_at_random_points_leaves_the_pyramid_of_an_uninterrupted_run(
    services: Services, db_url: str, conn: Any, tmp_path: Path, other_db: Any
) -> None:
    data = TWO_MONTHS.data()
    user = ingest_sample(services, replace(data, records=[]))  # the user and devices
    ingest_days(services, user, data, lambda day: day < APRIL)
    env = timetrace_env(db_url, tmp_path, **FAST_WORKER)
    log = tmp_path / "worker.log"
    rng = random.Random(20030301)
    kills: list[list[str]] = []
    workers = [spawn(["worker"], env, log)]
    before = 0
    # Kill while episodes are built, while days roll up, and while weeks and months do
    # (they run after the days); then April arrives, and the same again.
    phases = ["build_episodes"] * 3 + ["rollup_day", "rollup_period"]
    with reaped(workers):
        for index, wanted in enumerate(phases * 2):
            if index == len(phases):
                assert ingest_days(services, user, data, lambda day: day >= APRIL) > 0
            # One job at a time per user (fair fetching): a job may end during the pause
            # with none after it yet; then wait for the next one and try again.
            running: list[str] = []
            while not running:
                assert wait_for(
                    lambda t=wanted, b=before: t in _running(conn, worker_after=b),
                    timeout=90,
                    interval=0.005,
                ), (wanted, jobs_by_status(conn))
                # A period rollup runs for milliseconds: a pause as long as a build's
                # would mostly outlast it (and the few of a month can all be missed).
                time.sleep(rng.uniform(0, 0.03 if wanted != "rollup_period" else 0.004))
                running = _running(conn, worker_after=before)
            kills.append(running)
            kill9(workers[-1])
            before = _newest_worker(conn)
            workers.append(spawn(["worker"], env, log))
        # The last worker finishes the work, recovering what the last kill left.
        assert wait_for(
            lambda: set(jobs_by_status(conn)) <= {"succeeded", "aborted"},
            timeout=120,
            interval=0.1,
        ), (jobs_by_status(conn), log.read_text()[-3000:])
        assert wait_for(lambda: _workers_alive(conn) == WORKERS_PER_PROCESS, timeout=30)
        workers[-1].send_signal(signal.SIGTERM)
        assert workers[-1].wait(30) == 0
    kinds = Counter(task for running in kills for task in running)
    assert len(kills) == 10 and all(kills), kills
    assert kinds["build_episodes"] and kinds["rollup_day"] and kinds["rollup_period"], kinds
    # Nothing left for the sweep to catch: no chain of jobs was cut.
    assert pending_jobs(services.store) == []
    got = pyramid_snapshot(conn)
    assert len(got["digests"]) == 61 + 10 + 2  # days, ISO weeks 9-18, March and April
    want = uninterrupted(other_db)
    for layer in ("episodes", "members", "digests", "signals"):
        assert got[layer] == want[layer], layer


@pytest.mark.slow
@pytest.mark.preloaded(TWO_MONTHS_INGESTED)
def test_a_killed_backfill_run_again_leaves_every_week_and_month_of_an_uninterrupted_run(
    services: Services, db_url: str, conn: Any, tmp_path: Path, other_db: Any
) -> None:
    env = timetrace_env(db_url, tmp_path)
    log = tmp_path / "backfill.log"

    def digests(grain: str) -> int:
        row = conn.execute("SELECT count(*) AS n FROM digests WHERE grain = %s", [grain])
        return int(row.fetchone()["n"])

    # Killed halfway through the days (its weeks and months come at the end), then
    # again once it has begun on the weeks and months.
    first = spawn(["backfill"], env, log)
    assert wait_for(lambda: digests("day") >= 30, timeout=120, interval=0.01)
    kill9(first)
    assert digests("week") == 0 and digests("month") == 0
    second = spawn(["backfill"], env, log)
    assert wait_for(lambda: digests("week") + digests("month") >= 3, timeout=120, interval=0.005)
    kill9(second)
    third = spawn(["backfill"], env, log)
    assert third.wait(120) == 0, log.read_text()[-3000:]
    got = pyramid_snapshot(conn)
    want = uninterrupted(other_db)
    periods = {k: v for k, v in want["digests"].items() if not k.startswith("day:")}
    assert len(periods) == 12
    assert {k: v for k, v in got["digests"].items() if not k.startswith("day:")} == periods
    assert got == want
