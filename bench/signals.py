"""Rework detection on two synthetic weeks: one with rework planted on known days, one of
ordinary work.

    python bench/signals.py [--planted 1,3]

Both weeks (tests/rework_week.py) are the same kind of work: four source files edited
again and again across sittings, with reading docs, a chat and a passing test run
between, and the screen locked over lunch. On the planted days of the first week one
file's visits also undo work (`git checkout --`, `git reset --hard`, `git revert`,
failed tests, 撤销更改), as a person throwing away and redoing an edit does. Each week
is one user's, loaded through the real ingest code; the pyramid is built without a
model; the days with a `rework` signal are compared with the planted days. Ends with one JSON line:
{"rework_precision": …, "rework_recall": …, "ordinary_week_rework_days": …,
 "planted_days": …, "detected_days": …}.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.ingest.records import RecordBatch, ingest_batch
from app.pyramid.build import backfill
from app.runtime.services import Services, open_services
from bench._common import bench_database
from tests.rework_week import MONDAY, ZONE, Week


def rework_days(services: Services, user_id: int) -> set[date]:
    with services.store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT DISTINCT day_local FROM signals WHERE user_id = %s AND kind = 'rework' "
            "AND NOT stale",
            [user_id],
        ).fetchall()
    return {r["day_local"] for r in rows}


def load(services: Services, name: str, records: list[dict[str, Any]]) -> int:
    store = services.store
    user = store.ensure_user(name=name, time_zone=ZONE.key, day_cut_hour=4)
    store.add_device(user_id=user.user_id, device_id="laptop", name="laptop", kind="desktop")
    for i in range(0, len(records), 5_000):
        body = {"device_id": "laptop", "records": records[i : i + 5_000]}
        ingest_batch(store, user=user, batch=RecordBatch.model_validate(body), rules=services.rules)
    return user.user_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--planted", default="1,3", help="weekday offsets (0 = Monday)")
    args = parser.parse_args()
    planted = {int(p) for p in args.planted.split(",") if p}
    with (
        bench_database("tt_bench_signals") as (url, settings),
        open_services(settings, url=url, auto_migrate=False) as services,
    ):
        marked = load(services, "planted", Week(planted=planted).build())
        ordinary = load(services, "ordinary", Week(planted=set()).build())
        backfill(services.store, now=datetime(2003, 6, 10, tzinfo=UTC), settings=settings)
        found = rework_days(services, marked)
        quiet = rework_days(services, ordinary)
    truth = {MONDAY + timedelta(days=d) for d in planted}
    hits = len(found & truth)
    print(
        json.dumps(
            {
                "rework_precision": round(hits / len(found), 3) if found else 1.0,
                "rework_recall": round(hits / len(truth), 3) if truth else 1.0,
                "ordinary_week_rework_days": len(quiet),
                "planted_days": sorted(str(d) for d in truth),
                "detected_days": sorted(str(d) for d in found),
            }
        )
    )


if __name__ == "__main__":
    main()
