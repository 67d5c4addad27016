"""The ActivityWatch door: aw-webui's canonical query against the real aw-server, and
heartbeats over HTTP (throughput and latency).

    python bench/aw_door.py [--history-days 365] [--canonical-only]
                            [--rate 2000] [--seconds 20] [--buckets 1000] [--hosts 20]
                            [--connections 64]

First (unless `--history-days 0`), a year of a desktop's history (window, afk and tab
events: bench/_aw_history.py) goes into the door and into a real aw-server (PyPI, in
.aw-venv, its SQLite store) in the same run, and aw-webui's Activity query with its
default categories is asked of both for the last day, week and month, first as
aw-webui's build sends it (`webui_…`), then as aw-client's builder writes it
(`canonical_…`): the median ms of each (`…_{day,week,month}_ms_door`, `…_ms_aw`),
their ratio (`…_ratio`, aw-server's time over the door's) and whether both answer the
same seconds per app and category (`…_equal`). The door keeps the canonical query's
pieces per day (app/awdoor/daycache.py): its first answer to each period is timed apart
(`…_ms_door_cold`; aw-webui's month is the first query of all, with nothing kept), its
median is of the answers after it, and one answer by aw-core's engine alone
(`…_ms_door_engine`). `--canonical-only` stops there.

Starts `timetrace aw-door` in its own process on a fresh database (its live conversion
running, as in use), creates `--buckets` buckets over `--hosts` hosts (a window and an
afk bucket each, the rest editor-watcher buckets), then offers heartbeats at `--rate`
per second for `--seconds` (open loop: each is timed from when it was due, so a
server that falls behind shows in the latency), over keep-alive connections. Most
heartbeats extend their bucket's last event; one in twenty starts a new one. Then
the same with as many heartbeats as the door takes (closed loop), for its ceiling.
Ends with one JSON line: {"webui_month_ratio": …, "canonical_month_ratio": …,
"heartbeats_per_s": …, …}.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import orjson
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.settings import Settings
from bench._aw_history import HISTORY_END, history, load_aw, load_door, time_canonical
from bench._common import bench_database, cli_process, free_port, p50_p95_ms

T0 = datetime(2004, 2, 3, 8, 0, tzinfo=UTC)  # a sentinel day: nothing else is there


class Connection:
    """One keep-alive HTTP/1.1 connection, a request at a time (what aw-client does)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def post(self, head: bytes, body: bytes) -> int:
        self.writer.write(head + str(len(body)).encode() + b"\r\n\r\n" + body)
        status_line = await self.reader.readuntil(b"\r\n")
        length = 0
        while True:
            line = await self.reader.readuntil(b"\r\n")
            if line == b"\r\n":
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        await self.reader.readexactly(length)
        return int(status_line.split()[1])


class Watchers:
    """The buckets and the next heartbeat of each."""

    def __init__(self, port: int, buckets: list[str]) -> None:
        self.buckets = buckets
        self.beats = [0] * len(buckets)
        self.heads = [
            (
                f"POST /api/0/buckets/{b}/heartbeat?pulsetime=1.0 HTTP/1.1\r\n"
                f"Host: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                "Content-Length: "
            ).encode()
            for b in buckets
        ]

    def next(self, i: int) -> tuple[bytes, bytes]:
        n = self.beats[i]
        self.beats[i] = n + 1
        at = T0 + timedelta(seconds=0.5 * n)
        title = f"file {n // 20}.py — 项目 {i}"  # a new event every 20th beat
        body = orjson.dumps(
            {"timestamp": at.isoformat(), "duration": 0, "data": {"app": "Code", "title": title}}
        )
        return self.heads[i], body


async def _run(
    port: int,
    watchers: Watchers,
    *,
    rate: float | None,
    seconds: float,
    connections: int,
) -> tuple[int, float, list[float], int]:
    pool: asyncio.Queue[Connection] = asyncio.Queue()
    for _ in range(connections):
        pool.put_nowait(Connection(*await asyncio.open_connection("127.0.0.1", port)))
    latencies: list[float] = []
    failures = 0
    count = len(watchers.buckets)

    async def one(i: int, due: float) -> None:
        nonlocal failures
        conn = await pool.get()
        try:
            head, body = watchers.next(i)
            if await conn.post(head, body) != 200:
                failures += 1
            latencies.append(time.perf_counter() - due)
        finally:
            pool.put_nowait(conn)

    started = time.perf_counter()
    end = started + seconds
    tasks: set[asyncio.Task[None]] = set()
    sent = 0
    if rate is not None:  # open loop: heartbeats due at the rate, whatever the answers
        while True:
            due = started + sent / rate
            if due >= end:
                break
            delay = due - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            task = asyncio.create_task(one(sent % count, due))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            sent += 1
        await asyncio.gather(*tasks)
    else:  # closed loop: each connection sends its next as soon as it is answered

        async def loop(k: int) -> None:
            nonlocal sent
            i = k
            while time.perf_counter() < end:
                sent += 1
                await one(i % count, time.perf_counter())
                i += connections

        await asyncio.gather(*(loop(k) for k in range(connections)))
    elapsed = time.perf_counter() - started
    while not pool.empty():
        pool.get_nowait().writer.close()
    return sent, elapsed, latencies, failures


def _canonical(url: str, settings: Settings, base: str, days: int) -> dict[str, object]:
    """The year into the door and into a real aw-server; the canonical query timed on both."""
    from app.runtime.services import open_services
    from tests.aw_real import aw_server

    events = history(days=days)
    with open_services(settings, url=url, auto_migrate=False) as services:
        user = services.store.ensure_user(
            name="bench", time_zone=settings.time_zone, day_cut_hour=settings.day_cut_hour
        )
        load_door(services.store, user_id=user.user_id, base=base, events=events)
    with tempfile.TemporaryDirectory() as home, aw_server(Path(home), storage="peewee") as aw:
        started = time.perf_counter()
        load_aw(aw.url, events)
        loaded_s = time.perf_counter() - started
        figures: dict[str, object] = time_canonical(door=base, aw=aw.url, end=HISTORY_END)
    figures["history_days"] = days
    figures["history_events"] = sum(len(rows) for rows in events.values())
    figures["aw_load_s"] = round(loaded_s, 1)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--history-days", type=int, default=365)
    parser.add_argument("--canonical-only", action="store_true")
    parser.add_argument("--rate", type=float, default=2_000)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--buckets", type=int, default=1_000)
    parser.add_argument("--hosts", type=int, default=20)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument(
        "--convert-every", type=float, default=2.0, help="the door's conversion passes (s)"
    )
    args = parser.parse_args()

    with bench_database("timetrace_bench_aw_door") as (url, settings):
        port = free_port()
        command = ["aw-door", "--port", str(port), "--user", "bench"]
        command += ["--convert-every", str(args.convert_every)]
        with cli_process(url, command, port=port, ready="/api/0/info") as proc:
            base = f"http://127.0.0.1:{port}"
            canonical = (
                _canonical(url, settings, base, args.history_days) if args.history_days else {}
            )
            if args.canonical_only:
                print(json.dumps({**canonical, "cpus": os.cpu_count()}))
                return
            buckets = []
            with httpx.Client(base_url=base, timeout=30) as client:
                per_host = max(2, args.buckets // args.hosts)
                for n in range(args.buckets):
                    host, k = divmod(n, per_host)
                    kind, name = (
                        ("currentwindow", f"aw-watcher-window_host{host}")
                        if k == 0
                        else ("afkstatus", f"aw-watcher-afk_host{host}")
                        if k == 1
                        else ("app.editor.activity", f"aw-watcher-vim-{k}_host{host}")
                    )
                    client.post(
                        f"/api/0/buckets/{name}",
                        json={"client": "bench", "type": kind, "hostname": f"host{host}"},
                    ).raise_for_status()
                    buckets.append(name)
            watchers = Watchers(port, buckets)
            door = psutil.Process(proc.pid)
            cpu_before = sum(door.cpu_times()[:2])
            # Afk buckets get window-like data too: the door stores what it is sent.
            sent, elapsed, lat, failed = asyncio.run(
                _run(port, watchers, rate=args.rate, seconds=args.seconds,
                     connections=args.connections)
            )  # fmt: skip
            p50, p95 = p50_p95_ms(lat)
            # The door's own CPU per heartbeat (its conversion passes included): what a
            # core gives, whatever else the machine runs.
            cpu_ms = (sum(door.cpu_times()[:2]) - cpu_before) * 1000 / max(1, len(lat))
            top_sent, top_elapsed, top_lat, top_failed = asyncio.run(
                _run(port, watchers, rate=None, seconds=min(args.seconds, 10),
                     connections=args.connections)
            )  # fmt: skip
            top_p50, top_p95 = p50_p95_ms(top_lat)
    load = os.getloadavg()
    print(
        json.dumps(
            {
                **canonical,
                "heartbeats_per_s": round(len(lat) / elapsed),
                "heartbeat_p50_ms": p50,
                "heartbeat_p95_ms": p95,
                "offered_per_s": args.rate,
                "door_cpu_ms_per_heartbeat": round(cpu_ms, 3),
                "failed": failed + top_failed,
                "buckets": args.buckets,
                "hosts": args.hosts,
                "connections": args.connections,
                "convert_every_s": args.convert_every,
                "seconds": round(elapsed, 1),
                "max_heartbeats_per_s": round(len(top_lat) / top_elapsed),
                "max_p50_ms": top_p50,
                "max_p95_ms": top_p95,
                "sent": sent + top_sent,
                "loadavg_1m": round(load[0], 2),
                "cpus": os.cpu_count(),
            }
        )
    )


if __name__ == "__main__":
    main()
