"""The procrastinate app: a job deferred is run by `timetrace worker`."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from click.testing import CliRunner
from procrastinate.exceptions import AlreadyEnqueued

from app.cli import main
from app.jobs import jobs_app, worker_connector
from app.jobs.maintenance import remove_old_jobs
from app.runtime.services import Services
from app.settings import Settings
from tests.helpers import make_api

T = TypeVar("T")


def with_app(url: str, settings: Settings, work: Callable[[], Awaitable[T]]) -> T:
    """Run `work` with the procrastinate app connected to the test database."""

    async def run() -> T:
        with jobs_app.replace_connector(worker_connector(url, settings=settings)):
            async with jobs_app.open_async():
                return await work()

    return asyncio.run(run())


def run_worker_once(db_url: str, tmp_path: Path, **env: str) -> None:
    """`timetrace worker --once` against the test database; it must succeed."""
    result = CliRunner().invoke(
        main,
        ["worker", "--once"],
        env={"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path), **env},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output


def _defer(url: str, settings: Settings, task: Any = remove_old_jobs) -> int:
    return with_app(url, settings, lambda: task.defer_async(timestamp=0))


def _status(url: str, settings: Settings, job_id: int) -> str:
    async def status() -> str:
        return str((await jobs_app.job_manager.list_jobs_async(id=job_id))[0].status)

    return with_app(url, settings, status)


def test_worker_runs_a_deferred_job(db_url: str, settings: Settings, tmp_path: Path) -> None:
    job_id = _defer(db_url, settings)
    assert _status(db_url, settings, job_id) == "todo"
    run_worker_once(db_url, tmp_path)
    assert _status(db_url, settings, job_id) == "succeeded"


def test_queueing_lock_keeps_one_waiting_maintenance_job(db_url: str, settings: Settings) -> None:
    _defer(db_url, settings)
    with pytest.raises(AlreadyEnqueued):
        _defer(db_url, settings)


def test_with_the_worker_stopped_ingest_works_and_the_layers_catch_up_later(
    services: Services, db_url: str, tmp_path: Path, golden_day: dict[str, Any], conn: Any
) -> None:
    api = make_api(services, time_zone=golden_day["time_zone"])
    for device_id, records in golden_day["records"].items():
        assert api.ingest(device_id, records).status_code == 200
    assert conn.execute("SELECT count(*) AS n FROM episodes").fetchone()["n"] == 0
    waiting = conn.execute(
        "SELECT task_name, count(*) AS n FROM procrastinate_jobs WHERE status = 'todo' GROUP BY 1"
    ).fetchall()
    assert {r["task_name"]: r["n"] for r in waiting} == {"build_episodes": 3}
    run_worker_once(db_url, tmp_path)
    statuses = conn.execute(
        "SELECT task_name, status, count(*) AS n FROM procrastinate_jobs "
        "GROUP BY 1, 2 ORDER BY 1, 2"
    ).fetchall()
    assert all(r["status"] == "succeeded" for r in statuses), statuses
    assert {r["task_name"] for r in statuses} >= {"build_episodes", "rollup_day", "rollup_period"}
    day = conn.execute(
        "SELECT metrics, finalized FROM digests WHERE grain = 'day' AND scope_key = '2003-03-12'"
    ).fetchone()
    assert day["metrics"]["seconds_by_category"] == golden_day["expected_seconds"]["2003-03-12"]
    assert day["finalized"]
    week = conn.execute("SELECT metrics FROM digests WHERE scope_key = '2003-W11'").fetchone()
    assert week["metrics"]["seconds_by_category"]["work"] == 16770 + 600
    assert conn.execute("SELECT count(*) AS n FROM signals").fetchone()["n"] == 12


def test_the_sweep_finds_work_a_lost_job_left_behind(
    services: Services, conn: Any, golden_day: dict[str, Any]
) -> None:
    from app.pyramid.build import pending_jobs

    api = make_api(services, time_zone=golden_day["time_zone"])
    api.ingest("phone", golden_day["records"]["phone"])
    conn.execute("DELETE FROM procrastinate_jobs")  # the deferred build was lost
    jobs = pending_jobs(services.store)
    assert [(j.task_name, j.args) for j in jobs] == [
        ("build_episodes", {"user_id": api.user.user_id, "device_id": "phone"})
    ]
    assert services.store.defer(jobs) == 1
    assert services.store.defer(jobs) == 0  # one waiting job per device


def test_the_sweep_requeues_a_week_or_month_whose_digest_is_missing_or_older_than_its_days(
    services: Services, conn: Any, golden_day: dict[str, Any]
) -> None:
    from datetime import UTC, datetime

    from app.pyramid.build import backfill, pending_jobs

    api = make_api(services, time_zone=golden_day["time_zone"])
    for device, records in golden_day["records"].items():
        api.ingest(device, records)
    backfill(services.store, now=datetime(2026, 11, 30, tzinfo=UTC), settings=services.settings)
    conn.execute("DELETE FROM procrastinate_jobs")
    assert pending_jobs(services.store) == []  # every layer is current

    def periods_due() -> list[tuple[str, str]]:
        return [
            (j.args["grain"], j.args["key"])
            for j in pending_jobs(services.store)
            if j.task_name == "rollup_period"
        ]

    # A killed back-fill never wrote the week; then a day was rolled up again after the
    # month was: both heal from the sweep alone.
    conn.execute("DELETE FROM digests WHERE grain = 'week'")
    assert periods_due() == [("week", "2003-W11")]
    conn.execute("UPDATE digests SET updated_at = now() + interval '1 s' WHERE grain = 'day'")
    assert sorted(periods_due()) == [("month", "2003-03"), ("week", "2003-W11")]


def test_the_worker_summarises_episodes_through_the_model_sweep(
    services: Services, db_url: str, tmp_path: Path, golden_day: dict[str, Any], conn: Any
) -> None:
    from app.jobs.enrich import sweep_models
    from tests.fake_openai import FakeOpenAI

    api = make_api(services, time_zone=golden_day["time_zone"])
    for device_id, records in golden_day["records"].items():
        api.ingest(device_id, records)
    with FakeOpenAI() as fake:
        models = {"TIMETRACE_LLM_BASE_URL": fake.url, "TIMETRACE_EMBEDDING_BASE_URL": fake.url}
        run_worker_once(db_url, tmp_path, **models)  # the pyramid
        _defer(db_url, services.settings, sweep_models)
        run_worker_once(db_url, tmp_path, **models)  # the model layer
    statuses = {
        r["summary_status"]: r["n"]
        for r in conn.execute("SELECT summary_status, count(*) AS n FROM episodes GROUP BY 1")
    }
    assert statuses == {"done": 15, "idle": 3}  # E, Q, S: idle or locked
    assert fake.calls["episode_summary"] == 15
