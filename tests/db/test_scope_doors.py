"""The scoped token of test_scope_tools.py through the other doors: the OpenAI-compatible
door, the SSE chat, the export and the reports answer only in-scope time (totals equal
the scope applied by hand, no out-of-scope title, URL or site in any answer); every
write route is a 403; the web pages refuse the token; an expired token is a 401."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api import create_app
from app.runtime.auth import issue_token
from app.store.scope import parse_scope
from tests.agent_month import Month, month_fixture
from tests.helpers import events_of
from tests.scope_truth import ScopeTruth, leaks, scope_truth

month = month_fixture()

WORK_HOURS = parse_scope("read-only kinds=work hours=09:00-18:00 days=mon-fri sites=-bilibili.com")
QUESTIONS = [
    "How many hours of work on March 12, 2003?",
    "2003年3月哪些网站花的时间最多？",
    "What did I watch on bilibili in March 2003?",
    "what was I doing on 2003-03-15 at 21:00?",
]


@pytest.fixture(scope="module")
def truth(month: Month) -> ScopeTruth:
    with month.services.store.pool.connection() as conn:  # type: ignore[attr-defined]
        return scope_truth(conn, user=month.user, scope=WORK_HOURS)


@pytest.fixture(scope="module")
def client(month: Month) -> Iterator[TestClient]:
    token = issue_token(
        month.services.store, user_id=month.user.user_id, name="s", scope=WORK_HOURS
    )
    with TestClient(create_app(services=month.services), follow_redirects=False) as client:
        client.headers["Authorization"] = f"Bearer {token}"
        yield client


def _hours(seconds: float) -> str:
    return str(round(seconds / 3600, 2))


def test_the_openai_door_answers_in_scope_hours_and_names_nothing_hidden(
    client: TestClient, truth: ScopeTruth
) -> None:
    for question in QUESTIONS:
        reply = client.post(
            "/v1/chat/completions",
            json={"model": "timetrace", "messages": [{"role": "user", "content": question}]},
        )
        assert reply.status_code == 200, reply.text
        assert not leaks(reply.text, truth, asked={"q": question}), question
        if question == QUESTIONS[0]:
            answer = reply.json()["choices"][0]["message"]["content"]
            assert _hours(truth.seconds_by_day[date(2003, 3, 12)]) in answer


def test_the_sse_chat_answers_in_scope_hours_and_keeps_no_conversation(
    client: TestClient, truth: ScopeTruth, month: Month
) -> None:
    with month.services.store.pool.connection() as conn:  # type: ignore[attr-defined]
        before = conn.execute("SELECT count(*) AS n FROM conversations").fetchone()["n"]
    for question in QUESTIONS:
        reply = client.post("/api/v1/agent/chat", json={"question": question})
        assert reply.status_code == 200
        assert not leaks(reply.text, truth, asked={"q": question}), question
        done = events_of(reply.text)[-1][1]
        if question == QUESTIONS[0]:
            assert _hours(truth.seconds_by_day[date(2003, 3, 12)]) in done["answer"]
    with month.services.store.pool.connection() as conn:  # type: ignore[attr-defined]
        after = conn.execute("SELECT count(*) AS n FROM conversations").fetchone()["n"]
    assert after == before
    assert client.get("/api/v1/agent/conversations").json() == []


def test_the_export_holds_only_in_scope_records(
    client: TestClient, truth: ScopeTruth, month: Month
) -> None:
    reply = client.get("/api/v1/export", params={"format": "jsonl"})
    assert reply.status_code == 200
    assert not leaks(reply.text, truth)
    lines = [json.loads(line) for line in reply.text.splitlines() if line.strip()]
    titles = {
        line["row"]["window_title"]
        for line in lines
        if line.get("kind") == "records" and "row" in line
    } or {line.get("window_title") for line in lines if "window_title" in line}
    assert titles and titles <= truth.shown
    csv = client.get("/api/v1/export", params={"format": "csv", "table": "records"})
    assert csv.status_code == 200 and not leaks(csv.text, truth)
    assert csv.text.count("\n") > 100


def test_reports_name_nothing_hidden(client: TestClient, truth: ScopeTruth) -> None:
    for path in ("day/2003-03-12", "week/2003-W11", "month/2003-03"):
        for fmt in ("json", "md"):
            reply = client.get(f"/api/v1/reports/{path}", params={"format": fmt})
            assert reply.status_code == 200, (path, reply.text)
            assert not leaks(reply.text, truth), path


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/api/v1/devices", {"device_id": "x1"}),
        ("DELETE", "/api/v1/records", {"device_id": "laptop"}),
        ("POST", "/api/v1/rules", {"kind": "app", "pattern": "Code", "category": "study"}),
        ("POST", "/api/v1/rules/preview", {"kind": "app", "pattern": "Code", "category": "study"}),
        ("PUT", "/api/v1/retention", {"raw_days": 30}),
        ("POST", "/api/v1/tokens", {"name": "wider"}),
    ],
)
def test_every_write_route_is_a_403(
    client: TestClient, method: str, path: str, body: dict[str, Any]
) -> None:
    reply = client.request(method, path, json=body)
    assert reply.status_code == 403, reply.text
    assert "read-only" in reply.json()["error"] or "scope" in reply.json()["error"]


def test_the_token_list_and_me_show_the_scope(client: TestClient) -> None:
    assert client.get("/api/v1/me").json()["scope"] == (
        "read-only kinds=work sites=-bilibili.com hours=09:00-18:00 days=mon,tue,wed,thu,fri"
    )
    listed = client.get("/api/v1/tokens").json()
    assert any(t["scope"].startswith("read-only kinds=work") for t in listed)


def test_a_whole_user_token_creates_a_scoped_one_over_the_api(month: Month) -> None:
    whole = issue_token(month.services.store, user_id=month.user.user_id, name="w")
    with TestClient(create_app(services=month.services)) as api:
        api.headers["Authorization"] = f"Bearer {whole}"
        made = api.post(
            "/api/v1/tokens", json={"name": "cursor", "scope": "tools=query_stats", "expires": "2d"}
        )
        assert made.status_code == 201, made.text
        assert made.json()["scope"] == "tools=query_stats"
        bad = api.post("/api/v1/tokens", json={"scope": "hours=25:00-26:00"})
        assert bad.status_code == 422 and "hours" in bad.json()["error"]
        api.headers["Authorization"] = f"Bearer {made.json()['token']}"
        assert api.post("/api/v1/tools/get_now", json={}).status_code == 403


def test_the_web_pages_refuse_a_scoped_token(month: Month) -> None:
    token = issue_token(month.services.store, user_id=month.user.user_id, scope=WORK_HOURS, name="")
    with TestClient(create_app(services=month.services), follow_redirects=False) as web:
        reply = web.post("/signin", data={"token": token, "next": "/day"})
    assert reply.status_code == 403
    assert "scope" in reply.text and not reply.cookies


def test_an_expired_token_is_a_401(month: Month) -> None:
    past = datetime.now(UTC) - timedelta(minutes=1)
    store = month.services.store
    token = issue_token(store, user_id=month.user.user_id, name="old", expires_at=past)
    with TestClient(create_app(services=month.services)) as api:
        reply = api.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert reply.status_code == 401 and "expired" in reply.json()["error"]
