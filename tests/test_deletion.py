"""Deletion is immediate in every layer: once DELETE answers — with no worker running —
no HTTP answer and no tool result holds the deleted text, and once the layers are
rebuilt no table does. Tombstones keep ids, device and span only."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.enrich.catchup import enrich
from app.importers.writer import ImportedRecord
from app.ingest.records import delete_records, store_records
from app.pyramid.build import backfill
from app.runtime.services import Services
from tests.fake_openai import FakeOpenAI
from tests.helpers import Api, make_api, with_models

NOW = datetime(2026, 11, 30, tzinfo=UTC)
MARKER = "ZqxjMarker7781"  # in an app name, window titles, a URL and a label note
SHANGHAI_9AM = datetime(2003, 3, 12, 1, tzinfo=UTC)
REPORTS = [("day", "2003-03-12"), ("week", "2003-W11"), ("month", "2003-03")]


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(dim=384) as server:
        yield server


def minutes(start: datetime, count: int, prefix: str, **fields: Any) -> list[dict[str, Any]]:
    return [
        {
            "client_record_id": f"{prefix}{i}",
            "ts_start": (start + timedelta(minutes=i)).isoformat(),
            "ts_end": (start + timedelta(minutes=i + 1)).isoformat(),
            **fields,
        }
        for i in range(count)
    ]


def build_everything(services: Services) -> None:
    backfill(services.store, now=NOW, settings=services.settings)
    enrich(services.store, services.models, settings=services.settings, now=NOW)


def every_table(conn: Any) -> str:
    tables = [
        r["relname"]
        for r in conn.execute(
            "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind = 'r'"
        )
    ]
    return " ".join(str(row) for t in tables for row in conn.execute(f'SELECT * FROM "{t}"'))


def every_answer(api: Api) -> str:
    """What a client can read: every tool over a day, its week and month, and the rest."""
    day = {"period": "custom", "date_from": "2003-03-12", "date_to": "2003-03-12"}
    month = {"period": "custom", "date_from": "2003-03-01", "date_to": "2003-03-31"}
    calls: list[tuple[str, dict[str, Any]]] = [("get_now", {})]
    for metric in ("seconds_by_category", "seconds_by_app", "top_titles", "signal_counts"):
        calls += [
            ("query_stats", {**day, "metric": metric}),
            ("query_stats", {**month, "metric": metric}),
        ]
    calls += [("get_digest", {"grain": g, "date": "2003-03-12"}) for g in ("day", "week", "month")]
    calls += [("get_episodes", day), ("get_signals", month)]
    calls += [("search_episodes", {"query": q}) for q in (MARKER, "计划书 secret plan")]
    window = {"ts_from": "2003-03-12T09:30:00+08:00", "ts_to": "2003-03-12T11:30:00+08:00"}
    calls += [("get_raw", window), ("query_stats", {**day, "metric": "uncategorized"})]
    secret = {"ts_from": "2003-03-12T10:00:00+08:00", "ts_to": "2003-03-12T10:40:00+08:00"}
    calls += [("deep_scan", {**secret, "question": "what was I planning?"})]
    answers = []
    for name, arguments in calls:
        reply = api.post(f"/api/v1/tools/{name}", arguments)
        assert reply.status_code == 200, (name, reply.text)
        answers.append(reply.text)
    reports = [f"/api/v1/reports/{g}/{k}" for g, k in REPORTS]
    for path in ("/api/v1/me", "/api/v1/devices", "/api/v1/tools", "/healthz", *reports):
        reply = api.client.get(path, headers=api.auth)
        assert reply.status_code == 200, (path, reply.text)
        answers.append(reply.text)
    # The pages, signed in as a browser is.
    signin = api.client.post("/signin", data={"token": api.token}, follow_redirects=False)
    assert signin.status_code == 303, signin.text
    # (a search page repeats its query: it asks for words of the title beside the marker)
    pages = [f"/{g}/{k}" for g, k in REPORTS] + ["/search?q=secret+plan", "/privacy"]
    for path in pages:
        reply = api.client.get(path)
        assert reply.status_code == 200, (path, reply.text)
        answers.append(reply.text)
    return "\n".join(answers)


@pytest.mark.slow
def test_deleted_text_leaves_every_answer_at_once_and_every_table_after_the_rebuild(
    services: Services, fake: FakeOpenAI, conn: Any
) -> None:
    services, _ = with_models(services, fake)
    api = make_api(services, devices=("laptop",))
    secret = minutes(
        SHANGHAI_9AM + timedelta(hours=1),
        40,
        "s",
        app=f"{MARKER} Notes",
        window_title=f"{MARKER} 计划书 — secret plan",
        url=f"https://{MARKER.lower()}.example/plan",
        capture_reason="focus",
    )
    batch = (
        minutes(SHANGHAI_9AM, 60, "a", app="Code", window_title="main.py — timetrace")
        + secret
        + minutes(SHANGHAI_9AM + timedelta(minutes=100), 50, "b", app="Code", window_title="api.py")
        + [
            {
                "client_record_id": "lock",
                "ts_start": "2003-03-12T11:30:00+08:00",
                "ts_end": "2003-03-12T12:30:00+08:00",
                "app": "loginwindow",
                "is_idle": True,
            }
        ]
    )
    assert api.ingest("laptop", batch).json()["new"] == 151
    build_everything(services)
    secret_id = conn.execute("SELECT record_id FROM records WHERE client_record_id = 's3'")
    label = api.post(
        "/api/v1/tools/apply_label",
        {
            "target": "record",
            "id": secret_id.fetchone()["record_id"],
            "category": "work",
            "note": f"{MARKER} is work",
        },
    )
    assert label.status_code == 200, label.text
    build_everything(services)
    # Before: the marker is everywhere a client can look (so the checks below can fail).
    assert MARKER in every_answer(api)
    assert every_table(conn).count(MARKER) > 40
    assert fake.calls["episode_summary"] and fake.calls["digest_narrative"]

    deleted = api.client.request(
        "DELETE",
        "/api/v1/records",
        json={"ts_from": "2003-03-12T10:00:00+08:00", "ts_to": "2003-03-12T10:40:00+08:00"},
        headers=api.auth,
    )
    assert deleted.json() == {"deleted": 40}
    assert [r["note"] for r in conn.execute("SELECT note FROM labels")] == [""]
    answers = every_answer(api)  # no worker has run
    assert MARKER not in answers and MARKER.lower() not in answers
    assert "计划书" not in answers
    # The numbers still add up without the deleted minutes (live, through the open tail).
    stats = api.post(
        "/api/v1/tools/query_stats",
        {"period": "custom", "date_from": "2003-03-12", "date_to": "2003-03-12"},
    ).json()
    assert stats["total_seconds"] == (60 + 50) * 60 + 3600
    assert (
        api.post("/api/v1/tools/get_digest", {"grain": "week", "date": "2003-03-12"}).json()[
            "available"
        ]
        is False
    )

    build_everything(services)
    tables = every_table(conn)
    assert MARKER not in tables and MARKER.lower() not in tables and "计划书" not in tables
    tombstone = conn.execute(
        "SELECT client_record_id, app, window_title, url, domain, capture_reason, "
        "device_id, ts_start, ts_end FROM records WHERE deleted_at IS NOT NULL ORDER BY ts_start"
    ).fetchall()
    assert len(tombstone) == 40
    assert tombstone[0]["client_record_id"].startswith("deleted:")
    assert {
        (t["app"], t["window_title"], t["url"], t["domain"], t["capture_reason"]) for t in tombstone
    } == {("", "", None, None, None)}
    assert tombstone[0]["device_id"] == "laptop"
    assert tombstone[0]["ts_start"] == SHANGHAI_9AM + timedelta(hours=1)
    # A replay of the deleted records brings nothing back.
    again = api.ingest("laptop", secret).json()
    assert again["new"] == 0 and again["duplicate"] == 40
    assert MARKER not in every_table(conn)


def test_importing_a_deleted_record_again_does_not_bring_it_back(
    services: Services, conn: Any
) -> None:
    api = make_api(services, devices=("laptop",))
    imported = [
        ImportedRecord(
            client_record_id=f"aw:{i}",
            ts_start=SHANGHAI_9AM + timedelta(minutes=i),
            ts_end=SHANGHAI_9AM + timedelta(minutes=i + 1),
            app="Notes",
            window_title=f"{MARKER} plan",
            description=f"{MARKER} on screen",
        )
        for i in range(3)
    ]

    def load() -> int:
        return store_records(
            services.store,
            user=api.user,
            device_id="laptop",
            records=imported,
            rules=services.rules,
            source="activitywatch",
        ).new

    assert load() == 3
    assert MARKER in every_table(conn)
    hour = (SHANGHAI_9AM, SHANGHAI_9AM + timedelta(hours=1))
    assert delete_records(services.store, user=api.user, ts_from=hour[0], ts_to=hour[1]) == 3
    assert load() == 0
    assert MARKER not in every_table(conn)
