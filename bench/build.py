"""Building the pyramid with no model for a synthetic year.

    python bench/build.py [--days 365] [--mean-record-s 4]

Loads about 1.8 M sample records (three devices, Chinese and English titles)
through the real ingest code into a fresh database, then times one
`backfill` — episodes, day/week/month digests and signals for every day —
and, separately, the pure segmenter. Ends with one JSON line:
{"records": …, "segment_records_per_s": …, "year_build_s": …, …}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.db.connection import connect
from app.demo.sample import SampleData
from app.pyramid.build import backfill, segment_params
from app.pyramid.segmenter import SegmentInput, segment_records
from app.runtime.services import open_services
from app.settings import Settings
from app.timeutil import logical_day, zone
from bench._common import bench_database, load_sample_year

START = date(2001, 1, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--mean-record-s", type=int, default=4)
    args = parser.parse_args()

    with (
        bench_database("timetrace_bench_build") as (url, settings),
        open_services(settings, url=url, auto_migrate=False) as services,
    ):
        store = services.store
        user = store.ensure_user(name="bench", time_zone="Asia/Shanghai", day_cut_hour=4)
        segment_inputs = 0
        segment_s = 0.0
        ingest_started = time.perf_counter()
        records = 0
        for chunk in load_sample_year(
            services, user, start=START, days=args.days, mean_record_s=args.mean_record_s
        ):
            records += len(chunk.records)
            segment_inputs, segment_s = _time_segmenter(
                chunk, segment_inputs, segment_s, settings=settings
            )
        ingest_s = time.perf_counter() - ingest_started
        with connect(url, settings=settings, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE records")

        started = time.perf_counter()
        summary = backfill(store, now=datetime.now(UTC), settings=settings)
        build_s = time.perf_counter() - started
        counts = store.episode_counts(
            user_id=user.user_id, day_from=START, day_to=START + timedelta(days=args.days)
        )
    print(
        f"built {summary.episodes:,} episodes, {summary.day_digests} day digests and "
        f"{summary.period_digests} week/month digests in {build_s:.1f} s",
        file=sys.stderr,
    )
    print(
        json.dumps(
            {
                "records": records,
                "segment_records_per_s": round(segment_inputs / segment_s),
                "year_build_s": round(build_s, 1),
                "days": args.days,
                "episodes": summary.episodes,
                "episodes_per_day_max": max(c.n for c in counts),
                "build_records_per_s": round(records / build_s),
                "load_records_per_s": round(records / ingest_s),
            }
        )
    )


def _time_segmenter(
    chunk: SampleData, done: int, seconds: float, *, settings: Settings
) -> tuple[int, float]:
    """The pure segmenter over the chunk's laptop and desktop records (explicit ends)."""
    params = segment_params(settings)
    tz = zone(chunk.time_zone)
    for device, recs in chunk.by_device().items():
        if device == "phone":
            continue
        inputs = [
            SegmentInput.model_construct(
                record_id=i,
                ts=r.ts_start.timestamp(),
                duration=(r.ts_end - r.ts_start).total_seconds() if r.ts_end else 0.0,
                app=r.app,
                title=r.window_title,
                domain=None,
                category=r.category,
                is_idle=r.is_idle,
                day=logical_day(r.ts_start, tz=tz, cut_hour=4),
            )
            for i, r in enumerate(recs)
        ]
        started = time.perf_counter()
        segment_records(inputs, params=params, now=1e12)
        seconds += time.perf_counter() - started
        done += len(inputs)
    return done, seconds


if __name__ == "__main__":
    main()
