"""The pyramid never waits for a model: model jobs run on their own queue with their
own worker slots, so a sitting closes and its day digest updates while a slow model
works through hundreds of summaries."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from app.demo.sample import generate_sample
from app.ingest.records import RecordBatch, ingest_batch
from app.job_requests import MODEL_QUEUE
from app.jobs import ALL_QUEUES, MAIN_QUEUES, jobs_app
from app.jobs.enrich import model_jobs
from app.pyramid.build import backfill
from app.runtime.services import Services
from tests.fake_openai import FakeOpenAI
from tests.faults import wait_for
from tests.helpers import NOW, ingest_sample


def test_every_task_runs_on_a_queue_the_worker_serves() -> None:
    jobs_app.perform_import_paths()
    # procrastinate's own builtin tasks are called, never deferred, by TimeTrace.
    queues = {t.queue for t in jobs_app.tasks.values() if t.queue != "builtin"}
    assert queues <= {*MAIN_QUEUES, MODEL_QUEUE} == set(ALL_QUEUES), queues
    assert MODEL_QUEUE not in MAIN_QUEUES


def _waiting_summaries(conn: Any) -> int:
    row = conn.execute(
        "SELECT count(*) AS n FROM procrastinate_jobs "
        "WHERE task_name = 'summarize_episode' AND status = 'todo'"
    ).fetchone()
    return int(row["n"])


@pytest.mark.slow
def test_a_sitting_closes_and_its_day_digest_updates_while_200_summaries_wait(
    services: Services, db_url: str, tmp_path: Path, conn: Any
) -> None:
    data = generate_sample(start=date(2003, 3, 1), days=9, seed=9)
    user = ingest_sample(services, data)
    backfill(services.store, now=NOW, settings=services.settings)
    conn.execute("DELETE FROM procrastinate_jobs")  # the backfill did the pyramid already
    services.store.defer(model_jobs(services.store, chat=True, embedding=False, vision=False))
    assert _waiting_summaries(conn) >= 200

    with FakeOpenAI() as fake:
        fake.answer_delay = 20  # a slow model: each summary holds a model slot for 20 s
        env = {
            **os.environ,
            "TIMETRACE_DATABASE_URL": db_url,
            "TIMETRACE_DATA_DIR": str(tmp_path),
            "TIMETRACE_LLM_BASE_URL": fake.url,
        }
        worker = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "worker", "--concurrency", "2"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            busy = wait_for(lambda: fake.calls["episode_summary"] > 0, timeout=30, interval=0.1)
            assert busy, "the model worker never started"  # the model queue is busy
            # A new sitting, on a day after the sample: 30 minutes of coding, then nothing.
            day = date(2003, 3, 12)
            start = datetime(2003, 3, 12, 2, 0, tzinfo=UTC)  # 10:00 in Shanghai
            records = [
                {
                    "client_record_id": f"late-{i}",
                    "ts_start": (start + timedelta(minutes=5 * i)).isoformat(),
                    "ts_end": (start + timedelta(minutes=5 * (i + 1))).isoformat(),
                    "app": "Code",
                    "window_title": "queue.py — timetrace",
                }
                for i in range(6)
            ]
            ingest_batch(
                services.store,
                user=user,
                batch=RecordBatch.model_validate({"device_id": "laptop", "records": records}),
                rules=services.rules,
            )

            def day_digest() -> Any:
                return conn.execute(
                    "SELECT d.metrics FROM digests d WHERE d.grain = 'day' "
                    "AND d.scope_key = %s AND EXISTS (SELECT 1 FROM episodes e "
                    "WHERE e.day_local = %s AND e.auto_title = %s)",
                    [day.isoformat(), day, "Visual Studio Code · queue.py — timetrace"],
                ).fetchone()

            wait_for(lambda: day_digest() is not None, timeout=60, interval=0.2)
            digest = day_digest()
            waiting = _waiting_summaries(conn)
        finally:
            worker.send_signal(signal.SIGKILL)
            worker.wait(10)
    assert digest is not None, "the day digest did not update within 60 s"
    assert digest["metrics"]["seconds_by_category"] == {"work": 1800.0}
    assert digest["metrics"]["seconds_by_app"] == {"Visual Studio Code": 1800.0}
    assert waiting >= 195  # the model worker took at most a few while the pyramid ran
