"""Bounded requests: a body over the limit is refused with 413 before it is read, in a
real server process whose memory is measured; JSON nesting is measured without
recursion."""

from __future__ import annotations

import json
import select
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import Api

MB = 1024 * 1024
SERVER = """
import socket, sys
import uvicorn
from app.api import create_app
from app.runtime.services import open_services
from app.settings import Settings

settings = Settings(_env_file=None, database_url=sys.argv[1], data_dir=sys.argv[2])
with open_services(settings, auto_migrate=False) as services:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)  # connections wait in the backlog until uvicorn accepts them
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(create_app(services=services), log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
"""


def _peak_rss(pid: int) -> int:
    """The process's high-water mark of resident memory, in bytes (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def _head(port: int, token: str, framing: str) -> bytes:
    return (
        f"POST /api/v1/records HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {token}\r\nContent-Type: application/json\r\n{framing}\r\n\r\n"
    ).encode()


def _status(sock: socket.socket) -> tuple[int, bytes]:
    """The status and body of the answer (read up to its Content-Length)."""
    sock.settimeout(30)
    reply = b""
    while b"\r\n\r\n" not in reply and (chunk := sock.recv(65536)):
        reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.lower().splitlines() if b"content-length" in line
    )
    while len(body) < length and (chunk := sock.recv(65536)):
        body += chunk
    return int(head.split(b" ", 2)[1]), body


def _send_all_or_stop(sock: socket.socket, chunks: Iterator[bytes]) -> int:
    """Send until the server answers or drops the connection; how many bytes went out."""
    sent = 0
    for chunk in chunks:
        if select.select([sock], [], [], 0)[0]:
            break  # an answer came: the server stopped reading
        try:
            sock.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            break
        sent += len(chunk)
    return sent


@pytest.fixture
def server_process(api: Api, db_url: str, tmp_path: Path) -> Iterator[tuple[int, int]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, db_url, str(tmp_path)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline())
        yield port, proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        if proc.stdout is not None:
            proc.stdout.close()


@pytest.mark.slow
def test_a_200_mb_body_is_refused_with_413_and_the_server_grows_less_than_50_mb(
    api: Api, server_process: tuple[int, int]
) -> None:
    port, pid = server_process
    total = 200 * MB
    piece = b" " * MB
    with socket.create_connection(("127.0.0.1", port)) as warm:
        record = {"client_record_id": "w", "ts_start": "2003-03-12T01:00:00Z", "app": "Code"}
        body = json.dumps({"device_id": "laptop", "records": [record]}).encode()
        warm.sendall(_head(port, api.token, f"Content-Length: {len(body)}") + body)
        assert _status(warm)[0] == 200
    before = _peak_rss(pid)

    # Declared: answered from the headers alone; the rest of the body is never read.
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(_head(port, api.token, f"Content-Length: {total}") + piece)
        status, reply = _status(sock)
        assert status == 413 and b"larger than" in reply
        assert _send_all_or_stop(sock, (piece for _ in range(199))) < total - 10 * MB

    # Streamed with no declared size: refused as soon as it crosses the limit.
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.sendall(_head(port, api.token, "Transfer-Encoding: chunked"))
        frame = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
        sent = _send_all_or_stop(sock, (frame for _ in range(200)))
        assert sent < total / 2
        assert _status(sock)[0] == 413

    grown = _peak_rss(pid) - before
    assert grown < 50 * MB, f"the server grew by {grown / MB:.1f} MB"
