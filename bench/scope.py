"""What a scoped token costs: a tool call through a scope that hides time, against the
same call for the whole user, after a month and after a year of history.

    python bench/scope.py [--days 30 365] [--calls 20] [--mean-record-s 30]

For each history: loads `days` of sample activity through the real ingest code and
builds the pyramid, then times `query_stats` for the last full month and `get_raw` for
two hours through `dispatch`, for the whole user and for a token scoped
"read-only kinds=work hours=09:00-18:00 days=mon-fri sites=-bilibili.com" (the issue's
example). Each call takes a fresh context, as every door makes one per call, so a scoped
call includes making its shadow (docs/scopes.md). Median of `--calls` after a warm-up.
Ends with one JSON line:
{"scoped_query_stats_ms_30d": …, "whole_query_stats_ms_30d": …, "scoped_get_raw_ms_30d": …,
 …, "scoped_query_stats_ms_365d": …}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.pyramid.build import backfill
from app.runtime.services import Services, open_services
from app.store.accounts import UserContext
from app.store.scope import parse_scope
from app.tools import dispatch
from bench._common import bench_database, load_sample_year

START = date(2001, 1, 1)
SCOPE = "read-only kinds=work hours=09:00-18:00 days=mon-fri sites=-bilibili.com"


def _median_ms(call: Callable[[], object], *, calls: int) -> float:
    call()  # warm-up
    samples = []
    for _ in range(calls):
        began = time.perf_counter()
        call()
        samples.append(time.perf_counter() - began)
    return round(statistics.median(samples) * 1000, 1)


def _history(days: int, *, calls: int, mean_record_s: int) -> dict[str, float]:
    with (
        bench_database("timetrace_bench_scope") as (url, settings),
        open_services(settings, url=url, auto_migrate=False) as services,
    ):
        user = services.store.ensure_user(name="bench", time_zone="Asia/Shanghai", day_cut_hour=4)
        for _ in load_sample_year(
            services, user, start=START, days=days, mean_record_s=mean_record_s
        ):
            pass
        backfill(services.store, now=datetime.now(UTC), settings=settings)
        last = START + timedelta(days=days - 1)
        month_end = last.replace(day=1) - timedelta(days=1)
        if days < 62:  # a month of history: the whole of it
            first, month_end = START, last
        else:
            first = month_end.replace(day=1)
        month = {"period": "custom", "date_from": str(first), "date_to": str(month_end)}
        at = datetime.combine(last, datetime.min.time(), tzinfo=UTC) + timedelta(hours=2)
        raw = {"ts_from": at.isoformat(), "ts_to": (at + timedelta(hours=2)).isoformat()}
        now = at + timedelta(days=1)
        scoped = user.model_copy(update={"scope": parse_scope(SCOPE)})
        figures: dict[str, float] = {}
        for who, caller in (("whole", user), ("scoped", scoped)):
            for tool, arguments in (("query_stats", month), ("get_raw", raw)):
                figures[f"{who}_{tool}_ms_{days}d"] = _median_ms(
                    _call(services, caller, tool, arguments, now=now), calls=calls
                )
        return figures


def _call(
    services: Services, user: UserContext, tool: str, arguments: dict[str, Any], *, now: datetime
) -> Callable[[], object]:
    def run() -> object:
        return dispatch(services.tool_context(user=user, now=now), tool, dict(arguments))

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, nargs="+", default=[30, 365])
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--mean-record-s", type=int, default=30)
    args = parser.parse_args()
    figures: dict[str, float] = {}
    for days in args.days:
        figures |= _history(days, calls=args.calls, mean_record_s=args.mean_record_s)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
