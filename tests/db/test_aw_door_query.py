"""aw-server's query2 on the door (`POST /api/0/query/`), in process: aw-core's engine
over the door's own events, one answer per time period, and aw-server's 400s for what
it refuses; aw-webui's settings kept as it writes them."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from starlette.testclient import TestClient

from app.awdoor.api import door_app
from app.awdoor.query import FUNCTIONS
from app.runtime.services import Services

T0 = datetime(2003, 5, 6, 9, 0, tzinfo=UTC)  # sentinel: far from today
WINDOW = "aw-watcher-window_laptop"
AFK = "aw-watcher-afk_laptop"


def _at(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).isoformat()


@pytest.fixture
def door(services: Services) -> Iterator[TestClient]:
    user = services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)
    app = door_app(store=services.store, user=user, port=5600, hostname="laptop")
    with TestClient(app, base_url="http://127.0.0.1:5600") as client:
        for bucket_id, kind in ((WINDOW, "currentwindow"), (AFK, "afkstatus")):
            made = client.post(
                f"/api/0/buckets/{bucket_id}",
                json={"client": "aw-watcher", "type": kind, "hostname": "laptop"},
            )
            assert made.status_code == 200
        yield client


def _events(door: TestClient, bucket_id: str, events: list[tuple[float, float, Any]]) -> None:
    body = [{"timestamp": _at(at), "duration": d, "data": data} for at, d, data in events]
    assert door.post(f"/api/0/buckets/{bucket_id}/events", json=body).status_code == 200


def _query(door: TestClient, lines: list[str], periods: list[tuple[float, float]]) -> Any:
    return door.post(
        "/api/0/query/",
        json={"timeperiods": [f"{_at(a)}/{_at(b)}" for a, b in periods], "query": lines},
    )


CODE = {"app": "Code", "title": "main.py"}
SLACK = {"app": "Slack", "title": "general"}


def test_each_period_gets_its_own_answer_trimmed_to_it(door: TestClient) -> None:
    _events(door, WINDOW, [(0, 600, CODE), (600, 300, SLACK), (3600, 120, CODE)])
    answer = _query(
        door,
        [
            f'events = query_bucket(find_bucket("{WINDOW[:18]}"));',
            'RETURN = {"apps": merge_events_by_keys(events, ["app"]), '
            '"total": sum_durations(events)};',
        ],
        [(0, 700), (500, 3700), (7200, 7300)],
    )
    assert answer.status_code == 200, answer.text
    first, second, third = answer.json()
    # aw-core reads up to a millisecond past a period's end (it rounds the end up).
    assert {e["data"]["app"]: e["duration"] for e in first["apps"]} == {
        "Code": 600.0,
        "Slack": 100.001,
    }
    assert first["total"] == 700.001
    assert {e["data"]["app"]: e["duration"] for e in second["apps"]} == {
        "Code": 200.001,
        "Slack": 300.0,
    }
    assert third == {"apps": [], "total": 0.0}


def test_the_canonical_functions_run_with_aw_core_s_meanings(door: TestClient) -> None:
    _events(door, WINDOW, [(0, 100, CODE), (102, 100, SLACK), (300, 50, CODE)])
    _events(door, AFK, [(0, 150, {"status": "not-afk"}), (150, 200, {"status": "afk"})])
    classes = [[["Work"], {"type": "regex", "regex": "Code"}]]
    answer = _query(
        door,
        [
            f'events = flood(query_bucket("{WINDOW}"));',
            f'not_afk = flood(query_bucket("{AFK}"));',
            'not_afk = filter_keyvals(not_afk, "status", ["not-afk"]);',
            "events = filter_period_intersect(events, not_afk);",
            f"events = categorize(events, {classes});".replace("'", '"'),
            'RETURN = sort_by_duration(merge_events_by_keys(events, ["$category"]));',
        ],
        [(0, 400)],
    )
    assert answer.status_code == 200, answer.text
    (cats,) = answer.json()
    # flood closes the 2 s gap at its midpoint (Code to 101 s), afk cuts at 150 s.
    assert [(e["data"]["$category"], e["duration"]) for e in cats] == [
        (["Work"], 101.0),
        (["Uncategorized"], 49.0),
    ]


def test_a_function_aw_core_does_not_have_is_a_400_naming_it(door: TestClient) -> None:
    answer = _query(door, ["RETURN = fancy_rollup(1);"], [(0, 10)])
    assert answer.status_code == 400
    assert answer.json()["type"] == "QueryInterpretException"
    assert "fancy_rollup" in answer.json()["message"]
    assert {"flood", "categorize", "union_no_overlap", "tag"} <= FUNCTIONS


def test_a_syntax_error_is_a_400_with_aw_s_message(door: TestClient) -> None:
    answer = _query(door, ["RETURN = ;"], [(0, 10)])
    assert answer.status_code == 400
    assert answer.json() == {"type": "QueryParseException", "message": "Nothing to assign"}
    missing = _query(door, ['RETURN = query_bucket("no-such-bucket");'], [(0, 10)])
    assert missing.status_code == 400
    assert "no-such-bucket" in missing.json()["message"]


@pytest.mark.parametrize(
    "body",
    [
        [],
        {"query": ["RETURN = 1;"]},
        {"timeperiods": ["yesterday/today"], "query": ["RETURN = 1;"]},
        {"timeperiods": [_at(0)], "query": ["RETURN = 1;"]},
        {"timeperiods": [f"{_at(0)}/{_at(1)}"], "query": "RETURN = 1;"},
    ],
)
def test_a_malformed_query_body_is_a_400(door: TestClient, body: Any) -> None:
    answer = door.post("/api/0/query/", json=body)
    assert answer.status_code == 400
    assert answer.json()["type"] == "BadRequest"


def test_a_query_reads_heartbeats_just_answered(door: TestClient) -> None:
    for second in range(0, 30, 5):
        beat = door.post(
            f"/api/0/buckets/{WINDOW}/heartbeat?pulsetime=6",
            json={"timestamp": _at(second), "duration": 0, "data": CODE},
        )
        assert beat.status_code == 200
    answer = _query(door, [f'RETURN = sum_durations(query_bucket("{WINDOW}"));'], [(0, 60)])
    assert answer.json() == [25.0]


def test_aw_webui_s_category_tree_reads_back_as_it_was_written(door: TestClient) -> None:
    classes = [
        {"id": 0, "name": ["Work"], "rule": {"type": "regex", "regex": "Code|GitHub"}},
        {
            "id": 1,
            "name": ["Work", "Programming"],
            "rule": {"type": "regex", "regex": "\\.py$", "ignore_case": True},
            "data": {"color": "#96cdf9", "score": 10},
        },
        {"id": 2, "name": ["Media", "视频"], "rule": {"type": "none"}},
    ]
    assert door.post("/api/0/settings/classes", json=classes).json() == classes
    assert door.get("/api/0/settings/classes").json() == classes
    assert door.get("/api/0/settings").json()["classes"] == classes
    changed = [*classes[:2], {**classes[2], "rule": {"type": "regex", "regex": "YouTube"}}]
    door.post("/api/0/settings/classes", json=changed)
    assert door.get("/api/0/settings/classes").json() == changed


def test_a_category_tree_not_in_aw_webui_s_shape_is_a_400_and_not_kept(
    door: TestClient,
) -> None:
    answer = door.post("/api/0/settings/classes", json=[{"name": "Work", "rule": {}}])
    assert answer.status_code == 400
    assert "name" in answer.json()["message"]
    assert door.get("/api/0/settings/classes").json() is None
