"""Model answers without a model: the lenient JSON parser, strict answer schemas, the
grounding of a narrative's numbers, and the gate that lets interactive calls go first."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from app.enrich.answers import DescriptionAnswer, NarrativeAnswer, SummaryAnswer
from app.enrich.client import (
    ModelOutputError,
    PriorityGate,
    parse_answer,
    parse_json_object,
)
from app.enrich.narratives import allowed_numbers, drop_sentences_with
from app.enrich.quality import wrong_numbers
from tests.faults import wait_for


def test_fenced_and_chatty_json_is_accepted() -> None:
    assert parse_json_object('```json\n{"a": 1}\n```') == {"a": 1}
    assert parse_json_object('<think>hmm</think>\n{"a": 2}') == {"a": 2}


@pytest.mark.parametrize("answer", [SummaryAnswer, NarrativeAnswer, DescriptionAnswer])
def test_answer_formats_are_strict_json_schemas(answer: Any) -> None:
    fmt = answer.response_format()
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    schema = fmt["json_schema"]["schema"]
    # What strict json_schema servers demand: a flat object, every field required, no others.
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert schema["required"] == list(schema["properties"])
    assert "$defs" not in schema
    assert not any("default" in field for field in schema["properties"].values())


def test_a_wrong_answer_is_refused_naming_the_field() -> None:
    with pytest.raises(ModelOutputError, match=r"at narrative: String should have at least 1"):
        parse_answer('{"narrative": ""}', answer=NarrativeAnswer)
    with pytest.raises(ModelOutputError, match=r"at confidence: Input should be a valid number"):
        parse_answer(
            '{"description": "x", "category": "work", "confidence": "0.9", "cues": []}',
            answer=DescriptionAnswer,
        )
    with pytest.raises(ModelOutputError, match=r"at category: .*at extra: Extra inputs"):
        parse_answer(
            '{"title": "t", "summary": "s", "category": "coding", "tags": [], "cues": [], '
            '"extra": 1}',
            answer=SummaryAnswer,
        )


def test_narrative_numbers_must_come_from_the_metrics() -> None:
    metrics = {
        "seconds_by_category": {"work": 18_720, "entertainment": 6_810},
        "active_seconds": 25_530,
        "episode_count": 17,
        "focus_minutes": 347.0,
        "distraction_minutes": 3.0,
        "late_night_minutes": 114.0,
        "signal_counts": {"rework": 1},
    }
    assert (
        wrong_numbers(
            "Work took 5.2 hours and fun 1.9 h; 17 episodes, focus 347 minutes.",
            allowed_numbers(metrics),
        )
        == []
    )
    assert wrong_numbers(
        "工作 5.2 小时，娱乐 3 小时，专注 347 分钟。", allowed_numbers(metrics)
    ) == ["3 小时"]
    assert (
        wrong_numbers("Released PR #42 in 2026.", allowed_numbers(metrics)) == []
    )  # no unit: not a metric
    text = "Work took 5.2 hours. Fun took 9.9 hours. Then bed."
    assert (
        drop_sentences_with(text, wrong_numbers(text, allowed_numbers(metrics)))
        == "Work took 5.2 hours. Then bed."
    )


def test_interactive_calls_go_before_background_ones() -> None:
    gate = PriorityGate(1)
    order: list[str] = []
    release = threading.Event()

    def hold() -> None:
        with gate.slot():
            release.wait(5)

    def call(name: str, interactive: bool) -> None:
        with gate.slot(interactive=interactive):
            order.append(name)

    def waiting() -> int:  # callers blocked on the gate's condition (CPython's Condition)
        return len(gate._cond._waiters)  # type: ignore[attr-defined]

    holder = threading.Thread(target=hold)
    holder.start()
    # Each caller is started once the one before it holds the slot or waits for it, so
    # the background call is surely queued first.
    assert wait_for(lambda: gate._free == 0, timeout=5)
    background = threading.Thread(target=call, args=("background", False))
    background.start()
    assert wait_for(lambda: waiting() == 1, timeout=5)
    interactive = threading.Thread(target=call, args=("interactive", True))
    interactive.start()
    assert wait_for(lambda: waiting() == 2, timeout=5)
    release.set()
    for t in (holder, background, interactive):
        t.join(5)
    assert order == ["interactive", "background"]
