"""The MCP bridge through the official MCP client: over stdio (spawning `timetrace mcp`)
and over streamable HTTP (the running API server), every registry tool with the
registry's own name, description, schema and tier, answering exactly what `dispatch`
answers, for the token's user only."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import re
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import httpx
import httpx2
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pydantic import Field

from app.api.server import serve_in_thread
from app.cli import main
from app.demo.sample import SampleData
from app.ingest.records import RecordBatch, ingest_batch
from app.mcp.server import MAX_ARGUMENTS_BYTES
from app.pyramid.build import rebuild_days
from app.runtime.auth import hash_token, new_token
from app.runtime.services import Services
from app.settings import Settings
from app.store.accounts import UserContext
from app.tools import REGISTRY, dispatch_json, list_tools
from app.tools.registry import ToolArgs, ToolContext, tool
from app.tools.results import ToolResult
from tests.helpers import NOW, SAMPLE_MONTH, Preloaded

ROOT = Path(__file__).resolve().parents[2]
FIRST, LAST = SAMPLE_MONTH.start, SAMPLE_MONTH.start + timedelta(days=SAMPLE_MONTH.days - 1)
T = TypeVar("T")

STATS = {"period": "custom", "date_from": FIRST.isoformat(), "date_to": LAST.isoformat()}
SEARCH = {"query": "ledger 账本", "date_from": FIRST.isoformat(), "date_to": LAST.isoformat()}


@dataclass(frozen=True)
class People:
    services: Services
    alice: UserContext
    alice_token: str
    bob: UserContext
    bob_token: str


def _token_for(services: Services, user: UserContext) -> str:
    token = new_token()
    services.store.add_token(user_id=user.user_id, token_hash=hash_token(token), name="mcp")
    return token


def _add_user(services: Services, name: str) -> tuple[UserContext, str]:
    user = services.store.ensure_user(name=name, time_zone="Asia/Shanghai", day_cut_hour=4)
    return user, _token_for(services, user)


@pytest.fixture
def people(services: Services) -> People:
    alice, alice_token = _add_user(services, "me")  # the user of docs/mcp.md's configs
    bob, bob_token = _add_user(services, "bob")
    return People(services, alice, alice_token, bob, bob_token)


@pytest.fixture
def seeded(preloaded: Preloaded, services: Services) -> tuple[People, SampleData]:
    """Alice: the sample month. Bob: half an hour over his private ledger, on 3 March."""
    alice, alice_token = preloaded.user, _token_for(services, preloaded.user)
    bob, bob_token = _add_user(services, "bob")
    services.store.add_device(user_id=bob.user_id, device_id="pc", name="", kind="desktop")
    records = [
        {
            "client_record_id": f"bob-{i}",
            "ts_start": f"2003-03-03T02:{i:02d}:00+00:00",
            "ts_end": f"2003-03-03T02:{i + 1:02d}:00+00:00",
            "app": "Numbers",
            "window_title": "Bob 的私人账本 private ledger",
        }
        for i in range(30)
    ]
    batch = RecordBatch.model_validate({"device_id": "pc", "records": records})
    ingest_batch(services.store, user=bob, batch=batch, rules=services.rules)
    rebuild_days(
        services.store,
        user=bob,
        device_days=[("pc", date(2003, 3, 3))],
        now=NOW,
        settings=services.settings,
    )
    return People(services, alice, alice_token, bob, bob_token), preloaded.data


class EchoArgs(ToolArgs):
    word: str = Field(max_length=20, description="a word to say back")


class EchoResult(ToolResult):
    word: str
    user: str


@pytest.fixture
def echo_tool() -> Iterator[list[str]]:
    """A tool registered by this test alone (and gone after it); it lists who called it."""
    calls: list[str] = []

    @tool(
        tier="1",
        cap_tokens=100,
        description="Say a word back.",
    )
    def zz_echo(ctx: ToolContext, args: EchoArgs) -> EchoResult:
        calls.append(ctx.user.name)
        return EchoResult(word=args.word, user=ctx.user.name)

    try:
        yield calls
    finally:
        del REGISTRY["zz_echo"]


def direct(services: Services, user: UserContext, name: str, arguments: dict[str, Any]) -> Any:
    ctx = services.tool_context(user=user, now=datetime.now(UTC))
    return dispatch_json(ctx, name, arguments)


Connect = Callable[[], AbstractAsyncContextManager[Client]]


def in_session(connect: Connect, body: Callable[[Client], Awaitable[T]]) -> T:
    """Open one MCP session, run `body` in it, close it."""

    async def main() -> T:
        async with connect() as client:
            return await body(client)

    return asyncio.run(main())


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


@contextlib.asynccontextmanager
async def over_http(
    url: str, headers: dict[str, str], *, mode: str = "auto"
) -> AsyncIterator[Client]:
    """`auto` speaks the 2026 protocol (a request stands alone); `legacy` opens a session."""
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        yield client


def readme_configs() -> list[dict[str, Any]]:
    """The MCP client configs docs/mcp.md gives, in order: stdio, then streamable HTTP."""
    text = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```json\n(.*?)```", text, flags=re.DOTALL)
    return [json.loads(block)["mcpServers"]["timetrace"] for block in blocks]


@contextlib.asynccontextmanager
async def over_stdio(settings: Settings, config: dict[str, Any]) -> AsyncIterator[Client]:
    """docs/mcp.md's stdio config in a subprocess, on the test's database, with nothing
    else set (its data directory is this test's)."""
    env = {
        **config["env"],
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(settings.data_dir),
        "TIMETRACE_DATABASE_URL": str(settings.database_url),
        "TIMETRACE_DATA_DIR": str(settings.data_dir),
    }
    params = StdioServerParameters(
        # The config's absolute path, here: this environment's `timetrace`.
        command=str(Path(sys.executable).with_name(Path(config["command"]).name)),
        args=config["args"],
        env=env,
        cwd=str(settings.data_dir),
    )
    async with Client(params) as client:
        yield client


@contextlib.contextmanager
def mcp_url(services: Services) -> Iterator[str]:
    """The API server on a loopback port; its MCP endpoint."""
    with serve_in_thread(services) as base_url:
        yield f"{base_url}/mcp"


# -- parity: the listing is the registry ---------------------------------------------------


def assert_listing_is_the_registry(listed: Any) -> None:
    registry = list_tools()
    assert [t.name for t in listed.tools] == [t["name"] for t in registry]
    for got, spec in zip(listed.tools, registry, strict=True):
        assert got.description == spec["description"]
        assert got.input_schema == spec["input_schema"]
        writes = spec["tier"] == "write"
        assert got.annotations.read_only_hint is (not writes)
        assert got.annotations.destructive_hint is writes


async def _stats_and_search(client: Client) -> tuple[Any, Any]:
    stats = await client.call_tool("query_stats", STATS)
    return stats, await client.call_tool("search_episodes", SEARCH)


async def _list_and_call(client: Client) -> tuple[Any, Any, Any]:
    return await client.list_tools(), *await _stats_and_search(client)


def assert_same_as_dispatch(
    services: Services, user: UserContext, result: Any, name: str, arguments: dict[str, Any]
) -> Any:
    """The structured content is what dispatch answers, and the text is the same JSON."""
    assert not result.is_error
    expected = direct(services, user, name, arguments)
    assert result.structured_content == expected
    assert [c.type for c in result.content] == ["text"]
    assert json.loads(result.content[0].text) == expected
    return expected


def alice_truth(data: SampleData) -> int:
    return sum(s for (day, _), s in data.seconds.items() if FIRST <= day <= LAST)


@pytest.mark.slow
@pytest.mark.preloaded(SAMPLE_MONTH)
def test_stdio_lists_the_registry_and_answers_as_dispatch_does(
    seeded: tuple[People, SampleData], settings: Settings, conn: Any
) -> None:
    people, data = seeded
    # docs/mcp.md's config serves the user `me`: here that is Alice, the sample's user.
    conn.execute("UPDATE users SET name = 'me' WHERE user_id = %s", [people.alice.user_id])

    async def session(client: Client) -> tuple[Any, Any, Any, list[Any]]:
        # Malformed calls first: the same session must keep answering after them.
        refused = await _malformed_calls(client)
        return (*await _list_and_call(client), refused)

    stdio, _ = readme_configs()
    listed, stats, search, refused = in_session(lambda: over_stdio(settings, stdio), session)
    assert_listing_is_the_registry(listed)
    expected = assert_same_as_dispatch(people.services, people.alice, stats, "query_stats", STATS)
    assert expected["total_seconds"] == alice_truth(data)
    assert_same_as_dispatch(people.services, people.alice, search, "search_episodes", SEARCH)
    assert_refusals(refused)


@pytest.mark.preloaded(SAMPLE_MONTH)
def test_http_lists_the_registry_and_answers_as_dispatch_does(
    seeded: tuple[People, SampleData],
) -> None:
    people, data = seeded
    _, config = readme_configs()
    headers = {
        name: value.replace("tt_your_token", people.alice_token)
        for name, value in config["headers"].items()
    }
    with serve_in_thread(people.services) as base_url:
        url = config["url"].replace("http://127.0.0.1:8787", base_url)
        listed, stats, search = in_session(lambda: over_http(url, headers), _list_and_call)
    assert_listing_is_the_registry(listed)
    expected = assert_same_as_dispatch(people.services, people.alice, stats, "query_stats", STATS)
    assert expected["total_seconds"] == alice_truth(data)
    assert_same_as_dispatch(people.services, people.alice, search, "search_episodes", SEARCH)


# -- generated: a tool registered anywhere appears, with nothing else edited ---------------


def test_a_tool_registered_in_a_test_appears_over_mcp_with_no_other_edit(
    people: People, echo_tool: list[str]
) -> None:
    async def session(client: Client) -> tuple[Any, Any]:
        return await client.list_tools(), await client.call_tool("zz_echo", {"word": "你好"})

    with mcp_url(people.services) as url:
        listed, answer = in_session(lambda: over_http(url, bearer(people.bob_token)), session)
    assert "zz_echo" in [t.name for t in listed.tools]
    assert_listing_is_the_registry(listed)
    assert answer.structured_content == {"word": "你好", "user": "bob", "truncated": False}
    assert echo_tool == ["bob"]


# -- authenticated: no valid token, nothing runs; a token sees only its own user -----------


def test_requests_without_a_valid_token_are_refused_before_any_tool_runs(
    people: People, echo_tool: list[str]
) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "zz_echo"}}
    with mcp_url(people.services) as url:
        bad = ({}, bearer("tt_not-a-token"), {"Authorization": "Basic x"})
        for headers in bad:
            refused = httpx.post(url, json=call, headers=headers)
            assert refused.status_code == 401
            assert refused.headers["www-authenticate"] == "Bearer"
            assert "token" in refused.json()["error"]

        async def echo(client: Client) -> Any:
            return await client.call_tool("zz_echo", {"word": "hi"})

        for token in (None, "tt_not-a-token", people.alice_token + "x"):
            with pytest.raises(ExceptionGroup) as failed:
                in_session(functools.partial(over_http, url, bearer(token)), echo)
            assert failed.group_contains(MCPError, match="error response")
        assert echo_tool == []
        # The same call with a valid token does run: the refusals above were the token's.
        answer = in_session(lambda: over_http(url, bearer(people.alice_token)), echo)
    assert answer.structured_content["user"] == "me"
    assert echo_tool == ["me"]


@pytest.mark.preloaded(SAMPLE_MONTH)
def test_each_token_sees_only_its_own_users_data(seeded: tuple[People, SampleData]) -> None:
    people, data = seeded
    services = people.services
    # `auto` speaks the 2026 protocol (each request stands alone); `legacy` opens sessions.
    for mode in ("auto", "legacy"):
        with mcp_url(services) as url:
            alice_stats, alice_search = in_session(
                functools.partial(over_http, url, bearer(people.alice_token), mode=mode),
                _stats_and_search,
            )
            bob_stats, bob_search = in_session(
                functools.partial(over_http, url, bearer(people.bob_token), mode=mode),
                _stats_and_search,
            )
        bob_total = assert_same_as_dispatch(services, people.bob, bob_stats, "query_stats", STATS)
        assert bob_total["total_seconds"] == 30 * 60
        found = assert_same_as_dispatch(services, people.bob, bob_search, "search_episodes", SEARCH)
        assert found["items"], "Bob finds his ledger"
        alice_total = assert_same_as_dispatch(
            services, people.alice, alice_stats, "query_stats", STATS
        )
        assert alice_total["total_seconds"] == alice_truth(data)
        assert alice_search.structured_content["items"] == []  # Bob's ledger is not Alice's


def test_a_session_answers_only_the_user_who_opened_it(people: People) -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    accept = {"Accept": "application/json, text/event-stream"}
    with mcp_url(people.services) as url:
        opened = httpx.post(url, json=initialize, headers={**accept, **bearer(people.alice_token)})
        assert opened.status_code == 200
        session = {**accept, "Mcp-Session-Id": opened.headers["mcp-session-id"]}
        session["MCP-Protocol-Version"] = "2025-11-25"
        by_bob = httpx.post(url, json=listing, headers={**session, **bearer(people.bob_token)})
        by_alice = httpx.post(url, json=listing, headers={**session, **bearer(people.alice_token)})
    assert by_bob.status_code == 404
    assert by_alice.status_code == 200, by_alice.text
    assert len(by_alice.json()["result"]["tools"]) == len(REGISTRY)


# -- malformed calls are tool errors, and the session keeps working ------------------------


async def _malformed_calls(client: Client) -> list[Any]:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("no_such_tool", {}),
        ("query_stats", {"top_n": "lots"}),
        ("query_stats", {"period": 7}),
        ("search_episodes", {"query": "很长" * 300}),
        ("query_stats", {"period": "today", "padding": "x" * MAX_ARGUMENTS_BYTES}),
    ]
    results = [await client.call_tool(name, arguments) for name, arguments in calls]
    results.append(await client.call_tool("query_stats", {"period": "today"}))
    return results


def assert_refusals(results: list[Any]) -> None:
    *refused, after = results
    assert [r.is_error for r in refused] == [True] * 5
    errors = [r.structured_content["error"] for r in refused]
    assert errors[0] == "unknown tool 'no_such_tool'"
    assert "query_stats" in refused[0].structured_content["hint"]
    assert "top_n" in errors[1]
    assert "period" in errors[2]
    assert "query" in errors[3] and "500" in errors[3]
    assert f"the limit is {MAX_ARGUMENTS_BYTES:,}" in errors[4]
    assert all(r.structured_content.get("hint") for r in refused)
    assert not after.is_error and after.structured_content["metric"] == "seconds_by_category"


def test_malformed_calls_over_http_are_tool_errors_and_the_session_keeps_working(
    people: People,
) -> None:
    with mcp_url(people.services) as url:
        results = in_session(lambda: over_http(url, bearer(people.alice_token)), _malformed_calls)
    assert_refusals(results)


# -- the command ---------------------------------------------------------------------------


def test_mcp_command_says_whose_memory_in_one_line(people: People, settings: Settings) -> None:
    runner = CliRunner()
    env = {
        "TIMETRACE_DATABASE_URL": str(settings.database_url),
        "TIMETRACE_DATA_DIR": str(settings.data_dir),
    }
    nobody = runner.invoke(main, ["mcp"], env=env)
    assert nobody.exit_code == 2 and "--user NAME or TIMETRACE_TOKEN" in nobody.output
    unknown = runner.invoke(main, ["mcp", "--user", "carol"], env=env)
    assert unknown.exit_code == 1 and "no user 'carol'" in unknown.output
    revoked = runner.invoke(main, ["mcp"], env={**env, "TIMETRACE_TOKEN": "tt_gone"})
    assert revoked.exit_code == 1 and "unknown or revoked" in revoked.output
    assert "Traceback" not in nobody.output + unknown.output + revoked.output
