"""The job queue's health and its recovery: a job left `doing` by a dead worker goes back
to the queue exactly once, or gives way to a twin already waiting; /healthz and
`timetrace status` say degraded while a job is stalled or waits too long."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterator
from datetime import date
from typing import Any, TypeVar

import pytest
from click.testing import CliRunner

from app.api.server import serve_in_thread
from app.cli import main
from app.job_requests import build_job, rollup_day_job
from app.jobs import jobs_app, worker_connector
from app.runtime.services import Services
from tests.helpers import make_api

T = TypeVar("T")
BUILD = build_job(1, "laptop")


def with_app(services: Services, work: Callable[[], Awaitable[T]]) -> T:
    async def run() -> T:
        connector = worker_connector(services.url, settings=services.settings)
        with jobs_app.replace_connector(connector):
            async with jobs_app.open_async():
                return await work()

    return asyncio.run(run())


def start_one_job(services: Services) -> int:
    """A worker registers and takes the waiting job; its id."""

    async def take() -> int:
        worker_id = await jobs_app.job_manager.register_worker()
        job = await jobs_app.job_manager.fetch_job(queues=None, worker_id=worker_id)
        assert job is not None and job.id is not None
        return job.id

    return with_app(services, take)


def kill_workers(conn: Any) -> None:
    """What a worker killed an hour ago looks like: its heartbeat stopped then."""
    conn.execute("UPDATE procrastinate_workers SET last_heartbeat = now() - interval '1 hour'")


def statuses(conn: Any) -> dict[int, str]:
    rows = conn.execute("SELECT id, status::text FROM procrastinate_jobs ORDER BY id")
    return {r["id"]: r["status"] for r in rows}


def test_a_job_of_a_dead_worker_goes_back_to_the_queue_exactly_once(
    services: Services, conn: Any
) -> None:
    assert services.store.defer([BUILD]) == 1
    job_id = start_one_job(services)
    stalled_after_s = services.settings.worker_stalled_s
    assert services.store.recover_stalled_jobs(stalled_after_s=stalled_after_s) == 0  # alive
    kill_workers(conn)
    assert services.store.recover_stalled_jobs(stalled_after_s=stalled_after_s) == 1
    assert statuses(conn) == {job_id: "todo"}
    assert services.store.recover_stalled_jobs(stalled_after_s=stalled_after_s) == 0  # once
    attempts = conn.execute("SELECT attempts FROM procrastinate_jobs").fetchone()["attempts"]
    assert attempts == 1


def test_a_dead_workers_job_gives_way_to_a_waiting_twin_that_can_then_run(
    services: Services, conn: Any
) -> None:
    services.store.defer([BUILD])
    job_id = start_one_job(services)
    # The sweep (or an ingest) asks for the same work while it runs: a twin waits.
    assert services.store.defer([BUILD, rollup_day_job(1, date(2003, 3, 12))]) == 2
    twin = conn.execute(
        "SELECT id FROM procrastinate_jobs WHERE status = 'todo' AND task_name = %s",
        [BUILD.task_name],
    ).fetchone()["id"]
    kill_workers(conn)
    assert services.store.recover_stalled_jobs(stalled_after_s=1) == 1
    assert statuses(conn)[job_id] == "aborted" and statuses(conn)[twin] == "todo"
    # Nothing holds the twin's lock now: the next worker takes it (it outranks the rollup).
    assert start_one_job(services) == twin


@pytest.fixture
def served(services: Services) -> Iterator[str]:
    """The API on a loopback port: the server `timetrace status` looks for answers."""
    with serve_in_thread(services) as base:
        yield base


def test_healthz_and_status_say_degraded_while_a_job_is_stalled_or_waits_too_long(
    services: Services, conn: Any, served: str
) -> None:
    api = make_api(services)
    # A server answers on the port status probes, so that only the queue decides.
    base = served
    env = {"TIMETRACE_DATABASE_URL": services.url, "TIMETRACE_PORT": base.rsplit(":", 1)[1]}

    def status() -> tuple[int, dict[str, Any]]:
        result = CliRunner().invoke(main, ["status", "--json"], env=env)
        return result.exit_code, json.loads(result.output)

    ok = api.client.get("/healthz").json()
    assert ok["status"] == "ok" and ok["jobs"]["waiting"] == 0 and "problems" not in ok
    code, body = status()
    tiers = body.pop("storage")["tiers"]  # sizes of the tables, empty or not: the privacy
    assert code == 0 and set(tiers) == {"raw", "episodes", "digests"}  # page's tests check them
    assert all(isinstance(size, int) and size >= 0 for size in tiers.values())
    assert body.pop("server") == {"url": base, "answers": True}
    assert body == {"status": "ok", "database": "ok", "jobs": ok["jobs"], "nothing_running": False}
    services.store.defer([BUILD])
    conn.execute("UPDATE procrastinate_events SET at = now() - interval '2 hours'")
    late = api.client.get("/healthz").json()
    assert late["status"] == "degraded" and late["jobs"]["waiting"] == 1
    assert 7_100 < late["jobs"]["oldest_waiting_s"] < 7_300
    assert "is a worker running?" in late["problems"][0]
    start_one_job(services)
    kill_workers(conn)
    stalled = api.client.get("/healthz").json()
    assert stalled["jobs"]["stalled"] == 1 and stalled["jobs"]["workers"] == 0
    code, report = status()
    assert code == 1 and report["status"] == "degraded"
    assert "stopped answering" in report["problems"][0]
    text = CliRunner().invoke(main, ["status"], env=env)
    assert "1 stalled" in text.output and "status    degraded" in text.output
