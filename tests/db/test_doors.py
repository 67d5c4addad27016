"""The doors are checked before any route: a Host that is not one of the server's names
is refused everywhere (DNS rebinding), /mcp refuses a foreign browser Origin, cookies
are Secure over https (or behind a configured proxy that says so), Markdown reports
write captured text literally, and label errors do not tell another user's ids from
ids that never existed."""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api import create_app
from app.api.doors import host_name
from app.pyramid.build import backfill
from app.runtime.services import Services
from app.settings import Settings
from tests.helpers import NOW, make_api, new_token_for

PAGES = ["/", "/day", "/signin", "/privacy", "/ask", "/static/app.css", "/lang/en"]
API = ["/healthz", "/api/v1/me", "/api/v1/tools", "/v1/models", "/api/v1/docs", "/openapi.json"]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
MCP_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _with(services: Services, **settings: Any) -> Services:
    return dataclasses.replace(services, settings=services.settings.model_copy(update=settings))


def test_the_names_default_to_loopback_and_the_bound_address() -> None:
    assert Settings(_env_file=None).host_names == ["localhost", "127.0.0.1", "::1"]
    assert Settings(_env_file=None, host="192.168.1.9").host_names[-1] == "192.168.1.9"
    assert "0.0.0.0" not in Settings(_env_file=None, host="0.0.0.0").host_names
    given = Settings(_env_file=None, allowed_hosts=" TimeTrace.lan, api ").host_names
    assert given == ["timetrace.lan", "api"]
    assert [host_name(h) for h in ("a.b:8787", "[::1]:8787", "[::1]", "LOCALHOST")] == [
        "a.b",
        "::1",
        "::1",
        "localhost",
    ]


def test_a_foreign_host_is_refused_on_every_page_route_and_mcp(services: Services) -> None:
    api = make_api(services)
    for path in PAGES + API + ["/mcp"]:
        for host in ("evil.example", "evil.example:8787", "testserver.evil.example"):
            reply = api.client.get(path, headers={**api.auth, "Host": host})
            assert reply.status_code == 400, (path, host, reply.text)
            error = reply.json()["error"]  # the OpenAI door's errors are in OpenAI's shape
            assert "Host" in (error["message"] if path.startswith("/v1") else error)
        allowed = api.client.get(path, headers={**api.auth, "Host": "localhost:8787"})
        assert allowed.status_code != 400, (path, allowed.text)
    posted = api.client.post(
        "/mcp", json=INITIALIZE, headers={**api.auth, **MCP_HEADERS, "Host": "evil.example"}
    )
    assert posted.status_code == 400


def test_mcp_refuses_a_foreign_origin_and_serves_its_own(services: Services) -> None:
    user = services.store.ensure_user(name="mcp", time_zone="UTC", day_cut_hour=4)
    auth = {"Authorization": f"Bearer {new_token_for(services, user)}", **MCP_HEADERS}
    with TestClient(create_app(services=services)) as client:
        for origin in ("https://evil.example", "http://localhost.evil.example:8787", "null"):
            reply = client.post("/mcp", json=INITIALIZE, headers={**auth, "Origin": origin})
            assert reply.status_code == 403, (origin, reply.text)
        for origin in (None, "http://localhost:8787", "http://testserver"):
            headers = {**auth, **({"Origin": origin} if origin else {})}
            reply = client.post("/mcp", json=INITIALIZE, headers=headers)
            assert reply.status_code == 200, (origin, reply.text)
            assert reply.json()["result"]["serverInfo"]


def _session_cookie(client: TestClient, token: str, **headers: str) -> str:
    reply = client.post("/signin", data={"token": token}, headers=headers, follow_redirects=False)
    assert reply.status_code == 303, reply.text
    cookies = [v for k, v in reply.headers.multi_items() if k == "set-cookie"]
    assert len(cookies) == 1
    return cookies[0]


def test_cookies_are_secure_over_https_or_from_a_trusted_proxy_only(services: Services) -> None:
    api = make_api(services)
    https = "https"
    assert "secure" not in _session_cookie(api.client, api.token).lower()
    # Anyone can send X-Forwarded-Proto: only a configured proxy is believed.
    spoofed = _session_cookie(api.client, api.token, **{"X-Forwarded-Proto": https})
    assert "secure" not in spoofed.lower()
    proxied = TestClient(create_app(services=_with(services, trusted_proxies="testclient")))
    cookie = _session_cookie(proxied, api.token, **{"X-Forwarded-Proto": https})
    assert re.search(r";\s*secure", cookie, flags=re.IGNORECASE)
    direct = TestClient(create_app(services=services), base_url="https://testserver")
    assert "secure" in _session_cookie(direct, api.token).lower()
    lang = direct.get("/lang/zh", follow_redirects=False)
    assert "secure" in lang.headers["set-cookie"].lower()


def test_the_markdown_report_writes_captured_text_literally(services: Services) -> None:
    api = make_api(services, devices=("laptop",))
    payload = "<img src=x onerror=alert(9)>"
    records = [
        {
            "client_record_id": f"r{i}",
            "ts_start": f"2003-03-12T10:{i:02d}:00+08:00",
            "ts_end": f"2003-03-12T10:{i + 1:02d}:00+08:00",
            "app": app,
            "window_title": "[click](javascript:alert(1)) | *bold*",
        }
        for i, app in enumerate([payload] * 20 + ["Evil](https://evil.example) |x"] * 20)
    ]
    assert api.ingest("laptop", records).status_code == 200
    backfill(services.store, now=NOW, settings=services.settings)
    signin = api.client.post("/signin", data={"token": api.token}, follow_redirects=False)
    assert signin.status_code == 303
    markdown = api.client.get("/report/day/2003-03-12?format=md")
    assert markdown.status_code == 200, markdown.text
    text = markdown.text
    assert "onerror" in text  # the app is listed, as text
    assert "<img" not in text and "&lt;img src=x onerror=alert(9)&gt;" in text
    assert not re.search(r"(?<!\\)\]\(", text), text  # no link opens
    assert "evil.example) \\|x" in text  # a table cell cannot end early


@pytest.mark.parametrize("target", ["record", "episode"])
def test_label_errors_read_the_same_for_another_users_ids_as_for_unknown_ids(
    services: Services, conn: Any, target: str
) -> None:
    alice = make_api(services, user_name="alice", devices=("laptop",))
    batch = [
        {
            "client_record_id": f"a{i}",
            "ts_start": datetime(2003, 3, 12, 2, i).isoformat() + "+00:00",
            "ts_end": datetime(2003, 3, 12, 2, i + 1).isoformat() + "+00:00",
            "app": "Code",
            "window_title": "main.py",
        }
        for i in range(10)
    ]
    assert alice.ingest("laptop", batch).status_code == 200
    backfill(services.store, now=NOW, settings=services.settings)
    table, column = ("records", "record_id") if target == "record" else ("episodes", "episode_id")
    theirs = conn.execute(f"SELECT min({column}) AS id FROM {table}").fetchone()["id"]
    assert theirs is not None
    mallory = make_api(services, user_name="mallory", devices=("laptop",))

    def label(item: int) -> tuple[int, str]:
        reply = mallory.post(
            "/api/v1/tools/apply_label", {"target": target, "id": item, "category": "work"}
        )
        return reply.status_code, reply.text.replace(str(item), "N")

    unknown = [label(theirs + 1_000_000), label(2**62)]
    assert label(theirs) == unknown[0] == unknown[1]
    assert unknown[0][0] in (404, 409, 422)
    # Alice's own label of it still works.
    mine = alice.post(
        "/api/v1/tools/apply_label", {"target": target, "id": theirs, "category": "study"}
    )
    assert mine.status_code == 200, mine.text
