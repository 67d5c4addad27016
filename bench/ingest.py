"""Ingest throughput over HTTP.

    python bench/ingest.py [--records 200000] [--batch 5000] [--clients 2]
                           [--processes 2] [--profile ingest.speedscope.json]

Starts `timetrace serve` in its own process on a fresh database, then posts
sample records (Chinese and English titles, three devices) in batches through
the real API. Ends with one JSON line: {"records_per_s": …, …}.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path

import httpx
import orjson
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.demo.sample import generate_sample
from app.runtime.auth import hash_token, new_token
from app.runtime.services import open_services
from bench._common import api_process, bench_database


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=200_000)
    parser.add_argument("--batch", type=int, default=5_000)
    parser.add_argument("--clients", type=int, default=2, help="concurrent HTTP clients")
    parser.add_argument(
        "--processes", type=int, default=2, help="server processes (`serve --processes`)"
    )
    parser.add_argument(
        "--profile",
        type=Path,
        help="record the server with py-spy into this file (collapsed stacks for .txt, "
        "else speedscope)",
    )
    args = parser.parse_args()
    wrap = None
    if args.profile is not None:
        py_spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
        kind = "raw" if args.profile.suffix == ".txt" else "speedscope"
        wrap = [py_spy, "record", "--subprocesses", "--format", kind, "--rate", "250",
                "--output", str(args.profile), "--"]  # fmt: skip

    week = generate_sample(start=date(2001, 1, 1), days=7, mean_record_s=8)
    days = 7 * (args.records // len(week.records) + 1)
    data = generate_sample(start=date(2001, 1, 1), days=days, mean_record_s=8)
    bodies = [orjson.dumps(b) for b in data.batches(size=args.batch)]
    total = len(data.records)

    with bench_database("timetrace_bench_ingest") as (url, settings):
        with open_services(settings, url=url, auto_migrate=False) as services:
            user = services.store.ensure_user(
                name="bench", time_zone=data.time_zone, day_cut_hour=4
            )
            token = new_token()
            services.store.add_token(user_id=user.user_id, token_hash=hash_token(token), name="b")
            for device_id, kind, name in data.devices:
                services.store.add_device(
                    user_id=user.user_id, device_id=device_id, name=name, kind=kind
                )
        serve_args = ("--processes", str(args.processes)) if args.processes > 1 else ()
        with api_process(url, wrap=wrap, args=serve_args) as base:
            headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
            with httpx.Client(base_url=base, headers=headers, timeout=120) as client:

                def post(body: bytes) -> int:
                    reply = client.post("/api/v1/records", content=body)
                    reply.raise_for_status()
                    return int(reply.json()["new"])

                server, postgres = _processes(settings.data_dir)
                cpu_before = _cpu_s(server), _cpu_s(postgres)
                load_before = os.getloadavg()[0]
                started = time.perf_counter()
                with ThreadPoolExecutor(max_workers=args.clients) as pool:
                    new = sum(pool.map(post, bodies))
                seconds = time.perf_counter() - started
                load_after = os.getloadavg()[0]
                # Backends opened meanwhile (the pools grow) count whole.
                known = {p.pid for p in postgres}
                opened = [p for p in _processes(settings.data_dir)[1] if p.pid not in known]
                server_s = _cpu_s(server) - cpu_before[0]
                postgres_s = _cpu_s(postgres) + _cpu_s(opened) - cpu_before[1]
                replay_started = time.perf_counter()
                with ThreadPoolExecutor(max_workers=args.clients) as pool:
                    replayed = sum(pool.map(post, bodies[:10]))
                replay_seconds = time.perf_counter() - replay_started
    if new != total or replayed != 0:
        raise SystemExit(f"expected {total} new and 0 on replay, got {new} and {replayed}")
    replay_records = sum(len(orjson.loads(b)["records"]) for b in bodies[:10])
    print(
        f"ingested {total:,} records in {len(bodies)} batches in {seconds:.1f} s", file=sys.stderr
    )
    print(
        json.dumps(
            {
                "records_per_s": round(total / seconds),
                "records": total,
                "batch": args.batch,
                "clients": args.clients,
                "processes": args.processes,
                "seconds": round(seconds, 2),
                "replay_records_per_s": round(replay_records / replay_seconds),
                # CPU time per record, which another load on the machine does not inflate
                # (the server's includes each process's first request; PostgreSQL's is
                # the embedded server's only).
                "server_cpu_us_per_record": round(server_s / total * 1e6, 1),
                "postgres_cpu_us_per_record": (
                    round(postgres_s / total * 1e6, 1) if postgres else None
                ),
                # The machine's 1-minute load before and after: the rate is only
                # comparable between runs at like loads.
                "load_1m": [round(load_before, 2), round(load_after, 2)],
            }
        )
    )


def _processes(data_dir: Path) -> tuple[list[psutil.Process], list[psutil.Process]]:
    """The server's processes (`serve` and the request processes it started), and the
    embedded PostgreSQL's (its postmaster, whose data lies under `data_dir`, and every
    backend): their CPU time is the cost of ingest whatever else runs on the machine."""
    serve = [p for p in psutil.Process().children() if "serve" in p.cmdline()]
    server = serve + [c for p in serve for c in p.children(recursive=True)]
    postmaster = [
        p
        for p in psutil.process_iter(["name", "cmdline"])
        if p.info["name"] == "postgres" and str(data_dir) in " ".join(p.info["cmdline"] or ())
    ]
    return server, postmaster + [c for p in postmaster for c in p.children(recursive=True)]


def _cpu_s(processes: list[psutil.Process]) -> float:
    total = 0.0
    for process in processes:
        with contextlib.suppress(psutil.Error):  # a backend that ended meanwhile
            times = process.cpu_times()
            total += times.user + times.system
    return total


if __name__ == "__main__":
    main()
