"""The live build of one day, after 30 days and after three years of history.

    python bench/build_scaling.py [--runs 15] [--mean-record-s 30]

For each history length: loads the history (the sample's four weeks repeated, shifted
four weeks at a time, through the import COPY path), batch-builds all of it
(`backfill`), then adds one more day, vacuums and analyzes (what autovacuum would do
after the load, not left to run through the timed builds), and times what the per-minute
job does with it:
`build_device` for each device and `rollup_day` (the day's episodes and digest are
removed after each run; a first, warm-up run not counted; the two histories in turn;
median of the runs). The cost of a day should
not grow with the history behind it. Ends with one JSON line:
{"day_build_ms_30d": …, "day_build_ms_3y": …, "ratio": …, …}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psycopg
from psycopg.conninfo import make_conninfo

from app.db.connection import drop_database, ensure_database
from app.demo.sample import SampleData, generate_sample
from app.ingest.records import RecordBatch, store_records
from app.pyramid.build import backfill, build_device, rollup_day
from app.runtime.services import Services, open_services
from app.settings import Settings
from app.store.accounts import UserContext
from app.timeutil import day_bounds, zone
from bench._common import bench_server

LAST_DAY = date(2004, 1, 14)  # the day built live; the history ends the day before
BLOCK_DAYS = 28


def load_days(
    services: Services, user: UserContext, block: SampleData, *, first: date, days: int, tag: str
) -> int:
    """`days` days from `first` on: the block's records shifted by whole blocks (same
    weekdays), each copy with keys of its own (`tag`), stored by the importers' COPY
    path."""
    loaded = 0
    shift = 0
    while shift < days:
        delta = timedelta(days=shift) + (first - block.days[0])
        last = first + timedelta(days=min(days, shift + BLOCK_DAYS) - 1)
        _, end = day_bounds(last, tz=zone(block.time_zone), cut_hour=block.cut_hour)
        for device_id, records in block.by_device().items():
            moved = [
                replace(
                    r,
                    client_record_id=f"{tag}{shift}-{r.client_record_id}",
                    ts_start=r.ts_start + delta,
                    ts_end=r.ts_end + delta if r.ts_end else None,
                )
                for r in records
            ]
            moved = [r for r in moved if r.ts_start < end]
            for i in range(0, len(moved), 5_000):
                chunk = moved[i : i + 5_000]
                body = {"device_id": device_id, "records": [r.payload() for r in chunk]}
                batch = RecordBatch.model_validate(body)
                result = store_records(
                    services.store,
                    user=user,
                    device_id=device_id,
                    records=batch.records,
                    rules=services.rules,
                    source="bench",
                )
                loaded += result.new
        shift += BLOCK_DAYS
    return loaded


def history(admin: str, settings: Settings, *, name: str, days: int, block: SampleData) -> str:
    """A database holding `days` days of batch-built history and one more day, not
    built."""
    drop_database(admin, database=name)
    ensure_database(admin, database=name)
    url = make_conninfo(admin, dbname=name)
    from app.runtime.services import migrate_url

    migrate_url(url, settings=settings)
    with open_services(settings, url=url, auto_migrate=False) as services:
        user = services.store.ensure_user(
            name="bench", time_zone=block.time_zone, day_cut_hour=block.cut_hour
        )
        for device_id, kind, device_name in block.devices:
            services.store.add_device(
                user_id=user.user_id, device_id=device_id, name=device_name, kind=kind
            )
        first = LAST_DAY - timedelta(days=days)
        started = time.perf_counter()
        records = load_days(services, user, block, first=first, days=days, tag="h")
        loaded_s = time.perf_counter() - started
        started = time.perf_counter()
        backfill(services.store, now=NOW, settings=settings)
        built_s = time.perf_counter() - started
        last = load_days(services, user, block, first=LAST_DAY, days=1, tag="d")
        # What autovacuum does after a big load, done now: left to it, it runs through
        # the timed builds on the two cores, and longer the longer the history.
        started = time.perf_counter()
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
        settled_s = time.perf_counter() - started
        print(
            f"{name}: {records:,} records loaded in {loaded_s:.1f} s, "
            f"batch-built in {built_s:.1f} s, vacuumed in {settled_s:.1f} s; "
            f"{last:,} records on the last day",
            file=sys.stderr,
        )
    return name


def time_last_day(services: Services) -> float:
    """The live build of the last day: each device's `build_device`, then `rollup_day`,
    in seconds; then that day's episodes, digest and signals go again, so that the next
    run builds it as the first did (the watermark is the newest episode's)."""
    store = services.store
    user = store.ensure_user(name="bench", time_zone="Asia/Shanghai", day_cut_hour=4)
    devices = [d.device_id for d in store.list_devices(user_id=user.user_id)]
    started = time.perf_counter()
    built = 0
    for device_id in devices:
        built += build_device(
            store, user=user, device_id=device_id, now=NOW, settings=services.settings
        ).episodes
    rollup_day(store, user=user, day=LAST_DAY, now=NOW, settings=services.settings)
    seconds = time.perf_counter() - started
    assert built > 0, "the last day built no episode"
    with store.pool.connection() as conn:
        day = {"day": LAST_DAY, "key": LAST_DAY.isoformat()}
        conn.execute("DELETE FROM signals WHERE day_local = %(day)s", day)
        conn.execute("DELETE FROM digests WHERE grain = 'day' AND scope_key = %(key)s", day)
        conn.execute("DELETE FROM episodes WHERE day_local = %(day)s", day)
    return seconds


NOW = datetime.combine(LAST_DAY + timedelta(days=2), datetime.min.time(), UTC)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--mean-record-s", type=int, default=30)
    parser.add_argument("--long-days", type=int, default=3 * 365)
    args = parser.parse_args()
    block = generate_sample(
        start=date(2003, 1, 6), days=BLOCK_DAYS, seed=3, mean_record_s=args.mean_record_s
    )
    with bench_server() as (admin, settings):
        short = history(admin, settings, name="tt_scaling_30d", days=30, block=block)
        long = history(admin, settings, name="tt_scaling_3y", days=args.long_days, block=block)
        # Warm databases, as the per-minute job finds them: a first run of each is not
        # counted. Runs alternate between the two: a busy spell weighs on both alike.
        samples: dict[str, list[float]] = {short: [], long: []}
        with (
            open_services(settings, url=make_conninfo(admin, dbname=short)) as a,
            open_services(settings, url=make_conninfo(admin, dbname=long)) as b,
        ):
            time_last_day(a)
            time_last_day(b)
            for _ in range(args.runs):
                samples[short].append(time_last_day(a))
                samples[long].append(time_last_day(b))
        for name, runs in samples.items():
            print(f"{name}: runs (ms) {[round(s * 1000, 1) for s in runs]}", file=sys.stderr)
        ms_30d = statistics.median(samples[short]) * 1000
        ms_3y = statistics.median(samples[long]) * 1000
        for name in (short, long):
            drop_database(admin, database=name)
    print(
        json.dumps(
            {
                "day_build_ms_30d": round(ms_30d, 1),
                "day_build_ms_3y": round(ms_3y, 1),
                "ratio": round(ms_3y / ms_30d, 2),
                "long_days": args.long_days,
                "mean_record_s": args.mean_record_s,
                "runs": args.runs,
            }
        )
    )


if __name__ == "__main__":
    main()
