"""`timetrace demo` end to end: embedded database, sample data over HTTP, the pyramid,
hours equal to the ground truth in every layer, then the web pages it serves."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.db.embedded import start_embedded


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    start_embedded(pgdata=tmp_path / "pgdata").cleanup()  # stop the demo's server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(client: httpx.Client) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            if client.get("/healthz").status_code == 200:
                return
        except httpx.TransportError:
            pass
        assert time.monotonic() < deadline, "the demo's server did not answer"
        time.sleep(0.1)


@pytest.mark.slow
def test_demo_matches_ground_truth_then_serves_the_pages_signed_in(data_dir: Path) -> None:
    port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("TIMETRACE_")},
        "TIMETRACE_DATA_DIR": str(data_dir),
        "TIMETRACE_PORT": str(port),
        "PYTHONUNBUFFERED": "1",
    }
    command = [sys.executable, "-m", "app.cli", "demo", "--start", "2003-03-03", "--days", "8"]
    with subprocess.Popen(
        [*command, "--serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as demo:
        assert demo.stdout is not None
        shown: list[str] = []
        link = None
        try:
            for line in demo.stdout:
                shown.append(line)
                link = re.search(rf"http://127\.0\.0\.1:{port}(/signin\S*)#token=(\S+)", line)
                if link:
                    break
            text = " ".join("".join(shown).split())
            assert link, text
            assert "equal the generator's ground truth to the second for all 8 days" in text
            assert "✗" not in text
            assert "03-09 Sun" in text  # one row per logical day
            assert "duplicate 0" in text
            assert "Built the pyramid with no model" in text
            assert "Week 2003-W10 (digest, final, from 7 day digests)" in text
            assert "Detected signals" in text and "forced_rollback" in text
            assert "Answers from the tools" in text
            assert "hours of entertainment this month? → query_stats" in text

            # The printed link signs the browser in as the demo user, on the last day.
            assert link.group(1) == "/signin?next=/day/2003-03-10"
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
                _wait_for(client)
                signed = client.post("/signin", data={"token": link.group(2), "next": "/day"})
                assert signed.status_code == 303
                day = client.get("/day/2003-03-10")
                assert day.status_code == 200 and '<span class="who">demo</span>' in day.text
                assert day.text.count('class="block cat-') >= 10
        finally:
            demo.send_signal(signal.SIGTERM)
            assert demo.wait(timeout=30) in (0, 128 + signal.SIGTERM)
