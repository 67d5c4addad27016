"""MCP call latency: query_stats for the sample month through the official MCP client,
over stdio (a spawned `timetrace mcp`) and over streamable HTTP (a `timetrace serve`
process on loopback), beside the same call through `dispatch` in-process.

    python bench/mcp.py [--calls 200]

Ends with one JSON line: {"stdio_call_p95_ms": …, "http_call_p95_ms": …, …}.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

# The repository instead of this script's folder, where this file would shadow the `mcp` package.
sys.path.pop(0)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import httpx
import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from app.pyramid.build import backfill
from app.runtime.auth import hash_token, new_token
from app.runtime.services import open_services
from app.tools import dispatch
from app.tools.registry import dump
from bench._common import api_process, bench_database, load_sample_year, p50_p95_ms

START, DAYS = date(2002, 6, 1), 30
ARGUMENTS = {
    "period": "custom",
    "date_from": START.isoformat(),
    "date_to": (START + timedelta(days=DAYS - 1)).isoformat(),
}


async def _time_calls(
    connect: Callable[[], AbstractAsyncContextManager[Client]], calls: int
) -> list[float]:
    async with connect() as client:
        for _ in range(10):  # warm up: imports, connections, plans
            await client.call_tool("query_stats", ARGUMENTS)
        samples = []
        for _ in range(calls):
            started = time.perf_counter()
            result = await client.call_tool("query_stats", ARGUMENTS)
            samples.append(time.perf_counter() - started)
            if result.is_error:
                raise SystemExit(f"query_stats failed: {result.structured_content}")
        return samples


def _measure(
    label: str, connect: Callable[[], AbstractAsyncContextManager[Client]], calls: int
) -> tuple[float, float]:
    p50, p95 = p50_p95_ms(asyncio.run(_time_calls(connect, calls)))
    print(f"{label:<10} p50 {p50:>7} ms  p95 {p95:>7} ms", file=sys.stderr)
    return p50, p95


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()

    with (
        bench_database("tt_bench_mcp") as (url, settings),
        open_services(settings, url=url, auto_migrate=False) as services,
    ):
        user = services.store.ensure_user(name="me", time_zone="Asia/Shanghai", day_cut_hour=4)
        token = new_token()
        services.store.add_token(user_id=user.user_id, token_hash=hash_token(token), name="bench")
        for _ in load_sample_year(services, user, start=START, days=DAYS, mean_record_s=45):
            pass
        backfill(services.store, now=datetime.now(UTC), settings=settings)

        samples = []
        for _ in range(args.calls):
            ctx = services.tool_context(user=user, now=datetime.now(UTC))
            started = time.perf_counter()
            answer = dispatch(ctx, "query_stats", ARGUMENTS)
            samples.append(time.perf_counter() - started)
        print(f"query_stats answers from: {dump(answer)['source']}", file=sys.stderr)
        direct = p50_p95_ms(samples)
        print(f"{'dispatch':<10} p50 {direct[0]:>7} ms  p95 {direct[1]:>7} ms", file=sys.stderr)

        timetrace = shutil.which("timetrace", path=str(Path(sys.executable).parent))
        stdio = StdioServerParameters(
            command=timetrace or "timetrace",
            args=["mcp", "--user", "me"],
            env={**os.environ, "TIMETRACE_DATABASE_URL": url},
        )
        stdio_ms = _measure("stdio", lambda: Client(stdio), args.calls)

        with api_process(url) as base:

            @contextlib.asynccontextmanager
            async def over_http() -> AsyncIterator[Client]:
                headers = {"Authorization": f"Bearer {token}"}
                async with (
                    httpx2.AsyncClient(headers=headers) as http,
                    Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
                ):
                    yield client

            http_ms = _measure("http", over_http, args.calls)
            # The same call through the plain HTTP API, to see what MCP itself adds.
            samples = []
            with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}) as api:
                for _ in range(args.calls):
                    started = time.perf_counter()
                    api.post("/api/v1/tools/query_stats", json=ARGUMENTS).raise_for_status()
                    samples.append(time.perf_counter() - started)
            api_ms = p50_p95_ms(samples)
            print(f"{'http api':<10} p50 {api_ms[0]:>7} ms  p95 {api_ms[1]:>7} ms", file=sys.stderr)

    result: dict[str, Any] = {
        "stdio_call_p95_ms": stdio_ms[1],
        "http_call_p95_ms": http_ms[1],
        "stdio_call_p50_ms": stdio_ms[0],
        "http_call_p50_ms": http_ms[0],
        "api_call_p95_ms": api_ms[1],
        "dispatch_p95_ms": direct[1],
        "calls": args.calls,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
