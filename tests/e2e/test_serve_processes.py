"""`timetrace serve --processes 2`: several server processes answer on one port, the
worker runs beside them, and a signal stops them all."""

from __future__ import annotations

import signal
import socket
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import psutil

from app.runtime.services import Services
from tests.faults import reaped, spawn, timetrace_env, wait_for
from tests.helpers import new_token_for


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_two_server_processes_share_the_port_and_stop_together(
    services: Services, db_url: str, tmp_path: Path
) -> None:
    user = services.store.ensure_user(name="me", time_zone="Asia/Shanghai", day_cut_hour=4)
    services.store.add_device(user_id=user.user_id, device_id="laptop", name="", kind="laptop")
    auth = {"Authorization": f"Bearer {new_token_for(services, user)}"}
    port = _free_port()
    log = tmp_path / "serve.log"
    serve = spawn(
        ["serve", "--worker", "--processes", "2", "--port", str(port)],
        timetrace_env(db_url, tmp_path),
        log,
    )
    base = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        try:
            return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    with reaped([serve]):
        assert wait_for(healthy, timeout=90, interval=0.2), log.read_text()
        children = psutil.Process(serve.pid).children()
        servers = [c for c in children if "spawn_main" in " ".join(c.cmdline())]
        assert len(servers) == 2, [c.cmdline() for c in children]
        start = datetime(2003, 3, 12, 1, tzinfo=UTC)
        for batch in range(4):  # requests land on either process; each counts its own
            records = [
                {
                    "client_record_id": f"b{batch}-{i}",
                    "ts_start": (start + timedelta(minutes=10 * batch + i)).isoformat(),
                    "app": "Code",
                    "window_title": f"第{i}个文件.py",
                }
                for i in range(10)
            ]
            reply = httpx.post(
                f"{base}/api/v1/records",
                json={"device_id": "laptop", "records": records},
                headers=auth,
                timeout=30,
            )
            assert reply.status_code == 200 and reply.json()["new"] == 10, reply.text
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(60) == 0, log.read_text()[-2000:]
    # Every child goes (multiprocessing's resource tracker a moment after the rest).
    _, alive = psutil.wait_procs(children, timeout=20)
    assert not alive, alive
    assert "Traceback" not in log.read_text()
