"""Deletion is immediate in every layer: once DELETE answers — with no worker running —
no HTTP answer, tool result (over HTTP or MCP), page, report, conversation or table row
holds the deleted text, nor does any after the layers are rebuilt. Tombstones keep ids,
device and span only."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx2
import pytest
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from app.agent.reach import turn_reach
from app.api.server import serve_in_thread
from app.importers.writer import ImportedRecord
from app.ingest.records import delete_records, store_records
from app.jobs.catchup import enrich
from app.pyramid.build import backfill
from app.runtime.services import Services
from app.store.conversations import NewTurn
from tests.fake_openai import FakeOpenAI, call, say
from tests.helpers import Api, events_of, make_api, with_models

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
    """Every row of every table, cast to text by PostgreSQL (tsvectors included), so a
    table added later cannot escape the scan."""
    tables = conn.execute(
        "SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') "
        "AND c.relkind IN ('r', 'p', 'm')"
    ).fetchall()
    assert len(tables) > 15
    return "\n".join(
        row["t"] for t in tables for row in conn.execute(f"SELECT x::text AS t FROM {t['name']} x")
    )


def over_mcp(api: Api, services: Services) -> str:
    """What an MCP client reads over streamable HTTP (the same registry, another door)."""
    window = {"ts_from": "2003-03-12T09:30:00+08:00", "ts_to": "2003-03-12T11:30:00+08:00"}
    calls = [("search_episodes", {"query": MARKER}), ("get_raw", window)]

    async def main(url: str) -> list[str]:
        async with (
            httpx2.AsyncClient(headers=api.auth) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            return [str(await client.call_tool(name, arguments)) for name, arguments in calls]

    with serve_in_thread(services) as base:
        return "\n".join(asyncio.run(main(f"{base}/mcp")))


def ask(api: Api, fake: FakeOpenAI, script: list[Any], **body: Any) -> dict[str, Any]:
    fake.script = script
    reply = api.client.post("/api/v1/agent/chat", json=body, headers=api.auth)
    assert reply.status_code == 200, reply.text
    done = [data for kind, data in events_of(reply.text) if kind == "done"]
    assert done and done[0]["mode"] == "agent", reply.text
    return done[0]


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
    episodes: list[int] = []
    for name, arguments in calls:
        reply = api.post(f"/api/v1/tools/{name}", arguments)
        assert reply.status_code == 200, (name, reply.text)
        answers.append(reply.text)
        if name == "get_episodes":
            episodes = [item["id"] for item in reply.json()["items"]]
    reports = [f"/api/v1/reports/{g}/{k}" for g, k in REPORTS]
    for path in ("/api/v1/me", "/api/v1/devices", "/api/v1/tools", "/healthz", *reports):
        reply = api.client.get(path, headers=api.auth)
        assert reply.status_code == 200, (path, reply.text)
        answers.append(reply.text)
    # The pages, signed in as a browser is.
    signin = api.client.post("/signin", data={"token": api.token}, follow_redirects=False)
    assert signin.status_code == 303, signin.text
    # (a search page repeats its query: it asks for words of the title beside the marker)
    pages = [f"/{g}/{k}" for g, k in REPORTS] + ["/search?q=secret+plan", "/privacy", "/ask"]
    pages += ["/day/2003-03-12", "/privacy/delete?from=2003-03-12T00:00&to=2003-03-13T00:00"]
    pages += [f"/report/{g}/{k}?format={f}" for g, k in REPORTS for f in ("md", "html")]
    pages += [f"/episodes/{episode}" for episode in episodes]
    conversations = api.client.get("/api/v1/agent/conversations", headers=api.auth)
    assert conversations.status_code == 200
    answers.append(conversations.text)
    for conversation in conversations.json():
        cid = conversation["conversation_id"]
        reply = api.client.get(f"/api/v1/agent/conversations/{cid}", headers=api.auth)
        answers.append(reply.text)
        pages.append(f"/ask?conversation={cid}")
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
    # An episode's re-label: its own rebuild replaces the episode at once (under the same
    # id: it starts where it did), so only the records and the time it touched can lead a
    # later deletion to its note.
    episode = conn.execute(
        "SELECT episode_id FROM v_record_episodes WHERE client_record_id = 's20'"
    ).fetchone()["episode_id"]
    label = api.post(
        "/api/v1/tools/apply_label",
        {"target": "episode", "id": episode, "category": "study", "note": f"{MARKER} study"},
    )
    assert label.status_code == 200, label.text
    relabelled = "SELECT category FROM episodes WHERE episode_id = %s AND NOT stale"
    assert conn.execute(relabelled, [episode]).fetchone()["category"] == "study"
    build_everything(services)
    # Two conversations quote the secret (one over two turns); a third reads other days.
    raw = {"ts_from": "2003-03-12T10:00:00+08:00", "ts_to": "2003-03-12T10:30:00+08:00"}
    first = ask(
        api,
        fake,
        [call("get_raw", **raw), say(f"You wrote the {MARKER} plan.")],
        question="what was I doing at ten?",
    )
    ask(
        api,
        fake,
        [say("That was all of it.")],
        question="anything else?",
        conversation_id=first["conversation_id"],
    )
    ask(
        api,
        fake,
        [call("search_episodes", query="secret plan"), say(f"In {MARKER} Notes.")],
        question="where is my secret plan?",
    )
    other_days = {"period": "custom", "date_from": "2003-01-06", "date_to": "2003-01-07"}
    kept = ask(
        api,
        fake,
        [call("query_stats", **other_days), say("Nothing on those days.")],
        question="what about early January?",
    )
    # Before: the marker is everywhere a client can look (so the checks below can fail).
    assert MARKER in every_answer(api) and MARKER in over_mcp(api, services)
    assert every_table(conn).count(MARKER) > 40
    assert fake.calls["episode_summary"] and fake.calls["digest_narrative"]

    deleted = api.client.request(
        "DELETE",
        "/api/v1/records",
        json={"ts_from": "2003-03-12T10:00:00+08:00", "ts_to": "2003-03-12T10:40:00+08:00"},
        headers=api.auth,
    )
    assert deleted.json() == {"deleted": 40}
    assert [r["note"] for r in conn.execute("SELECT note FROM labels")] == ["", ""]
    # No worker has run: nothing a client reads, and no row, holds the deleted text.
    for seen in (every_answer(api), over_mcp(api, services), every_table(conn)):
        assert MARKER not in seen and MARKER.lower() not in seen and "计划书" not in seen
    conversations = api.client.get("/api/v1/agent/conversations", headers=api.auth).json()
    assert [c["conversation_id"] for c in conversations] == [kept["conversation_id"]]
    assert conversations[0]["turns"] == 1
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
    for seen in (every_answer(api), over_mcp(api, services), every_table(conn)):
        assert MARKER not in seen and MARKER.lower() not in seen and "计划书" not in seen
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


def test_a_turns_reach_is_the_hull_of_every_time_it_names() -> None:
    day = timedelta(days=1)
    stamp = datetime(2003, 3, 12, 2, 30, tzinfo=UTC)
    texts = ['{"ts_from":"2003-03-12T10:30:00+08:00"}', "the week 2003-W11", "and 2003-04"]
    first, last = turn_reach(called_tools=True, texts=texts)  # type: ignore[misc]
    assert first == datetime(2003, 3, 10, tzinfo=UTC) - day  # Monday of 2003-W11
    assert last == datetime(2003, 5, 1, tzinfo=UTC) + day  # the end of April
    assert turn_reach(called_tools=True, texts=['"2003-03-12T02:30:00Z"']) == (
        stamp - day,
        stamp + day,
    )
    # Not dates: ignored. No time named: everything if tools were read, else nothing.
    assert turn_reach(called_tools=True, texts=["9999-99-99 0000-13 12345-01-01"]) is None
    assert turn_reach(called_tools=False, texts=["hello"]) == "nothing"


def test_a_turn_that_read_records_deleted_while_it_ran_is_not_kept(services: Services) -> None:
    api = make_api(services, devices=("laptop",))
    batch = minutes(SHANGHAI_9AM, 5, "t", app="Notes", window_title=f"{MARKER} draft")
    assert api.ingest("laptop", batch).json()["new"] == 5
    store, user_id = services.store, api.user.user_id
    started = datetime.now(UTC)  # the turn starts reading, then the records go
    assert delete_records(
        store, user=api.user, ts_from=SHANGHAI_9AM, ts_to=SHANGHAI_9AM + timedelta(minutes=5)
    )
    conversation = store.create_conversation(user_id=user_id, title="what did I draft?")

    def save(reach: tuple[datetime, datetime]) -> int | None:
        turn = NewTurn(
            question="what did I draft?",
            answer=f"the {MARKER} draft",
            status="done",
            mode="offline",
            steps=[],
            episode_ids=[],
            tool_tokens=0,
            model_calls=0,
            elapsed_ms=1,
            reach=reach,
            started_at=started,
        )
        return store.add_turn(user_id=user_id, conversation_id=conversation, turn=turn)

    day = timedelta(days=1)
    assert save((SHANGHAI_9AM - day, SHANGHAI_9AM + day)) is None
    assert save((SHANGHAI_9AM + 2 * day, SHANGHAI_9AM + 3 * day)) == 1  # other days: kept
