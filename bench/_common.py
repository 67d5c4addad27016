"""Shared plumbing for the benchmarks: a throw-away database and a server process."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import httpx

from app.db.connection import drop_database, ensure_database
from app.db.embedded import start_embedded
from app.demo.sample import SampleData, generate_sample
from app.ingest.records import RecordBatch, ingest_batch
from app.runtime.services import Services, migrate_url
from app.settings import Settings
from app.store.accounts import UserContext


@contextlib.contextmanager
def bench_database(
    name: str, *, embedding_dim: int | None = None
) -> Iterator[tuple[str, Settings]]:
    """A fresh, migrated database: on TIMETRACE_DATABASE_URL's server when set, else embedded."""
    data_dir = Path(tempfile.mkdtemp(prefix="tt-bench-"))
    settings = Settings(data_dir=data_dir)
    if embedding_dim is not None:
        settings = settings.model_copy(update={"embedding_dim": embedding_dim})
    server = None
    if settings.database_url:
        admin = settings.database_url
    else:
        server = start_embedded(pgdata=data_dir / "pgdata", cleanup_mode="delete")
        admin = server.get_uri(database="postgres")
    from psycopg.conninfo import make_conninfo

    drop_database(admin, database=name)
    ensure_database(admin, database=name)
    url = make_conninfo(admin, dbname=name)
    migrate_url(url, settings=settings)
    try:
        yield url, settings
    finally:
        drop_database(admin, database=name)
        if server is not None:
            server.cleanup()


@contextlib.contextmanager
def bench_server() -> Iterator[tuple[str, Settings]]:
    """A server on which a bench may create databases (and copy them as templates):
    TIMETRACE_DATABASE_URL's when set, else an embedded one. Yields its admin URL."""
    data_dir = Path(tempfile.mkdtemp(prefix="tt-bench-"))
    settings = Settings(data_dir=data_dir)
    if settings.database_url:
        yield settings.database_url, settings
        return
    server = start_embedded(pgdata=data_dir / "pgdata", cleanup_mode="delete")
    try:
        yield server.get_uri(database="postgres"), settings
    finally:
        server.cleanup()


def p50_p95_ms(samples: list[float]) -> tuple[float, float]:
    """The median and the 95th percentile of durations in seconds, in milliseconds."""
    ordered = sorted(samples)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
    return round(statistics.median(ordered) * 1000, 2), round(p95 * 1000, 2)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def api_process(
    url: str, *, wrap: list[str] | None = None, args: tuple[str, ...] = ()
) -> Iterator[str]:
    """`timetrace serve [args]` in its own process (its own interpreter, as in
    production); `wrap` runs it under another command (a profiler:
    `["py-spy", "record", …, "--"]`)."""
    port = free_port()
    with cli_process(
        url, ["serve", *args], port=port, ready="/healthz", wrap=wrap,
        env={"TIMETRACE_PORT": str(port)},
    ):  # fmt: skip
        yield f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def cli_process(
    url: str,
    command: list[str],
    *,
    port: int,
    ready: str,
    wrap: list[str] | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[subprocess.Popen[str]]:
    """`timetrace COMMAND` in its own process, on `url`'s database, once `ready` (a
    path) answers 200 on `port`; stopped by SIGTERM (SIGINT under `wrap`: a profiler
    writes its output then)."""
    proc = subprocess.Popen(
        [*(wrap or []), sys.executable, "-m", "app.cli", *command],
        env={**os.environ, "TIMETRACE_DATABASE_URL": url, **(env or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}{ready}", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(
                    f"`timetrace {command[0]}` did not start: "
                    f"{proc.stderr.read() if proc.stderr and proc.poll() is not None else ''}"
                )
            time.sleep(0.1)
        yield proc
    finally:
        proc.send_signal(signal.SIGINT if wrap else signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
        if proc.stderr:
            proc.stderr.close()


def load_sample(services: Services, data: SampleData, *, name: str = "bench") -> UserContext:
    """A user with the sample's devices, and its records through the real ingest code."""
    store = services.store
    user = store.ensure_user(name=name, time_zone=data.time_zone, day_cut_hour=4)
    for device_id, kind, device_name in data.devices:
        store.add_device(user_id=user.user_id, device_id=device_id, name=device_name, kind=kind)
    for body in data.batches():
        ingest_batch(store, user=user, batch=RecordBatch.model_validate(body), rules=services.rules)
    return user


def load_sample_year(
    services: Services, user: UserContext, *, start: date, days: int, mean_record_s: int
) -> Iterator[SampleData]:
    """Ingest `days` of sample activity through the real ingest code, four weeks at a
    time (a year does not fit in memory at once); yields each chunk once stored."""
    store = services.store
    for offset in range(0, days, 28):
        chunk = generate_sample(
            start=start + timedelta(days=offset),
            days=min(28, days - offset),
            seed=offset,
            mean_record_s=mean_record_s,
        )
        if offset == 0:
            for device_id, kind, name in chunk.devices:
                store.add_device(user_id=user.user_id, device_id=device_id, name=name, kind=kind)
        for body in chunk.batches():
            for rec in body["records"]:  # client ids must stay unique across chunks
                rec["client_record_id"] = f"{offset}-{rec['client_record_id']}"
            ingest_batch(
                store, user=user, batch=RecordBatch.model_validate(body), rules=services.rules
            )
        print(f"loaded up to {chunk.days[-1]}", file=sys.stderr)
        yield chunk
