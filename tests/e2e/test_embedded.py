"""The embedded server never outlives every TimeTrace process; processes that create
servers at the same moment (two pytest-xdist workers on a fresh machine) all succeed;
a server that cannot be created or started says why in initdb's and PostgreSQL's own
words."""

from __future__ import annotations

import fcntl
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import psutil
import psycopg
import pytest

from app.db.embedded import prune_dead_owners, start_embedded
from app.db.embedded_create import creation_lock
from app.errors import DatabaseError
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


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    """Data directories outside pytest's own: pytest closes its user directory to its
    owner (mode 0700) whenever a worker starts, which would lock the server's OS user
    out of a data directory in the middle of initdb."""
    root = Path(tempfile.mkdtemp(prefix="tt-embedded-test-"))
    yield root
    shutil.rmtree(root, ignore_errors=True)


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


# Processes released at one moment: each says `ready`, waits for a line, then creates.
_READY_GO = """
import sys
from pathlib import Path
print("ready", flush=True)
sys.stdin.readline()
"""
RACE_SERVER = (
    _READY_GO
    + """
import os
from app.db.embedded import start_embedded
pgdata = Path(sys.argv[1])
server = start_embedded(pgdata=pgdata, cleanup_mode="delete")
print(server.get_pid(), pgdata.stat().st_uid, flush=True)
sys.stdin.read()
"""
)
RACE_USER = (
    _READY_GO
    + """
from app.db.embedded_create import creation_lock, ensure_system_user
with creation_lock():
    print(ensure_system_user(name=sys.argv[1]), flush=True)
"""
)
HOLD_LOCK = """
import sys
from pathlib import Path
from app.db.embedded_create import creation_lock
with creation_lock(path=Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
"""


@contextmanager
def _race(script: str, args: list[str]) -> Iterator[list[str]]:
    """Start one process per argument, release them together, and yield each one's
    first answer; they stay alive (holding what they created) until the block ends."""
    with ExitStack() as stack:
        procs = [
            stack.enter_context(
                subprocess.Popen(
                    [sys.executable, "-c", script, arg],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
            for arg in args
        ]
        pipes = [(proc, proc.stdin, proc.stdout, proc.stderr) for proc in procs]
        for _, _, out, _ in pipes:
            assert out is not None and out.readline() == "ready\n"
        for _, into, _, _ in pipes:
            assert into is not None
            into.write("go\n")
            into.flush()
        answers = []
        for _, _, out, err in pipes:
            assert out is not None and err is not None
            line = out.readline()
            assert line, err.read()
            answers.append(line.strip())
        try:
            yield answers
        finally:
            for proc, into, _, _ in pipes:
                assert into is not None
                into.close()
                proc.wait(timeout=60)


def test_the_creation_lock_holds_across_processes_until_its_holder_dies(
    tmp_path: Path,
) -> None:
    lock = tmp_path / "create.lock"
    with subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(lock)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        fd = os.open(lock, os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            holder.kill()  # a crash mid-creation must not leave the lock held
            holder.wait(timeout=10)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free now: no exception
        finally:
            os.close(fd)
    with creation_lock(path=lock):  # and the next creator takes it
        pass


@pytest.mark.slow
def test_processes_creating_servers_at_one_moment_all_succeed(tmp_path: Path) -> None:
    """Two fresh servers and two processes joining a third, all released together (the
    two xdist workers of `make test`); each server is owned by the OS user it runs as."""
    alone = [str(tmp_path / "a" / "pgdata"), str(tmp_path / "b" / "pgdata")]
    shared = str(tmp_path / "shared" / "pgdata")
    with _race(RACE_SERVER, [*alone, shared, shared]) as lines:
        answers = [[int(word) for word in line.split()] for line in lines]
        # Each server runs as the OS user that owns its data directory.
        running_as = [psutil.Process(pid).uids().effective for pid, _ in answers]
    pids = [pid for pid, _ in answers]
    assert len(set(pids[:3])) == 3 and pids[2] == pids[3]  # three servers; one joined
    assert running_as == [uid for _, uid in answers]


def test_processes_creating_the_servers_os_user_at_one_moment_all_succeed() -> None:
    """As root the server runs as an OS user created on first use; two creators racing
    on a fresh machine both get the one user. A throw-away name keeps the real user of
    the servers other tests run untouched."""
    name = f"tt_race_{os.getpid()}"
    try:
        with _race(RACE_USER, [name, name]) as uids:
            pass
        assert uids[0] == uids[1] == str(pwd.getpwnam(name).pw_uid)
        entries = Path("/etc/passwd").read_text(encoding="utf-8").splitlines()
        assert sum(line.startswith(f"{name}:") for line in entries) == 1
    finally:
        subprocess.run(["userdel", name], capture_output=True, check=False)


def test_an_initdb_failure_carries_initdbs_own_words(tmp_path: Path) -> None:
    pgdata = tmp_path / "pgdata"
    pgdata.mkdir()
    (pgdata / "stray.txt").write_text("not a cluster")  # initdb wants an empty directory
    with pytest.raises(DatabaseError) as caught:
        start_embedded(pgdata=pgdata, cleanup_mode="delete")
    message = str(caught.value)
    assert f'initdb: error: directory "{pgdata}" exists but is not empty' in message
    assert "stdout:" in message and "stderr:" in message


@pytest.mark.slow
def test_a_server_that_cannot_start_says_why_in_its_own_log_lines(tmp_path: Path) -> None:
    """The server's own words on why it did not start; once the cause is gone, the next
    start in the same process works (the package's handle of the failed one is dropped)."""
    pgdata = tmp_path / "pgdata"
    start_embedded(pgdata=pgdata, cleanup_mode="stop").cleanup()  # created, then stopped
    conf = pgdata / "postgresql.conf"
    settings = conf.read_text(encoding="utf-8")
    conf.write_text(settings + "timetrace_no_such_setting = on\n", encoding="utf-8")
    with pytest.raises(DatabaseError) as caught:
        start_embedded(pgdata=pgdata, cleanup_mode="stop")
    message = str(caught.value)
    assert 'unrecognized configuration parameter "timetrace_no_such_setting"' in message
    conf.write_text(settings, encoding="utf-8")
    server = start_embedded(pgdata=pgdata, cleanup_mode="delete")
    try:
        with psycopg.connect(server.get_uri(database="postgres")) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        server.cleanup()
