"""A user's own rule against a long history: how long the preview and the save's
re-categorising take (the save's rebuilds go to the worker's build jobs here, as they
do in the product once more than 40 device-days move).

    python bench/user_rules.py --days 90

The sample's days go through the real ingest path into a fresh database; then an app
rule (the laptop's editor counted as study) is previewed and saved, each best of 3
(the save alternates the rule's category so that every round moves the same records).
Ends with one JSON line:
{"days": …, "records": …, "hours_moved": …, "preview_ms": …, "save_ms": …}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, date, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.demo.sample import generate_sample
from app.ingest.records import RecordBatch, ingest_batch
from app.pyramid.user_rules import draft, preview_rules, save_rules
from app.runtime.services import open_services
from bench._common import bench_database

START = date(2025, 1, 6)
ROUNDS = 3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=90)
    days = parser.parse_args().days
    data = generate_sample(start=START, days=days)
    with (
        bench_database("timetrace_bench_user_rules") as (url, settings),
        open_services(settings, url=url, auto_migrate=False) as services,
    ):
        store = services.store
        user = store.ensure_user(name="bench", time_zone=data.time_zone, day_cut_hour=4)
        for device_id, kind, name in data.devices:
            store.add_device(user_id=user.user_id, device_id=device_id, name=name, kind=kind)
        for body in data.batches():
            ingest_batch(
                store, user=user, batch=RecordBatch.model_validate(body), rules=services.rules
            )
        preview_ms, save_ms, hours = [], [], 0.0
        for n in range(ROUNDS):
            category = "study" if n % 2 == 0 else "social"
            drafts = [draft(rules=services.rules, kind="app", pattern="VS Code", category=category)]
            started = time.perf_counter()
            preview = preview_rules(
                store, rules=services.rules, user_id=user.user_id, drafts=drafts
            )
            preview_ms.append((time.perf_counter() - started) * 1000)
            hours = preview.hours
            started = time.perf_counter()
            save_rules(
                store,
                rules=services.rules,
                settings=services.settings,
                user=user,
                drafts=drafts,
                now=datetime.now(UTC),
                inline_device_days=0,
            )
            save_ms.append((time.perf_counter() - started) * 1000)
    print(
        json.dumps(
            {
                "days": days,
                "records": len(data.records),
                "hours_moved": hours,
                "preview_ms": round(min(preview_ms)),
                "save_ms": round(min(save_ms)),
            }
        )
    )


if __name__ == "__main__":
    main()
