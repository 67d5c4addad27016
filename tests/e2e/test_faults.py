"""Faults of the database itself, on a PostgreSQL server of this module's own (stopped,
restarted, its log and files read): a restart under a running `serve --worker` and
`timetrace worker`, de-duplicated jobs that write no ERROR to the server log, and
`timetrace compact` leaving no erased text in the table files."""

from __future__ import annotations

import asyncio
import itertools
import socket
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

from app.cli import main
from app.db.connection import connect, drop_database, ensure_database
from app.ingest.records import RecordBatch, delete_records, ingest_batch
from app.job_requests import build_job
from app.jobs import WORKERS_PER_PROCESS, jobs_app, worker_connector
from app.jobs.maintenance import remove_old_jobs
from app.pyramid.build import backfill
from app.runtime.auth import hash_token, new_token
from app.runtime.services import migrate_url, open_services
from app.settings import Settings
from tests.faults import (
    FAST_WORKER,
    PrivateServer,
    private_server,
    reaped,
    spawn,
    timetrace_env,
    wait_for,
)

_names = itertools.count()
SHANGHAI = "Asia/Shanghai"


@pytest.fixture(scope="module")
def server() -> Iterator[PrivateServer]:
    with private_server() as private:
        yield private


@pytest.fixture
def private_db(server: PrivateServer, tmp_path: Path) -> Iterator[Settings]:
    """A migrated database on the private server, and settings that point at it."""
    name = f"tt_private_{next(_names)}"
    ensure_database(server.admin_url, database=name)
    settings = Settings(_env_file=None, database_url=server.url(name), data_dir=tmp_path)
    migrate_url(server.url(name), settings=settings)
    yield settings
    drop_database(server.admin_url, database=name)


def records(prefix: str, start: datetime, count: int, **fields: Any) -> list[dict[str, Any]]:
    """`count` one-minute records from `start`, then a locked screen that closes them."""
    out = [
        {
            "client_record_id": f"{prefix}{i}",
            "ts_start": (start + timedelta(minutes=i)).isoformat(),
            "ts_end": (start + timedelta(minutes=i + 1)).isoformat(),
            "app": "Code",
            "window_title": f"main.py — {prefix}",
            **fields,
        }
        for i in range(count)
    ]
    end = start + timedelta(minutes=count)
    out.append(
        {
            "client_record_id": f"{prefix}-lock",
            "ts_start": end.isoformat(),
            "ts_end": (end + timedelta(minutes=30)).isoformat(),
            "app": "loginwindow",
            "is_idle": True,
        }
    )
    return out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_deduplicated_jobs_write_no_error_to_the_server_log(
    server: PrivateServer, private_db: Settings
) -> None:
    url = private_db.database_url
    assert url is not None
    before = len(server.error_lines())
    with open_services(private_db, url=url, auto_migrate=False) as services:
        job = build_job(1, "laptop")
        assert services.store.defer([job]) == 1
        assert services.store.defer([job, job]) == 0  # already waiting: skipped, no error

        async def retries_and_ticks() -> dict[str, int]:
            manager = jobs_app.job_manager
            with jobs_app.replace_connector(worker_connector(url, settings=private_db)):
                async with jobs_app.open_async():
                    worker_id = await manager.register_worker()
                    running = await manager.fetch_job(queues=None, worker_id=worker_id)
                    assert running is not None and running.queueing_lock == job.queueing_lock
                    # A twin waits while it runs; it fails and procrastinate retries it.
                    assert services.store.defer([job]) == 1
                    await manager.retry_job(running)
                    # Two ticks of a periodic task while the first one's job still waits.
                    for timestamp in (60, 120):
                        tick = remove_old_jobs.configure(task_kwargs={"timestamp": timestamp})
                        await manager.defer_periodic_job(
                            job=tick.job, periodic_id="", defer_timestamp=timestamp
                        )
                    jobs = await manager.list_jobs_async()
                    return dict(Counter(str(j.status) for j in jobs))

        statuses = asyncio.run(retries_and_ticks())
    # The retried job left the work to its twin; one periodic job waits, not two.
    assert statuses == {"aborted": 1, "todo": 2}
    assert server.error_lines()[before:] == []
    with connect(url, settings=private_db) as conn, pytest.raises(Exception, match="division"):
        conn.execute("SELECT 1 / 0")
    assert len(server.error_lines()) == before + 1  # the log is read where errors go


@pytest.mark.slow
def test_compact_leaves_no_deleted_text_in_the_table_files(
    server: PrivateServer, private_db: Settings
) -> None:
    marker = "ZQXJ密语7781"
    url = private_db.database_url
    assert url is not None
    with open_services(private_db, url=url, auto_migrate=False) as services:
        user = services.store.ensure_user(name="me", time_zone=SHANGHAI, day_cut_hour=4)
        services.store.add_device(user_id=user.user_id, device_id="laptop", name="", kind="laptop")
        start = datetime(2003, 3, 12, 1, tzinfo=UTC)
        batch = records("m", start, 40, window_title=f"{marker} — secret plan")
        ingest_batch(
            services.store,
            user=user,
            batch=RecordBatch.model_validate({"device_id": "laptop", "records": batch}),
            rules=services.rules,
        )
        now = datetime(2026, 11, 30, tzinfo=UTC)
        backfill(services.store, now=now, settings=services.settings)
        with connect(url, settings=private_db, autocommit=True) as conn:
            conn.execute("ANALYZE")  # column statistics quote values too
            conn.execute("CHECKPOINT")
            dbdir = (
                server.pgdata
                / "base"
                / str(
                    conn.execute(
                        "SELECT oid FROM pg_database WHERE datname = current_database()"
                    ).fetchone()["oid"]
                )
            )
        assert _files_holding(dbdir, marker)  # the scan finds the text where it is
        delete_records(services.store, user=user, ts_from=start, ts_to=start + timedelta(hours=1))
        backfill(services.store, now=now, settings=services.settings)
    result = CliRunner().invoke(
        main, ["compact"], env={"TIMETRACE_DATABASE_URL": url}, catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert "records" in result.output and "checkpoint" in result.output
    assert _files_holding(dbdir, marker) == []


def _files_holding(directory: Path, text: str) -> list[str]:
    needle = text.encode()
    return [p.name for p in directory.iterdir() if p.is_file() and needle in p.read_bytes()]


@pytest.mark.slow
def test_a_postgres_restart_under_serve_and_worker_loses_nothing_and_needs_no_hand(
    server: PrivateServer, private_db: Settings, tmp_path: Path
) -> None:
    url = private_db.database_url
    assert url is not None
    token = new_token()
    with open_services(private_db, url=url, auto_migrate=False) as services:
        user = services.store.ensure_user(name="me", time_zone=SHANGHAI, day_cut_hour=4)
        services.store.add_token(user_id=user.user_id, token_hash=hash_token(token), name="t")
        services.store.add_device(user_id=user.user_id, device_id="laptop", name="", kind="laptop")
    port = free_port()
    env = timetrace_env(url, tmp_path, TIMETRACE_WORKER_GIVE_UP_S="30", **FAST_WORKER)
    log = tmp_path / "processes.log"
    api = spawn(["serve", "--worker", "--port", str(port)], env, log)
    worker = spawn(["worker"], env, log)
    base = f"http://127.0.0.1:{port}"
    auth = {"Authorization": f"Bearer {token}"}

    def post(prefix: str, start: datetime) -> httpx.Response:
        body = {"device_id": "laptop", "records": records(prefix, start, 20)}
        return httpx.post(f"{base}/api/v1/records", json=body, headers=auth, timeout=30)

    def in_episodes(prefix: str) -> int:
        with connect(url, settings=private_db) as conn:
            row = conn.execute(
                "SELECT count(*) AS n FROM v_record_episodes WHERE client_record_id LIKE %s "
                "AND episode_id IS NOT NULL",
                [f"{prefix}%"],
            ).fetchone()
            return int(row["n"])

    started = time.monotonic()
    with reaped([api, worker]):
        assert wait_for(lambda: _answers(f"{base}/healthz"), timeout=60, interval=0.2)
        print(f"serving {time.monotonic() - started:.1f} s after the start")
        assert post("before", datetime(2003, 3, 12, 1, tzinfo=UTC)).status_code == 200
        assert wait_for(lambda: in_episodes("before") == 21, timeout=60, interval=0.2)
        # Down for a request's wait for a connection and 2 s more: well inside the 30 s
        # after which the workers would give up.
        server.stop()
        stopped = time.monotonic()
        down = post("down", datetime(2003, 3, 13, 1, tzinfo=UTC))
        print(f"503 after {time.monotonic() - stopped:.1f} s")
        assert down.status_code == 503 and down.headers["Retry-After"] == "2"  # never a 500
        time.sleep(2)
        server.start()
        restarted = time.monotonic()
        # As a capture client does: a 503 is tried again after its Retry-After.
        after = post("after", datetime(2003, 3, 14, 1, tzinfo=UTC))
        retries = 0
        while after.status_code == 503 and retries < 10:
            time.sleep(float(after.headers["Retry-After"]))
            after, retries = post("after", datetime(2003, 3, 14, 1, tzinfo=UTC)), retries + 1
        assert after.status_code == 200, after.text
        print(f"stored {time.monotonic() - restarted:.1f} s after the restart ({retries} x 503)")
        assert wait_for(lambda: in_episodes("after") == 21, timeout=60, interval=0.2), (
            log.read_text()[-4000:]
        )
        print(f"episodes {time.monotonic() - restarted:.1f} s after the restart")
        assert api.poll() is None and worker.poll() is None
        # Both workers are back (the one inside serve and `timetrace worker`), not just one.
        assert wait_for(
            lambda: _live_workers(base) == 2 * WORKERS_PER_PROCESS, timeout=30, interval=0.2
        ), _live_workers(base)
        assert httpx.get(f"{base}/healthz", timeout=10).json()["status"] == "ok"
        # A database that stays away: both give up and exit non-zero for a supervisor.
        server.stop()
        stopped = time.monotonic()
        try:
            assert worker.wait(90) == 1
            worker_gave_up = time.monotonic() - stopped
            assert api.wait(90) == 1
        finally:
            server.start()
        print(f"both exited 1 {time.monotonic() - stopped:.1f} s after the database stopped")
        # The 30 s count from when the worker first found the database gone (its stalled-
        # job check runs every 1/3 s here), not from when procrastinate noticed, 30-60 s
        # later; nor does the worker wait for that.
        assert worker_gave_up < 50, worker_gave_up
    assert "gives up" in log.read_text()


def _live_workers(base: str) -> int:
    return int(httpx.get(f"{base}/healthz", timeout=10).json()["jobs"]["workers"])


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False
