"""Each rule has one home, and every door uses it: the signal names the pages and the
answers print, the job requests and the tasks that run them, the model-work steps the
sweep and the catch-up iterate, and the deletion use case the API and the web page
share (the web rebuilds at once; both leave jobs behind)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from app import job_requests
from app.enrich.steps import MODEL_STEPS
from app.errors import DatabaseBusyError
from app.importers.writer import ImportedRecord
from app.ingest.records import delete_records, store_records
from app.jobs import jobs_app
from app.jobs.enrich import model_jobs
from app.pyramid.build import backfill
from app.runtime.services import Services
from app.signal_labels import SIGNAL_LABELS, signal_label
from app.store.accounts import UserContext
from app.store.jobs import JobRequest
from app.web.i18n import Translator
from tests.helpers import NOW

DAY = date(2003, 3, 12)
NINE = datetime(2003, 3, 12, 1, tzinfo=UTC)  # 09:00 in Shanghai


def test_a_signal_is_called_the_same_on_the_pages_and_in_the_answers() -> None:
    """The offline answers call `signal_label` (tests/test_agent_offline.py pins their
    sentences); the pages' headings are the same words, capitalized."""
    names = [*SIGNAL_LABELS, "rework:undo_storm", "rework:error_retry", "rework:repeated_edit"]
    for name in names:
        assert Translator("zh").habit(name) == signal_label(name, "zh")
        english = signal_label(name, "en")
        assert Translator("en").habit(name) == english[0].upper() + english[1:]
    assert signal_label("rework:undo_storm", "zh") == "返工（连续撤销）"
    assert signal_label("rework:undo_storm", "en") == "rework (undo storm)"
    assert signal_label("focus_block", "zh") == "专注时段"
    # A name the table lacks is shown as it is, never dropped.
    assert signal_label("new_kind:odd", "en") == "new_kind (odd)"


def _every_request() -> list[JobRequest]:
    return [
        job_requests.build_job(1, "laptop"),
        job_requests.rollup_day_job(1, DAY),
        job_requests.rollup_period_job(1, "week", "2003-W11"),
        job_requests.import_job(1, 7),
        job_requests.describe_job(1, 2),
        job_requests.summary_job(1, 3),
        job_requests.embed_job(1, 3),
        job_requests.narrative_job(1, "day", "2003-03-12"),
        job_requests.recategorize_job(1),
    ]


def test_every_job_request_names_a_task_that_runs_on_its_queue() -> None:
    jobs_app.perform_import_paths()
    for request in _every_request():
        task = jobs_app.tasks[request.task_name]
        assert task.queue == request.queue, request.task_name
        # A task's arguments are exactly what its request carries (plus the context).
        params = set(task.func.__code__.co_varnames[: task.func.__code__.co_argcount])
        assert params - {"context"} == set(request.args), request.task_name
    assert {step.task for step in MODEL_STEPS} == {
        r.task_name for r in _every_request() if r.queue == job_requests.MODEL_QUEUE
    }


class _Owed:
    """A store that owes one item of each kind of model work."""

    def pending_descriptions(self, *, limit: int) -> list[Any]:
        return [type("R", (), {"user_id": 1, "record_id": 2})()]

    def pending_summaries(self, *, limit: int) -> list[Any]:
        return [type("E", (), {"user_id": 1, "episode_id": 3})()]

    def pending_embeddings(self, *, limit: int) -> list[Any]:
        return [type("E", (), {"user_id": 1, "episode_id": 4})()]

    def pending_narratives(self, *, limit: int) -> list[Any]:
        return [type("N", (), {"user_id": 1, "grain": "day", "scope_key": "2003-03-12"})()]


def test_the_sweep_asks_for_each_step_whose_role_is_up_in_the_tables_order() -> None:
    store: Any = _Owed()
    every = model_jobs(store, chat=True, embedding=True, vision=True)
    assert [j.task_name for j in every] == [step.task for step in MODEL_STEPS]
    assert [j.queueing_lock for j in every] == [
        "describe:1:2",
        "summary:1:3",
        "embed:1:4",
        "narrative:1:2003-03-12",
    ]
    chat_only = model_jobs(store, chat=True, embedding=False, vision=False)
    assert [j.task_name for j in chat_only] == ["summarize_episode", "write_narrative"]


def _load(services: Services) -> UserContext:
    user = services.store.ensure_user(name="home", time_zone="Asia/Shanghai", day_cut_hour=4)
    services.store.add_device(user_id=user.user_id, device_id="laptop", name="", kind="laptop")
    records = [
        ImportedRecord(
            client_record_id=f"r{i}",
            ts_start=NINE + timedelta(minutes=i),
            ts_end=NINE + timedelta(minutes=i + 1),
            app="Code" if i < 10 else "Slack",
            window_title=f"window {i}",
        )
        for i in range(20)
    ]
    store_records(
        services.store, user=user, device_id="laptop", records=records, rules=services.rules
    )
    backfill(services.store, now=NOW, settings=services.settings)
    return user


def _waiting_jobs(conn: Any) -> set[tuple[str, str]]:
    rows = conn.execute(
        "SELECT task_name, queueing_lock FROM procrastinate_jobs WHERE status = 'todo'"
    ).fetchall()
    return {(r["task_name"], r["queueing_lock"]) for r in rows}


def _episode_count(conn: Any, user: UserContext) -> int:
    row = conn.execute(
        "SELECT count(*) AS n FROM episodes WHERE user_id = %s", [user.user_id]
    ).fetchone()
    return int(row["n"])


@pytest.mark.parametrize("rebuild_fails", [False, True])
def test_deleting_with_rebuild_now_rebuilds_before_returning_and_leaves_jobs_anyway(
    services: Services, conn: Any, rebuild_fails: bool
) -> None:
    user = _load(services)
    assert _episode_count(conn, user) > 0
    conn.execute("DELETE FROM procrastinate_jobs")
    rebuilt: list[Sequence[tuple[str, date]]] = []
    ctx = services.tool_context(user=user, now=NOW)

    def rebuild_now(
        *, user: UserContext, device_days: Sequence[tuple[str, date]], now: datetime
    ) -> None:
        rebuilt.append(device_days)
        if rebuild_fails:
            raise DatabaseBusyError("the database is busy")
        ctx.rebuild(user=user, device_days=device_days, now=now)

    deleted = delete_records(
        services.store,
        user=user,
        ts_from=NINE,
        ts_to=NINE + timedelta(minutes=10),
        rebuild_now=rebuild_now,
    )
    assert deleted == 10
    assert rebuilt == [[("laptop", DAY)]]
    # Rebuilt at once: the Slack sitting is an episode again; failed: none until the jobs.
    assert _episode_count(conn, user) == (0 if rebuild_fails else 1)
    uid = user.user_id
    assert _waiting_jobs(conn) >= {
        ("build_episodes", f"build:{uid}:laptop"),
        ("rollup_day", f"rollup:{uid}:2003-03-12"),
    }


def test_deleting_without_rebuild_now_only_asks_for_jobs(services: Services, conn: Any) -> None:
    user = _load(services)
    conn.execute("DELETE FROM procrastinate_jobs")
    assert (
        delete_records(services.store, user=user, ts_from=NINE, ts_to=NINE + timedelta(minutes=10))
        == 10
    )
    assert _episode_count(conn, user) == 0  # the deletion dropped the day's episodes
    assert ("build_episodes", f"build:{user.user_id}:laptop") in _waiting_jobs(conn)
