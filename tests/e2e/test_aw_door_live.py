"""`timetrace serve --worker --aw-port … --aw-user …` as a desktop runs it: heartbeats
sent to the door show in `get_now` within 10 s, and the day's digest is built from them
within a minute of the last one, by the worker of the same process."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.runtime.services import Services
from app.settings import Settings
from app.tools.registry import dispatch
from tests.faults import FAST_WORKER, kill9, reaped, spawn, timetrace_env, wait_for

DAY = date(2003, 5, 6)  # a sentinel day, far from today (UTC, cut at 04:00)
T0 = datetime(2003, 5, 6, 9, 0, tzinfo=UTC)


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _beat(client: httpx.Client, bucket: str, at: float, data: dict[str, Any], pulse: float) -> None:
    answer = client.post(
        f"/api/0/buckets/{bucket}/heartbeat",
        params={"pulsetime": pulse},
        json={"timestamp": (T0 + timedelta(seconds=at)).isoformat(), "duration": 0, "data": data},
    )
    answer.raise_for_status()


def test_a_heartbeat_shows_in_get_now_and_the_day_digest_follows(
    db_url: str, settings: Settings, services: Services, tmp_path: Path
) -> None:
    api_port, aw_port = _free_port(), _free_port()
    log = tmp_path / "serve.log"
    env = timetrace_env(db_url, tmp_path / "data", TIMETRACE_TIME_ZONE="UTC", **FAST_WORKER)
    serve = spawn(
        ["serve", "--worker", "--port", str(api_port), "--aw-port", str(aw_port)], env, log
    )
    with reaped([serve]), httpx.Client(base_url=f"http://127.0.0.1:{aw_port}") as door:
        assert wait_for(lambda: _answers(door), timeout=60), log.read_text()
        for bucket, kind in (
            ("aw-watcher-window_desk", "currentwindow"),
            ("aw-watcher-afk_desk", "afkstatus"),
        ):
            door.post(
                f"/api/0/buckets/{bucket}",
                json={"client": "aw-watcher", "type": kind, "hostname": "desk"},
            ).raise_for_status()
        # Forty minutes of work in two apps, then a long break: the day can close.
        code = {"app": "Code.exe", "title": "timeline.py - Visual Studio Code"}
        wechat = {"app": "WeChat.exe", "title": "微信"}
        for minute in range(0, 41):
            data = code if minute < 30 else wechat
            _beat(door, "aw-watcher-window_desk", minute * 60, data, 61)
            _beat(door, "aw-watcher-afk_desk", minute * 60, {"status": "not-afk"}, 61)
        _beat(door, "aw-watcher-afk_desk", 41 * 60, {"status": "afk"}, 61)
        _beat(door, "aw-watcher-afk_desk", 120 * 60, {"status": "afk"}, 61)
        user = services.store.get_user(name="me")
        assert user is not None

        def now_shows_wechat() -> bool:
            ctx = services.tool_context(user=user, now=datetime.now(UTC))
            result: Any = dispatch(ctx, "get_now", {})
            return bool(result.items) and result.items[0].app == "微信"

        # Deadlines to give up, not speeds.
        assert wait_for(now_shows_wechat, timeout=60, interval=0.2), (
            dispatch(services.tool_context(user=user, now=datetime.now(UTC)), "get_now", {}),
            log.read_text()[-3000:],
        )

        def digest_is_current() -> bool:
            ctx = services.tool_context(user=user, now=datetime.now(UTC))
            result: Any = dispatch(ctx, "get_digest", {"grain": "day", "date": DAY.isoformat()})
            return bool(getattr(result, "available", False) and result.complete)

        assert wait_for(digest_is_current, timeout=60, interval=0.5), (
            dispatch(
                services.tool_context(user=user, now=datetime.now(UTC)),
                "get_digest",
                {"grain": "day", "date": DAY.isoformat()},
            ),
            services.store.job_health(stalled_after_s=1),
        )
        ctx = services.tool_context(user=user, now=datetime.now(UTC))
        digest: Any = dispatch(ctx, "get_digest", {"grain": "day", "date": DAY.isoformat()})
        # Code from the first beat to its last (29 min), WeChat for the 10 min after; the
        # minute between them is more than the flood closes.
        assert digest.metrics.top_apps_hours == {
            "Visual Studio Code": round(29 / 60, 2),
            "微信": round(10 / 60, 2),
        }, digest.metrics


def test_heartbeats_answered_before_the_door_is_killed_are_converted_after_its_restart(
    db_url: str, conn: Any, tmp_path: Path
) -> None:
    """The door marks its buckets in memory; killed (-9) before a pass, it loses the
    marks and not the heartbeats it answered: the restarted door's first pass finds
    them by their group numbers."""
    port = _free_port()
    log = tmp_path / "door.log"
    env = timetrace_env(db_url, tmp_path / "data", TIMETRACE_TIME_ZONE="UTC")
    # One pass at the start and none after (for ten minutes).
    first = spawn(["aw-door", "--port", str(port), "--convert-every", "600"], env, log)
    processes = [first]
    with reaped(processes), httpx.Client(base_url=f"http://127.0.0.1:{port}") as door:
        assert wait_for(lambda: _answers(door), timeout=60), log.read_text()
        for bucket, kind in (
            ("aw-watcher-window_desk", "currentwindow"),
            ("aw-watcher-afk_desk", "afkstatus"),
        ):
            door.post(
                f"/api/0/buckets/{bucket}",
                json={"client": "aw-watcher", "type": kind, "hostname": "desk"},
            ).raise_for_status()
        code = {"app": "Code.exe", "title": "timeline.py - Visual Studio Code"}
        wechat = {"app": "WeChat.exe", "title": "微信"}
        for second in range(0, 121, 10):
            _beat(door, "aw-watcher-window_desk", second, code if second < 60 else wechat, 11)
            _beat(door, "aw-watcher-afk_desk", second, {"status": "not-afk"}, 11)
        kill9(first)
        assert conn.execute("SELECT count(*) AS n FROM records").fetchone()["n"] == 0
        again = spawn(["aw-door", "--port", str(port)], env, log)
        processes.append(again)

        def converted() -> list[tuple[str, float]]:
            rows = conn.execute(
                "SELECT app_raw, EXTRACT(EPOCH FROM ts_end - ts_start)::float AS s"
                " FROM records WHERE NOT is_idle ORDER BY ts_start"
            ).fetchall()
            return [(r["app_raw"], r["s"]) for r in rows]

        assert wait_for(lambda: bool(converted()), timeout=60, interval=0.2), log.read_text()
        # Code from its first beat to its last, WeChat the same (the 10 s between them
        # are more than the flood closes).
        assert converted() == [("Code.exe", 50.0), ("WeChat.exe", 60.0)]


def _answers(client: httpx.Client) -> bool:
    try:
        return client.get("/api/0/info").status_code == 200
    except httpx.HTTPError:
        return False


def _primary_address() -> str | None:
    """This machine's address on its default route, if it has one (no packet is sent)."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            address: str = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_the_door_listens_on_loopback_only_and_refuses_any_other_address(
    db_url: str, tmp_path: Path
) -> None:
    from app.awdoor.server import door_sockets

    env = timetrace_env(db_url, tmp_path / "data")
    log = tmp_path / "door.log"
    for host in ("0.0.0.0", "::"):
        refused = spawn(["aw-door", "--host", host, "--port", str(_free_port())], env, log)
        with reaped([refused]):
            assert refused.wait(60) == 1
    assert log.read_text().count("listens on loopback only") == 2
    sockets = door_sockets("127.0.0.1", 0)
    try:
        assert {s.getsockname()[0] for s in sockets} <= {"127.0.0.1", "::1"}
        port = sockets[0].getsockname()[1]
        sockets[0].listen()
        address = _primary_address()
        if address is not None:  # the machine's own address does not reach the door
            import socket

            with socket.socket() as outside, pytest.raises(OSError):
                outside.settimeout(2)
                outside.connect((address, port))
    finally:
        for sock in sockets:
            sock.close()
