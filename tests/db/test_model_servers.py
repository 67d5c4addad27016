"""The model layer against servers as they really are: llama.cpp refusing json_schema,
Ollama ignoring it, embeddings one vector per token, small models echoing the prompt
or answering in the wrong language. Each is survived: nothing stays pending, the
breaker stays shut, garbage never replaces the deterministic title, and every
failure says why."""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import Any

import pytest
from click.testing import CliRunner

from app.cli import main
from app.demo.sample import generate_sample
from app.enrich.answers import NarrativeAnswer
from app.enrich.client import ModelClient, ModelUnavailable
from app.enrich.parsing import ModelOutputError
from app.jobs.catchup import enrich
from app.pyramid.build import backfill
from app.runtime.services import Services
from app.tools import dispatch_json
from tests.fake_openai import FakeOpenAI
from tests.helpers import NOW, ingest_sample, load_golden, with_models


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(dim=384) as server:
        yield server


def summaries_of(conn: Any) -> list[dict[str, Any]]:
    """Every episode's summary columns, in time order."""
    return list(
        conn.execute(
            "SELECT auto_title, title, summary, summary_by, summary_status, summary_reason, "
            "summary_raw, embedding_status, embedding_reason FROM episodes ORDER BY ts_start"
        )
    )


def summary_of(conn: Any, auto_title: str) -> dict[str, Any]:
    (row,) = [r for r in summaries_of(conn) if r["auto_title"] == auto_title]
    return row


def search(services: Services, user: Any, query: str) -> dict[str, Any]:
    context = services.tool_context(user=user, now=NOW)
    return dispatch_json(context, "search_episodes", {"query": query, "k": 30})


def keyword_titles(services: Services, user: Any, query: str) -> list[str]:
    """What search_episodes finds by keywords alone (no embedding endpoint)."""
    context = replace(services.tool_context(user=user, now=NOW), models=None)
    found = dispatch_json(context, "search_episodes", {"query": query, "k": 30})
    assert found["mode"] == "keyword"
    return [item["title"] for item in found["items"]]


def summary_json(title: str, summary: str, prompt: str) -> str:
    """A well-formed summary answer in the episode's own category."""
    category = re.search(r"Category by time: (\w+)", prompt)
    answer = {
        "title": title,
        "summary": summary,
        "category": category.group(1) if category else "work",
        "tags": [],
        "cues": [],
    }
    return json.dumps(answer)


def golden_with(services: Services, fake: FakeOpenAI, golden_day: dict[str, Any]) -> Any:
    api = load_golden(services, golden_day)
    services, models = with_models(services, fake)
    backfill(services.store, now=NOW, settings=services.settings)
    enrich(services.store, models, settings=services.settings, now=NOW)
    return api.user, services, models


@pytest.mark.slow
def test_a_llamacpp_like_server_leaves_nothing_pending_and_never_opens_the_breaker(
    services: Services, fake: FakeOpenAI, conn: Any, caplog: pytest.LogCaptureFixture
) -> None:
    data = generate_sample(start=date(2003, 3, 1), days=3, seed=9)
    ingest_sample(services, data)
    fake.server = "llamacpp"  # json_schema: HTTP 500 naming it
    fake.raw_newlines = True  # summaries in two paragraphs, the newline raw
    fake.max_chars = 200  # the longest answers are cut off at max_tokens
    caplog.set_level(logging.INFO, logger="timetrace")
    services, models = with_models(services, fake)
    backfill(services.store, now=NOW, settings=services.settings)
    enrich(services.store, models, settings=services.settings, now=NOW)

    statuses = {
        r["summary_status"]: r["n"]
        for r in conn.execute("SELECT summary_status, count(*) AS n FROM episodes GROUP BY 1")
    }
    assert statuses == {"done": 34, "failed": 21, "idle": 9}
    reasons = [
        r["summary_reason"]
        for r in conn.execute("SELECT summary_reason FROM episodes WHERE summary_status='failed'")
    ]
    assert set(reasons) == {"the answer was cut off at max_tokens before its JSON ended"}
    assert models.usage.breaker_openings["chat"] == 0
    assert fake.refused == 1  # the refusal is learnt once and remembered
    assert models.usage.calls["chat"] == fake.total_calls() - fake.calls["embeddings"]
    narratives = conn.execute(
        "SELECT narrative_status, narrative_reason FROM digests WHERE finalized"
    ).fetchall()
    # 3 days, 2 weeks, 1 month: each done, or failed with why (the longest are cut off too).
    assert Counter((r["narrative_status"], r["narrative_reason"]) for r in narratives) == {
        ("done", None): 4,
        ("failed", "the answer was cut off at max_tokens before its JSON ended"): 2,
    }
    fallbacks = [r.getMessage() for r in caplog.records if "from now on" in r.getMessage()]
    assert fallbacks == [
        f"{fake.url}/ (model qwen3-8b) refused response_format json_schema with HTTP 500; "
        "using json_object from now on"
    ]
    json_object = [r for r in fake.requests if r.get("response_format")]
    assert all(r["response_format"]["type"] == "json_object" for r in json_object)
    # llama.cpp compiles the schema into a grammar; long maxLength bounds would crash it.
    assert all("maxLength" not in json.dumps(r["response_format"]) for r in json_object)
    assert "JSON object `episode_summary`" in json_object[0]["messages"][0]["content"]


def test_an_ollama_like_server_that_ignores_the_schema_needs_no_retry(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any
) -> None:
    fake.server = "ollama"  # the format ignored: chatter, a fence, the JSON inside
    golden_with(services, fake, golden_day)
    rows = summaries_of(conn)
    done = [r for r in rows if r["summary_status"] == "done"]
    assert len(done) == 15 and fake.calls["episode_summary"] == 15
    assert {r["summary_status"] for r in rows} == {"done", "idle"}


def test_a_plain_outage_opens_the_breaker_but_a_capability_refusal_does_not(
    services: Services, fake: FakeOpenAI
) -> None:
    _, models = with_models(services, fake)
    messages = [{"role": "user", "content": "METRICS\nhours by category: {}\nepisodes: 0"}]
    fake.server = "llamacpp"
    models.chat_answer(messages=messages, answer=NarrativeAnswer)
    assert models.usage.breaker_openings["chat"] == 0 and models.available("chat")
    fake.fail_with = 400  # a refusal naming nothing: this item fails, the endpoint stays up
    with pytest.raises(ModelOutputError, match=r"refused the request: HTTP 400 \(.*scripted"):
        models.chat_answer(messages=messages, answer=NarrativeAnswer)
    assert models.usage.breaker_openings["chat"] == 0 and models.available("chat")
    fake.fail_with = 503
    with pytest.raises(ModelUnavailable):
        models.chat_answer(messages=messages, answer=NarrativeAnswer)
    assert models.usage.breaker_openings["chat"] == 1 and not models.available("chat")


def test_per_token_embeddings_are_mean_pooled_and_search_is_hybrid(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any
) -> None:
    fake.per_token_embeddings = True  # llama.cpp's server started without pooling
    user, services, _ = golden_with(services, fake, golden_day)
    rows = summaries_of(conn)
    assert {r["embedding_status"] for r in rows if r["summary_status"] == "done"} == {"done"}
    found = search(services, user, "回滚 rollback")
    assert found["mode"] == "hybrid" and "reason" not in found
    assert found["items"][0]["title"].startswith("iTerm2")


def test_an_embedding_that_fails_keeps_its_summary_and_search_falls_back_to_keywords(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any
) -> None:
    with FakeOpenAI(dim=576) as wrong_size:
        wrong_size.per_token_embeddings = True
        api = load_golden(services, golden_day)
        services, models = with_models(services, fake, embedding_base_url=wrong_size.url)
        backfill(services.store, now=NOW, settings=services.settings)
        enrich(services.store, models, settings=services.settings, now=NOW)
        rows = [r for r in summaries_of(conn) if r["summary_status"] != "idle"]
        assert {r["summary_status"] for r in rows} == {"done"}  # no summary lost
        assert {r["embedding_status"] for r in rows} == {"failed"}
        assert rows[0]["embedding_reason"].startswith(
            "the embedding endpoint returns 576-dimensional vectors but TIMETRACE_EMBEDDING_DIM "
            "is 384"
        )
        found = search(services, api.user, "每周同步会")
    assert found["mode"] == "keyword"
    assert found["reason"].startswith("the embedding endpoint returns 576-dimensional vectors")
    assert [i["title"] for i in found["items"]] == ["Zoom：每周同步会"]
    assert fake.calls["episode_summary"] == 15  # each summarised once, none redone


@pytest.mark.parametrize(
    ("flaw", "reason"),
    [
        ("example", "the title echoes the prompt's instructions or example"),
        ("header", "the title echoes the prompt's header"),
        ("wrong_language", "wrong language"),
    ],
)
def test_a_flawed_summary_is_never_stored_as_done(
    services: Services,
    fake: FakeOpenAI,
    golden_day: dict[str, Any],
    conn: Any,
    flaw: str,
    reason: str,
) -> None:
    if flaw == "wrong_language":
        fake.wrong_language = True
    else:
        fake.echo_title = flaw  # type: ignore[assignment]
    user, services, _ = golden_with(services, fake, golden_day)
    rows = [r for r in summaries_of(conn) if r["summary_status"] != "idle"]
    assert {r["summary_status"] for r in rows} == {"failed"}
    for row in rows:
        assert row["summary_reason"].startswith(reason), row["summary_reason"]
        assert row["summary_raw"].startswith("{") and row["title"] == row["auto_title"]
        # The flawed answer is not stored: the summary written by rule stays.
        assert row["summary_by"] == "rules" and row["summary"]
    assert fake.calls["episode_summary"] == 2 * len(rows)  # one corrected retry each
    # The deterministic title still finds each episode by keyword.
    for row in rows:
        word = row["auto_title"].split(" · ")[-1].split()[0]
        assert row["auto_title"] in keyword_titles(services, user, word), word


def test_a_summary_about_something_else_is_rejected(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any
) -> None:
    def film(name: str, prompt: str) -> str | None:
        if name != "episode_summary" or "invoice.pdf" not in prompt:
            return None
        return summary_json(
            "Watching a film", "A thrilling science fiction movie about space travel.", prompt
        )

    fake.override = film
    golden_with(services, fake, golden_day)
    row = summary_of(conn, "Preview · invoice.pdf")
    assert row["summary_status"] == "failed" and row["title"] == "Preview · invoice.pdf"
    assert row["summary_reason"] == (
        "no content word in common with the episode's window titles: it is about something else"
    )
    assert json.loads(row["summary_raw"])["title"] == "Watching a film"


def test_after_a_summary_the_deterministic_title_still_finds_its_episode(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any
) -> None:
    # A good summary that words it all differently from the deterministic title.
    fake.override = lambda name, prompt: (
        summary_json("Paying the supplier", "Checked the invoice of the supplier.", prompt)
        if name == "episode_summary" and "invoice.pdf" in prompt
        else None
    )
    user, services, _ = golden_with(services, fake, golden_day)
    row = summary_of(conn, "Preview · invoice.pdf")
    assert row["summary_status"] == "done" and row["title"] == "Paying the supplier"
    for query in ("Preview", "invoice.pdf", "supplier"):
        assert keyword_titles(services, user, query) == ["Paying the supplier"], query


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        (
            '{"narrative": "On 2026-11-30 I wrote this about the weather in a faraway land."}',
            "no content word in common with the summaries: it is about something else; "
            "numbers or dates not in METRICS or the period: ['2026-11-30']",
        ),
        ('{"narrative": "  \\n "}', "the narrative was empty"),
    ],
    ids=["about_nothing_dated_outside", "blank"],
)
def test_a_flawed_narrative_is_asked_once_more_then_fails_with_its_reason(
    services: Services,
    fake: FakeOpenAI,
    golden_day: dict[str, Any],
    conn: Any,
    answer: str,
    reason: str,
) -> None:
    fake.override = lambda name, prompt: (
        answer if name == "digest_narrative" and "day 2003-03-12" in prompt else None
    )
    golden_with(services, fake, golden_day)
    day = conn.execute(
        "SELECT narrative, narrative_status, narrative_reason, narrative_raw FROM digests "
        "WHERE scope_key = '2003-03-12'"
    ).fetchone()
    assert day["narrative"] is None and day["narrative_status"] == "failed"
    assert day["narrative_reason"] == reason
    assert day["narrative_raw"] == answer
    asked = [r for r in fake.requests if "day 2003-03-12" in json.dumps(r, ensure_ascii=False)]
    assert len(asked) == 2  # the answer and its one corrected retry


def test_status_and_get_now_say_what_waits_and_why(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any, tmp_path: Any
) -> None:
    fake.override = lambda name, prompt: (
        "not json {" if name == "episode_summary" and "invoice.pdf" in prompt else None
    )
    user, models_services, _ = golden_with(services, fake, golden_day)
    failed_id = conn.execute(
        "SELECT episode_id FROM episodes WHERE summary_status = 'failed'"
    ).fetchone()["episode_id"]
    result = CliRunner().invoke(
        main,
        ["status"],
        env={
            "TIMETRACE_DATABASE_URL": services.url,
            "TIMETRACE_DATA_DIR": str(tmp_path),
            "TIMETRACE_LLM_BASE_URL": fake.url,
        },
        catch_exceptions=False,
    )
    # Exit 1: no server answers and no worker runs here (the report is whole all the same).
    assert result.exit_code == 1 and "nothing is running" in result.output, result.output
    lines = result.output.splitlines()
    assert "  summaries: 14 done, 0 pending, 1 failed" in lines
    assert "  embeddings: 14 done, 0 pending, 0 failed" in lines
    assert "  narratives: 4 done, 0 pending, 0 failed" in lines  # 2 days, a week, a month
    model_lines = lines[lines.index("model layer") : lines.index("storage")]
    assert model_lines[-1].endswith(
        f" summary episode {failed_id}: not valid JSON (Expecting property name enclosed in "
        "double quotes at 10)"
    )
    # get_now, a week later: one short line.
    conn.execute("UPDATE episodes SET summary_status = 'pending' WHERE auto_title LIKE 'Zoom%'")
    context = models_services.tool_context(user=user, now=datetime(2003, 3, 13, tzinfo=UTC))
    assert dispatch_json(context, "get_now", {})["summaries"] == (
        "1 pending, 1 failed on 2003-03-12 (last: not valid JSON)"
    )


def test_the_raw_answer_is_stored_truncated(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any
) -> None:
    fake.override = lambda name, prompt: (
        "x" * 5000 if name == "episode_summary" and "invoice.pdf" in prompt else None
    )
    golden_with(services, fake, golden_day)
    row = summary_of(conn, "Preview · invoice.pdf")
    assert row["summary_reason"] == "no JSON object in the answer"
    assert len(row["summary_raw"]) == 2000 and row["summary_raw"].endswith("x…")


def test_the_negotiated_mode_is_remembered_per_endpoint_and_model(
    services: Services, fake: FakeOpenAI
) -> None:
    messages = [{"role": "user", "content": "METRICS\nhours by category: {}\nepisodes: 0"}]
    fake.server = "llamacpp"
    _, models = with_models(services, fake)
    for _ in range(3):
        models.chat_answer(messages=messages, answer=NarrativeAnswer)
    assert fake.refused == 1
    other = ModelClient(models.settings.model_copy(update={"llm_model": "another"}))
    other.chat_answer(messages=messages, answer=NarrativeAnswer)
    assert fake.refused == 2  # another model on the same endpoint asks for itself
