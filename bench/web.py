"""The web pages at a year of data: server time of the day and week views, of the
zoomed timeline's data request, and the weight of a page.

    python bench/web.py [--days 365] [--mean-record-s 4] [--requests 200]

Loads a synthetic year (about 1.8 M records, as bench/build.py) through the real
ingest code, builds the pyramid, starts `timetrace serve` in its own process,
signs in like a browser and times GET /day/{day} and GET /week/{week} for random
days and weeks of the year over loopback (the whole round trip, so an upper bound
of the server's time), and GET /day/{day}/timeline for a 30-minute window (the
script's request as it zooms: runs of records) and a 2-hour one (episodes). The page
weight is the largest day view's HTML plus the stylesheet and the script it loads.
Ends with one JSON line:
{"day_view_p95_ms": …, "zoom_data_p95_ms": …, "week_view_p95_ms": …, "page_kb": …}.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.db.connection import connect
from app.pyramid.build import backfill
from app.runtime.auth import hash_token, new_token
from app.runtime.services import open_services
from app.timeutil import week_key
from bench._common import api_process, bench_database, load_sample_year

START = date(2001, 1, 1)


def _ms(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
    return round(statistics.median(ordered) * 1000, 1), round(p95 * 1000, 1)


def _timed(client: httpx.Client, paths: list[str]) -> tuple[list[float], int]:
    """Seconds per request, and the largest body seen."""
    samples, largest = [], 0
    for path in paths:
        started = time.perf_counter()
        reply = client.get(path)
        samples.append(time.perf_counter() - started)
        reply.raise_for_status()
        largest = max(largest, len(reply.content))
    return samples, largest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--mean-record-s", type=int, default=4)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()

    with (
        bench_database("timetrace_bench_web") as (url, settings),
        open_services(settings, url=url, auto_migrate=False) as services,
    ):
        user = services.store.ensure_user(name="bench", time_zone="Asia/Shanghai", day_cut_hour=4)
        records = sum(
            len(chunk.records)
            for chunk in load_sample_year(
                services, user, start=START, days=args.days, mean_record_s=args.mean_record_s
            )
        )
        with connect(url, settings=settings, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE records")
        backfill(services.store, now=datetime.now(UTC), settings=settings)
        token = new_token()
        services.store.add_token(user_id=user.user_id, token_hash=hash_token(token), name="bench")
        print(f"{records:,} records over {args.days} days, pyramid built", file=sys.stderr)

        rng = random.Random(7)
        days = [START + timedelta(days=rng.randrange(args.days)) for _ in range(args.requests)]
        weeks = sorted({week_key(START + timedelta(days=d)) for d in range(7, args.days - 7)})
        with api_process(url) as base, httpx.Client(base_url=base, timeout=60) as client:
            signed = client.post("/signin", data={"token": token, "next": "/day"})
            assert signed.status_code == 303, signed.text
            _timed(client, [f"/day/{d}" for d in days[:10]])  # warm the pool and the caches
            day_s, largest = _timed(client, [f"/day/{d}" for d in days])
            week_s, _ = _timed(
                client, [f"/week/{rng.choice(weeks)}" for _ in days[: len(days) // 2]]
            )
            month_s, _ = _timed(client, [f"/month/{d:%Y-%m}" for d in days[:20]])
            # The zoomed views, in the day's busy hours (the sample works 09:00-18:00).
            zooms = []
            for n, d in enumerate(days):
                hour = 9 + rng.randrange(9)
                wide = n % 2  # every other one a 2-hour window of episodes
                end = f"{hour + 2:02d}:00" if wide else f"{hour:02d}:30"
                zooms.append(f"/day/{d}/timeline?from={hour:02d}:00&to={end}")
            zoom_s, _ = _timed(client, zooms)
            assets = sum(len(client.get(f"/static/{n}").content) for n in ("app.css", "app.js"))

    day_median, day_p95 = _ms(day_s)
    week_median, week_p95 = _ms(week_s)
    month_median, month_p95 = _ms(month_s)
    zoom_median, zoom_p95 = _ms(zoom_s)
    print(
        f"day view median {day_median} ms, zoom data {zoom_median} ms, week {week_median} ms, "
        f"month {month_median} ms "
        f"(p95 {month_p95} ms); largest day HTML {largest / 1024:.1f} KB, "
        f"CSS + JS {assets / 1024:.1f} KB",
        file=sys.stderr,
    )
    print(
        json.dumps(
            {
                "day_view_p95_ms": day_p95,
                "zoom_data_p95_ms": zoom_p95,
                "week_view_p95_ms": week_p95,
                "page_kb": round((largest + assets) / 1024, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
