"""The router (LLM) path for the window, share, top-sites and per-day-series arguments,
with the scripted model server: the prompt names the capability, the scripted model's
call goes through the real router and registry with exactly those arguments, the
result it is sent back equals SQL over the records (clipped to the window in SQL),
and the number it quotes from that result reaches the answer.

The scripted model picks the tool and its arguments (it is a script, not a model):
what these tests pin is everything around that choice."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest

from app.agent import ask
from app.db.connection import connect
from tests.agent_month import NOW, Month, month_fixture
from tests.db.test_tools_windows import ACTIVE, CUT, FUN, VSCODE, ZONE, Truth
from tests.fake_openai import FakeOpenAI, call, say, tool_results
from tests.helpers import with_models

month = month_fixture()
LAST_WEEK = (date(2003, 3, 24), date(2003, 3, 30))
MARCH = (date(2003, 3, 1), date(2003, 3, 31))
TS_FROM, TS_TO = "2003-03-12T09:17:30+08:00", "2003-03-13T11:02:00+08:00"
Check = Callable[[Truth, dict[str, Any]], None]
assert (ZONE, CUT) == ("Asia/Shanghai", 4)  # the sample user's clock, as the truth builds it


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@dataclass(frozen=True, slots=True)
class Kind:
    name: str
    question: str
    tool: str
    arguments: dict[str, Any]
    quoted: str  # the result field the scripted answer quotes
    prompt_names: tuple[str, ...]  # what the router prompt must name for this kind
    check: Check


def vscode_mornings(truth: Truth, result: dict[str, Any]) -> None:
    assert result["seconds"] == truth.total(VSCODE, *LAST_WEEK, "09:00", "12:00") > 0
    assert result["window"] == "09:00-12:00 each day"


def fun_at_night(truth: Truth, result: dict[str, Any]) -> None:
    assert result["seconds"] == truth.total(FUN, *MARCH, "22:00", "02:00") > 0


def vscode_share_between(truth: Truth, result: dict[str, Any]) -> None:
    active = truth.between(ACTIVE, TS_FROM, TS_TO)
    assert result["window_active_seconds"] == active > 0
    assert result["share"] == pytest.approx(truth.between(VSCODE, TS_FROM, TS_TO) / active, 1e-3)


def vscode_share(truth: Truth, result: dict[str, Any]) -> None:
    active = truth.whole_days(ACTIVE, *LAST_WEEK)
    assert result["window_active_seconds"] == active
    assert result["share"] == pytest.approx(truth.whole_days(VSCODE, *LAST_WEEK) / active, 1e-3)


def top_sites(truth: Truth, result: dict[str, Any]) -> None:
    github = truth.whole_days("NOT v.is_idle AND v.domain = 'github.com'", *MARCH)
    sites = {i["site"]: i["seconds"] for i in result["items"]}
    assert len(result["items"]) == 3 and sites.get("github.com") == github


def anki_series(truth: Truth, result: dict[str, Any]) -> None:
    anki = "NOT v.is_idle AND v.app = 'Anki'"
    days = truth.day_series(anki, *MARCH)
    assert [s["seconds"] for s in result["series"]] == [round(s) for _, s in sorted(days.items())]
    assert result["days_without"] == sum(1 for s in days.values() if s < 60) > 0


def compared_mornings(truth: Truth, result: dict[str, Any]) -> None:
    slack, zoom = (f"NOT v.is_idle AND v.app = '{app}'" for app in ("Slack", "Zoom"))
    assert [i["seconds"] for i in result["items"]] == [
        truth.total(slack, *LAST_WEEK, "09:00", "12:00"),
        truth.total(zoom, *LAST_WEEK, "09:00", "12:00"),
    ]


KINDS = [
    Kind(
        "a window inside each day",
        "How long was I in VS Code between 9 and 12 each day last week?",
        "query_stats",
        {"thing": "VS Code", "period": "last_week", "time_from": "09:00", "time_to": "12:00"},
        "seconds",
        ("time_from", "time_to"),
        vscode_mornings,
    ),
    Kind(
        "a window across midnight",
        "这个月每天晚上10点到凌晨2点娱乐了多久？",
        "query_stats",
        {"thing": "娱乐", "period": "this_month", "time_from": "22:00", "time_to": "02:00"},
        "seconds",
        ("time_from", "time_to", "22:00-02:00"),
        fun_at_night,
    ),
    Kind(
        "instants and a share",
        "What share of my time from 9:17 on March 12 to 11:02 on March 13 was VS Code?",
        "query_stats",
        {"thing": "VS Code", "ts_from": TS_FROM, "ts_to": TS_TO},
        "share",
        ("ts_from", "ts_to", "share"),
        vscode_share_between,
    ),
    Kind(
        "a share",
        "上周 VS Code 占了我多少比例的时间？",
        "query_stats",
        {"thing": "VS Code", "period": "last_week"},
        "share",
        ("share", "window_active_seconds"),
        vscode_share,
    ),
    Kind(
        "top sites",
        "Which 3 websites did I spend the most time on this month?",
        "query_stats",
        {"metric": "seconds_by_site", "period": "this_month", "limit": 3},
        "items",
        ("seconds_by_site", "limit"),
        top_sites,
    ),
    Kind(
        "average per day and days without",
        "这个月平均每天用 Anki 多久？有几天没用？",
        "days_with",
        {"thing": "Anki", "period": "this_month", "min_minutes": 1},
        "days_without",
        ("series", "days_without"),
        anki_series,
    ),
    Kind(
        "a comparison inside a window",
        "Slack or Zoom, which did I use more between 9 and 12 last week?",
        "compare",
        {
            "things": ["Slack", "Zoom"],
            "period": "last_week",
            "time_from": "09:00",
            "time_to": "12:00",
        },
        "most",
        ("compare", "time_from"),
        compared_mornings,
    ),
]


def _sent_arguments(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The tool calls the router put in the conversation, as it sent them on."""
    return [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        for m in messages
        if m.get("role") == "assistant"
        for c in m.get("tool_calls") or []
    ]


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_the_router_passes_the_new_arguments_and_the_result_reaches_the_answer(
    month: Month, fake: FakeOpenAI, kind: Kind
) -> None:
    seen: list[dict[str, Any]] = []
    sent: list[tuple[str, dict[str, Any]]] = []

    def answer(messages: list[dict[str, Any]]) -> dict[str, Any]:
        result = tool_results(messages)[-1]
        seen.append(result)
        sent.extend(_sent_arguments(messages))
        return say(f"{kind.quoted}: {json.dumps(result.get(kind.quoted), ensure_ascii=False)}")

    fake.script = [call(kind.tool, **kind.arguments), answer]
    services, _ = with_models(month.services, fake)
    done = ask(
        ctx=services.tool_context(user=month.user, now=NOW),
        question=kind.question,
        history=[],
        emit=lambda _kind, _data: None,
        cancelled=lambda: False,
    )
    assert done["mode"] == "agent" and done["tools_called"] == [kind.tool]
    assert sent == [(kind.tool, kind.arguments)]  # the router sent exactly these arguments
    first = fake.requests[0]
    prompt = first["messages"][0]["content"]
    assert kind.tool in prompt and all(name in prompt for name in kind.prompt_names)
    offered = {t["function"]["name"]: t["function"] for t in first["tools"]}
    assert set(kind.arguments) <= set(offered[kind.tool]["parameters"]["properties"])
    result = seen[0]
    assert "error" not in result, result
    quoted = json.dumps(result[kind.quoted], ensure_ascii=False)
    assert quoted in done["answer"]  # the number from the result reaches the answer
    with connect(month.services.url, settings=month.services.settings) as conn:
        kind.check(Truth(conn, month.user.user_id), result)
