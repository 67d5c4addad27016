"""The quality gates and the lenient parser, as pure functions: each kind of garbage a
small model produces is caught, and what a good answer looks like passes."""

from __future__ import annotations

from datetime import date

import pytest

from app.enrich.answers import NarrativeAnswer, SummaryAnswer
from app.enrich.failures import reason_kind, reason_of
from app.enrich.negotiation import grammar_schema, schema_instruction
from app.enrich.parsing import ModelOutputError, parse_answer, parse_json_object
from app.enrich.prompts import SUMMARY_SYSTEM
from app.enrich.quality import (
    AllowedNumbers,
    dates_outside,
    echo_problems,
    language_problems,
    overlap_problems,
    wrong_numbers,
)

HEADER = (
    "Episode 2026-10-29 08:57–09:30 UTC (33 min) on laptop. Category by time: work. Apps: Code."
)
LOG = "08:57:00   300s Code — ingest.py — timetrace\n09:02:00   120s iTerm2 — zsh — pytest -q"
FIXED_EN = f"{SUMMARY_SYSTEM['en']}\n{HEADER}"
FIXED_ZH = f"{SUMMARY_SYSTEM['zh']}\n{HEADER}"
SCHEMA = schema_instruction(SummaryAnswer)


@pytest.mark.parametrize(
    ("title", "fixed"),
    [
        ("Debugging the payment callback timeout", FIXED_EN),
        ("debugging the payment callback timeout.", FIXED_EN),
        ("调试 支付回调超时", FIXED_ZH),
        ("Episode 2026-10-29 08:57–09:30 UTC", FIXED_EN),
        ("Episode 2026-10-29 08:57-09:30", FIXED_EN),
        ("work", FIXED_EN),
        ("The summary of one sitting (episode) of screen activity.", f"{FIXED_EN}\n{SCHEMA}"),
    ],
)
def test_a_title_that_echoes_the_prompt_is_rejected(title: str, fixed: str) -> None:
    assert echo_problems(title, fixed=fixed, log=LOG)


@pytest.mark.parametrize("title", ["Editing ingest.py", "Code", "Running pytest on timetrace"])
def test_a_title_from_the_log_passes_even_when_the_prompt_names_it(title: str) -> None:
    assert echo_problems(title, fixed=FIXED_EN, log=LOG) == []


def test_the_answer_must_be_in_the_language_of_the_episode() -> None:
    zh_log = "09:00:00   300s 微信 — 项目群（12）\n09:05:00   60s Code — 迁移说明.md — timetrace"
    english = "The person chatted with the project group and edited the migration notes."
    assert language_problems(english, expected="zh", source=zh_log) == [
        "wrong language: the episode's text is Chinese, the answer English"
    ]
    chinese = "这个人在调试代码，反复运行测试。"
    assert language_problems(chinese, expected="en", source=LOG) == [
        "wrong language: the episode's text is English, the answer Chinese"
    ]
    # Names copied from the log say nothing about the language the answer is written in.
    assert (
        language_problems("在 Code 里编辑 ingest.py 和 迁移说明.md", expected="zh", source=zh_log)
        == []
    )
    assert (
        language_problems(
            "Read 项目群（12） in 微信 then edited 迁移说明.md", expected="en", source=zh_log
        )
        == []
    )
    assert language_problems("ingest.py timetrace", expected="zh", source=LOG) == []  # nothing own


def test_a_summary_about_something_else_shares_no_content_word() -> None:
    arxiv = "[2401.12345] Attention Is All You Need - arXiv arxiv.org"
    film = "The user watched a thrilling science fiction film about space travel."
    assert overlap_problems(film, source=arxiv, what="the episode's window titles") == [
        "no content word in common with the episode's window titles: it is about something else"
    ]
    assert overlap_problems("Reading the attention paper", source=arxiv, what="x") == []
    # Light stemming: "debugging" meets "debug"; CJK bigrams meet across punctuation.
    assert overlap_problems("Debugging the login", source="debug login.py", what="x") == []
    assert overlap_problems("调试支付回调", source="支付回调超时 — 日志", what="x") == []
    # Blank titles cannot vouch for anything: the gate fails closed.
    assert overlap_problems("anything", source="  ", what="x") == [
        "nothing to check it against: x hold no content word"
    ]


def test_numbers_in_any_form_are_checked() -> None:
    allowed = AllowedNumbers(
        hours=frozenset({5.2, 5.0}), minutes=frozenset({347.0}), counts=frozenset({17.0})
    )
    text = "Work took 20.5-hour stretches, 20.5小时 in all, undone 3 次; 5.2 hours of focus."
    assert wrong_numbers(text, allowed) == ["20.5-hour", "20.5小时", "3 次"]
    assert wrong_numbers("17 episodes, 347 minutes, 5.2h", allowed) == []
    # A number the source shows as written ("— 2 failed" in a title) may be repeated.
    assert wrong_numbers("pytest failed 2 次", allowed, literal="zsh — pytest — 2 failed") == []


def test_dates_outside_the_period_are_found_in_every_form() -> None:
    week = {"first": date(2026, 11, 23), "last": date(2026, 11, 29)}
    text = (
        "On 2026-11-24 the work began; by Nov 27th it was done. "
        "Written 2026-11-30, also 11月30日 and 30 November 2026 and 2026年12月1日."
    )
    assert dates_outside(text, **week) == [
        "2026-11-30",
        "11月30日",
        "30 November 2026",
        "2026年12月1日",
    ]
    assert dates_outside("周二（11月24日）和 November 29 都很忙", **week) == []
    # A year-end week: a date without a year takes either of the period's years.
    assert dates_outside("Dec 31 and Jan 2", first=date(2026, 12, 28), last=date(2027, 1, 3)) == []


def test_raw_newlines_fences_and_trailing_text_are_read() -> None:
    raw = 'Sure!\n```json\n{"narrative": "Line one.\nLine two."}\n```\nAnything else?'
    assert parse_answer(raw, answer=NarrativeAnswer).narrative == "Line one.\nLine two."
    assert parse_json_object('{"a": 1} and then {"b": 2}') == {"a": 1}
    assert parse_json_object('<think>{not json}</think> {"a": 2}') == {"a": 2}
    with pytest.raises(ModelOutputError, match="cut off at max_tokens"):
        parse_json_object('{"title": "Edit', cut_off=True)
    with pytest.raises(ModelOutputError, match=r"not valid JSON \(Unterminated string"):
        parse_json_object('{"title": "Edit')
    with pytest.raises(ModelOutputError, match="no JSON object"):
        parse_answer("I cannot help with that.", answer=SummaryAnswer)


def test_a_reason_counts_by_its_kind_without_its_details() -> None:
    reason = reason_of(
        ["it names apps that are not in this episode: ['Steam']", "not valid JSON (x at 3)"]
    )
    assert (
        reason == "it names apps that are not in this episode: ['Steam']; not valid JSON (x at 3)"
    )
    assert reason_kind(reason) == "it names apps that are not in this episode"
    assert reason_kind("the answer was cut off at max_tokens before its JSON ended") == (
        "the answer was cut off at max_tokens before its JSON ended"
    )


def test_the_grammar_schema_keeps_every_field_and_drops_only_the_bounds() -> None:
    full = SummaryAnswer.model_json_schema()
    grammar = grammar_schema(full)
    assert list(grammar["properties"]) == ["title", "summary", "category", "tags", "cues"]
    assert grammar["required"] == full["required"]
    assert grammar["properties"]["category"]["enum"] == full["properties"]["category"]["enum"]
    text = str(grammar)
    assert "maxLength" not in text and "minLength" not in text and "maxItems" not in text
