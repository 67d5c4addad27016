"""How the agent calls tools is learnt per endpoint: a server that streams nothing for
a request with tools is asked unstreamed; one that ignores tools altogether gets
router turns in JSON mode, whose arguments are checked against the registry's
schema; the offline answerer answers only when none of these works. `done` says
which path ran."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from app.agent import ask
from tests.agent_month import NOW, Month, context, month_fixture, run
from tests.fake_openai import FakeOpenAI, say
from tests.helpers import with_models

month = month_fixture()


@pytest.fixture(params=["ignored", "prose"])
def fake(request: pytest.FixtureRequest) -> Iterator[FakeOpenAI]:
    """A server that streams nothing for a request with tools, or prose (tools ignored),
    and answers prose unstreamed."""
    with FakeOpenAI() as server:
        server.tool_stream = request.param
        yield server


def router_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool results a router conversation holds: user turns "tool → {json}"."""
    return [
        json.loads(m["content"].split(" → ", 1)[1])
        for m in messages
        if m["role"] == "user" and " → {" in m["content"]
    ]


ENTERTAINMENT = {
    "metric": "seconds_by_category",
    "period": "this_month",
    "category": "entertainment",
}


def router(picks: list[str], arguments: list[dict[str, Any] | str]) -> Any:
    """A model without tool calling: it names tools and writes arguments in JSON mode."""

    def answer(name: str, prompt: str) -> str | None:
        if name == "tool_pick":
            return json.dumps({"tool": picks.pop(0)})
        if name == "tool_arguments":
            given = arguments.pop(0)
            return given if isinstance(given, str) else json.dumps(given)
        return None

    return answer


def test_a_server_that_ignores_tools_gets_router_turns_and_remembers(
    month: Month, fake: FakeOpenAI
) -> None:
    fake.override = router(["query_stats", "answer", "get_now", "answer"], [ENTERTAINMENT, {}])
    fake.script = [
        lambda m: say(f"{router_results(m)[-1]['items'][0]['hours']} hours of entertainment."),
        say("You are coding."),
    ]
    services, _ = with_models(month.services, fake)
    ctx = services.tool_context(user=month.user, now=NOW)
    tokens: list[str] = []

    def emit(kind: str, data: Any) -> None:
        if kind == "token":
            tokens.append(data["text"])

    done = ask(ctx=ctx, question="Entertainment this month?", history=[], emit=emit,
               cancelled=lambda: False)  # fmt: skip
    truth = sum(s for (_, c), s in month.data.seconds.items() if c == "entertainment")
    assert done["mode"] == "agent" and done["path"] == "router"
    assert done["tools_called"] == ["query_stats"]
    assert done["answer"] == f"{round(truth / 3600, 2)} hours of entertainment."
    assert "".join(tokens) == done["answer"]  # the answer's prose only, never the held-back
    # Learnt: the streamed probe and the unstreamed prose happened once, never again.
    assert fake.empty_streams == 1 and fake.calls["tools_ignored"] == 1
    again = ask(ctx=ctx, question="What am I doing now?", history=[], emit=emit,
                cancelled=lambda: False)  # fmt: skip
    assert again["path"] == "router" and again["tools_called"] == ["get_now"]
    assert fake.empty_streams == 1 and fake.calls["tools_ignored"] == 1
    # The router's first turn cannot answer without a tool; the arguments request
    # carries the tool's own schema.
    picks = [r for r in fake.requests if "tool_pick" in json.dumps(r)]
    first, second = (p["response_format"]["json_schema"]["schema"]["properties"] for p in picks[:2])
    assert "answer" not in first["tool"]["enum"] and second["tool"]["enum"][-1] == "answer"
    # The reads only, cheapest first; a read that has answered is not offered again.
    assert first["tool"]["enum"][0] == "get_now"
    assert not {"apply_label", "deep_scan"} & set(first["tool"]["enum"])
    assert "query_stats" in first["tool"]["enum"] and "query_stats" not in second["tool"]["enum"]
    written = next(r for r in fake.requests if "tool_arguments" in json.dumps(r))
    schema = written["response_format"]["json_schema"]["schema"]
    assert set(schema["properties"]) >= {"metric", "period", "category"}


def test_router_arguments_that_break_the_schema_get_one_corrected_retry(
    month: Month, fake: FakeOpenAI
) -> None:
    fake.override = router(
        ["query_stats", "answer"], [{"period": "the whole month"}, ENTERTAINMENT]
    )
    fake.script = [say("Done.")]
    done, _ = run(context(month, fake), "Entertainment this month?")
    assert done["mode"] == "agent" and done["tools_called"] == ["query_stats"]
    retried = [r for r in fake.requests if "tool_arguments" in json.dumps(r)][-1]
    correction = retried["messages"][-1]["content"]
    assert "rejected" in correction and "period" in correction


def test_router_arguments_wrong_twice_fall_back_to_the_tools_defaults(
    month: Month, fake: FakeOpenAI
) -> None:
    fake.override = router(["get_now", "answer"], [{"records": 99}, {"records": "many"}])
    fake.script = [say("You are coding.")]
    done, events = run(context(month, fake), "What am I doing now?")
    calls = [e for k, e in events if k == "step" and e["phase"] == "call"]
    assert done["mode"] == "agent" and calls[0]["arguments"] == {}


def test_a_model_that_cannot_even_name_a_tool_is_answered_offline(
    month: Month, fake: FakeOpenAI
) -> None:
    fake.override = lambda name, prompt: (
        json.dumps({"tool": "whatever"}) if name == "tool_pick" else None
    )
    done, _ = run(context(month, fake), "这个月娱乐花了多少小时？")
    assert done["mode"] == "offline" and done["path"] == "offline"
    assert re.search(r"unknown tool", done["fallback"])
    assert done["answered_by"] == "query_stats"
