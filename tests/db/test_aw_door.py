"""The ActivityWatch door over HTTP (in process): aw-server's answers, heartbeats merged
as aw-server merges them, export and import, the loopback guard, and the live
conversion of a host's buckets into records."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from app.awdoor.api import door_app
from app.awdoor.guard import check_loopback
from app.awdoor.live import LiveConversion
from app.awdoor.marks import DirtyMarks
from app.errors import ConfigError
from app.importers.activitywatch import import_activitywatch_file
from app.importers.aw_hosts import device_id_for
from app.pyramid.user_rules import draft
from app.runtime.services import Services
from app.store.accounts import UserContext
from tests.aw_day import HOST, scripted_day

T0 = datetime(2003, 3, 4, 9, 0, tzinfo=UTC)  # sentinel: far from today
WINDOW = "aw-watcher-window_laptop"
AFK = "aw-watcher-afk_laptop"


def _at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


@pytest.fixture
def user(services: Services) -> UserContext:
    return services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)


@pytest.fixture
def marks() -> DirtyMarks:
    return DirtyMarks()


@pytest.fixture
def door(services: Services, user: UserContext, marks: DirtyMarks) -> Iterator[TestClient]:
    app = door_app(store=services.store, user=user, port=5600, hostname="laptop", marks=marks)
    with TestClient(app, base_url="http://127.0.0.1:5600") as client:
        yield client


def _bucket(door: TestClient, bucket_id: str, kind: str) -> None:
    answer = door.post(
        f"/api/0/buckets/{bucket_id}",
        json={"client": "aw-watcher", "type": kind, "hostname": "laptop"},
    )
    assert answer.status_code == 200


def _beat(door: TestClient, bucket_id: str, at: float, data: dict[str, Any], pulse: float) -> Any:
    answer = door.post(
        f"/api/0/buckets/{bucket_id}/heartbeat?pulsetime={pulse}",
        json={"timestamp": _at(at), "duration": 0, "data": data},
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


CODE = {"app": "Code", "title": "main.py"}
SLACK = {"app": "Slack", "title": "general"}


def test_heartbeats_merge_within_pulsetime_and_start_anew_otherwise(door: TestClient) -> None:
    _bucket(door, WINDOW, "currentwindow")
    assert (
        door.post(
            f"/api/0/buckets/{WINDOW}",
            json={"client": "x", "type": "currentwindow", "hostname": "h"},
        ).status_code
        == 304
    )
    for second in range(0, 10):
        merged = _beat(door, WINDOW, second, CODE, 2.0)
    assert merged["duration"] == 9.0
    _beat(door, WINDOW, 10.5, SLACK, 2.0)  # other data: a new event
    _beat(door, WINDOW, 11.5, SLACK, 2.0)
    _beat(door, WINDOW, 20.0, SLACK, 2.0)  # past the pulse: a new event
    events = door.get(f"/api/0/buckets/{WINDOW}/events").json()
    assert [(e["timestamp"], e["duration"], e["data"]) for e in events] == [
        (_at(20), 0.0, SLACK),
        (_at(10.5), 1.0, SLACK),
        (_at(0), 9.0, CODE),
    ]
    assert door.get(f"/api/0/buckets/{WINDOW}/events/count").json() == 3
    assert len(door.get(f"/api/0/buckets/{WINDOW}/events?limit=2").json()) == 2
    # A range is trimmed to what was asked, as aw-server's SQLite store trims it.
    cut = door.get(
        f"/api/0/buckets/{WINDOW}/events", params={"start": _at(5), "end": _at(11)}
    ).json()
    assert [(e["timestamp"], e["duration"]) for e in cut] == [(_at(10.5), 0.501), (_at(5), 4.0)]
    listing = door.get("/api/0/buckets/").json()
    assert listing[WINDOW]["last_updated"] == _at(20)
    assert listing[WINDOW]["type"] == "currentwindow"


def test_missing_bucket_and_pulsetime_are_aw_server_errors(door: TestClient) -> None:
    assert (
        door.post(
            "/api/0/buckets/nope/heartbeat?pulsetime=1", json={"timestamp": _at(0)}
        ).status_code
        == 404
    )
    _bucket(door, WINDOW, "currentwindow")
    assert (
        door.post(f"/api/0/buckets/{WINDOW}/heartbeat", json={"timestamp": _at(0)}).status_code
        == 400
    )
    assert (
        door.post(f"/api/0/buckets/{WINDOW}/heartbeat?pulsetime=1", json={"data": {}}).status_code
        == 400
    )


def test_export_then_import_gives_back_what_was_sent(door: TestClient) -> None:
    _bucket(door, WINDOW, "currentwindow")
    _beat(door, WINDOW, 0, CODE, 2.0)
    _beat(door, WINDOW, 1.25, CODE, 2.0)
    _beat(door, WINDOW, 3, {"app": "微信", "title": "群聊 · 周报", "n": 1.5}, 2.0)
    exported = door.get("/api/0/export").json()
    bucket = exported["buckets"][WINDOW]
    assert bucket["events"][0]["data"] == {
        "app": "微信",
        "title": "群聊 · 周报",
        "n": 1.5,
    }
    assert door.delete(f"/api/0/buckets/{WINDOW}").status_code == 401
    assert door.delete(f"/api/0/buckets/{WINDOW}?force=1").status_code == 200
    assert door.get(f"/api/0/buckets/{WINDOW}").status_code == 404
    assert door.post("/api/0/import", json=exported).status_code == 200
    assert door.get("/api/0/export").json() == exported
    assert door.post("/api/0/import", json=exported).status_code == 409


def test_settings_are_kept_as_aw_webui_writes_them(door: TestClient) -> None:
    classes = [{"name": ["Work", "编程"], "rule": {"type": "regex", "regex": "Code|vim"}}]
    assert door.post("/api/0/settings/classes", json=classes).json() == classes
    assert door.get("/api/0/settings/classes").json() == classes
    assert door.get("/api/0/settings").json() == {"classes": classes}
    assert door.get("/api/0/settings/startOfDay").json() is None


def test_a_foreign_host_or_a_web_origin_is_refused(door: TestClient) -> None:
    assert door.get("/api/0/info").status_code == 200
    assert door.get("/api/0/info", headers={"Host": "evil.example"}).status_code == 403
    assert door.get("/api/0/info", headers={"Host": "evil.example:5600"}).status_code == 403
    page = door.get("/api/0/info", headers={"Origin": "https://evil.example"})
    assert page.status_code == 403
    extension = door.get("/api/0/info", headers={"Origin": "moz-extension://abc"})
    assert extension.status_code == 200
    assert extension.headers["access-control-allow-origin"] == "moz-extension://abc"
    assert door.get("/api/0/info", headers={"Origin": "http://127.0.0.1:5600"}).status_code == 200
    assert door.get("/api/0/info", headers={"Host": "[::1]:5600"}).status_code == 200
    preflight = door.options(
        "/api/0/buckets/x/heartbeat", headers={"Origin": "chrome-extension://abc"}
    )
    assert preflight.status_code == 200
    assert "POST" in preflight.headers["access-control-allow-methods"]
    assert (
        door.options("/api/0/info", headers={"Origin": "https://evil.example"}).status_code == 403
    )


def test_bodies_are_bounded_as_the_api_s(door: TestClient) -> None:
    from app.api.limits import MAX_BODY_BYTES

    _bucket(door, WINDOW, "currentwindow")
    huge = {"timestamp": _at(0), "data": {"title": "x" * MAX_BODY_BYTES}}
    assert door.post(f"/api/0/buckets/{WINDOW}/heartbeat?pulsetime=1", json=huge).status_code == 413
    assert door.post(f"/api/0/buckets/{WINDOW}/events", json=huge).status_code == 413
    assert door.post("/api/0/import", json={"buckets": {"b": huge}}).status_code == 413


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.5", "::", "example.com"])
def test_the_door_refuses_to_listen_beyond_loopback(host: str) -> None:
    with pytest.raises(ConfigError, match="loopback only"):
        check_loopback(host)


def _records(conn: Any) -> list[tuple[str, str, float, bool]]:
    rows = conn.execute(
        "SELECT client_record_id, app, EXTRACT(EPOCH FROM ts_end - ts_start)::float AS s, "
        "is_idle FROM records ORDER BY ts_start"
    ).fetchall()
    return [(r["client_record_id"], r["app"], r["s"], r["is_idle"]) for r in rows]


def test_the_live_conversion_extends_a_record_in_place_and_follows_afk(
    door: TestClient, services: Services, user: UserContext, marks: DirtyMarks, conn: Any
) -> None:
    live = LiveConversion(services.store, user=user, rules=services.rules, marks=marks)
    now = T0 + timedelta(hours=1)
    _bucket(door, WINDOW, "currentwindow")
    _bucket(door, AFK, "afkstatus")
    for second in range(0, 31):
        _beat(door, WINDOW, second, CODE, 2.0)
    _beat(door, AFK, 0, {"status": "not-afk"}, 6.0)
    _beat(door, AFK, 30, {"status": "not-afk"}, 31.0)
    first = live.run_once(now=now)
    assert (first.hosts, first.inserted) == (1, 1)
    start = int(T0.timestamp() * 1_000_000)
    assert _records(conn) == [(f"aw:{start}", "Visual Studio Code", 30.0, False)]
    (record_id,) = [r["record_id"] for r in conn.execute("SELECT record_id FROM records")]
    # Nothing written: nothing to do.
    assert live.run_once(now=now).hosts == 0
    # The heartbeat extends the event: the same record, longer.
    for second in range(31, 61):
        _beat(door, WINDOW, second, CODE, 2.0)
    _beat(door, AFK, 60, {"status": "not-afk"}, 31.0)
    again = live.run_once(now=now)
    assert (again.inserted, again.updated, again.removed) == (0, 1, 0)
    assert _records(conn) == [(f"aw:{start}", "Visual Studio Code", 60.0, False)]
    assert [r["record_id"] for r in conn.execute("SELECT record_id FROM records")] == [record_id]
    # Slack, then the user goes away at 90 s: the tail past the last not-afk is idle.
    for second in range(60, 121):
        _beat(door, WINDOW, second, SLACK, 2.0)
    _beat(door, AFK, 75, {"status": "not-afk"}, 31.0)
    _beat(door, AFK, 90, {"status": "not-afk"}, 31.0)
    _beat(door, AFK, 90, {"status": "afk"}, 31.0)
    _beat(door, AFK, 120, {"status": "afk"}, 31.0)
    live.run_once(now=now)
    assert _records(conn) == [
        (f"aw:{start}", "Visual Studio Code", 60.0, False),
        (f"aw:{start + 60_000_000}", "Slack", 30.0, False),
        (f"aw:{start + 90_000_000}", "Slack", 30.0, True),
    ]
    # The same history converted whole (a new conversion's first pass) agrees.
    conn.execute("DELETE FROM records")
    conn.execute("UPDATE aw_buckets SET dirty_from = '2003-03-04 09:00+00'")
    fresh = DirtyMarks()
    LiveConversion(services.store, user=user, rules=services.rules, marks=fresh).run_once(now=now)
    assert [r[1:] for r in _records(conn)] == [
        ("Visual Studio Code", 60.0, False),
        ("Slack", 30.0, False),
        ("Slack", 30.0, True),
    ]


def test_a_private_window_stays_redacted_in_a_later_pass_that_no_longer_reads_its_tab(
    door: TestClient, services: Services, user: UserContext, marks: DirtyMarks, conn: Any
) -> None:
    live = LiveConversion(services.store, user=user, rules=services.rules, marks=marks)
    now = T0 + timedelta(hours=1)
    web = "aw-watcher-web-chrome"
    _bucket(door, WINDOW, "currentwindow")
    _bucket(door, AFK, "afkstatus")
    _bucket(door, web, "web.tab.current")
    private = {"app": "chrome.exe", "title": "secret page - Google Chrome"}
    tab = {"url": "https://example.org/secret", "title": "secret page", "incognito": True}
    for second in range(0, 21):
        _beat(door, WINDOW, second, private, 2.0)
        _beat(door, web, second, tab, 2.0)
    # Five other windows, then the private window again, with no tab event near it.
    for k in range(5):
        for second in range(30 + 60 * k, 30 + 60 * k + 60):
            _beat(door, WINDOW, second, CODE if k % 2 else SLACK, 2.0)
    for second in range(0, 1021, 30):
        _beat(door, AFK, second, {"status": "not-afk"}, 31.0)
    live.run_once(now=now)
    for second in range(1000, 1021):
        _beat(door, WINDOW, second, private, 2.0)
    live.run_once(now=now)
    rows = conn.execute(
        "SELECT window_title, redacted FROM records WHERE app_raw = 'chrome.exe' ORDER BY ts_start"
    ).fetchall()
    assert rows and all(r["redacted"] for r in rows)
    assert not any("secret" in r["window_title"] for r in rows)


def test_deleting_records_deletes_the_door_events_they_came_from(
    door: TestClient, services: Services, user: UserContext, marks: DirtyMarks, conn: Any
) -> None:
    """Deletion really deletes: the door's own events under the deleted time go, on that
    host's device only, and a later pass does not bring the time back."""
    live = LiveConversion(services.store, user=user, rules=services.rules, marks=marks)
    now = T0 + timedelta(hours=1)
    web = "aw-watcher-web-chrome"
    other = "aw-watcher-window_desk"
    _bucket(door, WINDOW, "currentwindow")
    _bucket(door, web, "web.tab.current")
    answer = door.post(
        f"/api/0/buckets/{other}",
        json={"client": "aw-watcher", "type": "currentwindow", "hostname": "desk"},
    )
    assert answer.status_code == 200
    chrome = {"app": "chrome.exe", "title": "银行 账户 - Google Chrome"}
    tab = {"url": "https://bank.example/account", "title": "银行 账户", "audible": False}
    for second in range(0, 30):
        _beat(door, WINDOW, second, CODE, 2.0)
        _beat(door, other, second, CODE, 2.0)
    for second in range(31, 61):
        _beat(door, WINDOW, second, chrome, 2.0)
        _beat(door, web, second, tab, 2.0)
        _beat(door, other, second, SLACK, 2.0)
    live.run_once(now=now)
    devices = {
        r["bucket_id"]: r["device_id"]
        for r in conn.execute("SELECT bucket_id, device_id FROM aw_buckets")
    }
    assert devices[WINDOW] == devices[web] == "laptop" and devices[other] == "desk"
    gone = services.store.delete_records(
        user_id=user.user_id,
        device_id="laptop",
        ts_from=T0 + timedelta(seconds=31),
        ts_to=T0 + timedelta(seconds=61),
    )
    assert gone
    left = conn.execute(
        "SELECT bucket_id, data::text AS data FROM aw_events ORDER BY bucket_id, ts"
    ).fetchall()
    assert not any("bank" in r["data"] or "银行" in r["data"] for r in left)
    assert {r["bucket_id"] for r in left} == {WINDOW, other}  # the code before, the desk
    assert sum(r["bucket_id"] == other for r in left) == 2
    for second in range(61, 70):  # the watcher goes on; the pass re-reads recent time
        _beat(door, WINDOW, second, SLACK, 2.0)
    live.run_once(now=now)
    titles = [
        r["window_title"]
        for r in conn.execute("SELECT window_title FROM records WHERE deleted_at IS NULL")
    ]
    assert not any("银行" in t for t in titles)


def test_a_bucket_s_device_is_the_one_the_importer_names(door: TestClient, conn: Any) -> None:
    names = ["laptop", "DESKTOP-7Q2 (Work)", "我的电脑", "--x--", "a" * 80 + "!", "héllo.local"]
    for at, name in enumerate(names):
        answer = door.post(
            f"/api/0/buckets/w{at}",
            json={"client": "aw-watcher", "type": "currentwindow", "hostname": name},
        )
        assert answer.status_code == 200
    got = {
        r["hostname"]: r["device_id"]
        for r in conn.execute("SELECT hostname, device_id FROM aw_buckets")
    }
    assert got == {name: device_id_for(name) for name in names}


def test_the_live_conversion_counts_by_the_users_rules_from_the_next_pass(
    door: TestClient, services: Services, user: UserContext, marks: DirtyMarks, conn: Any
) -> None:
    live = LiveConversion(services.store, user=user, rules=services.rules, marks=marks)
    now = T0 + timedelta(hours=1)
    _bucket(door, WINDOW, "currentwindow")
    _bucket(door, AFK, "afkstatus")
    for second in range(0, 31):
        _beat(door, WINDOW, second, SLACK, 2.0)
    _beat(door, AFK, 0, {"status": "not-afk"}, 6.0)
    _beat(door, AFK, 30, {"status": "not-afk"}, 31.0)
    live.run_once(now=now)
    query = "SELECT category, category_source FROM records WHERE app = 'Slack' AND NOT is_idle"
    assert conn.execute(query).fetchone()["category"] != "study"
    # Saved while the door runs: the next record it makes counts by it.
    rule = draft(rules=services.rules, kind="app", pattern="slack.exe", category="study")
    (row,) = services.store.write_user_rules(user_id=user.user_id, rules=[rule]).rules
    for second in range(31, 61):
        _beat(door, WINDOW, second, SLACK, 2.0)
    _beat(door, AFK, 60, {"status": "not-afk"}, 31.0)
    live.run_once(now=now)
    got = conn.execute(query).fetchall()
    assert got and all(
        (r["category"], r["category_source"]) == ("study", f"user:{row.rule_id}") for r in got
    )


def _event(door: TestClient, bucket_id: str, at: float, duration: float, data: Any) -> None:
    answer = door.post(
        f"/api/0/buckets/{bucket_id}/heartbeat?pulsetime=2.0",
        json={"timestamp": _at(at), "duration": duration, "data": data},
    )
    assert answer.status_code == 200, answer.text


def _tab(title: str, tabs: int) -> dict[str, Any]:
    url = f"https://example.org/{tabs}"
    return {"url": url, "title": title, "audible": False, "tabCount": tabs}


def _firefox(title: str) -> dict[str, str]:
    return {"app": "firefox.exe", "title": f"{title} — Mozilla Firefox"}


def test_a_later_pass_floods_a_tab_from_the_start_of_its_run_of_neighbours(
    door: TestClient, services: Services, user: UserContext, marks: DirtyMarks, conn: Any
) -> None:
    """aw-core's flood cuts each start it moves to the millisecond but keeps the duration
    from the midpoint, so a tab's end moves by what its start lost, the next midpoint by
    half that: the last tab of a run of four (gaps under 5 s) ends 125 µs apart when its
    first is not read. A pass converting only the recent part reads the whole run."""
    live = LiveConversion(services.store, user=user, rules=services.rules, marks=marks)
    now = T0 + timedelta(hours=1)
    web = "aw-watcher-web-firefox"
    _bucket(door, WINDOW, "currentwindow")
    _bucket(door, AFK, "afkstatus")
    _bucket(door, web, "web.tab.current")
    _event(door, AFK, 0, 500, {"status": "not-afk"})
    # Four tabs, each with other data, 1.457 s, 2.473 s and 3.251 s apart.
    for at, duration, tab in (
        (0, 2.982, _tab("lofi", 7)),
        (4.439, 185.683, _tab("lofi", 2)),
        (192.595, 120.763, _tab("python", 8)),
        (316.609, 27.415, _tab("zhihu", 3)),
    ):
        _event(door, web, at, duration, tab)
    # The zhihu window outlasts its tab, then two other windows (the last one is where
    # the next pass starts: the first tab is more than three events before it).
    _event(door, WINDOW, 0, 316.609, _firefox("lofi"))
    _event(door, WINDOW, 316.609, 27.415, _firefox("zhihu"))
    _event(door, WINDOW, 344.284, 2.4, {"app": "WINWORD.EXE", "title": "report.docx - Word"})
    _event(door, WINDOW, 346.684, 79.749, {"app": "chrome.exe", "title": "mail - Google Chrome"})
    live.run_once(now=now)
    whole = conn.execute("SELECT client_record_id FROM records ORDER BY ts_start").fetchall()
    # 316.609 + 27.415 s, less the 375 µs the three floods took off the tab's end.
    start = int(T0.timestamp() * 1_000_000)
    assert {"client_record_id": f"aw:{start + 344_023_625}"} in whole
    _event(door, WINDOW, 440, 3, CODE)
    live.run_once(now=now)
    after = conn.execute("SELECT client_record_id FROM records ORDER BY ts_start").fetchall()
    assert after[:-1] == whole


def _records_of(conn: Any, user: UserContext) -> list[tuple[Any, ...]]:
    rows = conn.execute(
        "SELECT client_record_id, ts_end, app, window_title, url, is_idle, category, redacted"
        " FROM records WHERE user_id = %s AND deleted_at IS NULL ORDER BY ts_start",
        [user.user_id],
    ).fetchall()
    return [tuple(r.values()) for r in rows]


@pytest.mark.parametrize("every", [1, 7])
def test_passes_while_the_day_arrives_make_what_one_import_of_it_makes(
    services: Services, conn: Any, tmp_path: Path, every: int
) -> None:
    """The scripted day's heartbeats into the door, a pass after every `every`-th: the
    records equal one import of the door's export (with a pass after each beat, a pass
    once started inside a run of four flooded tabs: see the test above)."""
    me = services.store.ensure_user(name="me", time_zone="Asia/Shanghai", day_cut_hour=4)
    marks = DirtyMarks()
    app = door_app(store=services.store, user=me, port=5600, hostname=HOST, marks=marks)
    live = LiveConversion(services.store, user=me, rules=services.rules, marks=marks)
    day, now = scripted_day(hours=2), datetime(2026, 11, 25, tzinfo=UTC)
    with TestClient(app, base_url="http://127.0.0.1:5600") as door:
        for b in day.buckets:
            body = {"client": "aw-watcher", "type": b.type, "hostname": b.hostname}
            assert door.post(f"/api/0/buckets/{b.id}", json=body).status_code == 200
        for i, beat in enumerate(day.beats):
            e = beat.event
            event = {"timestamp": e.timestamp.isoformat(), "duration": e.duration.total_seconds()}
            answer = door.post(
                f"/api/0/buckets/{beat.bucket}/heartbeat?pulsetime={beat.pulsetime}",
                json={**event, "data": e.data},
            )
            assert answer.status_code == 200, answer.text
            if i % every == 0:
                live.run_once(now=now)
        live.run_once(now=now)
        path = tmp_path / "export.json"
        path.write_bytes(door.get("/api/0/export").content)
    batch = services.store.ensure_user(name="batch", time_zone="Asia/Shanghai", day_cut_hour=4)
    import_activitywatch_file(services.store, path=path, user=batch, rules=services.rules)
    converted, imported = _records_of(conn, me), _records_of(conn, batch)
    assert len(converted) > 50
    assert converted == imported
