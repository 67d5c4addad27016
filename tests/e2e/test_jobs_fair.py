"""Noisy neighbours: one user's heavy day never holds every worker slot, every job runs
against a time limit, SIGTERM stops a worker under a heavy job within seconds, and
/healthz says 503 when a job runs past its limit.

The heavy day is real work: thousands of 2,000-character titles on one device-day, so
that its build takes seconds on these machines (the probe's was 72,000 titles; set
TIMETRACE_TEST_HEAVY_RECORDS to run that size)."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest

from app.db.connection import connect
from app.ingest.records import RecordBatch, ingest_batch
from app.job_requests import build_job
from app.runtime.health import check_health
from app.runtime.services import Services, open_services
from app.settings import Settings
from app.store.accounts import UserContext
from tests.faults import FAST_WORKER, reaped, spawn, timetrace_env, wait_for
from tests.helpers import TEST_HOSTS, make_api

HEAVY_RECORDS = int(os.environ.get("TIMETRACE_TEST_HEAVY_RECORDS", "9000"))
DAY = datetime(2001, 3, 5, 5, tzinfo=UTC)
_FRAGMENT = "src/app.module.py ~ 修改 a.b-c_d.e "


def long_title(i: int) -> str:
    return (f"{i} " + _FRAGMENT * 60)[:2_000]


def ingest_day(
    services: Services, user: UserContext, device_id: str, *, count: int, long: bool
) -> None:
    """`count` records over the logical day (long titles, or short ones), then a locked
    screen that closes the last sitting."""
    services.store.add_device(user_id=user.user_id, device_id=device_id, name="", kind="other")
    step = 18 * 3600 / count
    records: list[dict[str, Any]] = [
        {
            "client_record_id": f"r{i}",
            "ts_start": (DAY + timedelta(seconds=i * step)).isoformat(),
            "app": "Code",
            "window_title": long_title(i) if long else f"main.py — sitting {i // 10}",
        }
        for i in range(count)
    ]
    end = DAY + timedelta(seconds=count * step)
    records.append(
        {
            "client_record_id": "lock",
            "ts_start": end.isoformat(),
            "ts_end": (end + timedelta(hours=1)).isoformat(),
            "app": "loginwindow",
            "is_idle": True,
        }
    )
    for first in range(0, len(records), 5_000):
        batch = RecordBatch.model_validate(
            {"device_id": device_id, "records": records[first : first + 5_000]}
        )
        ingest_batch(services.store, user=user, batch=batch, rules=services.rules)


def builds(conn: Any, user_id: int) -> dict[str, int]:
    """The user's build_episodes jobs by status."""
    rows = conn.execute(
        "SELECT status::text, count(*) AS n FROM procrastinate_jobs "
        "WHERE task_name = 'build_episodes' AND (args->>'user_id')::bigint = %s GROUP BY 1",
        [user_id],
    )
    return {r["status"]: r["n"] for r in rows}


def episodes_of(conn: Any, user_id: int) -> int:
    row = conn.execute("SELECT count(*) AS n FROM episodes WHERE user_id = %s", [user_id])
    return int(row.fetchone()["n"])


@pytest.fixture
def watch(db_url: str, settings: Settings) -> Iterator[Any]:
    with connect(db_url, settings=settings, autocommit=True) as conn:
        yield conn


def _an_hour_passes(conn: Any) -> None:
    """The queue as it would look an hour later: every event and turn an hour older."""
    conn.execute("UPDATE procrastinate_events SET at = at - interval '1 hour'")
    conn.execute("UPDATE job_turns SET last_started_at = last_started_at - interval '1 hour'")


def _fetch(conn: Any, worker_id: int) -> dict[str, Any] | None:
    row = conn.execute("SELECT * FROM timetrace_fetch_job(NULL, %s)", [worker_id]).fetchone()
    return dict(row) if row else None


def test_the_fetch_gives_each_user_one_slot_and_turns(services: Services, watch: Any) -> None:
    """Three builds of user 1, then one of user 2, then one more of user 1: the second
    slot goes to user 2, and once user 1's job ends the next turn is user 1's again
    (its last start is older than user 2's), never two of one user's at once."""
    services.store.defer([build_job(1, f"a{i}") for i in range(3)] + [build_job(2, "b0")])
    worker = watch.execute("INSERT INTO procrastinate_workers DEFAULT VALUES RETURNING id")
    worker_id = worker.fetchone()["id"]
    first = _fetch(watch, worker_id)
    second = _fetch(watch, worker_id)
    assert first is not None and first["args"] == {"user_id": 1, "device_id": "a0"}
    assert second is not None and second["args"] == {"user_id": 2, "device_id": "b0"}
    assert _fetch(watch, worker_id) is None  # user 1 runs one already; user 2 has no more
    watch.execute("UPDATE procrastinate_jobs SET status = 'succeeded' WHERE id = %s", [first["id"]])
    third = _fetch(watch, worker_id)
    assert third is not None and third["args"] == {"user_id": 1, "device_id": "a1"}
    # A retry scheduled for later does not hold back the jobs of its user.
    watch.execute(
        "UPDATE procrastinate_jobs SET status = 'todo', scheduled_at = now() + interval '1 hour'"
        " WHERE id = %s",
        [third["id"]],
    )
    fourth = _fetch(watch, worker_id)
    assert fourth is not None and fourth["args"] == {"user_id": 1, "device_id": "a2"}


def test_a_heavy_day_holds_one_slot_while_another_users_sitting_appears(
    services: Services, db_url: str, tmp_path: Path, watch: Any
) -> None:
    heavy = services.store.ensure_user(name="heavy", time_zone="UTC", day_cut_hour=4)
    light = services.store.ensure_user(name="light", time_zone="UTC", day_cut_hour=4)
    for device in ("pc", "laptop"):  # two builds: enough to fill both slots if allowed
        ingest_day(services, heavy, device, count=HEAVY_RECORDS // 2, long=True)
    env = timetrace_env(db_url, tmp_path, **FAST_WORKER)
    processes: list[subprocess.Popen[bytes]] = []
    with reaped(processes):
        processes.append(spawn(["worker", "--concurrency", "2"], env, tmp_path / "worker.log"))
        assert wait_for(lambda: builds(watch, heavy.user_id).get("doing") == 1, timeout=60)
        ingest_day(services, light, "phone", count=30, long=False)
        most_running = 0

        def light_done() -> bool:
            nonlocal most_running
            most_running = max(most_running, builds(watch, heavy.user_id).get("doing", 0))
            return episodes_of(watch, light.user_id) > 0

        assert wait_for(light_done, timeout=60)
        during = builds(watch, heavy.user_id)
    # The light user's sitting came through the other slot while the heavy user's first
    # build was still running and before any of its builds had finished (an order of
    # events, not a time: a loaded machine slows both users alike).
    assert during.get("doing") == 1 and "succeeded" not in during, during
    assert most_running == 1


@pytest.fixture
def heavy_services(db_url: str, tmp_path: Path) -> Iterator[Services]:
    settings = Settings(
        _env_file=None, database_url=db_url, data_dir=tmp_path, allowed_hosts=TEST_HOSTS
    )
    with open_services(settings, url=db_url, auto_migrate=False) as services:
        yield services


def _started(watch: Any, job_id: int) -> float:
    """How long ago the job last became `doing`, in seconds."""
    row = watch.execute(
        "SELECT EXTRACT(EPOCH FROM now() - max(at))::float AS s FROM procrastinate_events "
        "WHERE job_id = %s AND type = 'started'",
        [job_id],
    ).fetchone()
    return float(row["s"] or 0)


def _doing_build(watch: Any) -> int | None:
    row = watch.execute(
        "SELECT id FROM procrastinate_jobs WHERE task_name = 'build_episodes' AND status = 'doing'"
    ).fetchone()
    return None if row is None else int(row["id"])


def test_sigterm_stops_worker_and_serve_under_a_heavy_job_within_seconds(
    heavy_services: Services, db_url: str, tmp_path: Path, watch: Any
) -> None:
    """The heavy build is `doing` and half a second into its work when SIGTERM comes; each
    process exits at the build's next checkpoint, before the build ends (no episode is
    written), and the build goes back to the queue (not lost)."""
    user = heavy_services.store.ensure_user(name="heavy", time_zone="UTC", day_cut_hour=4)
    ingest_day(heavy_services, user, "pc", count=HEAVY_RECORDS, long=True)
    port = _free_port()
    commands = (["worker"], ["serve", "--worker", "--port", str(port)])
    for command in commands:
        # No grace (3 s by default): the build, a few seconds long here, is aborted at
        # its next checkpoint rather than let finish. A job that would never finish is
        # stopped too: see the blocked job of the next test.
        env = timetrace_env(
            db_url,
            tmp_path,
            **FAST_WORKER,
            TIMETRACE_JOB_STEP_S="600",
            TIMETRACE_WORKER_SHUTDOWN_S="0",
        )
        processes: list[subprocess.Popen[bytes]] = []
        with reaped(processes):
            process = spawn(command, env, tmp_path / f"{command[0]}.log")
            processes.append(process)
            assert wait_for(lambda: _doing_build(watch) is not None, timeout=60), command
            job_id = _doing_build(watch)
            assert job_id is not None
            assert wait_for(lambda j=job_id: _started(watch, j) >= 0.5, timeout=10)
            assert _doing_build(watch) == job_id  # still at work when the signal comes
            process.send_signal(signal.SIGTERM)
            # Stopped at the build's next checkpoint, not at its end (no episodes below).
            code = process.wait(60)
        log = (tmp_path / f"{command[0]}.log").read_text(errors="replace")
        # uvicorn ends by re-raising the signal it handled: 128 + SIGTERM for `serve`.
        assert code == (0 if command == ["worker"] else 128 + signal.SIGTERM), log[-2000:]
        assert "Traceback" not in log
        # Back in the queue: the job itself, or (when the sweep queued a twin meanwhile)
        # it ends `aborted` and the twin waits to do the same work.
        status = watch.execute(
            "SELECT status::text FROM procrastinate_jobs WHERE id = %s", [job_id]
        ).fetchone()["status"]
        assert status in ("todo", "aborted"), (command, status)
        assert builds(watch, user.user_id).get("todo") == 1, command
        assert episodes_of(watch, user.user_id) == 0  # it was stopped, not finished


def _status(watch: Any, job_id: int) -> str:
    row = watch.execute("SELECT status::text FROM procrastinate_jobs WHERE id = %s", [job_id])
    return str(row.fetchone()["status"])


def _build_started_after(watch: Any, moment: datetime) -> int | None:
    """A build `doing` that started after `moment` (database time)."""
    row = watch.execute(
        "SELECT j.id FROM procrastinate_jobs j WHERE j.task_name = 'build_episodes' "
        "AND j.status = 'doing' AND (SELECT max(at) FROM procrastinate_events e "
        "WHERE e.job_id = j.id AND e.type = 'started') > %s",
        [moment],
    ).fetchone()
    return None if row is None else int(row["id"])


def _stop_by_sigterm(process: subprocess.Popen[bytes], *, code: int) -> None:
    """SIGTERM stops the process with `code` (it would never stop if it waited for a
    blocked job: the wait is a deadline to give up, not a speed)."""
    process.send_signal(signal.SIGTERM)
    assert process.wait(60) == code


def _stops(watch: Any) -> int:
    return int(watch.execute("SELECT count(*) AS n FROM job_stops").fetchone()["n"])


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_job_past_its_limit_makes_health_503_and_a_stop_is_recorded(
    db_url: str, tmp_path: Path, watch: Any
) -> None:
    """A build blocked on its user's lock (held here, as a deletion would) runs past a
    1 s limit: /healthz answers 503 naming it, and SIGTERM still stops the worker.
    Released, the build is recovered and finishes. A heavy build under the same limit
    is stopped at a checkpoint, recorded with its reason, failed without a retry, and
    shown by /healthz and `timetrace status`."""
    settings = Settings(
        _env_file=None,
        database_url=db_url,
        data_dir=tmp_path,
        job_limit_s=1,
        allowed_hosts=TEST_HOSTS,
    )
    with open_services(settings, url=db_url, auto_migrate=False) as services:
        api = make_api(services, devices=())
        user = services.store.ensure_user(name="blocked", time_zone="UTC", day_cut_hour=4)
        assert api.client.get("/healthz").status_code == 200
        env = timetrace_env(db_url, tmp_path, **FAST_WORKER, TIMETRACE_JOB_LIMIT_S="1")
        processes: list[subprocess.Popen[bytes]] = []
        with (
            reaped(processes),
            psycopg.connect(db_url, autocommit=False) as holder,
        ):
            holder.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended('timetrace-records:' || %s, 0))",
                [user.user_id],
            )
            ingest_day(services, user, "pc", count=30, long=False)
            processes.append(spawn(["worker"], env, tmp_path / "worker.log"))
            assert wait_for(lambda: _doing_build(watch) is not None, timeout=60)
            job_id = _doing_build(watch)
            assert job_id is not None
            assert wait_for(lambda: _started(watch, job_id) > 1.5, timeout=10)
            assert episodes_of(watch, user.user_id) == 0  # it really waits on the lock
            reply = api.client.get("/healthz")
            assert reply.status_code == 503, reply.text
            over = reply.json()["over_limit"]
            assert [(j["job_id"], j["task_name"]) for j in over] == [(job_id, "build_episodes")]
            # SIGTERM while the job waits where no checkpoint is (it would wait forever):
            # the worker still exits, leaving the job to be recovered; so
            # does `serve --worker`, which recovers it and is caught the same way.
            _stop_by_sigterm(processes[0], code=0)
            port = str(_free_port())
            processes.append(spawn(["serve", "--worker", "--port", port], env, tmp_path / "s.log"))
            gone = watch.execute("SELECT now() AS t").fetchone()["t"]
            assert wait_for(lambda: _build_started_after(watch, gone) is not None, timeout=30)
            again = _build_started_after(watch, gone)  # recovered (or its twin): blocked again
            assert again is not None
            assert wait_for(lambda: _started(watch, again) > 1.5, timeout=10)
            assert _doing_build(watch) == again and episodes_of(watch, user.user_id) == 0
            # `serve` leaves as a signal stops it, even past a job that hangs.
            _stop_by_sigterm(processes[-1], code=128 + signal.SIGTERM)
            holder.rollback()  # the lock goes; a new worker recovers the build and ends it
            processes.append(spawn(["worker"], env, tmp_path / "worker2.log"))
            assert wait_for(lambda: episodes_of(watch, user.user_id) > 0, timeout=30)
            assert wait_for(lambda: api.client.get("/healthz").status_code == 200, timeout=10)

            heavy = services.store.ensure_user(name="heavy", time_zone="UTC", day_cut_hour=4)
            ingest_day(services, heavy, "big", count=HEAVY_RECORDS, long=True)  # seconds of work
            assert wait_for(lambda: _stops(watch) > 0, timeout=60)
            # The build or the day's rollup, whichever of them the limit caught first.
            stop = watch.execute("SELECT * FROM job_stops ORDER BY stop_id").fetchone()
            assert wait_for(lambda: _status(watch, stop["job_id"]) == "failed", timeout=10)
        assert stop["user_id"] == heavy.user_id and stop["outcome"] == "failed"
        assert stop["task_name"] in ("build_episodes", "rollup_day")
        assert stop["reason"].startswith("stopped at its 1 s limit while ")
        assert "2001-03-05" in stop["reason"]
        assert 1 <= stop["ran_s"] < 3
        attempts = watch.execute(
            "SELECT attempts FROM procrastinate_jobs WHERE id = %s", [stop["job_id"]]
        ).fetchone()["attempts"]
        assert attempts == 1  # not retried: it would only be stopped again
        reply = api.client.get("/healthz")
        assert reply.status_code == 503
        shown = reply.json()["stopped_jobs"][0]
        assert shown["job_id"] == stop["job_id"] and shown["outcome"] == "failed"
        assert "reason" not in shown and stop["reason"] not in reply.text  # no token here
        lines = check_health(services.store, settings=settings).lines()
        assert any(stop["reason"] in line for line in lines)


def test_a_user_whose_queue_has_not_moved_makes_health_degraded(
    services: Services, watch: Any
) -> None:
    """Jobs of user 7 wait with no job of theirs starting: after `health_stuck_s` the
    report names the user and the lane; once one of their jobs starts, it no longer does.
    Time passes by moving the queue's timestamps back (the check reads PostgreSQL's
    clock), not by waiting."""
    settings = services.settings.model_copy(update={"health_stuck_s": 600})
    services.store.defer([build_job(7, "pc")])
    assert check_health(services.store, settings=settings).status == "ok"
    _an_hour_passes(watch)
    report = check_health(services.store, settings=settings)
    assert [(u.user_id, u.lane) for u in report.stuck] == [(7, "main")]
    assert any("user 7's main jobs have not moved" in p for p in report.problems)
    worker = watch.execute("INSERT INTO procrastinate_workers DEFAULT VALUES RETURNING id")
    worker_id = worker.fetchone()["id"]
    services.store.defer([build_job(7, "laptop")])  # waits behind the one that starts
    started = _fetch(watch, worker_id)
    assert started is not None and started["args"] == {"user_id": 7, "device_id": "pc"}
    _an_hour_passes(watch)  # one of theirs runs: their queue moves, the other waits its turn
    assert check_health(services.store, settings=settings).stuck == []
