"""The agent against the scripted OpenAI-compatible server, on the sample month:
routing traces for the three target questions, the budget gate, tool errors the
model recovers from, the turn limit, falling back to the offline answerer, and
deep_scan's map-reduce. Every test runs twice: against a server that streams tool
calls, and against one that streams nothing for a request with tools (the role
chunk, then [DONE], as llama-cpp-python's server does), where the same questions
run in agent mode with their tool calls unstreamed."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from app.text import estimate_tokens, has_cjk
from app.tools import REGISTRY, ToolContext, dispatch_json
from app.tools.registry import Tool, ToolArgs, output_tokens
from app.tools.results import ToolResult
from tests.agent_month import NOW, Month, context, month_fixture, run
from tests.fake_openai import FakeOpenAI, call, say, tool_results

RAW_LINE = re.compile(r"#\d+ \d\d-\d\d \d\d:\d\d:\d\d ")  # how deep_scan writes a raw record


month = month_fixture()


@pytest.fixture(params=["works", "empty"], ids=["streamed-tools", "llamacpp-tools"])
def fake(request: pytest.FixtureRequest) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        server.tool_stream = request.param
        yield server


def expected_path(fake: FakeOpenAI) -> str:
    """How the agent calls tools on this server."""
    return "stream" if fake.tool_stream == "works" else "plain"


def offered(request: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in request.get("tools", [])]


# -- the three target questions ------------------------------------------------------------


def test_what_now_is_one_get_now_call_within_300_tokens(month: Month, fake: FakeOpenAI) -> None:
    def answer(messages: list[dict[str, Any]]) -> dict[str, Any]:
        now = tool_results(messages)[-1]
        latest, last = now["items"][0], now["last_episode"]
        return say(f"你正在用 {latest['app']}：{latest['title']}。上一段是 #{last['id']}。")

    fake.script = [call("get_now"), answer]
    done, _ = run(context(month, fake), "我现在在做什么？")
    latest = max(month.data.records, key=lambda r: (r.ts_start, r.device_id))
    app = month.services.rules.apps.canonical(latest.app)
    assert done["mode"] == "agent" and done["tools_called"] == ["get_now"]
    assert done["tool_tokens"] <= 300 and done["model_calls"] == 2
    assert done["answer"].startswith(f"你正在用 {app}：{latest.window_title}。")
    assert len(done["episode_ids"]) == 1 and done["unsupported_numbers"] == []
    first = fake.requests[0]
    assert set(offered(first)) == set(REGISTRY)  # the whole registry, nothing else
    assert "路由器" in first["messages"][0]["content"]  # the Chinese router prompt
    assert first.get("stream", False) is (fake.tool_stream == "works")
    assert first["tool_choice"] == "auto"  # said out loud: some servers ignore tools without
    assert done["path"] == expected_path(fake)
    # Learnt once: a streamed request with tools that brought nothing, then unstreamed.
    assert fake.empty_streams == (fake.tool_stream == "empty")


def test_entertainment_this_month_is_one_query_stats_call_within_200_tokens(
    month: Month, fake: FakeOpenAI
) -> None:
    def answer(messages: list[dict[str, Any]]) -> dict[str, Any]:
        item = tool_results(messages)[-1]["items"][0]
        return say(f"This month you spent {item['hours']} hours on entertainment.")

    fake.script = [
        call(
            "query_stats",
            metric="seconds_by_category",
            period="this_month",
            category="entertainment",
        ),
        answer,
    ]
    done, events = run(context(month, fake), "How many hours of entertainment this month?")
    truth = sum(s for (_, c), s in month.data.seconds.items() if c == "entertainment")
    assert done["tools_called"] == ["query_stats"] and done["tool_tokens"] <= 200
    assert done["mode"] == "agent" and done["path"] == expected_path(fake)
    assert f"{round(truth / 3600, 2)} hours" in done["answer"]
    assert done["unsupported_numbers"] == []
    assert "router" in fake.requests[0]["messages"][0]["content"]  # the English prompt
    assert "".join(e["text"] for k, e in events if k == "token") == done["answer"]


def test_rework_habits_read_signals_within_2000_tokens_and_cite_evidence(
    month: Month, fake: FakeOpenAI
) -> None:
    def answer(messages: list[dict[str, Any]]) -> dict[str, Any]:
        counts, signals = tool_results(messages)
        rollbacks = next(i["count"] for i in counts["items"] if i["kind"] == "forced_rollback")
        evidence = [f"#{i['episode_ids'][0]}" for i in signals["items"][:3]]
        return say(f"本月强制回滚 {rollbacks} 次，证据 {'、'.join(evidence)}。")

    fake.script = [
        call("query_stats", metric="signal_counts", period="this_month"),
        call("get_signals", period="this_month", kinds=["rework", "forced_rollback"], limit=8),
        answer,
    ]
    done, _ = run(context(month, fake), "写代码时哪些坏习惯导致返工或回滚？")
    planted = [p for p in month.data.rework if p.kind == "forced_rollback"]
    assert done["tools_called"] == ["query_stats", "get_signals"]
    assert "get_raw" not in done["tools_called"] and done["tool_tokens"] <= 2_000
    assert done["mode"] == "agent" and done["path"] == expected_path(fake)
    assert f"强制回滚 {len(planted)} 次" in done["answer"]
    assert len(done["episode_ids"]) == 3 and done["unsupported_numbers"] == []


# -- the loop's limits ---------------------------------------------------------------------


def test_the_budget_gate_refuses_a_read_that_could_pass_it_and_forces_an_answer(
    month: Month, fake: FakeOpenAI
) -> None:
    fake.script = [
        call("query_stats", period="today"),
        call("get_episodes", period="this_month"),
        say("Today: see the numbers above."),
    ]
    ctx = context(month, fake, agent_budget_tokens=3_000)
    done, events = run(ctx, "What did I do this month?")
    budgets = [e for k, e in events if k == "budget"]
    assert [b["action"] for b in budgets] == ["notice", "forced_answer"]
    assert budgets[-1]["used"] + REGISTRY["get_episodes"].cap_tokens > 3_000
    assert done["forced_answer"] is True and done["tools_called"] == ["query_stats", "get_episodes"]
    refused = tool_results(fake.requests[2]["messages"])[-1]
    assert "budget" in refused["error"]  # get_episodes never ran
    assert "tools" in fake.requests[1] and "tools" not in fake.requests[2]
    assert done["answer"] == "Today: see the numbers above." and done["model_calls"] == 3


def test_a_tool_error_goes_back_to_the_model_which_corrects_itself(
    month: Month, fake: FakeOpenAI
) -> None:
    def retry(messages: list[dict[str, Any]]) -> dict[str, Any]:
        assert "period" in tool_results(messages)[0]["error"]
        return call("query_stats", period="yesterday", category="study")

    def answer(messages: list[dict[str, Any]]) -> dict[str, Any]:
        return say(f"Yesterday: {tool_results(messages)[-1]['items'][0]['hours']} hours of study.")

    fake.script = [
        call("query_stats", period="the day before today", category="study"),
        call("no_such_tool"),
        retry,
        answer,
    ]
    done, events = run(context(month, fake), "How long did I study yesterday?")
    results = [e for k, e in events if k == "step" and e["phase"] == "result"]
    assert ["error" in r for r in results] == [True, True, False]
    assert "unknown tool" in results[1]["error"]
    study = month.data.seconds[(date(2003, 3, 30), "study")]
    assert f"{round(study / 3600, 2)} hours of study" in done["answer"]
    assert done["unsupported_numbers"] == [] and done["model_calls"] == 4


def test_the_sixth_turn_is_offered_no_tools(month: Month, fake: FakeOpenAI) -> None:
    fake.script = [*(call("get_now") for _ in range(5)), say("Still coding.")]
    done, _ = run(context(month, fake), "what am I doing right now?")
    assert done["model_calls"] == 6 and done["tools_called"] == ["get_now"] * 5
    assert [bool(offered(r)) for r in fake.requests] == [True] * 5 + [False]
    assert done["answer"] == "Still coding." and done["mode"] == "agent"


def test_a_model_that_gives_no_answer_is_covered_by_the_offline_answerer(
    month: Month, fake: FakeOpenAI
) -> None:
    fake.script = [call("get_now"), say("")]
    done, _ = run(context(month, fake), "what am I doing right now?")
    assert done["mode"] == "offline" and "no answer" in done["fallback"]
    assert done["tools_called"] == ["get_now", "get_now"] and done["model_calls"] == 2


def test_with_the_model_down_the_offline_answerer_answers(month: Month, fake: FakeOpenAI) -> None:
    fake.fail_with = 503
    ctx = context(month, fake, llm_backoff_s=60)
    done, _ = run(ctx, "这个月娱乐花了多少小时？")
    truth = sum(s for (_, c), s in month.data.seconds.items() if c == "entertainment")
    assert done["mode"] == "offline" and "failed" in done["fallback"]
    assert done["answered_by"] == "query_stats"
    assert f"{round(truth / 3600, 2)} 小时" in done["answer"]
    # The breaker is open now: the next question does not even try the model.
    tried = fake.total_calls()
    again, _ = run(ctx, "今天学习了多少小时？")
    assert again["mode"] == "offline" and "backing off" in again["fallback"]
    assert fake.total_calls() == tried


def test_a_tool_added_to_the_registry_is_usable_with_no_other_edit(
    month: Month, fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    class EchoArgs(ToolArgs):
        word: str

    class EchoResult(ToolResult):
        echo: str

    echo = Tool(
        name="echo_word",
        description="Echo a word. 回声。",
        params=EchoArgs,
        result=EchoResult,
        run=lambda ctx, args: EchoResult(echo=args.word * 2),
        cap_tokens=50,
        tier="0",
    )
    monkeypatch.setitem(REGISTRY, "echo_word", echo)
    fake.script = [call("echo_word", word="ab"), lambda m: say(tool_results(m)[-1]["echo"])]
    done, _ = run(context(month, fake), "echo ab")
    assert "echo_word" in offered(fake.requests[0]) and done["answer"] == "abab"


# -- deep_scan -----------------------------------------------------------------------------

AFTERNOON = datetime(2003, 3, 12, 6, tzinfo=UTC)  # 14:00 in Shanghai


def scan(ctx: ToolContext, hours: int, question: str = "什么时候在测试？") -> dict[str, Any]:
    return dispatch_json(
        ctx,
        "deep_scan",
        {
            "ts_from": AFTERNOON.isoformat(),
            "ts_to": (AFTERNOON + timedelta(hours=hours)).isoformat(),
            "question": question,
        },
    )


def test_deep_scan_within_the_single_pass_budget_is_one_summariser_call(
    month: Month, fake: FakeOpenAI
) -> None:
    progress: list[dict[str, Any]] = []
    ctx = dataclasses.replace(context(month, fake), report=progress.append)
    result = scan(ctx, 1)
    assert result["slices"] == 1 and result["fanout"] is False and not result["degraded"]
    assert fake.calls["deep_scan_finding"] == 1
    assert result["raw_tokens"] < ctx.settings.deep_scan_pass_tokens
    assert progress[0] == {"phase": "fanout", "slices": 1, "records": result["records_scanned"]}
    assert set(result["record_ids"]) and output_tokens(result) <= REGISTRY["deep_scan"].cap_tokens
    request = fake.requests[0]
    assert "tools" not in request and request["response_format"]["json_schema"]["strict"]


def test_deep_scan_above_the_budget_fans_out_over_disjoint_slices_two_at_a_time(
    month: Month, fake: FakeOpenAI
) -> None:
    fake.answer_delay = 0.05  # long enough for calls to overlap
    ctx = context(month, fake, llm_concurrency=4)
    result = scan(ctx, 72, "When did tests fail?")
    assert result["raw_tokens"] > ctx.settings.deep_scan_pass_tokens
    assert result["fanout"] is True and result["slices"] >= 2 and not result["degraded"]
    assert fake.calls["deep_scan_finding"] == result["slices"] + 1  # the slices, then a reduce
    assert fake.max_in_flight == 2  # TIMETRACE_DEEP_SCAN_CONCURRENCY
    prompts = [r["messages"][1]["content"] for r in fake.requests[:-1]]
    ids = [set(map(int, re.findall(r"^#(\d+) ", p, re.MULTILINE))) for p in prompts]
    assert sum(len(s) for s in ids) == len(set().union(*ids)) == result["records_scanned"]
    assert all(estimate_tokens(p) <= ctx.settings.deep_scan_pass_tokens + 500 for p in prompts)
    assert result["finding"].startswith(f"Combined {result['slices']} findings")


def test_deep_scan_with_a_failed_slice_is_degraded_and_names_it(
    month: Month, fake: FakeOpenAI
) -> None:
    fake.override = lambda name, prompt: "not json" if "SLICE 2/" in prompt else None
    result = scan(context(month, fake, deep_scan_pass_tokens=1_500), 2)
    assert result["slices"] >= 3 and result["degraded"] is True
    assert [m["slice"] for m in result["missing_slices"]] == [2]
    assert result["missing_slices"][0]["from"] < result["missing_slices"][0]["to"]
    assert result["finding"]  # the other slices still answer


def test_deep_scan_through_the_agent_keeps_raw_records_out_of_the_conversation(
    month: Month, fake: FakeOpenAI
) -> None:
    fake.script = [
        call(
            "deep_scan",
            ts_from=AFTERNOON.isoformat(),
            ts_to=(AFTERNOON + timedelta(hours=2)).isoformat(),
            question="what failed?",
        ),
        lambda m: say(tool_results(m)[-1]["finding"]),
    ]
    ctx = context(month, fake, deep_scan_pass_tokens=1_500)
    done, events = run(ctx, "What failed that afternoon?")
    progress = [e for k, e in events if k == "subagent"]
    slices = progress[0]["slices"]
    assert [p["phase"] for p in progress] == ["fanout", *["slice"] * slices, "reduce"]
    assert slices >= 3 and progress[-1] == {"phase": "reduce", "findings": slices}
    asked = [r for r in fake.requests if r.get("stream") or r.get("tools")]
    turns = [json.dumps(r["messages"], ensure_ascii=False) for r in asked]
    summaries = [r["messages"][1]["content"] for r in fake.requests if r not in asked]
    assert len(turns) == 2 and not any(RAW_LINE.search(t) for t in turns)
    assert all(RAW_LINE.search(s) for s in summaries[:-1])  # only the summarisers read them
    assert done["tools_called"] == ["deep_scan"] and done["tool_tokens"] <= 2_000


def test_deep_scan_without_a_chat_model_says_what_to_use_instead(month: Month) -> None:
    ctx = month.services.tool_context(user=month.user, now=NOW)
    result = scan(ctx, 1)
    assert "chat model" in result["error"] and "get_raw" in result["error"]
    assert has_cjk(REGISTRY["deep_scan"].description)
