"""A careless client at every door: each bad input ends in a 4xx naming the field, a
one-line CLI error, or a correct answer; never a 5xx, a traceback, or an argument
silently ignored."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.api.limits import MAX_JSON_DEPTH
from app.cli import main
from app.tools import REGISTRY
from tests.helpers import Api

T0 = datetime(2003, 3, 12, 1, 0, tzinfo=UTC)  # sentinel: 09:00 in Asia/Shanghai


def _records(n: int, *, device_minutes: int = 0) -> list[dict[str, Any]]:
    return [
        {
            "client_record_id": f"e{i}",
            "ts_start": (T0 + timedelta(minutes=device_minutes + i)).isoformat(),
            "ts_end": (T0 + timedelta(minutes=device_minutes + i + 1)).isoformat(),
            "app": "Code",
            "window_title": f"edge{i}.py",
        }
        for i in range(n)
    ]


def _fields(reply: Any) -> set[str]:
    return {d["field"] for d in reply.json()["detail"]}


def _count(conn: Any, table: str) -> int:
    return int(conn.execute(f"SELECT count(*) AS n FROM {table}").fetchone()["n"])


# -- records and devices ------------------------------------------------------------


def test_record_ids_outside_bigint_are_a_422_naming_the_id(api: Api) -> None:
    for record_id in (2**63, 2**70, -1, 0):
        reply = api.client.request(
            "DELETE", "/api/v1/records", json={"record_ids": [5, record_id]}, headers=api.auth
        )
        assert reply.status_code == 422, (record_id, reply.text)
        assert _fields(reply) == {"record_ids[1]"}
    # The largest bigint is a valid id that names no record.
    reply = api.client.request(
        "DELETE", "/api/v1/records", json={"record_ids": [2**63 - 1]}, headers=api.auth
    )
    assert reply.status_code == 200 and reply.json() == {"deleted": 0}


def test_deleting_a_range_of_an_unknown_device_is_an_error_not_zero(api: Api, conn: Any) -> None:
    assert api.ingest("laptop", _records(3)).json()["new"] == 3
    body = {
        "device_id": "lapotp",
        "ts_from": T0.isoformat(),
        "ts_to": (T0 + timedelta(hours=1)).isoformat(),
    }
    reply = api.client.request("DELETE", "/api/v1/records", json=body, headers=api.auth)
    assert reply.status_code == 422
    assert _fields(reply) == {"device_id"} and "lapotp" in reply.json()["error"]
    assert (
        conn.execute("SELECT count(*) AS n FROM records WHERE deleted_at IS NULL").fetchone()["n"]
        == 3
    )
    # The same range of the real device deletes its records.
    body["device_id"] = "laptop"
    ok = api.client.request("DELETE", "/api/v1/records", json=body, headers=api.auth)
    assert ok.json() == {"deleted": 3}


def test_a_nul_in_a_device_name_is_a_422_naming_the_name(api: Api, conn: Any) -> None:
    reply = api.post("/api/v1/devices", {"device_id": "pad", "name": "my\x00pad"})
    assert reply.status_code == 422 and _fields(reply) == {"name"}
    assert "NUL" in reply.json()["error"]
    assert (
        conn.execute("SELECT count(*) AS n FROM devices WHERE device_id = 'pad'").fetchone()["n"]
        == 0
    )


def test_a_nul_in_a_client_record_id_is_refused_not_stripped_into_another_key(
    api: Api, conn: Any
) -> None:
    assert api.ingest("laptop", _records(1)).json()["new"] == 1  # client id "e0"
    clash = {**_records(1)[0], "client_record_id": "e\x000", "window_title": "other"}
    reply = api.ingest("laptop", [clash])
    assert reply.status_code == 422 and _fields(reply) == {"records[0].client_record_id"}
    titles = [r["window_title"] for r in conn.execute("SELECT window_title FROM records")]
    assert titles == ["edge0.py"]


# -- bounded JSON ---------------------------------------------------------------------


def test_json_nested_100k_deep_is_a_422_naming_the_body(api: Api) -> None:
    deep = b'{"period": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    for path in ("/api/v1/tools/query_stats", "/api/v1/records", "/api/v1/devices"):
        reply = api.client.post(
            path, content=deep, headers={**api.auth, "Content-Type": "application/json"}
        )
        assert reply.status_code == 422, (path, reply.text)
        assert _fields(reply) == {"body"}
        assert f"deeper than {MAX_JSON_DEPTH}" in reply.json()["error"]


def test_brackets_inside_strings_do_not_count_as_depth(api: Api) -> None:
    title = "[" * 200 + '\\"{' * 50
    reply = api.ingest("laptop", [{**_records(1)[0], "window_title": title}])
    assert reply.status_code == 200 and reply.json()["new"] == 1


# -- tool arguments ---------------------------------------------------------------------


def _tool(api: Api, name: str, body: Any) -> Any:
    return api.post(f"/api/v1/tools/{name}", body)


MISSPELT = [
    ("query_stats", {"perod": "this_month"}, "perod", "period"),
    ("query_stats", {"metric": "seconds_by_category", "catgory": "work"}, "catgory", "category"),
    ("get_episodes", {"period": "yesterday", "limt": 5}, "limt", "limit"),
]


def test_a_misspelt_argument_is_refused_with_the_name_it_meant(api: Api) -> None:
    for name, body, typo, meant in MISSPELT:
        reply = _tool(api, name, body)
        assert reply.status_code == 422
        assert f"{typo}: unknown argument (did you mean '{meant}'?)" in reply.json()["error"]


def test_every_tool_forbids_unknown_arguments() -> None:
    for spec in REGISTRY.values():
        assert spec.input_schema()["additionalProperties"] is False, spec.name


def test_dates_without_period_are_a_custom_period(api: Api) -> None:
    api.ingest("laptop", _records(30))
    dates = {"date_from": "2003-03-12", "date_to": "2003-03-12"}
    implied = _tool(api, "query_stats", dates)
    explicit = _tool(api, "query_stats", {"period": "custom", **dates})
    assert implied.status_code == 200
    assert implied.json()["from"] == "2003-03-12" and implied.json()["to"] == "2003-03-12"
    assert implied.json()["total_seconds"] == explicit.json()["total_seconds"] == 30 * 60


def test_dates_with_another_period_are_refused_not_ignored(api: Api) -> None:
    for name in ("query_stats", "get_episodes", "get_signals"):
        reply = _tool(api, name, {"period": "this_month", "date_from": "2003-03-12"})
        assert reply.status_code == 422
        assert "date_from/date_to go with period 'custom'" in reply.json()["error"]


FAR_DATES = [
    ("query_stats", {"date_from": "0001-01-01", "date_to": "0001-01-02"}, "date_from"),
    ("query_stats", {"date_from": "9999-12-30", "date_to": "9999-12-31"}, "date_from"),
    (
        "get_episodes",
        {"period": "custom", "date_from": "2003-03-12", "date_to": "9999-12-31"},
        "date_to",
    ),
    ("search_episodes", {"query": "x", "date_from": "0001-01-01"}, "date_from"),
    ("get_digest", {"grain": "day", "date": "9999-12-31"}, "date"),
    ("get_digest", {"grain": "week", "date": "0001-01-01"}, "date"),
    ("get_digest", {"grain": "month", "date": "9999-12"}, "date"),
    ("get_digest", {"grain": "day", "date": "2026-W23"}, "date"),
]


def test_dates_near_year_1_or_9999_are_a_422_naming_the_field(api: Api) -> None:
    for name, body, field in FAR_DATES:
        reply = _tool(api, name, body)
        assert reply.status_code == 422, (name, body, reply.text)
        assert f"{field}:" in reply.json()["error"]
        assert "failed inside TimeTrace" not in reply.json()["error"]


def test_the_edges_of_the_allowed_days_answer_zero(api: Api) -> None:
    for dates in (("1970-01-01", "1970-01-03"), ("2999-12-29", "2999-12-31")):
        reply = _tool(api, "query_stats", {"date_from": dates[0], "date_to": dates[1]})
        assert reply.status_code == 200 and reply.json()["total_seconds"] == 0
    month = _tool(api, "get_digest", {"grain": "month", "date": "2999-12"})
    assert month.status_code == 200 and month.json()["available"] is False


UNSTORABLE = [
    ("search_episodes", {"query": "a\x00b"}, "query"),
    ("apply_label", {"target": "record", "id": 1, "category": "work", "note": "\x00"}, "note"),
    ("apply_label", {"target": "record", "id": 2**63, "category": "work"}, "id"),
    (
        "get_raw",
        {
            "ts_from": "2003-03-12T09:00:00Z",
            "ts_to": "2003-03-12T10:00:00Z",
            "device_id": "a\x00",
        },
        "device_id",
    ),
]


def test_tool_arguments_the_database_cannot_hold_are_a_422_naming_them(api: Api) -> None:
    for name, body, field in UNSTORABLE:
        reply = _tool(api, name, body)
        assert reply.status_code == 422, (name, reply.text)
        assert f"{field}:" in reply.json()["error"]


def test_a_tool_body_must_be_an_object(api: Api) -> None:
    for body in (b"null", b"[1]", b'"x"', b"3"):
        reply = api.client.post("/api/v1/tools/get_now", content=body, headers=api.auth)
        assert reply.status_code == 422 and "JSON object" in reply.json()["error"]


# -- the CLI ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    ["not a url", "postgresql://me@/db?colour=blue", "http//host/db"],
)
def test_a_malformed_database_url_is_a_one_line_error(tmp_path: Path, url: str) -> None:
    result = CliRunner().invoke(
        main,
        ["migrate"],
        env={"TIMETRACE_DATABASE_URL": url, "TIMETRACE_DATA_DIR": str(tmp_path)},
    )
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "Error: TIMETRACE_DATABASE_URL is not a PostgreSQL URL"
    ), result.output


def test_a_deep_json_value_on_the_tool_command_line_is_text_not_a_crash(
    db_url: str, tmp_path: Path
) -> None:
    runner = CliRunner()
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path)}
    runner.invoke(main, ["token", "create", "--user", "me"], env=env)
    deep = "[" * 100_000 + "]" * 100_000
    result = runner.invoke(main, ["tool", "query_stats", "--period", deep], env=env)
    assert result.exit_code == 1
    assert "invalid arguments for query_stats: period" in result.output
    assert json.loads(result.output)["error"]
