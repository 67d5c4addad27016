"""The embedded server never outlives every TimeTrace process."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from app.db.embedded import prune_dead_owners
from tests.faults import wait_for

# An owner that holds the server until it is signalled or its stdin closes (the test's end).
HOLD = """
import sys
from pathlib import Path
from app.db.embedded import install_sigterm_exit, start_embedded
install_sigterm_exit()
server = start_embedded(pgdata=Path(sys.argv[1]))
print(server.get_pid(), flush=True)
sys.stdin.read()
"""
TOUCH = """
import sys
from pathlib import Path
from app.db.embedded import start_embedded
start_embedded(pgdata=Path(sys.argv[1]))
"""


def _running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _wait_stopped(pid: int) -> bool:
    return wait_for(lambda: not _running(pid), timeout=15, interval=0.1)


@contextmanager
def _hold(pgdata: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(pgdata)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        line = proc.stdout.readline()
        proc.stdout.close()
        assert line.strip().isdigit(), line
        yield proc, int(line)
    finally:
        proc.stdin.close()  # lets a holder the test did not stop exit on its own
        proc.wait(timeout=30)


def test_prune_dead_owners_keeps_live_pids(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / ".handle_pids.json").write_text(json.dumps([dead.pid, os.getpid()]))
    assert prune_dead_owners(tmp_path) == [os.getpid()]
    assert json.loads((tmp_path / ".handle_pids.json").read_text()) == [os.getpid()]


def test_prune_tolerates_a_missing_or_broken_pid_file(tmp_path: Path) -> None:
    assert prune_dead_owners(tmp_path) == []
    (tmp_path / ".handle_pids.json").write_text("{oops")
    assert prune_dead_owners(tmp_path) == []


@pytest.mark.slow
def test_sigterm_stops_the_server(tmp_path: Path) -> None:
    with _hold(tmp_path / "pgdata") as (proc, server_pid):
        assert _running(server_pid)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) != 0
    assert _wait_stopped(server_pid)


@pytest.mark.slow
def test_a_killed_owner_leaves_no_orphan_once_timetrace_runs_again(tmp_path: Path) -> None:
    pgdata = tmp_path / "pgdata"
    with _hold(pgdata) as (proc, server_pid):
        proc.kill()
        proc.wait(timeout=10)
    assert _running(server_pid)  # SIGKILL: nothing could stop it
    # The next TimeTrace process prunes the dead owner, reuses the server and, being the
    # last owner, stops it when it exits.
    subprocess.run([sys.executable, "-c", TOUCH, str(pgdata)], check=True, timeout=60)
    assert _wait_stopped(server_pid)
