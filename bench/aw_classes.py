"""How long aw-webui waits when it saves its category tree to the ActivityWatch door,
which makes the tree the user's own and re-categorises the history: at a short history
(done in the request) and at a long one (past BACKGROUND_SCANNED live records: the
history is left to the `recategorize` job, so the request should stay short).

    python bench/aw_classes.py --short-days 20 --long-days 150

For each history, the sample's days go through the real ingest path into a fresh
database; then aw-webui's save (`POST /api/0/settings/classes`, in process) is timed
for a first tree and for an edit of it (a regex moved to another category, one
category renamed), alternately, best of 3 each.

Ends with one JSON line:
{"short_records": …, "short_first_ms": …, "short_edit_ms": …, "short_background": …,
 "long_records": …, "long_first_ms": …, "long_edit_ms": …, "long_background": …}.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from datetime import date
from pathlib import Path
from typing import Any

# The repository in place of bench/ (whose mcp.py would hide the MCP package).
sys.path.remove(str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from starlette.testclient import TestClient

from app.awdoor.api import door_app
from app.demo.sample import generate_sample
from app.ingest.records import RecordBatch, ingest_batch
from app.runtime.services import Services, open_services
from app.store.accounts import UserContext
from bench._common import bench_database

START = date(2025, 1, 6)
ROUNDS = 3


def _tree(edited: bool) -> list[dict[str, Any]]:
    """A tree over the sample's apps; the edit moves zoom's regex from Work > Meetings
    to Comms > Calls and renames Media > Video to Media > Clips."""
    meeting = ["Comms", "Calls"] if edited else ["Work", "Meetings"]
    video = ["Media", "Clips"] if edited else ["Media", "Video"]
    named = [
        (["Work"], None),
        (["Work", "Programming"], "Code|iTerm2"),
        (meeting, "zoom"),
        (["Comms"], None),
        (["Comms", "IM"], "Slack|飞书"),
        (["Media"], None),
        (video, "aweme|xhs|steam"),
    ]
    return [
        {"id": i, "name": name, "rule": {"type": "regex", "regex": regex} if regex else
         {"type": "none"}, "data": {"color": "#96cdf9"}}
        for i, (name, regex) in enumerate(named)
    ]  # fmt: skip


def _history(services: Services, days: int) -> tuple[UserContext, int]:
    data = generate_sample(start=START, days=days)
    store = services.store
    user = store.ensure_user(name="bench", time_zone=data.time_zone, day_cut_hour=4)
    for device_id, kind, name in data.devices:
        store.add_device(user_id=user.user_id, device_id=device_id, name=name, kind=kind)
    for body in data.batches():
        ingest_batch(store, user=user, batch=RecordBatch.model_validate(body), rules=services.rules)
    return user, len(data.records)


def _measure(days: int, name: str) -> dict[str, Any]:
    with (
        bench_database(f"timetrace_bench_aw_classes_{name}") as (url, settings),
        open_services(settings, url=url, auto_migrate=False) as services,
    ):
        user, records = _history(services, days)
        app = door_app(
            store=services.store,
            user=user,
            port=5600,
            hostname="bench",
            rules=services.rules,
            settings=services.settings,
        )
        timed: dict[bool, list[float]] = {False: [], True: []}
        with TestClient(app, base_url="http://127.0.0.1:5600") as door:
            for n in range(2 * ROUNDS):
                edited = n % 2 == 1
                started = time.perf_counter()
                answer = door.post("/api/0/settings/classes", json=_tree(edited))
                timed[edited].append((time.perf_counter() - started) * 1000)
                assert answer.status_code == 200, answer.text
        with services.store.pool.connection() as conn:
            row = conn.execute(
                "SELECT count(*) AS n FROM procrastinate_jobs WHERE queueing_lock = %(lock)s",
                {"lock": f"recategorize:{user.user_id}"},
            ).fetchone()
        return {
            f"{name}_records": records,
            f"{name}_first_ms": round(min(timed[False])),
            f"{name}_edit_ms": round(min(timed[True])),
            f"{name}_background": bool(row and row["n"]),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short-days", type=int, default=20)
    parser.add_argument("--long-days", type=int, default=150)
    args = parser.parse_args()
    out = {**_measure(args.short_days, "short"), **_measure(args.long_days, "long")}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
