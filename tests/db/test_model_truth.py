"""What the model layer says about itself is true: search says `hybrid` only when
the semantic side had embedded candidates, status and get_now name the models the
endpoints report (or the configured ids, marked as such), and an episode's
embedding is made as soon as its summary is, not after the whole summary queue."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

from app.enrich.failures import model_status_lines
from app.jobs import run_worker
from app.jobs.enrich import model_jobs
from app.pyramid.build import backfill
from app.runtime.services import Services
from app.tools import dispatch_json
from tests.fake_openai import FakeOpenAI
from tests.helpers import NOW, load_golden, with_models


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(dim=384) as server:
        yield server


def test_search_with_no_embedded_episode_says_keyword_and_why(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any]
) -> None:
    api = load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    with_embeddings, _ = with_models(services, fake)  # an endpoint that answers, no summaries
    ctx = with_embeddings.tool_context(user=api.user, now=NOW)
    found = dispatch_json(ctx, "search_episodes", {"query": "invoice"})
    assert fake.calls["embeddings"] == 1  # the query was embedded: the endpoint is fine
    assert found["mode"] == "keyword"
    assert found["reason"] == "no episode in range has an embedding yet: ranked by keywords"
    assert found["items"][0]["title"] == "Preview · invoice.pdf"


def test_status_and_get_now_name_the_models_the_endpoints_report(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any]
) -> None:
    api = load_golden(services, golden_day)
    configured, models = with_models(services, fake)
    lines = model_status_lines(services.store, settings=configured.settings, models=models)
    assert lines[0] == f"chat: qwen3-8b (configured; {fake.url} reports no model)"
    fake.served = ["SmolLM2-135M-Instruct"]
    served, models = with_models(services, fake)
    lines = model_status_lines(services.store, settings=served.settings, models=models)
    assert lines[0] == f"chat: SmolLM2-135M-Instruct (reported by {fake.url})"
    assert lines[1] == f"embeddings: SmolLM2-135M-Instruct (reported by {fake.url})"
    assert lines[2] == "vision: off"
    now = dispatch_json(served.tool_context(user=api.user, now=NOW), "get_now", {})
    assert now["models"] == (
        "chat SmolLM2-135M-Instruct (reported by the endpoint); "
        "embedding SmolLM2-135M-Instruct (reported by the endpoint)"
    )


def test_an_episodes_embedding_runs_right_after_its_summary(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any
) -> None:
    load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    conn.execute("DELETE FROM procrastinate_jobs")  # the backfill did the pyramid already
    services, _ = with_models(services, fake)
    waiting = model_jobs(services.store, chat=True, embedding=True, vision=False)
    summaries = [j for j in waiting if j.task_name == "summarize_episode"]
    assert len(summaries) >= 5 and len(summaries) == len(waiting)
    services.store.defer(waiting)
    asyncio.run(run_worker(services, concurrency=1, wait=False, install_signal_handlers=False))
    started = [
        (r["task_name"], r["args"].get("episode_id"))
        for r in conn.execute(
            "SELECT j.task_name, j.args FROM procrastinate_jobs j "
            "JOIN procrastinate_events e ON e.job_id = j.id AND e.type = 'started' "
            "WHERE j.task_name IN ('summarize_episode', 'embed_episode') ORDER BY e.at, e.id"
        )
    ]
    order = list(started)
    assert sum(task == "embed_episode" for task, _ in order) == len(summaries)
    # Each summary is followed at once by its own episode's embedding.
    for index, (task, episode) in enumerate(order):
        if task == "summarize_episode":
            assert order[index + 1] == ("embed_episode", episode), order
