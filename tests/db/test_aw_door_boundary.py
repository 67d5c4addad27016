"""The ActivityWatch door's one boundary: heartbeats and events at every edge are refused
with aw-server's error shape and nothing written; a poisoned event already stored is set
aside (with its reason, shown by status and /healthz) while the host's good heartbeats
go on becoming records; the door's import is all or nothing."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from app.awdoor.api import door_app
from app.awdoor.events import micros_of
from app.awdoor.live import LiveConversion
from app.awdoor.marks import DirtyMarks
from app.awdoor.private import Privacy
from app.boundary import EVENT_DATA_MAX
from app.cli import main
from app.rules.categories import load_rules
from app.runtime.services import Services
from app.store.accounts import UserContext
from tests.db.test_aw_door import AFK, T0, WINDOW, _at, _beat, _bucket
from tests.helpers import make_api

CODE = {"app": "Code", "title": "main.py"}


@pytest.fixture
def user(services: Services) -> UserContext:
    return services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)


@pytest.fixture
def marks() -> DirtyMarks:
    return DirtyMarks()


@pytest.fixture
def door(services: Services, user: UserContext, marks: DirtyMarks) -> Iterator[TestClient]:
    app = door_app(
        store=services.store,
        user=user,
        port=5600,
        hostname="laptop",
        privacy=Privacy(services.rules),
        marks=marks,
    )
    with TestClient(app, base_url="http://127.0.0.1:5600") as client:
        yield client


def _count(conn: Any, table: str) -> int:
    return int(conn.execute(f"SELECT count(*) AS n FROM {table}").fetchone()["n"])


EDGES = {
    "year 0001": ("1", {"timestamp": "0001-01-01T00:00:00Z", "duration": 0, "data": CODE}),
    "year 9999": ("1", {"timestamp": "9999-12-31T23:59:59Z", "duration": 0, "data": CODE}),
    "a year before 1990": ("1", {"timestamp": "1989-12-31T23:00:00Z", "data": CODE}),
    "two days ahead": (
        "1",
        {"timestamp": (datetime.now(UTC) + timedelta(days=2)).isoformat(), "data": CODE},
    ),
    "pulsetime -1": ("-1", {"timestamp": _at(0), "duration": 0, "data": CODE}),
    "pulsetime past a day": ("86401", {"timestamp": _at(0), "duration": 0, "data": CODE}),
    "a 10-year duration": ("1", {"timestamp": _at(0), "duration": 315_576_000, "data": CODE}),
    "a negative duration": ("1", {"timestamp": _at(0), "duration": -1, "data": CODE}),
    "a title past a record's": (
        "1",
        {"timestamp": _at(0), "data": {"app": "Code", "title": "t" * 4_097}},
    ),
    "data past the cap": (
        "1",
        {"timestamp": _at(0), "data": {"app": "Code", "extra": "x" * EVENT_DATA_MAX}},
    ),
}


@pytest.mark.parametrize("edge", sorted(EDGES))
def test_a_heartbeat_at_an_edge_is_refused_and_nothing_is_written(
    door: TestClient, conn: Any, edge: str
) -> None:
    pulse, body = EDGES[edge]
    _bucket(door, WINDOW, "currentwindow")
    answer = door.post(f"/api/0/buckets/{WINDOW}/heartbeat?pulsetime={pulse}", json=body)
    assert answer.status_code == 400, answer.text
    assert answer.json()["type"] == "BadRequest"
    assert answer.json()["message"]
    # The ordinary route (a gzip body does not take the fast path) answers the same.
    slow = door.post(
        f"/api/0/buckets/{WINDOW}/heartbeat?pulsetime={pulse}",
        content=gzip.compress(orjson.dumps(body)),
        headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
    )
    assert (slow.status_code, slow.json()["type"]) == (400, "BadRequest")
    assert _count(conn, "aw_events") == 0
    if not edge.startswith("pulsetime"):  # an insert takes no pulsetime
        inserted = door.post(f"/api/0/buckets/{WINDOW}/events", json=[body])
        assert inserted.status_code == 400
        assert _count(conn, "aw_events") == 0


def test_nineteen_megabytes_of_data_are_refused(door: TestClient, conn: Any) -> None:
    _bucket(door, WINDOW, "currentwindow")
    body = {"timestamp": _at(0), "data": {"app": "Code", "blob": "x" * 19_000_000}}
    answer = door.post(f"/api/0/buckets/{WINDOW}/heartbeat?pulsetime=1", json=body)
    assert answer.status_code == 400
    assert "bytes of JSON" in answer.json()["message"]
    assert _count(conn, "aw_events") == 0


def test_nul_in_a_heartbeat_s_text_is_dropped_as_a_record_s(door: TestClient, conn: Any) -> None:
    _bucket(door, WINDOW, "currentwindow")
    _beat(door, WINDOW, 0, {"app": "Co\x00de", "title": "ma\x00in.py"}, 1.0)
    (row,) = conn.execute("SELECT data::text AS data FROM aw_events").fetchall()
    assert orjson.loads(row["data"]) == CODE


def _poison(conn: Any, user: UserContext, *, ts: str, duration_us: int) -> int:
    """An event as an older door stored it, past what the API now accepts."""
    row = conn.execute(
        "INSERT INTO aw_events (user_id, bucket_id, event_id, ts, duration_us, data, changed) "
        "VALUES (%s, %s, nextval('aw_event_ids'), %s, %s, %s::json, 0) RETURNING event_id",
        (user.user_id, WINDOW, ts, duration_us, orjson.dumps(CODE).decode()),
    ).fetchone()
    return int(row["event_id"])


@pytest.mark.parametrize(
    ("ts", "duration_us", "reason"),
    [
        ("0001-01-01T00:00:00Z", 0, "timestamp"),
        ("9999-12-31T00:00:00Z", 0, "timestamp"),
        ("2003-03-04T08:59:00Z", 10 * 365 * 86_400 * 1_000_000, "duration"),
    ],
)
def test_a_poisoned_event_is_set_aside_and_good_heartbeats_become_records(
    door: TestClient,
    services: Services,
    user: UserContext,
    marks: DirtyMarks,
    conn: Any,
    ts: str,
    duration_us: int,
    reason: str,
) -> None:
    live = LiveConversion(services.store, user=user, rules=services.rules, marks=marks)
    now = T0 + timedelta(hours=1)
    _bucket(door, WINDOW, "currentwindow")
    _bucket(door, AFK, "afkstatus")
    poisoned = _poison(conn, user, ts=ts, duration_us=duration_us)
    # The door marks what it writes; an older door marked the poisoned start too.
    marks.add([(WINDOW, micros_of(datetime.fromisoformat(ts)))], through=0)
    conn.execute("UPDATE aw_buckets SET dirty_from = %s WHERE bucket_id = %s", (ts, WINDOW))
    for second in range(0, 31):
        _beat(door, WINDOW, second, CODE, 2.0)
    _beat(door, AFK, 0, {"status": "not-afk"}, 31.0)
    _beat(door, AFK, 60, {"status": "not-afk"}, 61.0)
    live.run_once(now=now)  # no OverflowError: the pass goes on without it
    slack = {"app": "Slack", "title": "general"}
    for second in range(31, 61):
        _beat(door, WINDOW, second, slack, 2.0)
    live.run_once(now=now)
    rows = conn.execute(
        "SELECT app, EXTRACT(EPOCH FROM ts_end - ts_start)::float AS s FROM records "
        "WHERE NOT is_idle ORDER BY ts_start"
    ).fetchall()
    assert [(r["app"], r["s"]) for r in rows] == [
        ("Visual Studio Code", 30.5),
        ("Slack", 29.5),
    ]
    aside = conn.execute("SELECT event_id, set_aside FROM aw_events WHERE set_aside IS NOT NULL")
    assert [(r["event_id"], r["set_aside"].split(":")[0]) for r in aside] == [(poisoned, reason)]
    # `timetrace status` and /healthz show it, by user and reason; not a problem (the
    # conversion goes on without it).
    status = CliRunner().invoke(main, ["status"], env={"TIMETRACE_DATABASE_URL": services.url})
    assert f"1 event(s) of user {user.user_id} set aside: {reason}" in status.output
    health = make_api(services).client.get("/healthz").json()
    assert health["status"] == "ok"
    assert [
        (a["user_id"], a["events"], a["reason"].split(":")[0]) for a in health["aw_set_aside"]
    ] == [(user.user_id, 1, reason)]


def _export_of(buckets: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {
        "buckets": {
            bucket_id: {
                "id": bucket_id,
                "created": _at(0),
                "type": "currentwindow",
                "client": "aw-watcher-window",
                "hostname": "laptop",
                "events": events,
            }
            for bucket_id, events in buckets.items()
        }
    }


GOOD = [{"timestamp": _at(s), "duration": 1.0, "data": CODE} for s in range(5)]


def test_the_door_s_import_takes_an_empty_bucket_and_the_others(
    door: TestClient, conn: Any
) -> None:
    answer = door.post("/api/0/import", json=_export_of({"a": GOOD, "empty": [], "b": GOOD[:2]}))
    assert answer.status_code == 200, answer.text
    assert sorted(door.get("/api/0/buckets/").json()) == ["a", "b", "empty"]
    assert len(door.get("/api/0/buckets/a/events").json()) == 5
    assert len(door.get("/api/0/buckets/b/events").json()) == 2
    assert door.get("/api/0/buckets/empty/events").json() == []
    # Marked for the conversion in the database (no mark of the door's memory to lose).
    marked = conn.execute("SELECT bucket_id FROM aw_buckets WHERE dirty_from IS NOT NULL")
    assert sorted(r["bucket_id"] for r in marked) == ["a", "b"]


@pytest.mark.parametrize(
    "bad",
    [
        [{"timestamp": "0001-01-01T00:00:00Z", "data": CODE}],
        [{"timestamp": _at(0), "duration": 315_576_000, "data": CODE}],
        [{"timestamp": _at(0), "data": "not an object"}],
        "not a list",
    ],
)
def test_a_bad_bucket_after_good_ones_leaves_nothing_written(
    door: TestClient, conn: Any, bad: Any
) -> None:
    answer = door.post("/api/0/import", json=_export_of({"a": GOOD, "b": GOOD, "c": bad}))
    assert answer.status_code == 400, answer.text
    assert answer.json()["type"] == "BadRequest"
    assert "'c'" in answer.json()["message"]
    assert (_count(conn, "aw_buckets"), _count(conn, "aw_events")) == (0, 0)
    assert door.get("/api/0/buckets/").json() == {}


def test_an_existing_bucket_after_new_ones_leaves_nothing_written(
    door: TestClient, conn: Any
) -> None:
    _bucket(door, "c", "currentwindow")
    answer = door.post("/api/0/import", json=_export_of({"a": GOOD, "b": GOOD, "c": GOOD}))
    assert answer.status_code == 409
    assert [r["bucket_id"] for r in conn.execute("SELECT bucket_id FROM aw_buckets")] == ["c"]
    assert _count(conn, "aw_events") == 0


def test_a_dropped_window_is_never_stored_nor_merged_over(
    services: Services, user: UserContext, tmp_path: Any, conn: Any
) -> None:
    rules_file = tmp_path / "rules.toml"
    rules_file.write_text(
        '[[exclude]]\nname = "vault"\naction = "drop"\napp = \'^vaultapp$\'\n', "utf-8"
    )
    app = door_app(
        store=services.store,
        user=user,
        port=5600,
        hostname="laptop",
        privacy=Privacy(load_rules(user_file=rules_file)),
    )
    vault = {"app": "VaultApp", "title": "the combination"}
    with TestClient(app, base_url="http://127.0.0.1:5600") as door:
        _bucket(door, WINDOW, "currentwindow")
        for second in range(0, 6):
            _beat(door, WINDOW, second, CODE, 2.0)
        for second in range(6, 8):
            _beat(door, WINDOW, second, vault, 2.0)
        inserted = door.post(f"/api/0/buckets/{WINDOW}/events", json=[{"data": vault}])
        assert inserted.status_code == 200
        for second in range(8, 10):
            _beat(door, WINDOW, second, CODE, 2.0)
        events = door.get(f"/api/0/buckets/{WINDOW}/events").json()
    # Code before and after, two events: the dropped seconds are not merged over.
    assert [(e["timestamp"], e["duration"], e["data"]) for e in events] == [
        (_at(8), 1.0, CODE),
        (_at(0), 5.0, CODE),
    ]
    text = conn.execute("SELECT string_agg(data::text, ' ') AS t FROM aw_events").fetchone()
    assert "combination" not in text["t"] and "VaultApp" not in text["t"]


def test_a_bucket_s_metadata_is_capped_as_an_event_s_data(door: TestClient, conn: Any) -> None:
    big = {"blob": "x" * EVENT_DATA_MAX}
    made = door.post(
        f"/api/0/buckets/{WINDOW}",
        json={"client": "c", "type": "currentwindow", "hostname": "laptop", "data": big},
    )
    assert (made.status_code, made.json()["type"]) == (400, "BadRequest")
    export = _export_of({"a": GOOD})
    export["buckets"]["a"]["data"] = big
    assert door.post("/api/0/import", json=export).status_code == 400
    assert (_count(conn, "aw_buckets"), _count(conn, "aw_events")) == (0, 0)
