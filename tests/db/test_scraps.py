"""Scraps a tiny model writes (`{`, `][`, `{{12:57,25}}`, an emoji, the prompt's own
header) never pass as a title, a summary or a narrative: each is refused with a
reason, and through the whole model layer the episode keeps its deterministic
title and the digest no narrative, with the reason and the raw answer stored."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from app.enrich.failures import reason_kind
from app.enrich.quality import Scrap, scrap_problems
from app.runtime.services import Services
from app.text import Language
from tests.db.test_model_servers import golden_with, summary_json
from tests.fake_openai import FakeOpenAI

HEADER = "Episode 2003-03-12 09:00–09:40 UTC (40 min) on laptop. Category by time: work."
NARRATIVE_HEADER = 'day 2003-03-12\n\nMETRICS\nhours by category: {"work": 2.5}'
SCRAPS = ["{", "][", "{{12:57,25}}", "{{36},{", " \n\t ", "🙂", HEADER, NARRATIVE_HEADER]
WHATS: list[Scrap] = ["title", "summary", "narrative"]
LANGUAGES: list[Language] = ["en", "zh"]


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(dim=384) as server:
        yield server


@pytest.mark.parametrize("scrap", SCRAPS)
@pytest.mark.parametrize("what", WHATS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_scrap_is_refused_with_a_reason(scrap: str, what: Scrap, language: Language) -> None:
    problems = scrap_problems(scrap, what=what, language=language)
    assert problems, scrap
    assert all(reason_kind(p).startswith((f"the {what}", "too few words")) for p in problems)


@pytest.mark.parametrize(
    ("text", "what", "language"),
    [
        ("Debugging the payment callback timeout", "title", "en"),
        ("调试支付回调超时", "title", "zh"),
        ("抖音：推荐 (×4)", "title", "zh"),  # short CJK titles carry their marks
        ("Zoom Meeting", "title", "zh"),  # a Latin name in a Chinese episode
        ("飞书: 日程", "title", "en"),  # a Chinese name in an English episode
        ("Reviewed invoice.pdf in Preview and filed it.", "summary", "en"),
        ("在 VS Code 里调试支付回调。", "summary", "zh"),
        ("A long day of ingest work.", "narrative", "en"),
    ],
)
def test_real_titles_and_summaries_pass(text: str, what: Scrap, language: Language) -> None:
    assert scrap_problems(text, what=what, language=language) == []


def _header_of(prompt: str) -> str:
    """The prompt's own header line, as a small model echoes it."""
    match = re.search(r"Episode \d{4}-.*", prompt) or re.search(r"day \d{4}-\S+", prompt)
    assert match is not None
    return match.group(0)


@pytest.mark.parametrize("scrap", [*SCRAPS[:6], "header"])
def test_a_scrap_never_becomes_a_summary_or_a_narrative(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any, scrap: str
) -> None:
    def answer(name: str, prompt: str) -> str | None:
        text = _header_of(prompt) if scrap == "header" else scrap
        if name == "episode_summary" and "invoice.pdf" in prompt:
            return summary_json(text, text, prompt)
        if name == "digest_narrative" and "day 2003-03-12" in prompt:
            return json.dumps({"narrative": text}, ensure_ascii=False)
        return None

    fake.override = answer
    golden_with(services, fake, golden_day)
    episode = conn.execute(
        "SELECT title, auto_title, summary, summary_status, summary_reason, summary_raw "
        "FROM episodes WHERE auto_title = 'Preview · invoice.pdf'"
    ).fetchone()
    assert episode["summary_status"] == "failed" and episode["summary"] is None
    assert episode["title"] == episode["auto_title"]
    assert episode["summary_reason"] and json.loads(episode["summary_raw"])["title"]
    day = conn.execute(
        "SELECT narrative, narrative_status, narrative_reason, narrative_raw FROM digests "
        "WHERE scope_key = '2003-03-12'"
    ).fetchone()
    assert day["narrative_status"] == "failed" and day["narrative"] is None
    assert day["narrative_reason"] and json.loads(day["narrative_raw"])["narrative"]
    # The other episodes of the day are summarised as before: the gates refuse scraps only.
    done = conn.execute(
        "SELECT count(*) AS n FROM episodes WHERE summary_status = 'done'"
    ).fetchone()["n"]
    assert done > 0
