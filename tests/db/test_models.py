"""The model layer against a scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from app.enrich.client import (
    EmbeddingDimensionError,
    ModelClient,
)
from app.jobs.catchup import enrich
from app.pyramid.build import backfill
from app.runtime.services import Services
from tests.fake_openai import FakeOpenAI
from tests.faults import wait_for
from tests.helpers import (
    NOW,
    SAMPLE_MONTH,
    Preloaded,
    SampleRecipe,
    load_golden,
    make_api,
    with_models,
)


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(dim=384) as server:
        yield server


def build_everything(services: Services, models: ModelClient) -> Any:
    backfill(services.store, now=NOW, settings=services.settings)
    return enrich(services.store, models, settings=services.settings, now=NOW)


def rows(conn: Any) -> dict[str, Any]:
    """What the model layer writes, keyed so two databases can be compared."""
    episodes = conn.execute(
        "SELECT device_id, ts_start, title, summary, summary_status, cues, tags, "
        "summary_embedding::text AS embedding FROM episodes ORDER BY device_id, ts_start"
    ).fetchall()
    digests = conn.execute(
        "SELECT grain, scope_key, metrics, narrative, narrative_status, finalized FROM digests "
        "ORDER BY grain, scope_key"
    ).fetchall()
    signals = conn.execute(
        "SELECT kind, scope, severity, metrics FROM signals ORDER BY kind, scope, ts_start"
    ).fetchall()
    return {"episodes": episodes, "digests": digests, "signals": signals}


# -- a week of sample data ------------------------------------------------------------


WEEK = SampleRecipe(start=date(2003, 3, 10), days=7, seed=9, built=False)  # ingested only


@pytest.fixture
def week(preloaded: Preloaded) -> Any:
    return preloaded.data


@pytest.fixture
def sample_month(preloaded: Preloaded) -> Any:
    return preloaded.data


@pytest.mark.slow
@pytest.mark.preloaded(SAMPLE_MONTH)  # the pyramid is built; the model layer is not
def test_every_non_idle_episode_of_the_sample_month_is_summarised_exactly_once(
    services: Services, fake: FakeOpenAI, sample_month: Any, conn: Any
) -> None:
    services, models = with_models(services, fake)
    done = build_everything(services, models)
    statuses = dict(
        conn.execute("SELECT summary_status, count(*) AS n FROM episodes GROUP BY 1").fetchall()
        and [
            (r["summary_status"], r["n"])
            for r in conn.execute("SELECT summary_status, count(*) AS n FROM episodes GROUP BY 1")
        ]
    )
    assert set(statuses) == {"done", "idle"}
    assert fake.calls["episode_summary"] == statuses["done"] == done.summaries
    # Narratives: 31 days, 6 ISO weeks touching March, 1 month, each once; embeddings once
    # per summary.
    assert fake.calls["digest_narrative"] == 31 + 6 + 1
    assert fake.calls["embeddings"] == statuses["done"]
    assert (
        conn.execute(
            "SELECT count(*) AS n FROM episodes WHERE summary_status = 'done' "
            "AND summary_embedding IS NULL"
        ).fetchone()["n"]
        == 0
    )
    assert (
        conn.execute(
            "SELECT count(*) AS n FROM digests WHERE narrative_status <> 'done'"
        ).fetchone()["n"]
        == 0
    )
    # LLM calls per day = episodes summarised + narratives; nothing else is asked.
    chat_calls = fake.total_calls() - fake.calls["embeddings"]
    assert chat_calls == statuses["done"] + 31 + 6 + 1
    assert models.usage.calls["chat"] == chat_calls
    before = fake.total_calls()
    snapshot = rows(conn)
    build_everything(services, models)
    assert fake.total_calls() == before  # re-running every job makes no extra call
    assert rows(conn) == snapshot


@pytest.mark.slow
@pytest.mark.preloaded(WEEK)
@pytest.mark.parametrize("calls_before_down", [0, 20], ids=["down-whole-build", "down-mid-build"])
def test_endpoint_down_then_up_ends_like_always_up_and_metrics_never_change(
    services: Services,
    fake: FakeOpenAI,
    week: Any,
    conn: Any,
    other_db: Any,
    calls_before_down: int,
) -> None:
    # A run with the endpoint always up, in a database of its own.
    with other_db(WEEK) as (clean, clean_conn):
        clean, clean_models = with_models(clean, fake)
        build_everything(clean, clean_models)
        always_up = rows(clean_conn)
    metrics = {(d["grain"], d["scope_key"]): d["metrics"] for d in always_up["digests"]}

    # The same data with the endpoint away for the whole build, or going away mid-build.
    services, models = with_models(services, fake)
    if calls_before_down:
        fake.stop_after = calls_before_down
    else:
        fake.stop()
    first = build_everything(services, models)
    assert first.waiting
    half = rows(conn)
    assert {(d["grain"], d["scope_key"]): d["metrics"] for d in half["digests"]} == metrics
    assert any(e["summary_status"] == "pending" for e in half["episodes"])
    assert any(e["summary_status"] == "done" for e in half["episodes"]) == bool(calls_before_down)
    calls_while_down = fake.total_calls()
    assert not build_everything(services, models).summaries  # still down: no progress, no storm
    assert fake.total_calls() == calls_while_down

    fake.start()  # back
    # Past the breakers' backoff: both roles the build calls take calls again.
    assert wait_for(lambda: models.available("chat") and models.available("embedding"), timeout=5)
    build_everything(services, models)
    assert rows(conn) == always_up


def test_a_poisoned_episode_is_marked_failed_and_blocks_nothing(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any
) -> None:
    load_golden(services, golden_day)
    fake.override = lambda name, prompt: (
        "not json {" if name == "episode_summary" and "invoice.pdf" in prompt else None
    )
    services, models = with_models(services, fake)
    build_everything(services, models)
    statuses = {
        r["title"]: r["summary_status"]
        for r in conn.execute("SELECT title, summary_status FROM episodes")
    }
    assert statuses["Preview · invoice.pdf"] == "failed"  # deterministic title kept
    assert list(statuses.values()).count("failed") == 1
    assert list(statuses.values()).count("done") == len(statuses) - 1 - list(
        statuses.values()
    ).count("idle")


def test_an_ungrounded_summary_is_retried_once_then_the_deterministic_title_stays(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any
) -> None:
    load_golden(services, golden_day)
    lying = (
        '{"title": "Steam marathon", "summary": "Played Steam all morning.", '
        '"category": "entertainment", "tags": [], "cues": []}'
    )
    fake.override = lambda name, prompt: (
        lying if name == "episode_summary" and "每周同步会" in prompt else None
    )
    services, models = with_models(services, fake)
    build_everything(services, models)
    zoom = conn.execute(
        "SELECT title, summary, summary_by, summary_status FROM episodes WHERE primary_app = 'Zoom'"
    ).fetchone()
    # The model's words are refused: the summary written by rule from the records stays.
    assert zoom["summary_status"] == "failed" and zoom["summary_by"] == "rules"
    assert "每周同步会" in zoom["summary"] and "Steam" not in zoom["summary"]
    assert zoom["title"] == "Zoom · 每周同步会"
    asked = [
        r
        for r in fake.requests
        if "每周同步会" in str(r["messages"])
        and r["response_format"]["json_schema"]["name"] == "episode_summary"
    ]
    assert len(asked) == 2  # one corrected retry


def test_cues_are_literal_and_feed_the_signals(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any
) -> None:
    load_golden(services, golden_day)
    services, models = with_models(services, fake)
    build_everything(services, models)
    cues = {
        r["title"]: r["cues"]
        for r in conn.execute("SELECT title, cues FROM episodes WHERE cues <> '[]'")
    }
    assert ["git reset --hard"] in cues.values()
    assert ["2 failed", "1 failed"] in cues.values()
    # Cues do not double-count what the frames already show.
    severities = [
        r["severity"]
        for r in conn.execute("SELECT severity FROM signals WHERE kind = 'forced_rollback'")
    ]
    assert severities == [1.0, 1.0]


def test_a_server_that_ignores_the_schema_gets_one_corrected_retry(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any
) -> None:
    load_golden(services, golden_day)

    def sloppy(name: str, prompt: str) -> str | None:
        if name == "episode_summary" and "That answer was rejected" not in prompt:
            return "Sure! Here is the summary you asked for."
        return None  # the corrected retry gets a proper answer

    fake.override = sloppy
    services, models = with_models(services, fake)
    build_everything(services, models)
    assert (
        conn.execute(
            "SELECT count(*) AS n FROM episodes WHERE summary_status = 'failed'"
        ).fetchone()["n"]
        == 0
    )
    done = conn.execute(
        "SELECT count(*) AS n FROM episodes WHERE summary_status = 'done'"
    ).fetchone()["n"]
    assert fake.calls["episode_summary"] == 2 * done


def test_an_embedding_of_another_size_is_a_clear_error(services: Services) -> None:
    with FakeOpenAI(dim=768) as wrong:
        _, models = with_models(services, wrong)
        with pytest.raises(EmbeddingDimensionError, match=r"768-dimensional.*384"):
            models.embed(["hello"])


def test_a_narrative_with_wrong_numbers_is_regenerated_then_trimmed(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any
) -> None:
    load_golden(services, golden_day)
    fake.override = lambda name, prompt: (
        '{"narrative": "A long day of ingest work. Work took 99.9 hours."}'
        if name == "digest_narrative"
        else None
    )
    services, models = with_models(services, fake)
    build_everything(services, models)
    day = conn.execute(
        "SELECT narrative, narrative_status FROM digests WHERE scope_key = '2003-03-12'"
    ).fetchone()
    assert day["narrative"] == "A long day of ingest work." and day["narrative_status"] == "done"
    asked = [
        r
        for r in fake.requests
        if r["response_format"]["json_schema"]["name"] == "digest_narrative"
        and r["messages"][1]["content"].startswith("day 2003-03-12")
    ]
    assert len(asked) == 2


def test_frames_are_described_from_the_screenshot_directory_only(
    services: Services, fake: FakeOpenAI, conn: Any, tmp_path: Path
) -> None:
    shots = tmp_path / "shots"
    shots.mkdir()
    (shots / "a.png").write_bytes(b"\x89PNG fake")
    (tmp_path / "secret.png").write_bytes(b"do not read")
    api = make_api(services)
    api.ingest(
        "laptop",
        [
            {
                "client_record_id": "s1",
                "ts_start": "2003-03-12T01:00:00Z",
                "app": "iTerm2",
                "window_title": "zsh — git reset --hard HEAD~1",
                "screenshot_ref": "a.png",
            },
            {
                "client_record_id": "s2",
                "ts_start": "2003-03-12T01:01:00Z",
                "app": "Code",
                "window_title": "x",
                "screenshot_ref": "../secret.png",
            },
        ],
    )
    services, models = with_models(services, fake, vision_base_url=fake.url, screenshot_dir=shots)
    done = enrich(services.store, models, settings=services.settings, now=NOW)
    assert done.descriptions == 2 and fake.calls["frame_description"] == 1
    rows_ = {
        r["client_record_id"]: r
        for r in conn.execute(
            "SELECT r.client_record_id, a.description, a.cues, a.model FROM record_analyses a "
            "JOIN records r USING (user_id, record_id)"
        )
    }
    assert rows_["s1"]["description"].startswith("The screen shows zsh")
    assert rows_["s1"]["cues"] == ["git reset --hard"]
    assert rows_["s2"]["description"] is None and rows_["s2"]["model"] == "unavailable:screenshot"
    image_request = fake.requests[-1]["messages"][0]["content"][1]["image_url"]["url"]
    assert image_request.startswith("data:image/png;base64,")
