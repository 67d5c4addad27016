"""Retention: dropping a month of records as a partition against deleting its rows; and
with --job, the real retention job (app/pyramid/retention.py) on a built history.

    python bench/retention.py [--days 90]
    python bench/retention.py --job [--days 365] [--mean-record-s 4] [--raw-days 30]

Loads --days of sample activity through the real ingest code, copies the records into
a table partitioned by month (as records is once partitioned; the copy keeps the
comparison the same whichever layout the schema has), with the timeline index, then
removes the first month by DELETE and the second by DETACH … CONCURRENTLY + DROP.
Ends with one JSON line: {"records", "month_rows", "delete_month_ms",
"drop_partition_ms", "dead_rows_after_delete", "vacuum_after_delete_ms", "delete_wal_kb",
"drop_wal_kb"}.

--job loads --days of sample activity through the ingest code, builds the pyramid
(`backfill`), sets a raw tier of --raw-days for the user, and times the dry run and then
the job itself at the day after the last one loaded: every month but the last drops
whole. Ends with one JSON line: {"records", "days", "build_s", "dry_run_s",
"retention_job_s", "rows_removed", "dry_run_rows", "months_dropped", "records_left"}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, date, datetime, timedelta
from datetime import time as time_of_day
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.db.connection import connect
from app.pyramid.build import backfill
from app.pyramid.retention import apply_retention
from app.runtime.services import open_services
from app.tools import dispatch_json
from bench._common import bench_database, load_sample_year

START = date(2001, 1, 1)


def _wal_since(conn: Any, lsn: str) -> int:
    row = conn.execute(
        "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), %s::pg_lsn)::bigint AS b", [lsn]
    ).fetchone()
    return int(row["b"])


def _numbers(
    services: Any, user: Any, *, url: str, days: int, now: datetime
) -> tuple[list[dict[str, Any]], list[Any]]:
    """Every digest row, and query_stats per month of the history (the numbers the raw
    tier must leave exact)."""
    with connect(url, settings=services.settings, autocommit=True) as conn:
        digests = conn.execute("SELECT * FROM digests ORDER BY grain, scope_key").fetchall()
    ctx = services.tool_context(user=user, now=now)
    first, last, stats = START.replace(day=1), START + timedelta(days=days - 1), []
    while first <= last:
        month_end = (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)
        for metric in ("seconds_by_category", "seconds_by_app", "active_seconds"):
            stats.append(
                dispatch_json(
                    ctx,
                    "query_stats",
                    {"period": "custom", "date_from": first.isoformat(),
                     "date_to": month_end.isoformat(), "metric": metric},
                )
            )  # fmt: skip
        first = month_end + timedelta(days=1)
    return digests, stats


def _job(args: argparse.Namespace) -> None:
    """The real job on a built history (see the module's docstring)."""
    with (
        bench_database("timetrace_bench_retention_job") as (url, settings),
        open_services(settings, url=url, auto_migrate=False) as services,
    ):
        store = services.store
        user = store.ensure_user(name="bench", time_zone="UTC", day_cut_hour=4)
        for _ in load_sample_year(
            services, user, start=START, days=args.days, mean_record_s=args.mean_record_s
        ):
            pass
        started = time.perf_counter()
        backfill(store, now=datetime.now(UTC), settings=settings)
        build_s = time.perf_counter() - started
        with connect(url, settings=settings, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE records")
            total = conn.execute("SELECT count(*) AS n FROM records").fetchone()["n"]
        store.set_retention(user_id=user.user_id, raw_days=args.raw_days, episode_days=None)
        now = datetime.combine(START + timedelta(days=args.days), time_of_day(12), UTC)
        numbers_before = _numbers(services, user, url=url, days=args.days, now=now)
        started = time.perf_counter()
        preview = apply_retention(store, now=now, dry_run=True)
        dry_s = time.perf_counter() - started
        started = time.perf_counter()
        report = apply_retention(store, now=now)
        job_s = time.perf_counter() - started
        numbers_after = _numbers(services, user, url=url, days=args.days, now=now)
        expiry = store.get_retention(user_id=user.user_id)
        with connect(url, settings=settings, autocommit=True) as conn:
            left = conn.execute("SELECT count(*) AS n FROM records").fetchone()["n"]
            older = conn.execute(
                "SELECT count(*) AS n FROM records WHERE ts_start < %s",
                [expiry.raw_expired_before if expiry else None],
            ).fetchone()["n"]
    print(
        json.dumps(
            {
                "records": total,
                "days": args.days,
                "build_s": round(build_s, 1),
                "dry_run_s": round(dry_s, 3),
                "retention_job_s": round(job_s, 3),
                "rows_removed": report.removed.records,
                "dry_run_rows": preview.removed.records,
                "months_dropped": len(report.months),
                "records_left": left,
                "records_left_before_expiry": older,
                # Every digest row and query_stats per month, equal before and after.
                "digests_unchanged": numbers_before[0] == numbers_after[0],
                "month_stats_unchanged": numbers_before[1] == numbers_after[1],
            }
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--job", action="store_true", help="time the real retention job")
    parser.add_argument("--mean-record-s", type=int, default=4)
    parser.add_argument("--raw-days", type=int, default=30)
    args = parser.parse_args()
    if args.job:
        _job(args)
        return
    with bench_database("timetrace_bench_retention") as (url, settings):
        with open_services(settings, url=url, auto_migrate=False) as services:
            user = services.store.ensure_user(name="bench", time_zone="UTC", day_cut_hour=4)
            for _ in load_sample_year(services, user, start=START, days=args.days, mean_record_s=4):
                pass
        with connect(url, settings=settings, autocommit=True) as conn:
            conn.execute(
                "CREATE TABLE retention_demo (LIKE records INCLUDING DEFAULTS)"
                " PARTITION BY RANGE (ts_start)"
            )
            months = conn.execute(
                "SELECT DISTINCT date_trunc('month', ts_start AT TIME ZONE 'UTC')::date AS m"
                " FROM records ORDER BY 1"
            ).fetchall()
            for row in months:
                m = row["m"]
                conn.execute(
                    f"CREATE TABLE retention_demo_{m:%Y_%m} PARTITION OF retention_demo"
                    f" FOR VALUES FROM ('{m}') TO ('{m}'::date + interval '1 month')"
                )
            conn.execute("INSERT INTO retention_demo SELECT * FROM records")
            conn.execute(
                "CREATE UNIQUE INDEX ON retention_demo"
                ' (user_id, device_id, ts_start, client_record_id COLLATE "C")'
            )
            conn.execute("CREATE INDEX ON retention_demo (user_id, record_id)")
            conn.execute("VACUUM ANALYZE retention_demo")
            total = conn.execute("SELECT count(*) AS n FROM retention_demo").fetchone()["n"]
            first, second = months[0]["m"], months[1]["m"]
            month_rows = conn.execute(
                f"SELECT count(*) AS n FROM retention_demo_{first:%Y_%m}"
            ).fetchone()["n"]
            wal = conn.execute("SELECT pg_current_wal_insert_lsn() AS l").fetchone()["l"]
            started = time.perf_counter()
            conn.execute(
                "DELETE FROM retention_demo WHERE ts_start >= %s AND ts_start < %s::date"
                " + interval '1 month'",
                [first, first],
            )
            delete_s = time.perf_counter() - started
            delete_wal = _wal_since(conn, wal)
            conn.execute("SELECT pg_stat_force_next_flush()")
            dead = conn.execute(
                "SELECT n_dead_tup AS n FROM pg_stat_user_tables WHERE relname = %s",
                [f"retention_demo_{first:%Y_%m}"],
            ).fetchone()["n"]
            started = time.perf_counter()
            conn.execute(f"VACUUM retention_demo_{first:%Y_%m}")  # what the DELETE leaves to do
            vacuum_s = time.perf_counter() - started
            wal = conn.execute("SELECT pg_current_wal_insert_lsn() AS l").fetchone()["l"]
            started = time.perf_counter()
            conn.execute(
                f"ALTER TABLE retention_demo DETACH PARTITION retention_demo_{second:%Y_%m}"
                " CONCURRENTLY"
            )
            conn.execute(f"DROP TABLE retention_demo_{second:%Y_%m}")
            drop_s = time.perf_counter() - started
            drop_wal = _wal_since(conn, wal)
    print(
        json.dumps(
            {
                "records": total,
                "month_rows": month_rows,
                "delete_month_ms": round(delete_s * 1000, 1),
                "drop_partition_ms": round(drop_s * 1000, 1),
                "dead_rows_after_delete": dead,
                "vacuum_after_delete_ms": round(vacuum_s * 1000, 1),
                "delete_wal_kb": delete_wal // 1024,
                "drop_wal_kb": drop_wal // 1024,
            }
        )
    )


if __name__ == "__main__":
    main()
