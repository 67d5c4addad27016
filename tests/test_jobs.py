"""The procrastinate app: a job deferred is run by `timetrace worker`."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from click.testing import CliRunner
from procrastinate.exceptions import AlreadyEnqueued

from app.cli import main
from app.jobs import jobs_app, worker_connector
from app.jobs.maintenance import retry_stalled_jobs
from app.settings import Settings


async def _defer(url: str, settings: Settings) -> int:
    with jobs_app.replace_connector(worker_connector(url, settings=settings)):
        async with jobs_app.open_async():
            return await retry_stalled_jobs.defer_async(timestamp=0)


async def _status(url: str, settings: Settings, job_id: int) -> str:
    with jobs_app.replace_connector(worker_connector(url, settings=settings)):
        async with jobs_app.open_async():
            jobs = await jobs_app.job_manager.list_jobs_async(id=job_id)
            return str(jobs[0].status)


def test_worker_runs_a_deferred_job(db_url: str, settings: Settings, tmp_path: Path) -> None:
    job_id = asyncio.run(_defer(db_url, settings))
    assert asyncio.run(_status(db_url, settings, job_id)) == "todo"
    result = CliRunner().invoke(
        main,
        ["worker", "--once"],
        env={"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path)},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert asyncio.run(_status(db_url, settings, job_id)) == "succeeded"


def test_queueing_lock_keeps_one_waiting_maintenance_job(db_url: str, settings: Settings) -> None:
    asyncio.run(_defer(db_url, settings))
    with pytest.raises(AlreadyEnqueued):
        asyncio.run(_defer(db_url, settings))
