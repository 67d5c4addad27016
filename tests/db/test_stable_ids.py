"""Stable episode ids: re-labelling or rebuilding a day keeps the id of every episode
that starts where it started, and an id that is gone answers with where its time went
(the episode now covering its first position), in the tools and the store alike.
Deleted time has no cover, and a redirect keeps no text."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from functools import partial
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api import create_app
from app.ingest.records import delete_records
from app.pyramid.build import backfill, rebuild_days
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.tools import dispatch_json
from tests.helpers import NOW, make_api, new_token_for, span_violations, unbuilt_keys

DAY = date(2003, 3, 12)
START = datetime(2003, 3, 12, 9, tzinfo=UTC)

# (key prefix, app, title, minutes, records): one record a minute each.
SITTINGS = [
    ("c", "Code", "ingest.py — timetrace", 20),
    ("s", "Slack", "#dev-timetrace - Acme", 15),  # social between two work sittings
    ("k", "Code", "segmenter.py — timetrace", 20),
    ("g", None, None, 10),  # 10 minutes away: an idle gap closes the episode
    ("b", "Google Chrome", "原神 新版本 PV_哔哩哔哩_bilibili", 20),
    ("n", "Notion", "Reading notes", 50),  # a focus block: signal evidence
]


def _records() -> list[dict[str, Any]]:
    records, t = [], START
    for prefix, app, title, minutes in SITTINGS:
        for i in range(minutes):
            if app is not None:
                records.append(
                    {
                        "client_record_id": f"{prefix}{i:02d}",
                        "ts_start": (t + timedelta(minutes=i)).isoformat(),
                        "ts_end": (t + timedelta(minutes=i + 1)).isoformat(),
                        "app": app,
                        "window_title": title,
                        **(
                            {"url": "https://www.bilibili.com/video/BV1x"}
                            if app == "Google Chrome"
                            else {}
                        ),
                    }
                )
        t += timedelta(minutes=minutes)
    return records


@pytest.fixture
def day(services: Services) -> UserContext:
    api = make_api(services, time_zone="UTC", devices=("laptop",))
    reply = api.ingest("laptop", _records())
    assert reply.status_code == 200, reply.text
    backfill(services.store, now=NOW, settings=services.settings)
    return api.user


def _ids(conn: Any) -> dict[str, int]:
    """Live episode ids by their first record's key."""
    return {
        r["first_key"]: r["episode_id"]
        for r in conn.execute(
            "SELECT first_key, episode_id FROM episodes WHERE NOT stale ORDER BY ts_start"
        )
    }


def _label(services: Services, user: UserContext, episode_id: int, category: str) -> Any:
    ctx = services.tool_context(user=user, now=NOW)
    args = {"target": "episode", "id": episode_id, "category": category}
    return dispatch_json(ctx, "apply_label", args)


def test_the_day_has_one_episode_per_sitting(day: UserContext, conn: Any) -> None:
    assert list(_ids(conn)) == ["c00", "s00", "k00", "b00", "n00"]


def test_a_relabel_keeps_every_id_of_the_day(
    services: Services, day: UserContext, conn: Any
) -> None:
    before = _ids(conn)
    done = _label(services, day, before["n00"], "study")
    assert done["recomputed_days"] == [str(DAY)]
    assert _ids(conn) == before
    category = "SELECT category FROM episodes WHERE episode_id = %s"
    assert conn.execute(category, [before["n00"]]).fetchone()["category"] == "study"
    # The same id takes a second label: nothing was rebuilt under a new id.
    assert "error" not in _label(services, day, before["n00"], "work")
    assert _ids(conn) == before
    assert unbuilt_keys(conn) == [] and span_violations(conn) == []


def test_a_rebuilt_day_keeps_every_id(services: Services, day: UserContext, conn: Any) -> None:
    before = _ids(conn)
    services.store.reopen_days(
        user_id=day.user_id, device_id="laptop", days=[DAY], digest_keys=[], then=[]
    )
    assert _ids(conn) == {}
    rebuild_days(
        services.store,
        user=day,
        device_days=[("laptop", DAY)],
        now=NOW,
        settings=services.settings,
    )
    assert _ids(conn) == before
    assert conn.execute("SELECT count(*) AS n FROM episode_redirects").fetchone()["n"] == 0


def test_a_relabel_that_merges_keeps_the_first_id_and_redirects_the_others(
    services: Services, day: UserContext, conn: Any
) -> None:
    """The issue's case: a Slack sitting labelled `work` merges into its neighbours. The
    merged sitting keeps the first one's id, the later sittings keep theirs, and the ids
    that went answer with the merged one — a second label call included."""
    before = _ids(conn)
    assert "error" not in _label(services, day, before["s00"], "work")
    after = _ids(conn)
    assert list(after) == ["c00", "b00", "n00"]
    assert after == {k: before[k] for k in after}
    for gone in ("s00", "k00"):
        moved = services.store.episode_moved(user_id=day.user_id, episode_id=before[gone])
        assert moved is not None and not moved.deleted
        assert (moved.episode_id, moved.day_local) == (after["c00"], DAY)
    again = _label(services, day, before["s00"], "social")
    assert again["conflict"] is True
    assert f"episode {after['c00']}" in again["error"]
    # A live id has not moved, and another user's id is nobody's to follow.
    assert services.store.episode_moved(user_id=day.user_id, episode_id=after["c00"]) is None
    assert services.store.episode_moved(user_id=day.user_id + 1, episode_id=before["s00"]) is None


def test_a_deletion_redirects_nowhere_and_keeps_no_text(
    services: Services, day: UserContext, conn: Any
) -> None:
    before = _ids(conn)
    first = conn.execute("SELECT record_id FROM records WHERE client_record_id = 'n00'")
    deleted = delete_records(
        services.store,
        user=day,
        record_ids=[first.fetchone()["record_id"]],
        rebuild_now=partial(rebuild_days, services.store, settings=services.settings),
    )
    assert deleted == 1
    after = _ids(conn)
    # The other sittings keep their ids; the one whose first record went starts later.
    assert {k: after[k] for k in ("c00", "s00", "k00", "b00")} == {
        k: before[k] for k in ("c00", "s00", "k00", "b00")
    }
    assert "n01" in after and after["n01"] != before["n00"]
    moved = services.store.episode_moved(user_id=day.user_id, episode_id=before["n00"])
    assert moved is not None and moved.deleted and moved.episode_id is None
    row = conn.execute(
        "SELECT * FROM episode_redirects WHERE episode_id = %s", [before["n00"]]
    ).fetchone()
    assert row["first_key"] is None  # the deleted record's key is not kept
    texts = [v for v in row.values() if isinstance(v, str)]
    assert texts == ["laptop"]  # positions only: no title, summary or app
    assert unbuilt_keys(conn) == [] and span_violations(conn) == []


def _pages(services: Services, user: UserContext) -> TestClient:
    client = TestClient(
        create_app(services=services), raise_server_exceptions=False, follow_redirects=False
    )
    token = new_token_for(services, user, name="pages")
    assert client.post("/signin", data={"token": token, "next": "/day"}).status_code == 303
    return client


def test_a_gone_id_leads_to_where_its_time_went_in_the_tools_and_the_pages(
    services: Services, day: UserContext, conn: Any
) -> None:
    before = _ids(conn)
    ctx = services.tool_context(user=day, now=NOW)
    args = {"period": "custom", "date_from": str(DAY), "date_to": str(DAY), "limit": 50}
    cited_before = {
        i for s in dispatch_json(ctx, "get_signals", args)["items"] for i in s["episode_ids"]
    }
    assert "error" not in _label(services, day, before["s00"], "work")
    merged = _ids(conn)["c00"]
    found = dispatch_json(ctx, "get_episode", {"id": before["k00"]})
    assert (found["episode"]["id"], found["moved_from"]) == (merged, before["k00"])
    assert found["episode"]["summary_by"] == "rules"
    live = dispatch_json(ctx, "get_episode", {"id": merged})
    assert live["episode"]["id"] == merged and "moved_from" not in live
    assert "no episode" in dispatch_json(ctx, "get_episode", {"id": 10**9})["error"]
    # Signal evidence names live episodes again once the day is rolled up, and every id it
    # named before the re-label still leads to an episode.
    signals = dispatch_json(ctx, "get_signals", args)["items"]
    assert {i for s in signals for i in s["episode_ids"]} <= set(_ids(conn).values())
    assert cited_before
    for cited in cited_before:
        assert "error" not in dispatch_json(ctx, "get_episode", {"id": cited})
    client = _pages(services, day)
    target = f"/day/{DAY}?episode={merged}&moved={before['k00']}#panel"
    for path in (f"/episodes/{before['k00']}", f"/day/{DAY}?episode={before['k00']}"):
        reply = client.get(path)
        assert (reply.status_code, reply.headers["location"]) == (303, target)
    page = client.get(target.removesuffix("#panel")).text
    assert f"Episode #{before['k00']} was rebuilt" in page
    assert f"#{merged}" in page


def test_a_deleted_id_has_no_cover_in_the_tools_or_the_pages(
    services: Services, day: UserContext, conn: Any
) -> None:
    before = _ids(conn)
    delete_records(
        services.store,
        user=day,
        device_id="laptop",
        ts_from=START,
        ts_to=START + timedelta(minutes=20),
    )
    backfill(services.store, now=NOW, settings=services.settings)
    ctx = services.tool_context(user=day, now=NOW)
    gone = dispatch_json(ctx, "get_episode", {"id": before["c00"]})
    assert "records were deleted" in gone["error"]
    assert _pages(services, day).get(f"/episodes/{before['c00']}").status_code == 404
    # An id a re-label took away keeps no key of a record deleted later.
    assert "error" not in _label(services, day, before["s00"], "work")
    keys = "SELECT first_key FROM episode_redirects WHERE episode_id = %s"
    assert conn.execute(keys, [before["k00"]]).fetchone()["first_key"] == "k00"
    delete_records(
        services.store,
        user=day,
        device_id="laptop",
        ts_from=START + timedelta(minutes=35),
        ts_to=START + timedelta(minutes=36),
    )
    assert conn.execute(keys, [before["k00"]]).fetchone()["first_key"] is None
    backfill(services.store, now=NOW, settings=services.settings)
    assert (
        "records were deleted" in dispatch_json(ctx, "get_episode", {"id": before["k00"]})["error"]
    )
    # The rest of the day keeps its ids.
    after = _ids(conn)
    assert {k: after[k] for k in ("s00", "b00", "n00")} == {
        k: before[k] for k in ("s00", "b00", "n00")
    }
