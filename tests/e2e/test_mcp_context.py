"""MCP the way clients expect, through the official MCP client over stdio, the server
started as `timetrace mcp --token-file PATH`: it reads the `timetrace://context`
resource (now, zone, day cut and ranges in the token user's zone; over streamable HTTP
in the bearer user's), follows cursors through a capped get_raw and search_episodes to
the end (the same items as one uncapped call) and passes relative instants. A token
file that cannot serve is one line and exit code 2."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import httpx2
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from app.api.server import serve_in_thread
from app.cli import main
from app.runtime.auth import issue_token
from app.runtime.services import Services
from app.settings import Settings
from app.store.accounts import UserContext
from app.store.scope import parse_scope
from app.timeutil import logical_day, zone
from tests.helpers import new_token_for
from tests.paged_day import RAW, SEARCH, paged_user, uncapped

SHANGHAI = zone("Asia/Shanghai")


def _env(settings: Settings) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(settings.data_dir),
        "TIMETRACE_DATABASE_URL": str(settings.database_url),
        "TIMETRACE_DATA_DIR": str(settings.data_dir),
    }


@contextlib.asynccontextmanager
async def as_token_file(settings: Settings, token_file: Path) -> AsyncIterator[Client]:
    """`timetrace mcp --token-file PATH` in a subprocess, on the test's database."""
    params = StdioServerParameters(
        command=str(Path(sys.executable).with_name("timetrace")),
        args=["mcp", "--token-file", str(token_file)],
        env=_env(settings),
        cwd=str(settings.data_dir),
    )
    async with Client(params) as client:
        yield client


async def _pages(client: Client, name: str, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    pages = [(await client.call_tool(name, arguments)).structured_content]
    while pages[-1] is not None and "cursor" in pages[-1]:
        result = await client.call_tool(name, {"cursor": pages[-1]["cursor"]})
        assert not result.is_error, result
        pages.append(result.structured_content)
        assert len(pages) < 100
    return [p for p in pages if p is not None]


async def _session(client: Client) -> dict[str, Any]:
    listed = await client.list_resources()
    read = await client.read_resource("timetrace://context")
    before = datetime.now(UTC)
    relative = await client.call_tool("query_stats", {"ts_from": "2h ago", "ts_to": "now"})
    chinese = await client.call_tool("query_stats", {"ts_from": "昨天下午3点", "ts_to": "现在"})
    return {
        "listed": listed,
        "context": json.loads(read.contents[0].text),
        "mime": read.contents[0].mime_type,
        "relative": (before, relative.structured_content, chinese.structured_content),
        "raw": await _pages(client, "get_raw", RAW),
        "search": await _pages(client, "search_episodes", SEARCH),
    }


def _token_file(tmp_path: Path, token: str) -> Path:
    path = tmp_path / "claude.token"
    path.write_text(token + "\n", encoding="utf-8")
    return path


def _expected_today(at: datetime) -> tuple[date, datetime, datetime]:
    today = logical_day(at, tz=SHANGHAI, cut_hour=4)
    start = datetime.combine(today, time(4), tzinfo=SHANGHAI)
    return today, start, datetime.combine(today + timedelta(days=1), time(4), tzinfo=SHANGHAI)


def assert_context_is_the_users(context: dict[str, Any], before: datetime) -> None:
    assert context["time_zone"] == "Asia/Shanghai" and context["day_cut_hour"] == 4
    assert context["utc_offset"] == "+08:00"
    now = datetime.fromisoformat(context["now"])
    assert now.utcoffset() == timedelta(hours=8) and before <= now <= datetime.now(UTC)
    today, start, end = _expected_today(now)
    periods = context["periods"]
    assert context["today"] == today.isoformat()
    assert periods["today"] == {
        "from": start.isoformat(),
        "to": end.isoformat(),
        "date_from": today.isoformat(),
        "date_to": today.isoformat(),
    }
    assert periods["yesterday"]["to"] == start.isoformat()
    assert periods["yesterday"]["date_from"] == (today - timedelta(days=1)).isoformat()
    monday = date.fromisoformat(periods["this_week"]["date_from"])
    assert monday.weekday() == 0 and monday <= today < monday + timedelta(days=7)
    assert periods["this_week"]["to"] == end.isoformat()
    last = periods["last_week"]
    assert last["to"] == periods["this_week"]["from"]
    assert (
        last["from"] == datetime.combine(monday - timedelta(days=7), time(4), SHANGHAI).isoformat()
    )


def assert_relative_windows(before: datetime, english: Any, chinese: Any) -> None:
    start, _, end = english["window"].partition(" to ")
    assert datetime.fromisoformat(start).utcoffset() == timedelta(hours=8)
    assert abs(datetime.fromisoformat(end) - datetime.fromisoformat(start)) == timedelta(hours=2)
    assert before - timedelta(minutes=5) <= datetime.fromisoformat(end) <= datetime.now(UTC)
    start, _, _ = chinese["window"].partition(" to ")
    yesterday = logical_day(before, tz=SHANGHAI, cut_hour=4) - timedelta(days=1)
    assert start == datetime.combine(yesterday, time(15), SHANGHAI).isoformat()


def test_a_token_file_server_gives_context_pages_and_relative_instants(
    services: Services, settings: Settings, tmp_path: Path
) -> None:
    pager = paged_user(services)
    services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=0)  # not served
    token_file = _token_file(tmp_path, new_token_for(services, pager))
    before = datetime.now(UTC)

    async def run() -> dict[str, Any]:
        async with as_token_file(settings, token_file) as client:
            return await _session(client)

    got = asyncio.run(run())
    assert [r.uri for r in got["listed"].resources] == ["timetrace://context"]
    assert got["mime"] == "application/json"
    assert_context_is_the_users(got["context"], before)
    assert_relative_windows(*got["relative"])
    ctx = services.tool_context(user=pager, now=datetime.now(UTC))
    for name, arguments in (("get_raw", RAW), ("search_episodes", SEARCH)):
        pages = got["raw" if name == "get_raw" else "search"]
        assert len(pages) >= 2 and all(p["truncated"] for p in pages[:-1])
        items = [item for page in pages for item in page["items"]]
        assert items == uncapped(ctx, name, arguments), name


def _run(settings: Settings, *args: str) -> Any:
    return CliRunner().invoke(main, list(args), env=_env(settings))


def test_a_token_file_that_cannot_serve_is_one_line_and_exit_code_2(
    services: Services, settings: Settings, tmp_path: Path
) -> None:
    user: UserContext = services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)
    good = _token_file(tmp_path, new_token_for(services, user))
    empty, wrong, two = tmp_path / "empty", tmp_path / "wrong", tmp_path / "two"
    empty.write_text("\n", encoding="utf-8")
    wrong.write_text("tt_not_a_token_of_anyone\n", encoding="utf-8")
    two.write_text("tt_a tt_b\n", encoding="utf-8")
    cases = {
        str(tmp_path / "missing"): "cannot read the token file",
        str(empty): "must hold one API token and nothing else",
        str(two): "must hold one API token and nothing else",
        str(wrong): "does not serve: the API token is unknown or revoked",
    }
    for path, message in cases.items():
        for command in (["mcp"], ["mcp", "config"]):
            result = _run(settings, *command, "--token-file", path)
            assert result.exit_code == 2, (command, path, result.output)
            lines = result.output.strip().splitlines()
            assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.output
    config = _run(settings, "mcp", "config", "--client", "generic", "--token-file", str(good))
    assert config.exit_code == 0, config.output
    server = json.loads(config.stdout)
    assert server["args"][-3:] == ["mcp", "--token-file", str(good.absolute())]
    assert "--user" not in server["args"]
    both = _run(settings, "mcp", "--user", "me", "--token-file", str(good))
    assert both.exit_code == 2 and "not both" in both.output


def test_over_streamable_http_the_resource_is_the_bearer_users(services: Services) -> None:
    shanghai = services.store.ensure_user(name="sh", time_zone="Asia/Shanghai", day_cut_hour=4)
    berlin = services.store.ensure_user(name="de", time_zone="Europe/Berlin", day_cut_hour=0)
    tokens = {"Asia/Shanghai": new_token_for(services, shanghai)}
    tokens["Europe/Berlin"] = new_token_for(services, berlin)

    async def read(url: str, token: str) -> Any:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            listed = await client.list_resources()
            read = await client.read_resource("timetrace://context")
            return listed, json.loads(read.contents[0].text)

    with serve_in_thread(services) as base_url:
        for time_zone, token in tokens.items():
            listed, context = asyncio.run(read(f"{base_url}/mcp", token))
            assert [r.uri for r in listed.resources] == ["timetrace://context"]
            assert context["time_zone"] == time_zone
            now = datetime.fromisoformat(context["now"])
            assert now.utcoffset() == now.astimezone(zone(time_zone)).utcoffset()


def test_a_scoped_token_file_serves_only_what_its_scope_allows(
    services: Services, settings: Settings, tmp_path: Path
) -> None:
    """`timetrace mcp --token-file` runs as the token's caller: a token limited to
    get_raw, read-only and to dates before the pager's day lists get_raw alone, finds no
    record of that day, and refuses a tool it was not given."""
    pager = paged_user(services)
    scope = parse_scope("read-only tools=get_raw dates=2001-01-01..2001-01-31")
    token = issue_token(services.store, user_id=pager.user_id, name="claude", scope=scope)
    token_file = _token_file(tmp_path, token)

    async def run() -> tuple[list[str], Any, bool]:
        async with as_token_file(settings, token_file) as client:
            listed = await client.list_tools()
            raw = await client.call_tool("get_raw", RAW)
            refused = await client.call_tool("query_stats", {"period": "today"})
            return [t.name for t in listed.tools], raw.structured_content, bool(refused.is_error)

    names, raw, refused = asyncio.run(run())
    assert names == ["get_raw"] and refused
    ctx = services.tool_context(user=pager, now=datetime.now(UTC))
    assert uncapped(ctx, "get_raw", RAW), "the unscoped call sees records"
    assert raw is not None and raw["items"] == []
