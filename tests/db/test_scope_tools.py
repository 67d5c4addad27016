"""A scoped token on the sample month (work only, 09:00-18:00 on weekdays, bilibili.com
denied, read-only): every tool over HTTP and over MCP answers only in-scope time. Totals
equal the scope applied by hand to v_record_durations (tests/scope_truth.py), no
out-of-scope title, URL or site appears in any answer, and writes are refused."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import date
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from app.api import create_app
from app.api.server import serve_in_thread
from app.runtime.auth import issue_token
from app.store.scope import TokenScope, parse_scope
from app.tools import REGISTRY
from tests.agent_month import NOW, Month, month_fixture
from tests.scope_truth import ScopeTruth, leaks, scope_truth

month = month_fixture()

WORK_HOURS = parse_scope("read-only kinds=work hours=09:00-18:00 days=mon-fri sites=-bilibili.com")
LABEL = {"target": "record", "id": 1, "category": "study"}
MARCH = {"period": "custom", "date_from": "2003-03-01", "date_to": "2003-03-31"}
# Every tool, with arguments that reach the month's data (apply_label: a write).
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("get_now", {}),
    ("query_stats", {**MARCH, "metric": "seconds_by_category"}),
    ("query_stats", {**MARCH, "metric": "seconds_by_app", "top_n": 50}),
    ("query_stats", {**MARCH, "metric": "seconds_by_site"}),
    ("query_stats", {**MARCH, "metric": "top_titles"}),
    ("query_stats", {**MARCH, "metric": "uncategorized"}),
    ("query_stats", {**MARCH, "metric": "episode_count"}),
    ("query_stats", {**MARCH, "metric": "signal_counts"}),
    ("last_seen", {"thing": "bilibili"}),
    ("days_with", {**MARCH, "thing": "work"}),
    ("compare", {**MARCH, "things": ["work", "entertainment"]}),
    ("get_digest", {"grain": "month", "date": "2003-03-15"}),
    ("get_digest", {"grain": "day", "date": "2003-03-12"}),
    ("get_episodes", {**MARCH, "limit": 50}),
    ("get_signals", {**MARCH}),
    ("search_episodes", {"query": "bilibili", "date_from": "2003-03-01", "date_to": "2003-03-31"}),
    ("search_episodes", {"query": "ledger 账本"}),
    ("get_episode", {"id": 1}),
    ("get_episode", {"id": 40}),
    ("get_moment", {"at": "2003-03-12T11:00:00+08:00"}),
    ("get_raw", {"ts_from": "2003-03-12T00:00:00+08:00", "ts_to": "2003-03-13T00:00:00+08:00"}),
    ("get_raw", {"ts_from": "2003-03-15T00:00:00+08:00", "ts_to": "2003-03-16T00:00:00+08:00"}),
    (
        "deep_scan",
        {
            "ts_from": "2003-03-12T00:00:00+08:00",
            "ts_to": "2003-03-13T00:00:00+08:00",
            "question": "what did I watch?",
        },
    ),
]


@pytest.fixture(scope="module")
def truth(month: Month) -> ScopeTruth:
    with month.services.store.pool.connection() as conn:  # type: ignore[attr-defined]
        return scope_truth(conn, user=month.user, scope=WORK_HOURS)


@pytest.fixture(scope="module")
def token(month: Month) -> str:
    return issue_token(month.services.store, user_id=month.user.user_id, name="s", scope=WORK_HOURS)


@pytest.fixture(scope="module")
def http(month: Month, token: str) -> Iterator[TestClient]:
    with TestClient(create_app(services=month.services)) as client:
        client.headers["Authorization"] = f"Bearer {token}"
        yield client


def _tool(http: TestClient, name: str, arguments: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    reply = http.post(f"/api/v1/tools/{name}", json=arguments)
    body: dict[str, Any] = reply.json()
    return reply.status_code, body


def _seconds(body: dict[str, Any], key: str) -> dict[str, int]:
    return {item[key]: item["seconds"] for item in body["items"]}


def test_the_truth_has_both_sides(truth: ScopeTruth) -> None:
    # The scope hides something that the month holds, and shows something.
    assert truth.total > 3600 * 20
    assert set(truth.seconds_by_category) == {"work"}
    assert any("bilibili" in t for t in truth.hidden)
    assert len(truth.hidden) > 20


def test_totals_over_http_equal_the_scope_applied_by_hand(
    http: TestClient, truth: ScopeTruth
) -> None:
    status, by_category = _tool(http, "query_stats", {**MARCH, "metric": "seconds_by_category"})
    assert status == 200, by_category
    assert _seconds(by_category, "category") == {"work": pytest.approx(truth.total, abs=1)}
    assert by_category["total_seconds"] == pytest.approx(truth.total, abs=1)
    status, by_app = _tool(http, "query_stats", {**MARCH, "metric": "seconds_by_app", "top_n": 50})
    assert status == 200, by_app
    expected = {app: round(s) for app, s in truth.seconds_by_app.items() if round(s)}
    got = _seconds(by_app, "app")
    assert got.keys() == expected.keys()
    assert all(abs(got[a] - expected[a]) <= 1 for a in expected)


def test_a_day_s_total_equals_the_scope_by_hand(http: TestClient, truth: ScopeTruth) -> None:
    day = date(2003, 3, 12)  # a Wednesday
    status, body = _tool(
        http,
        "query_stats",
        {"period": "custom", "date_from": "2003-03-12", "date_to": "2003-03-12"},
    )
    assert status == 200, body
    assert body["total_seconds"] == pytest.approx(truth.seconds_by_day[day], abs=1)
    assert truth.seconds_by_day[day] > 0


def test_no_answer_over_http_names_out_of_scope_time(http: TestClient, truth: ScopeTruth) -> None:
    for name, arguments in CALLS:
        status, body = _tool(http, name, arguments)
        assert status in (200, 404, 422), (name, body)
        found = leaks(json.dumps(body, ensure_ascii=False), truth, asked=arguments)
        assert not found, (name, arguments, found[:5])


def test_every_tool_is_called(http: TestClient) -> None:
    # The scan above covers the whole registry (apply_label: the write test below).
    assert {name for name, _ in CALLS} | {"apply_label"} == set(REGISTRY)


def test_writes_get_403(http: TestClient, month: Month) -> None:
    with month.services.store.pool.connection() as conn:  # type: ignore[attr-defined]
        record_id = conn.execute(
            "SELECT record_id FROM records WHERE user_id = %s LIMIT 1", [month.user.user_id]
        ).fetchone()["record_id"]
    status, body = _tool(
        http, "apply_label", {"target": "record", "id": record_id, "category": "study"}
    )
    assert status == 403 and body["forbidden"] is True
    assert "read-only" in body["error"]


def _mcp_calls(base_url: str, token: str) -> tuple[list[str], list[tuple[bool, dict[str, Any]]]]:
    async def main() -> tuple[list[str], list[tuple[bool, dict[str, Any]]]]:
        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=120) as http,
            Client(streamable_http_client(f"{base_url}/mcp", http_client=http)) as client,
        ):
            listed = await client.list_tools()
            answers = []
            for name, arguments in [
                *CALLS,
                ("apply_label", {"target": "record", "id": 1, "category": "study"}),
            ]:
                result = await client.call_tool(name, arguments)
                answers.append((bool(result.is_error), json.loads(result.content[0].text)))
            return [t.name for t in listed.tools], answers

    return asyncio.run(main())


def test_mcp_answers_what_http_answers_and_refuses_the_write(
    month: Month, http: TestClient, token: str, truth: ScopeTruth
) -> None:
    with serve_in_thread(month.services) as base_url:
        names, answers = _mcp_calls(base_url, token)
    assert set(names) == set(REGISTRY)
    for (name, arguments), (_, body) in zip(CALLS, answers, strict=False):
        assert not leaks(json.dumps(body, ensure_ascii=False), truth, asked=arguments), name
        if name not in ("get_now", "deep_scan", "last_seen"):  # they read the clock
            assert body == _tool(http, name, arguments)[1], name
    refused, label = answers[-1]
    assert refused and label["forbidden"] is True


def test_a_token_limited_to_tools_lists_and_calls_only_those(month: Month) -> None:
    only = TokenScope(tools=["query_stats"])
    token = issue_token(month.services.store, user_id=month.user.user_id, name="t", scope=only)
    with TestClient(create_app(services=month.services)) as client:
        client.headers["Authorization"] = f"Bearer {token}"
        assert client.post("/api/v1/tools/query_stats", json=MARCH).status_code == 200
        reply = client.post("/api/v1/tools/get_raw", json=CALLS[-3][1])
        assert reply.status_code == 403 and reply.json()["forbidden"] is True
    with serve_in_thread(month.services) as base_url:

        async def main() -> tuple[list[str], bool]:
            headers = {"Authorization": f"Bearer {token}"}
            async with (
                httpx2.AsyncClient(headers=headers) as http,
                Client(streamable_http_client(f"{base_url}/mcp", http_client=http)) as client,
            ):
                listed = await client.list_tools()
                raw = await client.call_tool("get_raw", CALLS[-3][1])
                return [t.name for t in listed.tools], bool(raw.is_error)

        names, refused = asyncio.run(main())
    assert names == ["query_stats"] and refused


def test_the_unscoped_token_still_sees_everything(month: Month, truth: ScopeTruth) -> None:
    ctx = month.services.tool_context(user=month.user, now=NOW)
    assert ctx.store is month.services.store
    with TestClient(create_app(services=month.services)) as client:
        token = issue_token(month.services.store, user_id=month.user.user_id, name="all")
        client.headers["Authorization"] = f"Bearer {token}"
        body = client.post(
            "/api/v1/tools/query_stats", json={**MARCH, "metric": "seconds_by_category"}
        ).json()
    assert body["total_seconds"] > truth.total + 3600
