"""`timetrace serve --worker` as an operator runs it: a taken port fails at once, and
SIGTERM or SIGINT stop the embedded PostgreSQL it started."""

from __future__ import annotations

import asyncio
import shutil
import signal
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.api.server import bind
from tests.faults import reaped, spawn, timetrace_env, wait_for


@pytest.fixture
def data_dir() -> Iterator[Path]:
    """Outside pytest's own temporary directory: the embedded server runs as another
    OS user, and pytest keeps that directory private to ours."""
    path = Path(tempfile.mkdtemp(prefix="tt-serve-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_serve_on_a_taken_port_fails_at_once_and_starts_nothing(
    data_dir: Path, tmp_path: Path
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        log = tmp_path / "serve.log"
        started = time.monotonic()
        serve = spawn(
            ["serve", "--worker", "--port", str(port)], timetrace_env(None, data_dir), log
        )
        with reaped([serve]):
            assert serve.wait(60) == 1
    assert f"cannot listen on 127.0.0.1:{port}" in log.read_text()
    assert "Traceback" not in log.read_text()
    assert not (data_dir / "pgdata").exists()  # no database was started
    print(f"refused in {time.monotonic() - started:.1f} s")


@pytest.mark.slow
def test_sigterm_and_sigint_stop_the_embedded_database_serve_started(
    data_dir: Path, tmp_path: Path
) -> None:
    pid_file = data_dir / "pgdata" / "postmaster.pid"
    for signum in (signal.SIGTERM, signal.SIGINT):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        log = tmp_path / f"serve-{signum.name}.log"
        serve = spawn(
            ["serve", "--worker", "--port", str(port)], timetrace_env(None, data_dir), log
        )
        with reaped([serve]):
            assert wait_for(lambda p=port: _healthy(p), timeout=90, interval=0.2), log.read_text()
            assert pid_file.exists()
            serve.send_signal(signum)
            serve.wait(60)
        assert not pid_file.exists(), (signum, log.read_text()[-2000:])
        assert "Traceback" not in log.read_text()


def _healthy(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def test_connections_the_server_accepts_send_without_nagle() -> None:
    """With Nagle on, every keep-alive answer waited ~40 ms for the client's delayed ACK."""

    async def accepted_nodelay() -> int:
        seen: list[int] = []
        accepted = asyncio.Event()

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            sock = writer.get_extra_info("socket")
            seen.append(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            accepted.set()
            writer.close()

        server = await asyncio.start_server(handle, sock=bind("127.0.0.1", 0))
        port = server.sockets[0].getsockname()[1]
        async with server:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            await accepted.wait()
            writer.close()
        return seen[0]

    assert asyncio.run(asyncio.wait_for(accepted_nodelay(), timeout=10)) != 0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _first_lines(args: list[str], env: dict[str, str], log: Path, *, until: str) -> list[str]:
    """Start `timetrace serve ARGS`, wait for a line that starts with `until`, stop it,
    and return every line it printed (its own first, then uvicorn's)."""
    serve = spawn(["serve", *args], env, log)
    with reaped([serve]):
        printed = wait_for(
            lambda: any(line.startswith(until) for line in log.read_text().splitlines()),
            timeout=90,
            interval=0.1,
        )
        assert printed, log.read_text()
        serve.send_signal(signal.SIGTERM)
        serve.wait(60)
    return log.read_text().splitlines()


def test_serve_prints_its_urls_first_then_what_to_do_on_a_new_install(
    db_url: str, data_dir: Path, tmp_path: Path
) -> None:
    port = _free_port()
    env = timetrace_env(db_url, data_dir)
    bare = _first_lines(["--port", str(port)], env, tmp_path / "bare.log", until="next: record")
    url = f"http://127.0.0.1:{port}"
    assert bare[:5] == [
        f"TimeTrace is serving on {url}",
        f"  web pages    {url}/  (sign in with an API token)",
        f"  HTTP API     {url}/api/v1  (reference: {url}/docs)",
        f"  OpenAI door  {url}/v1  (model 'timetrace', an API token as the key)",
        f"  MCP          {url}/mcp  (streamable HTTP, the token as a bearer); "
        "stdio: `timetrace mcp config` prints a client config",
    ]
    # No user and no record yet: how to make one, and how to start recording.
    assert bare[5] == (
        "next: make a user and a token: timetrace token create --user NAME --time-zone Area/City"
    )
    assert bare[6].startswith("next: record: restart with --aw-port 5600")

    # With the ActivityWatch door: its URL too; the door made the user `me`, so only
    # recording is left to do.
    aw_port = _free_port()
    door = _first_lines(
        ["--port", str(port), "--aw-port", str(aw_port)],
        env,
        tmp_path / "door.log",
        until="next: record",
    )
    assert door[5] == (
        f"  ActivityWatch door  http://127.0.0.1:{aw_port}  (aw-server's API, recording for me)"
    )
    assert door[6] == (
        "next: record: start ActivityWatch's watchers (aw-watcher-window, aw-watcher-afk) "
        f"on this machine, pointed at port {aw_port}"
    )
    assert len([line for line in door if line.startswith("next:")]) == 1
    assert (
        "Traceback" not in (tmp_path / "bare.log").read_text() + (tmp_path / "door.log").read_text()
    )
