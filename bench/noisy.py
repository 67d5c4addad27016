"""A noisy neighbour: one user's day of long titles beside another user's sittings.

    python bench/noisy.py [--records 72000] [--title-chars 2000] [--sittings 6]

A fresh database and one `timetrace worker` (two slots, its own process). The heavy
user's day arrives first: `--records` records with `--title-chars`-character titles
on one logical day, split over two devices (two builds: enough to fill both slots if
a user could). Then the light user closes a short sitting every 5 s; each sitting's
latency is the time from its ingest until its episode exists. The heavy day counts as
built when its day digest exists. Ends with one JSON line:
{"heavy_records": …, "heavy_day_built_s": …, "light_latency_p50_s": …,
 "light_latency_max_s": …, "heavy_most_running": …}.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.db.connection import connect
from app.ingest.records import RecordBatch, ingest_batch
from app.runtime.services import Services, open_services
from app.store.accounts import UserContext
from bench._common import bench_database

DAY = datetime(2001, 3, 5, 5, tzinfo=UTC)
FRAGMENT = "src/app.module.py ~ 修改 a.b-c_d.e "


def ingest(
    services: Services, user: UserContext, device: str, records: list[dict[str, Any]]
) -> None:
    for first in range(0, len(records), 5_000):
        batch = RecordBatch.model_validate(
            {"device_id": device, "records": records[first : first + 5_000]}
        )
        ingest_batch(services.store, user=user, batch=batch, rules=services.rules)


def heavy_day(count: int, chars: int, prefix: str) -> list[dict[str, Any]]:
    step = 18 * 3600 / count
    out: list[dict[str, Any]] = [
        {
            "client_record_id": f"{prefix}{i}",
            "ts_start": (DAY + timedelta(seconds=i * step)).isoformat(),
            "app": "Code",
            "window_title": (f"{i} " + FRAGMENT * (chars // len(FRAGMENT) + 1))[:chars],
        }
        for i in range(count)
    ]
    end = DAY + timedelta(hours=18)
    out.append(
        {
            "client_record_id": f"{prefix}lock",
            "ts_start": end.isoformat(),
            "ts_end": (end + timedelta(hours=1)).isoformat(),
            "app": "loginwindow",
            "is_idle": True,
        }
    )
    return out


def sitting(index: int) -> list[dict[str, Any]]:
    start = DAY + timedelta(days=1 + index)
    out: list[dict[str, Any]] = [
        {
            "client_record_id": f"s{index}-{i}",
            "ts_start": (start + timedelta(minutes=i)).isoformat(),
            "app": "Code",
            "window_title": f"main.py — sitting {index}",
        }
        for i in range(20)
    ]
    out.append(
        {
            "client_record_id": f"s{index}-lock",
            "ts_start": (start + timedelta(minutes=20)).isoformat(),
            "ts_end": (start + timedelta(minutes=50)).isoformat(),
            "app": "loginwindow",
            "is_idle": True,
        }
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=72_000)
    parser.add_argument("--title-chars", type=int, default=2_000)
    parser.add_argument("--sittings", type=int, default=6)
    args = parser.parse_args()

    with (
        bench_database("timetrace_bench_noisy") as (url, settings),
        open_services(settings, url=url, auto_migrate=False) as services,
        connect(url, settings=settings, autocommit=True) as conn,
    ):
        store = services.store
        heavy = store.ensure_user(name="heavy", time_zone="UTC", day_cut_hour=4)
        light = store.ensure_user(name="light", time_zone="UTC", day_cut_hour=4)
        for user, device in ((heavy, "pc"), (heavy, "laptop"), (light, "phone")):
            store.add_device(user_id=user.user_id, device_id=device, name="", kind="other")
        half = args.records // 2
        started = time.monotonic()
        for device in ("pc", "laptop"):
            ingest(services, heavy, device, heavy_day(half, args.title_chars, device))
        ingested = time.monotonic() - started
        env = {
            **os.environ,
            "TIMETRACE_DATABASE_URL": url,
            "TIMETRACE_DATA_DIR": tempfile.mkdtemp(prefix="tt-noisy-"),
        }
        log = open(Path(env["TIMETRACE_DATA_DIR"]) / "worker.log", "wb")  # noqa: SIM115
        worker = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "worker", "--concurrency", "2"],
            env=env,
            stdout=log,
            stderr=log,
        )
        began = time.monotonic()
        latencies: list[float] = []
        most_running = 0
        built_s: float | None = None

        def heavy_running() -> int:
            row = conn.execute(
                "SELECT count(*) AS n FROM procrastinate_jobs WHERE status = 'doing' "
                "AND queue_name <> 'models' AND (args->>'user_id')::bigint = %s",
                [heavy.user_id],
            ).fetchone()
            return int(row["n"])

        def count(sql: str, user_id: int) -> int:
            return int(conn.execute(sql, [user_id]).fetchone()["n"])

        try:
            while heavy_running() == 0:  # the heavy day is at work first
                time.sleep(0.05)
            for index in range(args.sittings):
                ingest(services, light, "phone", sitting(index))
                sent = time.monotonic()
                while (
                    count(
                        "SELECT count(*) AS n FROM episodes WHERE user_id = %s AND category <> "
                        "'system'",
                        light.user_id,
                    )
                    <= index
                ):
                    most_running = max(most_running, heavy_running())
                    time.sleep(0.05)
                latencies.append(time.monotonic() - sent)
                time.sleep(max(0.0, 5 - (time.monotonic() - sent)))
            while built_s is None and time.monotonic() - began < 1_800:
                most_running = max(most_running, heavy_running())
                done = count(
                    "SELECT count(*) AS n FROM digests WHERE user_id = %s AND grain = 'day'",
                    heavy.user_id,
                )
                if done:
                    built_s = time.monotonic() - began
                time.sleep(0.2)
        finally:
            worker.terminate()
            worker.wait(30)
            log.close()
    print(
        f"heavy day ingested in {ingested:.1f} s; light sittings: "
        + ", ".join(f"{s:.2f}" for s in latencies),
        file=sys.stderr,
    )
    print(
        json.dumps(
            {
                "heavy_records": args.records,
                "title_chars": args.title_chars,
                "heavy_day_built_s": None if built_s is None else round(built_s, 1),
                "light_latency_p50_s": round(statistics.median(latencies), 2),
                "light_latency_max_s": round(max(latencies), 2),
                "heavy_most_running": most_running,
            }
        )
    )


if __name__ == "__main__":
    main()
