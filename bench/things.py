"""Latency and output tokens of the tools on things, on the demo month.

    python bench/things.py [--calls 200]

Loads the demo's sample month (three devices, June 2026) through the real ingest code,
builds the pyramid, then calls each tool on things through `dispatch` with names
people use (apps, nicknames, sites inside browsers, categories, idle time; Chinese and
English) over varied periods. Ends with one JSON line: p50/p95 in ms and the largest
output in tokens per tool.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.demo.sample import generate_sample
from app.pyramid.build import backfill
from app.runtime.services import open_services
from app.tools import dispatch
from app.tools.registry import output_tokens
from app.tools.results import ToolError
from bench._common import bench_database, load_sample, p50_p95_ms

START = date(2026, 6, 1)
DAYS = 30
NOW = datetime(2026, 7, 1, 6, tzinfo=UTC)
THINGS = [
    "B站",
    "YouTube",
    "油管",
    "GitHub",
    "知乎",
    "Steam",
    "VS Code",
    "PyCharm",
    "命令行",
    "terminal",
    "微信",
    "WeChat",
    "Slack",
    "浏览器",
    "娱乐",
    "work",
    "学习",
    "离开电脑",
    "away",
    "coursera",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    rng = random.Random(11)

    def period() -> dict[str, Any]:
        first = START + timedelta(days=rng.randrange(DAYS))
        last = min(first + timedelta(days=rng.choice([0, 1, 6, 13, 29])), START + timedelta(29))
        return {"period": "custom", "date_from": first.isoformat(), "date_to": last.isoformat()}

    def moment() -> dict[str, Any]:
        at = datetime(2026, 6, 1, 1, tzinfo=UTC) + timedelta(minutes=rng.randrange(DAYS * 1440))
        return {"at": at.isoformat()}

    plans: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
        "query_stats_thing": ("query_stats", lambda: {**period(), "thing": rng.choice(THINGS)}),
        "last_seen": ("last_seen", lambda: {"thing": rng.choice(THINGS)}),
        "days_with": (
            "days_with",
            lambda: {**period(), "thing": rng.choice(THINGS), "min_minutes": 10},
        ),
        "compare": ("compare", lambda: {**period(), "things": rng.sample(THINGS, 2)}),
        "get_moment": ("get_moment", moment),
        "get_signals_by_day": ("get_signals", lambda: {**period(), "by_day": True}),
        "unresolved": (
            "query_stats",
            lambda: {**period(), "thing": rng.choice(["Stem", "zhihuu"])},
        ),
    }
    with (
        bench_database("timetrace_bench_things") as (url, settings),
        open_services(settings, url=url, auto_migrate=False) as services,
    ):
        data = generate_sample(start=START, days=DAYS)
        user = load_sample(services, data, name="demo")
        backfill(services.store, now=NOW, settings=settings)
        ctx = services.tool_context(user=user, now=NOW)
        out: dict[str, Any] = {"records": len(data.records), "calls": args.calls}
        for label, (name, make) in plans.items():
            samples, tokens = [], 0
            for _ in range(args.calls):
                arguments = make()
                started = time.perf_counter()
                result = dispatch(ctx, name, arguments)
                samples.append(time.perf_counter() - started)
                tokens = max(tokens, output_tokens(result))
                if isinstance(result, ToolError) and label != "unresolved":
                    raise SystemExit(f"{name} {arguments}: {result.error}")
            p50, p95 = p50_p95_ms(samples)
            out[f"{label}_p50_ms"], out[f"{label}_p95_ms"] = p50, p95
            out[f"{label}_max_tokens"] = tokens
            print(
                f"{label:<20} p50 {p50:>7} ms  p95 {p95:>7} ms  tokens ≤ {tokens}",
                file=sys.stderr,
            )
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
