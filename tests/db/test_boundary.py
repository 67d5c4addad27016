"""One input boundary: NUL, days at the ends of the calendar, oversize and wrong-type
inputs get a 4xx at every door — routes, web pages and forms, tool calls, the
OpenAI-compatible door, gzip bodies, import files — never a 5xx; an import that fails
for any reason ends `failed` with its reason and leaves no upload behind."""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import zlib
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from app.api.limits import MAX_BODY_BYTES
from app.api.server import serve_in_thread
from app.boundary import HISTORY_MAX, QUESTION_MAX
from app.importers import uploads
from app.importers.uploads import run_upload, upload_path
from app.runtime.services import Services
from tests.helpers import Api

FAR_DAYS = ["9999-12-31", "0001-01-01", "3000-01-01", "1969-12-31"]
FAR_WEEKS = ["9999-W52", "0001-W01", "3000-W01"]
FAR_MONTHS = ["9999-12", "0001-01"]
RECORD = {
    "client_record_id": "r1",
    "ts_start": "2003-03-12T10:00:00+08:00",
    "ts_end": "2003-03-12T10:01:00+08:00",
    "app": "Code",
    "window_title": "main.py",
}


@pytest.fixture
def signed_in(api: Api) -> Api:
    reply = api.client.post("/signin", data={"token": api.token}, follow_redirects=False)
    assert reply.status_code == 303
    return api


def _fields(reply: Any) -> set[str]:
    return {d["field"] for d in reply.json().get("detail", [])}


def _param(reply: Any) -> str:
    """The field the OpenAI door's error names (OpenAI's shape: `error.param`)."""
    param: str = reply.json()["error"]["param"]
    return param


def test_days_weeks_and_months_past_the_calendar_are_4xx_on_pages_reports_and_tools(
    signed_in: Api,
) -> None:
    api = signed_in
    paths = [f"/day/{d}" for d in FAR_DAYS] + [f"/report/day/{d}" for d in FAR_DAYS]
    paths += [f"/week/{w}" for w in FAR_WEEKS] + [f"/report/week/{w}" for w in FAR_WEEKS]
    paths += [f"/month/{m}" for m in FAR_MONTHS] + [f"/report/month/{m}" for m in FAR_MONTHS]
    for path in paths:
        reply = api.client.get(path)
        assert 400 <= reply.status_code < 500, (path, reply.status_code)
        api_path = "/api/v1/reports/" + path.removeprefix("/report/").removeprefix("/")
        reply = api.client.get(api_path, headers=api.auth)
        assert 400 <= reply.status_code < 500, (api_path, reply.status_code)
    for day in FAR_DAYS:
        for grain in ("day", "week", "month"):
            reply = api.post("/api/v1/tools/get_digest", {"grain": grain, "date": day})
            assert reply.status_code == 422, (grain, day, reply.text)
        custom = {"period": "custom", "date_from": day, "date_to": day}
        assert api.post("/api/v1/tools/query_stats", custom).status_code == 422
        raw = {"ts_from": f"{day}T00:00:00+00:00", "ts_to": f"{day}T01:00:00+00:00"}
        assert api.post("/api/v1/tools/get_raw", raw).status_code == 422, day
        erase = {"ts_from": f"{day}T00:00:00+00:00", "ts_to": f"{day}T01:00:00+00:00"}
        reply = api.client.request("DELETE", "/api/v1/records", json=erase, headers=api.auth)
        assert reply.status_code == 422, (day, reply.text)
        preview = api.client.get(f"/privacy/delete?from={day}T00:00&to={day}T01:00")
        assert preview.status_code == 422, day


def test_a_nul_is_refused_in_identifiers_and_questions_and_dropped_in_captured_text(
    signed_in: Api, conn: Any
) -> None:
    api = signed_in
    chat = api.client.post("/api/v1/agent/chat", json={"question": "a\x00b"}, headers=api.auth)
    assert chat.status_code == 422 and _fields(chat) == {"question"}, chat.text
    door = {"model": "timetrace", "messages": [{"role": "user", "content": "hours\x00?"}]}
    reply = api.client.post("/v1/chat/completions", json=door, headers=api.auth)
    assert reply.status_code == 422 and "messages[0]" in reply.json()["error"]["message"]
    key = api.ingest("laptop", [{**RECORD, "client_record_id": "r\x001"}])
    assert key.status_code == 422 and _fields(key) == {"records[0].client_record_id"}
    device = {"record_ids": None, "device_id": "lap\x00top", "ts_from": RECORD["ts_start"]}
    device["ts_to"] = RECORD["ts_end"]
    device.pop("record_ids")
    reply = api.client.request("DELETE", "/api/v1/records", json=device, headers=api.auth)
    assert reply.status_code == 422 and _fields(reply) == {"device_id"}
    # The privacy page's device, in its preview and its form.
    preview = api.client.get(
        "/privacy/delete?from=2003-03-12T09:00&to=2003-03-12T11:00&device=a%00"
    )
    assert preview.status_code == 422
    csrf = conn.execute("SELECT csrf_token FROM web_sessions").fetchone()["csrf_token"]
    form = {"csrf": csrf, "from": "2003-03-12T09:00", "to": "2003-03-12T11:00", "device": "a\x00"}
    assert api.client.post("/privacy/delete", data=form).status_code == 422
    for path in ("/search?q=a%00b", "/ask?conversation=1%00", "/episodes/1%00", "/day/2003%00"):
        reply = api.client.get(path)
        assert 400 <= reply.status_code < 500, (path, reply.status_code)
    tool = api.post("/api/v1/tools/deep_scan", {**_window(), "question": "x", "device_id": "a\x00"})
    assert tool.status_code == 422, tool.text
    # Captured text keeps what it can: the NUL goes, the title stays.
    stored = api.ingest("laptop", [{**RECORD, "window_title": "ma\x00in.py", "app": "Co\x00de"}])
    assert stored.status_code == 200 and stored.json()["new"] == 1, stored.text
    row = conn.execute("SELECT app_raw, window_title FROM records").fetchone()
    assert (row["app_raw"], row["window_title"]) == ("Code", "main.py")


def _window() -> dict[str, str]:
    return {"ts_from": "2003-03-12T09:00:00+08:00", "ts_to": "2003-03-12T10:00:00+08:00"}


def test_oversize_questions_and_histories_are_a_422(api: Api) -> None:
    long = "时" * (QUESTION_MAX + 1)
    chat = api.client.post("/api/v1/agent/chat", json={"question": long}, headers=api.auth)
    assert chat.status_code == 422 and _fields(chat) == {"question"}
    door = {"model": "timetrace", "messages": [{"role": "user", "content": "x" * 100_000}]}
    reply = api.client.post("/v1/chat/completions", json=door, headers=api.auth)
    assert reply.status_code == 422 and _param(reply) == "messages[0].content", reply.text
    door["messages"] = [{"role": "user", "content": long}]
    reply = api.client.post("/v1/chat/completions", json=door, headers=api.auth)
    assert reply.status_code == 422 and "at most" in reply.json()["error"]["message"]
    pairs = [{"role": r, "content": "hi"} for _ in range(5_000) for r in ("user", "assistant")]
    door["messages"] = [*pairs, {"role": "user", "content": "hours?"}]
    reply = api.client.post("/v1/chat/completions", json=door, headers=api.auth)
    assert reply.status_code == 422 and _param(reply) == "messages", reply.text[:300]
    door["messages"] = door["messages"][-HISTORY_MAX:]
    reply = api.client.post("/v1/chat/completions", json=door, headers=api.auth)
    assert reply.status_code == 200, reply.text[:300]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**RECORD, "ts_start": 1_047_434_400}, "records[0].ts_start"),
        ({**RECORD, "ts_start": "1047434400"}, "records[0].ts_start"),
        ({**RECORD, "ts_end": 1_047_434_460.5}, "records[0].ts_end"),
        ({**RECORD, "client_record_id": "   "}, "records[0].client_record_id"),
        ({**RECORD, "client_record_id": "\t\n"}, "records[0].client_record_id"),
        ({**RECORD, "is_idle": "yes"}, "records[0].is_idle"),
        ({**RECORD, "window_title": ["a"]}, "records[0].window_title"),
    ],
)
def test_wrong_types_in_a_record_are_a_422_naming_the_field(
    api: Api, body: dict[str, Any], field: str
) -> None:
    reply = api.ingest("laptop", [body])
    assert reply.status_code == 422, reply.text
    assert _fields(reply) == {field}, reply.text


def test_wrong_types_in_deletes_and_tools_are_a_422_naming_the_field(api: Api) -> None:
    for ids, field in (
        ([True], "record_ids[0]"),
        ([1, False], "record_ids[1]"),
        (["1"], "record_ids[0]"),
    ):
        body = {"record_ids": ids}
        reply = api.client.request("DELETE", "/api/v1/records", json=body, headers=api.auth)
        assert reply.status_code == 422 and _fields(reply) == {field}, reply.text
    epoch = {"ts_from": 1_047_434_400, "ts_to": "2003-03-12T10:00:00+08:00"}
    reply = api.client.request("DELETE", "/api/v1/records", json=epoch, headers=api.auth)
    assert reply.status_code == 422 and _fields(reply) == {"ts_from"}, reply.text
    backwards = {"query": "plan", "date_from": "2003-03-12", "date_to": "2003-03-01"}
    reply = api.post("/api/v1/tools/search_episodes", backwards)
    assert reply.status_code == 422 and "date_to is before date_from" in reply.text
    reply = api.post("/api/v1/tools/get_raw", {**_window(), "ts_from": 1_047_434_400})
    assert reply.status_code == 422 and "ts_from" in reply.text
    label = {"target": "record", "id": True, "category": "work"}
    reply = api.post("/api/v1/tools/apply_label", label)
    assert reply.status_code == 422 and "id" in reply.text
    reply = api.client.post(
        "/api/v1/agent/chat", json={"question": "hi", "conversation_id": 2**70}, headers=api.auth
    )
    assert reply.status_code == 422 and _fields(reply) == {"conversation_id"}
    too_big = api.client.get(f"/api/v1/agent/conversations/{2**70}", headers=api.auth)
    assert too_big.status_code == 422


def test_gzip_bodies_are_decoded_within_the_limit_and_other_encodings_refused(
    api: Api, conn: Any
) -> None:
    headers = {**api.auth, "Content-Type": "application/json"}
    batch = json.dumps({"device_id": "laptop", "records": [RECORD]}).encode()
    zipped = {**headers, "Content-Encoding": "gzip"}
    reply = api.client.post("/api/v1/records", content=gzip.compress(batch), headers=zipped)
    assert reply.status_code == 200 and reply.json()["new"] == 1, reply.text
    # A bomb: 30 MiB of spaces inflates past the limit from ~30 KiB sent.
    bomb = gzip.compress(b"{" + b" " * (MAX_BODY_BYTES + 10 * 1024**2) + b"}")
    assert len(bomb) < MAX_BODY_BYTES // 100
    reply = api.client.post("/api/v1/records", content=bomb, headers=zipped)
    assert reply.status_code == 413, reply.text
    reply = api.client.post("/api/v1/records", content=b"not gzip", headers=zipped)
    assert reply.status_code == 400
    deflated = {**headers, "Content-Encoding": "deflate"}
    reply = api.client.post("/api/v1/records", content=zlib.compress(batch), headers=deflated)
    assert reply.status_code == 415 and "deflate" in reply.json()["error"]
    upload = {**api.auth, "Content-Encoding": "gzip"}
    files = {"file": ("aw.json", gzip.compress(b'{"buckets": {}}'), "application/json")}
    reply = api.client.post("/api/v1/import/activitywatch", files=files, headers=upload)
    assert reply.status_code == 415
    assert conn.execute("SELECT count(*) AS n FROM records").fetchone()["n"] == 1


def _export(hostname: str) -> dict[str, Any]:
    window = {"app": "Code.exe", "title": "main.py"}
    return {
        "buckets": {
            f"aw-watcher-window_{hostname}": {
                "id": f"aw-watcher-window_{hostname}",
                "type": "currentwindow",
                "client": "aw-watcher-window",
                "hostname": hostname,
                "events": [
                    {"timestamp": "2026-03-10T01:00:00+00:00", "duration": 60, "data": window}
                ],
            }
        }
    }


def test_an_import_that_fails_for_any_reason_ends_failed_and_leaves_no_upload(
    services: Services, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    user = services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)

    def start(export: dict[str, Any]) -> tuple[int, Path]:
        import_id = services.store.create_import(user_id=user.user_id, source="activitywatch")
        path = upload_path(services.settings.data_dir, user_id=user.user_id, import_id=import_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(export), encoding="utf-8")
        return import_id, path

    # A NUL in a hostname (a device's name) is captured text: dropped, the import done.
    import_id, path = start(_export("lap\x00top"))
    done = run_upload(
        services.store,
        user=user,
        import_id=import_id,
        path=path,
        rules=services.rules,
        settings=services.settings,
    )
    assert (done.status, done.new) == ("done", 1) and not path.exists()
    names = [d.name for d in services.store.list_devices(user_id=user.user_id)]
    assert names == ["laptop"]

    # Whatever else goes wrong inside: failed at once with a reason, no retry, no file.
    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("a bug no check foresaw")

    monkeypatch.setattr(uploads, "import_activitywatch_file", broken)
    import_id, path = start(_export("desk"))
    with caplog.at_level(logging.WARNING, logger="timetrace.imports"):
        failed = run_upload(
            services.store,
            user=user,
            import_id=import_id,
            path=path,
            rules=services.rules,
            settings=services.settings,
        )
    assert failed.status == "failed" and "RuntimeError" in (failed.error or "")
    assert not path.exists()
    stored = services.store.get_import(user_id=user.user_id, import_id=import_id)
    assert stored is not None and stored.status == "failed" and stored.error == failed.error
    assert all(r.exc_info is None for r in caplog.records)  # one line, no traceback


def test_mcp_calls_pass_the_same_boundary_as_tool_errors(api: Api, services: Services) -> None:
    """MCP has no HTTP status per tool call: the same refusals come back as error
    results naming the argument, and the session keeps answering."""
    calls: list[tuple[str, dict[str, Any], str]] = [
        ("search_episodes", {"query": "a\x00b"}, "query"),
        ("get_digest", {"grain": "day", "date": "9999-12-31"}, "date"),
        ("query_stats", {"date_from": "0001-01-01", "date_to": "0001-01-02"}, "date_from"),
        ("get_raw", {**_window(), "ts_from": 1_047_434_400}, "ts_from"),
        ("apply_label", {"target": "record", "id": True, "category": "work"}, "id"),
        (
            "search_episodes",
            {"query": "x", "date_from": "2003-03-02", "date_to": "2003-03-01"},
            "date_to",
        ),
    ]

    async def main(url: str) -> list[Any]:
        async with (
            httpx2.AsyncClient(headers=api.auth) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            results = [await client.call_tool(name, arguments) for name, arguments, _ in calls]
            results.append(await client.call_tool("query_stats", {"period": "today"}))
            return results

    with serve_in_thread(services) as base:
        *refused, after = asyncio.run(main(f"{base}/mcp"))
    for (name, _, field), result in zip(calls, refused, strict=True):
        assert result.is_error, name
        assert field in result.structured_content["error"], (name, result.structured_content)
    assert not after.is_error
