"""Ingest over HTTP: idempotency, validation, privacy, deletion, auth."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app import __version__
from tests.helpers import Api, make_api, snapshot

T0 = datetime(2003, 3, 12, 1, 0, tzinfo=UTC)  # sentinel: 09:00 in Asia/Shanghai


def rec(i: int, *, start_s: int = 0, length_s: int | None = 60, **extra: Any) -> dict[str, Any]:
    start = T0 + timedelta(seconds=start_s or i * 60)
    out: dict[str, Any] = {
        "client_record_id": f"r{i}",
        "ts_start": start.isoformat(),
        "app": "Code",
        "window_title": f"file{i}.py — proj",
    }
    if length_s is not None:
        out["ts_end"] = (start + timedelta(seconds=length_s)).isoformat()
    out.update(extra)
    return out


def test_replayed_batch_changes_no_table(api: Api, conn: Any) -> None:
    batch = [rec(i) for i in range(50)] + [rec(99, app="1Password", window_title="vault")]
    first = api.ingest("laptop", batch)
    assert first.status_code == 200, first.text
    assert first.json() == {
        "received": 51,
        "new": 51,
        "duplicate": 0,
        "excluded": 0,
        "redacted": 1,
        "clipped_s": 0.0,
    }
    after_first = snapshot(conn)
    assert after_first["records"].startswith("51:")
    for _ in range(3):
        again = api.ingest("laptop", batch)
        assert again.json() == {
            "received": 51,
            "new": 0,
            "duplicate": 51,
            "excluded": 0,
            "redacted": 1,
            "clipped_s": 0.0,
        }
        assert snapshot(conn) == after_first


def test_duplicates_inside_one_batch_count_once(api: Api, conn: Any) -> None:
    reply = api.ingest("laptop", [rec(1), rec(1), rec(2)])
    assert reply.json()["new"] == 2 and reply.json()["duplicate"] == 1
    assert conn.execute("SELECT count(*) AS n FROM records").fetchone()["n"] == 2


def test_same_client_id_on_two_devices_is_two_records(api: Api, conn: Any) -> None:
    assert api.ingest("laptop", [rec(1)]).json()["new"] == 1
    assert api.ingest("desktop", [rec(1)]).json()["new"] == 1


NOW = datetime.now(UTC)
MALFORMED: list[tuple[str, Any, str]] = [
    # (what is wrong, request body, the field the message must name)
    ("end before start", {"device_id": "laptop", "records": [rec(1, length_s=-5)]}, "records[0]"),
    (
        "timestamp without zone",
        {"device_id": "laptop", "records": [{**rec(1), "ts_start": "2003-03-12T09:00:00"}]},
        "records[0].ts_start",
    ),
    (
        "absurd year",
        {
            "device_id": "laptop",
            "records": [{**rec(1), "ts_start": "1970-01-01T00:00:00Z", "ts_end": None}],
        },
        "records[0].ts_start",
    ),
    (
        "far future",
        {
            "device_id": "laptop",
            "records": [
                {**rec(1), "ts_start": (NOW + timedelta(days=400)).isoformat(), "ts_end": None}
            ],
        },
        "records[0].ts_start",
    ),
    (
        "not a timestamp",
        {"device_id": "laptop", "records": [{**rec(1), "ts_start": "yesterday"}]},
        "records[0].ts_start",
    ),
    (
        "record longer than a day",
        {"device_id": "laptop", "records": [rec(1, length_s=90_000)]},
        "records[0]",
    ),
    (
        "oversized title",
        {"device_id": "laptop", "records": [{**rec(1), "window_title": "x" * 5000}]},
        "records[0].window_title",
    ),
    (
        "oversized app",
        {"device_id": "laptop", "records": [{**rec(1), "app": "界" * 300}]},
        "records[0].app",
    ),
    ("unknown device", {"device_id": "toaster", "records": [rec(1)]}, "device_id"),
    ("bad device id", {"device_id": "../etc", "records": [rec(1)]}, "device_id"),
    ("missing device", {"records": [rec(1)]}, "device_id"),
    (
        "idle as a string",
        {"device_id": "laptop", "records": [{**rec(1), "is_idle": "yes"}]},
        "records[0].is_idle",
    ),
    (
        "title as a number",
        {"device_id": "laptop", "records": [{**rec(1), "window_title": 42}]},
        "records[0].window_title",
    ),
    (
        "missing client id",
        {
            "device_id": "laptop",
            "records": [{k: v for k, v in rec(1).items() if k != "client_record_id"}],
        },
        "records[0].client_record_id",
    ),
    (
        "empty client id",
        {"device_id": "laptop", "records": [{**rec(1), "client_record_id": ""}]},
        "records[0].client_record_id",
    ),
    (
        "unknown field",
        {"device_id": "laptop", "records": [{**rec(1), "colour": "red"}]},
        "records[0].colour",
    ),
    ("records not a list", {"device_id": "laptop", "records": {"a": 1}}, "records"),
    ("empty batch", {"device_id": "laptop", "records": []}, "records"),
    (
        "batch too large",
        {"device_id": "laptop", "records": [rec(i) for i in range(5001)]},
        "records",
    ),
    (
        "bad screenshot hash",
        {"device_id": "laptop", "records": [{**rec(1), "screenshot_sha256": "abc"}]},
        "records[0].screenshot_sha256",
    ),
    (
        "lone surrogate",
        {"device_id": "laptop", "records": [{**rec(1), "window_title": "\ud800"}]},
        "records[0].window_title",
    ),
    ("body not an object", [1, 2, 3], "body"),
]


@pytest.mark.parametrize(("case", "body", "field"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_batch_gets_422_naming_the_field(
    api: Api, conn: Any, case: str, body: Any, field: str
) -> None:
    reply = api.post("/api/v1/records", body)
    assert reply.status_code == 422, reply.text
    payload = reply.json()
    assert isinstance(payload["error"], str) and payload["error"]
    assert field in {d["field"] for d in payload["detail"]}, payload
    assert field in payload["error"]
    assert conn.execute("SELECT count(*) AS n FROM records").fetchone()["n"] == 0


def test_invalid_json_is_a_422_not_a_500(api: Api) -> None:
    reply = api.client.post(
        "/api/v1/records",
        content=b"{not json",
        headers={**api.auth, "Content-Type": "application/json"},
    )
    assert reply.status_code == 422
    assert "error" in reply.json()


def test_nul_characters_are_stripped(api: Api, conn: Any) -> None:
    reply = api.ingest("laptop", [{**rec(1), "window_title": "a\x00b"}])
    assert reply.status_code == 200, reply.text
    assert conn.execute("SELECT window_title FROM records").fetchone()["window_title"] == "ab"


def test_every_route_but_healthz_needs_a_token(api: Api) -> None:
    schema = api.client.app.openapi()  # type: ignore[attr-defined]
    routes = [(method.upper(), path) for path, ops in schema["paths"].items() for method in ops]
    routes += [("GET", "/openapi.json"), ("GET", "/docs")]
    assert len(routes) >= 8
    for method, path in routes:
        for headers in ({}, {"Authorization": "Bearer tt_wrong"}, {"Authorization": "Basic abc"}):
            # A name is any text, an id a number (routes that take only ids match no other).
            concrete = re.sub(r"\{(\w+)\}", lambda m: "x" if m[1] == "name" else "1", path)
            reply = api.client.request(method, concrete, headers=headers)
            if path == "/healthz":
                assert reply.status_code == 200
            else:
                assert reply.status_code == 401, (method, path, reply.status_code)
                assert reply.json()["error"]
                assert reply.headers["WWW-Authenticate"] == "Bearer"


def test_healthz_reports_database(api: Api, services: Any) -> None:
    reply = api.client.get("/healthz")
    assert reply.status_code == 200
    assert reply.json()["status"] == "ok"
    assert reply.json()["database"] == "ok"
    services.store.pool.close()  # the database is out of reach
    reply = api.client.get("/healthz")
    assert reply.status_code == 503  # compose's check (urlopen) fails on it
    assert reply.json() == {
        "status": "degraded",
        "database": "unreachable",
        "problems": ["no database"],
        "version": __version__,
    }


def test_docs_need_a_token_and_work_with_one(api: Api) -> None:
    assert api.client.get("/openapi.json").status_code == 401
    schema = api.client.get("/openapi.json", headers=api.auth).json()
    assert "/api/v1/records" in schema["paths"]
    page = api.client.get(f"/docs?token={api.token}")
    assert page.status_code == 200 and "swagger" in page.text.lower()


def test_tokens_of_one_user_do_not_see_another_users_devices(api: Api, services: Any) -> None:
    other = make_api(services, user_name="other", devices=("tablet",))
    reply = other.ingest("laptop", [rec(1)])
    assert reply.status_code == 422
    assert reply.json()["detail"][0]["field"] == "device_id"


def test_device_registration_is_idempotent(api: Api) -> None:
    body = {"device_id": "work-pc", "name": "公司电脑", "kind": "desktop"}
    first = api.post("/api/v1/devices", body)
    assert first.status_code == 201 and first.json()["name"] == "公司电脑"
    assert api.post("/api/v1/devices", body).status_code == 200
    listed = api.client.get("/api/v1/devices", headers=api.auth).json()
    assert [d["device_id"] for d in listed].count("work-pc") == 1
    bad = api.post("/api/v1/devices", {"device_id": "x", "kind": "fridge"})
    assert bad.status_code == 422 and bad.json()["detail"][0]["field"] == "kind"


def test_privacy_rules_redact_and_drop(services: Any, conn: Any, tmp_path: Any) -> None:
    from app.rules.categories import load_rules

    rules_file = tmp_path / "rules.toml"
    rules_file.write_text(
        '[[exclude]]\nname = "bank"\naction = "drop"\ndomain = "(^|\\\\.)bank\\\\.example$"\n',
        encoding="utf-8",
    )
    api = make_api(dataclasses.replace(services, rules=load_rules(user_file=rules_file)))
    reply = api.ingest(
        "laptop",
        [
            rec(
                1, app="Google Chrome", window_title="Balance", url="https://www.bank.example/acct"
            ),
            rec(
                2, app="Google Chrome", window_title="Cats (Incognito)", url="https://youtube.com/x"
            ),
            rec(
                3,
                app="Google Chrome",
                window_title="Videos",
                url="https://youtube.com/y",
                incognito=True,
                screenshot_ref="shots/3.png",
            ),
            rec(4, app="Google Chrome", window_title="Videos", url="https://youtube.com/y"),
        ],
    )
    assert reply.json() == {
        "received": 4,
        "new": 3,
        "duplicate": 0,
        "excluded": 1,
        "redacted": 2,
        "clipped_s": 0.0,
    }
    rows = conn.execute(
        "SELECT client_record_id, window_title, url, domain, screenshot_ref, redacted, category "
        "FROM records ORDER BY client_record_id"
    ).fetchall()
    assert [r["client_record_id"] for r in rows] == ["r2", "r3", "r4"]
    for hidden in rows[:2]:
        assert (
            hidden["window_title"],
            hidden["url"],
            hidden["domain"],
            hidden["screenshot_ref"],
        ) == ("", None, None, None)
        assert hidden["redacted"] and hidden["category"] == "uncategorized"
    assert rows[2]["category"] == "entertainment" and not rows[2]["redacted"]


def test_delete_by_ids_erases_text_and_is_not_undone_by_replay(api: Api, conn: Any) -> None:
    api.ingest("laptop", [rec(i) for i in range(5)])
    ids = [
        r["record_id"]
        for r in conn.execute(
            "SELECT record_id FROM records WHERE client_record_id IN ('r1', 'r2')"
        )
    ]
    conn.execute(
        "INSERT INTO record_analyses (user_id, record_id, description) "
        "SELECT user_id, record_id, 'secret text on screen' FROM records"
    )
    reply = api.client.request(
        "DELETE", "/api/v1/records", json={"record_ids": ids}, headers=api.auth
    )
    assert reply.json() == {"deleted": 2}
    gone = conn.execute(
        "SELECT window_title, url, deleted_at FROM records WHERE record_id = ANY(%s)", [ids]
    ).fetchall()
    assert all(g["window_title"] == "" and g["url"] is None and g["deleted_at"] for g in gone)
    assert conn.execute("SELECT count(*) AS n FROM record_analyses").fetchone()["n"] == 3
    # Replaying the original batch does not bring the deleted records back.
    assert api.ingest("laptop", [rec(i) for i in range(5)]).json()["new"] == 0
    seconds = conn.execute("SELECT sum(duration_s) AS s FROM v_record_durations").fetchone()["s"]
    assert seconds == 3 * 60


def test_delete_by_time_range_and_device(api: Api, conn: Any) -> None:
    api.ingest("laptop", [rec(i) for i in range(10)])
    api.ingest("desktop", [rec(i) for i in range(10)])
    body = {
        "device_id": "laptop",
        "ts_from": (T0 + timedelta(minutes=2)).isoformat(),
        "ts_to": (T0 + timedelta(minutes=5)).isoformat(),
    }
    reply = api.client.request("DELETE", "/api/v1/records", json=body, headers=api.auth)
    assert reply.json() == {"deleted": 3}  # minutes 2, 3, 4 of the laptop only
    # Deleting again finds nothing new.
    again = api.client.request("DELETE", "/api/v1/records", json=body, headers=api.auth)
    assert again.json() == {"deleted": 0}


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"ts_from": "2003-03-12T00:00:00Z"},
        {"record_ids": []},
        {"record_ids": [1], "ts_from": "2003-03-12T00:00:00Z", "ts_to": "2003-03-13T00:00:00Z"},
        {"ts_from": "2003-03-13T00:00:00Z", "ts_to": "2003-03-12T00:00:00Z"},
    ],
)
def test_delete_needs_one_clear_selector(api: Api, body: dict[str, Any]) -> None:
    reply = api.client.request("DELETE", "/api/v1/records", json=body, headers=api.auth)
    assert reply.status_code == 422 and reply.json()["error"]
