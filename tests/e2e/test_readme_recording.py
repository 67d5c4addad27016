"""The README's Linux recording block, run: its `timetrace serve` line (on free ports),
fed with the REST calls `aw-watcher-window` and `aw-watcher-afk` make (a bucket
each, then heartbeats); the window shows in `get_now`. (The
watchers themselves need a desktop session, which this machine lacks.)"""

from __future__ import annotations

import socket
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from app.runtime.services import Services
from app.tools.registry import dispatch
from tests.faults import FAST_WORKER, reaped, spawn, timetrace_env, wait_for
from tests.readme_blocks import readme_blocks, timetrace_args


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_the_linux_block_records_what_the_watchers_send(
    db_url: str, services: Services, tmp_path: Path
) -> None:
    linux = next(b for b in readme_blocks() if "~/activitywatch/" in b.text)
    args = timetrace_args(linux.lines[0])
    assert args is not None and args[args.index("--aw-port") + 1] == "5600"
    api_port, aw_port = _free_port(), _free_port()
    args[args.index("--aw-port") + 1] = str(aw_port)
    env = timetrace_env(db_url, tmp_path / "data", TIMETRACE_TIME_ZONE="UTC", **FAST_WORKER)
    log = tmp_path / "serve.log"
    serve = spawn([*args, "--port", str(api_port)], env, log)
    with reaped([serve]), httpx.Client(base_url=f"http://127.0.0.1:{aw_port}") as door:
        assert wait_for(lambda: _answers(door), timeout=60), log.read_text()
        window, afk = "aw-watcher-window_desk", "aw-watcher-afk_desk"
        for bucket, kind in ((window, "currentwindow"), (afk, "afkstatus")):
            body = {"client": bucket.split("_")[0], "type": kind, "hostname": "desk"}
            door.post(f"/api/0/buckets/{bucket}", json=body).raise_for_status()
        start = datetime.now(UTC).timestamp() - 120
        code = {"app": "Code.exe", "title": "main.py - Visual Studio Code"}
        for second in range(0, 121, 10):
            at = datetime.fromtimestamp(start + second, UTC).isoformat()
            for bucket, data in ((window, code), (afk, {"status": "not-afk"})):
                door.post(
                    f"/api/0/buckets/{bucket}/heartbeat",
                    params={"pulsetime": 11},
                    json={"timestamp": at, "duration": 0, "data": data},
                ).raise_for_status()
        user = services.store.get_user(name="me")
        assert user is not None

        def now_shows_code() -> bool:
            ctx = services.tool_context(user=user, now=datetime.now(UTC))
            result: Any = dispatch(ctx, "get_now", {})
            return bool(result.items) and result.items[0].app == "Visual Studio Code"

        assert wait_for(now_shows_code, timeout=60, interval=0.2), log.read_text()[-3000:]


def _answers(client: httpx.Client) -> bool:
    try:
        return client.get("/api/0/info").status_code == 200
    except httpx.TransportError:
        return False
