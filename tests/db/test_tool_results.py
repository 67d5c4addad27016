"""Typed tool results: MCP lists an `outputSchema` for every tool, and the real results
on the sample month, called through the official MCP client, are valid against it; a
result cut by its cap is still valid; the doors send the result models' JSON."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from mcp import Client
from pydantic import field_validator

from app.mcp.server import build_server
from app.runtime.services import Services
from app.tools import REGISTRY, ToolError, dispatch, dispatch_json
from app.tools.registry import ToolArgs, ToolContext, output_tokens, tool
from app.tools.results import ToolResult, opt
from app.tools.stats import StatsResult
from tests.agent_month import NOW, Month, month_fixture
from tests.fake_openai import FakeOpenAI
from tests.helpers import SAMPLE_MONTH, make_api, with_models

month = month_fixture()

FIRST = SAMPLE_MONTH.start
LAST = FIRST + timedelta(days=SAMPLE_MONTH.days - 1)
MONTH = {"period": "custom", "date_from": FIRST.isoformat(), "date_to": LAST.isoformat()}
WEEK = {"period": "custom", "date_from": "2003-03-10", "date_to": "2003-03-16"}

# Real calls over the sample month: every tool, and each shape a tool can answer.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_now", {}),
    *(
        ("query_stats", {**MONTH, "metric": metric})
        for metric in (
            "seconds_by_category",
            "seconds_by_app",
            "episode_count",
            "active_seconds",
            "top_titles",
            "signal_counts",
            "uncategorized",
        )
    ),
    ("query_stats", {**WEEK, "category": "entertainment"}),
    ("query_stats", {**WEEK, "metric": "seconds_by_app", "app": "Code"}),
    ("query_stats", {**MONTH, "thing": "bilibili"}),
    ("query_stats", {**MONTH, "thing": "娱乐"}),
    ("get_digest", {"grain": "day", "date": "2003-03-12"}),
    ("get_digest", {"grain": "week", "date": "2003-W11"}),
    ("get_digest", {"grain": "month", "date": "2003-03"}),
    ("get_digest", {"grain": "day", "date": "2003-06-01"}),  # no digest: live numbers
    ("get_episodes", {**WEEK, "limit": 40}),
    ("get_episode", {"id": 1}),
    ("get_signals", MONTH),
    ("get_signals", {**MONTH, "by_day": True, "kinds": ["rework", "forced_rollback"]}),
    ("get_raw", {"ts_from": "2003-03-12T02:00:00+00:00", "ts_to": "2003-03-12T04:00:00+00:00"}),
    ("search_episodes", {"query": "ledger 账本 timetrace", "include_neighbors": True}),
    ("last_seen", {"thing": "bilibili"}),
    ("last_seen", {"title": "never-in-any-title-xyz"}),
    ("days_with", {**MONTH, "thing": "work", "min_minutes": 30}),
    ("compare", {**MONTH, "things": ["娱乐", "work"]}),
    ("compare", {**WEEK, "things": ["bilibili", "YouTube", "Code"]}),
    ("get_moment", {"at": "2003-03-12T10:30"}),
    (
        "deep_scan",
        {
            "ts_from": "2003-03-12T06:00:00+00:00",
            "ts_to": "2003-03-12T07:00:00+00:00",
            "question": "什么时候在测试？",
        },
    ),
]


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def _listed_and_called(services: Services, month: Month) -> tuple[Any, list[Any]]:
    """List the tools and make every call of CALLS through the official MCP client."""
    server = build_server(services=services, user_of=lambda _ctx: month.user)

    async def session() -> tuple[Any, list[Any]]:
        async with Client(server) as client:
            listed = await client.list_tools()
            return listed, [await client.call_tool(name, args) for name, args in CALLS]

    return asyncio.run(session())


def test_every_tool_lists_an_output_schema_and_real_results_are_valid_against_it(
    month: Month, fake: FakeOpenAI
) -> None:
    services, _ = with_models(month.services, fake)
    listed, answers = _listed_and_called(services, month)
    schemas = {t.name: t.output_schema for t in listed.tools}
    assert set(schemas) == set(REGISTRY)
    for name, schema in schemas.items():
        assert schema == REGISTRY[name].output_schema(), name
        assert schema is not None and schema["type"] == "object", name
        Draft202012Validator.check_schema(schema)
    assert {name for name, _ in CALLS} == set(REGISTRY) - {"apply_label"}
    for (name, args), answer in zip(CALLS, answers, strict=True):
        assert not answer.is_error, (name, args, answer.content)
        problems = list(Draft202012Validator(schemas[name]).iter_errors(answer.structured_content))
        assert not problems, (name, args, [p.message for p in problems])
        assert json.loads(answer.content[0].text) == answer.structured_content  # the same JSON
    stats = answers[[n for n, _ in CALLS].index("query_stats")].structured_content
    assert stats["source"] in ("digest", "live", "mixed") and stats["items"]
    # The write tool too: a real label, valid against its own schema.
    seen = answers[[a for _, a in CALLS].index({"thing": "bilibili"})].structured_content
    assert seen["found"] is True and isinstance(seen["record_id"], int)
    label = {"target": "record", "id": seen["record_id"], "category": "study"}
    ctx = services.tool_context(user=month.user, now=NOW)
    done = dispatch_json(ctx, "apply_label", label)
    assert done["recomputed_days"] and not list(
        Draft202012Validator(schemas["apply_label"]).iter_errors(done)
    )


def test_the_output_schema_refuses_a_result_missing_a_field_or_with_an_unknown_one(
    month: Month,
) -> None:
    ctx = month.services.tool_context(user=month.user, now=NOW)
    result = dispatch_json(ctx, "query_stats", MONTH)
    validator = Draft202012Validator(REGISTRY["query_stats"].output_schema())
    assert validator.is_valid(result)
    assert not validator.is_valid({k: v for k, v in result.items() if k != "source"})
    assert not validator.is_valid({**result, "hours_total": 1})  # a key no model declares
    assert not validator.is_valid({**result, "items": [{"category": "work"}]})


def test_dispatch_answers_typed_models_and_errors_as_data(month: Month) -> None:
    ctx = month.services.tool_context(user=month.user, now=NOW)
    stats = dispatch(ctx, "query_stats", {**MONTH, "category": "work"})
    assert isinstance(stats, StatsResult) and stats.items and stats.total_seconds
    unknown = dispatch(ctx, "query_stats", {**MONTH, "thing": "Zzyzx Editor"})
    assert isinstance(unknown, ToolError) and unknown.unresolved == "Zzyzx Editor"
    assert dispatch_json(ctx, "query_stats", {**MONTH, "thing": "Zzyzx Editor"}) == {
        "error": unknown.error,
        "unresolved": "Zzyzx Editor",
        "suggestions": unknown.suggestions,
        "hint": unknown.hint,
    }
    wrong = dispatch(ctx, "get_raw", {"ts_from": "2003-03-12T02:00:00+00:00"})
    assert isinstance(wrong, ToolError) and "ts_to" in wrong.error


# -- capping keeps a result valid; dispatch never raises -----------------------------------


class ManyArgs(ToolArgs):
    n: int

    @field_validator("n")
    @classmethod
    def _buggy(cls, n: int) -> int:
        if n == -2:
            raise TypeError("a bug in a validator")  # pydantic lets this one through
        return n


class ManyResult(ToolResult):
    label: str
    rows: list[str]
    note: str | None = opt()


@pytest.fixture
def many_tool() -> Iterator[str]:
    """A tool with no `items`: the cap cuts its longest list."""

    @tool(
        tier="1",
        cap_tokens=120,
        description="x",
    )
    def zz_many(ctx: ToolContext, args: ManyArgs) -> ManyResult:
        if args.n < 0:
            raise RuntimeError("a bug in the tool")
        return ManyResult(label="标签" * (200 if args.n == 0 else 1), rows=["行 row"] * args.n)

    try:
        yield "zz_many"
    finally:
        del REGISTRY["zz_many"]


def test_a_result_over_its_cap_keeps_its_shape_and_a_bug_is_an_error_not_a_raise(
    month: Month, many_tool: str
) -> None:
    ctx = month.services.tool_context(user=month.user, now=NOW)
    schema = Draft202012Validator(REGISTRY[many_tool].output_schema())
    cut = dispatch_json(ctx, many_tool, {"n": 500})
    assert cut["truncated"] is True and cut["omitted"] == 500 - len(cut["rows"]) > 0
    assert output_tokens(cut) <= 120 and schema.is_valid(cut)
    whole = dispatch_json(ctx, many_tool, {"n": 3})
    assert whole == {"label": "标签", "rows": ["行 row"] * 3, "truncated": False}
    # Nothing to cut and still too large: an error, never an exception.
    assert dispatch_json(ctx, many_tool, {"n": 0})["error"].startswith("the result is too large")
    errors = [dispatch_json(ctx, many_tool, {"n": n})["error"] for n in (-1, -2)]
    assert errors == ["zz_many failed inside TimeTrace", "zz_many could not read its arguments"]


def test_the_api_documents_each_tools_result_and_answers_by_it(month: Month) -> None:
    api = make_api(month.services, user_name=month.user.name, devices=())
    paths = api.client.get("/openapi.json", headers=api.auth).json()["paths"]
    for name in REGISTRY:
        schema = paths[f"/api/v1/tools/{name}"]["post"]["responses"]["200"]["content"]
        assert "$ref" not in json.dumps(schema), name  # self-contained inside the document
    documented = paths["/api/v1/tools/days_with"]["post"]["responses"]["200"]["content"]
    reply = api.post("/api/v1/tools/days_with", {**MONTH, "thing": "work"})
    assert reply.status_code == 200 and reply.json()["count"] > 0
    Draft202012Validator(documented["application/json"]["schema"]).validate(reply.json())
