"""Scraps a tiny model writes (`{`, `][`, `{{12:57,25}}`, an emoji, the prompt's own
header) never pass the quality gate as a title, a summary or a narrative: each is refused
with a reason, and real titles and summaries pass."""

from __future__ import annotations

import pytest

from app.enrich.failures import reason_kind
from app.enrich.quality import Scrap, scrap_problems
from app.text import Language

HEADER = "Episode 2003-03-12 09:00–09:40 UTC (40 min) on laptop. Category by time: work."
NARRATIVE_HEADER = 'day 2003-03-12\n\nMETRICS\nhours by category: {"work": 2.5}'
SCRAPS = ["{", "][", "{{12:57,25}}", "{{36},{", " \n\t ", "🙂", HEADER, NARRATIVE_HEADER]
WHATS: list[Scrap] = ["title", "summary", "narrative"]
LANGUAGES: list[Language] = ["en", "zh"]


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
