"""A user's own rules at 10 and at 1,000 (the most a user keeps): how long ingest and a
preview take, which should not grow with the number of rules (within 2x).

    python bench/user_rules.py --days 30

The sample's days go through the real ingest path into a fresh database. Then, for each
count, the user's rules become that many but one (a third each app, site and title
rules that name nothing in the sample, then an app rule for Slack), and two things are
timed, each best of 3:

- ingest of 1,000 records of a new day through the real ingest path, every record with
  a title of its own (so no verdict comes from a cache: each is matched against the
  rules);
- a preview of adding the last rule (the laptop's editor counted as study) against the
  whole history, as the API and the Rules page preview it; and its save.

Ends with one JSON line:
{"days": …, "records": …, "ingest_ms_10": …, "ingest_ms_1000": …, "ingest_ratio": …,
 "preview_ms_10": …, "preview_ms_1000": …, "preview_ratio": …, "save_ms_1000": …}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.demo.sample import generate_sample
from app.ingest.records import RecordBatch, ingest_batch
from app.pyramid.user_rules import draft, preview_rules, save_rules, with_added
from app.runtime.services import Services, open_services
from app.store.accounts import UserContext
from app.store.user_rules import RuleDraft
from bench._common import bench_database

START = date(2025, 1, 6)
ROUNDS = 3
COUNTS = (10, 1_000)
INGESTED = 1_000


def _fillers(services: Services, count: int) -> list[RuleDraft]:
    """`count - 1` rules: all but one name nothing in the sample, the last names Slack
    (the rule a preview adds makes `count`)."""
    kinds = ("app", "site", "title")
    patterns = {
        "app": "Filler Tool {}",
        "site": "filler{}.example.org",
        "title": "ticket {} draft*review",
    }
    out = [
        draft(
            rules=services.rules,
            kind=kinds[i % 3],
            pattern=patterns[kinds[i % 3]].format(i),
            category="social",
        )
        for i in range(count - 2)
    ]
    return [*out, draft(rules=services.rules, kind="app", pattern="Slack", category="work")]


def _ingest_round(services: Services, user: UserContext, day: date, tag: str) -> float:
    """Milliseconds to ingest `INGESTED` records of `day`, each with a title of its own."""
    data = generate_sample(start=day, days=1)
    bodies: list[dict[str, Any]] = []
    left = INGESTED
    for body in data.batches():
        records = body["records"][:left]
        for n, rec in enumerate(records):
            rec["window_title"] = f"{rec.get('window_title', '')} {tag}-{n}"
        bodies.append({**body, "records": records})
        left -= len(records)
        if left <= 0:
            break
    batches = [RecordBatch.model_validate(b) for b in bodies]
    started = time.perf_counter()
    for batch in batches:
        ingest_batch(services.store, user=user, batch=batch, rules=services.rules)
    return (time.perf_counter() - started) * 1000


def _measure(services: Services, user: UserContext, count: int, day: date) -> dict[str, float]:
    store = services.store
    store.write_user_rules(user_id=user.user_id, rules=_fillers(services, count), apply=False)
    ingest = [
        _ingest_round(services, user, day + timedelta(days=n), f"{count}.{n}")
        for n in range(ROUNDS)
    ]
    new = draft(rules=services.rules, kind="app", pattern="VS Code", category="study")
    preview, save = [], []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        drafts = with_added(store.list_user_rules(user_id=user.user_id), new)
        preview_rules(store, rules=services.rules, user_id=user.user_id, drafts=drafts)
        preview.append((time.perf_counter() - started) * 1000)
    for n in range(ROUNDS):
        rule = new.model_copy(update={"category": "study" if n % 2 == 0 else "social"})
        drafts = with_added(store.list_user_rules(user_id=user.user_id), rule)
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
        save.append((time.perf_counter() - started) * 1000)
    return {"ingest": min(ingest), "preview": min(preview), "save": min(save)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=30)
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
        after = START + timedelta(days=days + 1)
        got = {
            count: _measure(services, user, count, after + timedelta(days=10 * i))
            for i, count in enumerate(COUNTS)
        }
    low, high = COUNTS
    print(
        json.dumps(
            {
                "days": days,
                "records": len(data.records),
                "ingest_ms_10": round(got[low]["ingest"]),
                "ingest_ms_1000": round(got[high]["ingest"]),
                "ingest_ratio": round(got[high]["ingest"] / got[low]["ingest"], 2),
                "preview_ms_10": round(got[low]["preview"]),
                "preview_ms_1000": round(got[high]["preview"]),
                "preview_ratio": round(got[high]["preview"] / got[low]["preview"], 2),
                "save_ms_10": round(got[low]["save"]),
                "save_ms_1000": round(got[high]["save"]),
            }
        )
    )


if __name__ == "__main__":
    main()
