"""Cursors through capped results: following them to the end yields exactly the items
of one uncapped call, in order, none twice, none missing, even when records and
episodes arrive between pages; a bad cursor is a clear refusal (422 over HTTP)."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from typing import Any

from app.runtime.services import Services
from app.store.accounts import UserContext
from app.tools import dispatch_json
from tests.helpers import make_api
from tests.paged_day import (
    NOW,
    RAW,
    SEARCH,
    SITTINGS_FROM,
    add_records,
    paged_user,
    sittings,
    uncapped,
)


def follow(
    services: Services, user: UserContext, name: str, arguments: dict[str, Any], **between: Any
) -> list[dict[str, Any]]:
    """Every page of a call, first to last (`between`: run after the first page)."""
    ctx = services.tool_context(user=user, now=NOW)
    pages = [dispatch_json(ctx, name, arguments)]
    if "then" in between:
        between["then"]()
    while "cursor" in pages[-1]:
        later = services.tool_context(user=user, now=datetime.now(UTC))
        pages.append(dispatch_json(later, name, {"cursor": pages[-1]["cursor"]}))
        assert len(pages) < 100
    return pages


def items_of(pages: list[dict[str, Any]]) -> list[Any]:
    for page in pages:
        assert "error" not in page, page
    return [item for page in pages for item in page["items"]]


def test_get_raw_pages_hold_exactly_the_uncapped_records(services: Services) -> None:
    user = paged_user(services)
    whole = uncapped(services.tool_context(user=user, now=NOW), "get_raw", RAW)
    assert len(whole) == 1_440
    pages = follow(services, user, "get_raw", RAW)
    assert len(pages) >= 3
    assert all(p["truncated"] and p["cursor"] for p in pages[:-1])
    assert not pages[-1]["truncated"] and "cursor" not in pages[-1]
    assert items_of(pages) == whole


def test_search_pages_hold_exactly_the_uncapped_hits(services: Services) -> None:
    user = paged_user(services)
    whole = uncapped(services.tool_context(user=user, now=NOW), "search_episodes", SEARCH)
    assert len(whole) == 30
    pages = follow(services, user, "search_episodes", SEARCH)
    assert len(pages) >= 2 and pages[0]["truncated"] and pages[0]["omitted"] > 0
    assert items_of(pages) == whole


def test_get_episodes_pages_hold_exactly_the_uncapped_episodes_newest_first(
    services: Services,
) -> None:
    user = paged_user(services)
    # Sixty more sittings the day before: 102 episodes, more than the cap holds.
    add_records(services, user, sittings(SITTINGS_FROM - timedelta(days=1), 60, prefix="more"))
    arguments = {"date_from": "2003-03-11", "date_to": "2003-03-12", "limit": 90}
    whole = uncapped(services.tool_context(user=user, now=NOW), "get_episodes", arguments)
    assert len(whole) == 90
    pages = follow(services, user, "get_episodes", arguments)
    assert len(pages) >= 2 and all(p["truncated"] for p in pages[:-1])
    assert items_of(pages) == whole
    assert pages[-1]["note"].startswith("more episodes exist")


def test_records_and_episodes_added_between_pages_neither_repeat_nor_skip(
    services: Services,
) -> None:
    user = paged_user(services)
    ctx = services.tool_context(user=user, now=NOW)
    raw, hits = uncapped(ctx, "get_raw", RAW), uncapped(ctx, "search_episodes", SEARCH)

    def more_sittings() -> None:
        # Later sittings over the same ledger: newer, so they would rank first.
        late = NOW + timedelta(hours=1)
        add_records(services, user, sittings(late, 12, prefix="late"), now=late + timedelta(days=1))

    assert items_of(follow(services, user, "search_episodes", SEARCH, then=more_sittings)) == hits
    assert items_of(follow(services, user, "get_raw", RAW, then=more_sittings)) == raw
    # A new first call sees the new sittings: the cursor, not the data, kept the ranking.
    fresh = uncapped(
        services.tool_context(user=user, now=datetime.now(UTC)), "search_episodes", SEARCH
    )
    assert fresh != hits


def test_a_cursor_sent_with_its_own_arguments_continues_and_with_others_is_refused(
    services: Services,
) -> None:
    user = paged_user(services)
    ctx = services.tool_context(user=user, now=NOW)
    first = dispatch_json(ctx, "get_raw", RAW)
    again = dispatch_json(ctx, "get_raw", {**RAW, "cursor": first["cursor"]})
    alone = dispatch_json(ctx, "get_raw", {"cursor": first["cursor"]})
    assert again == alone and again["items"][0] != first["items"][0]
    other = dispatch_json(
        ctx, "get_raw", {**RAW, "ts_to": "2003-03-12T10:00:00+08:00", "cursor": first["cursor"]}
    )
    assert other["error"].startswith("cursor: it continues a call with other arguments (ts_to)")


def _forged(body: dict[str, Any]) -> str:
    raw = json.dumps(body).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def test_bad_cursors_are_refused_clearly_over_dispatch_and_http(services: Services) -> None:
    user = paged_user(services)
    ctx = services.tool_context(user=user, now=NOW)
    search_cursor = dispatch_json(ctx, "search_episodes", SEARCH)["cursor"]
    refusals = {
        "not base64 at all!": "not a cursor TimeTrace gave",
        _forged({"t": "get_raw"}): "not a cursor TimeTrace gave",
        search_cursor: "this cursor continues search_episodes, not get_raw",
        _forged({"t": "get_raw", "a": RAW, "n": NOW.isoformat(), "p": ["x", 1]}): (
            "not a cursor of get_raw"
        ),
    }
    for cursor, message in refusals.items():
        answer = dispatch_json(ctx, "get_raw", {"cursor": cursor})
        assert message in answer["error"], (cursor, answer)
        assert "items" not in answer
    api = make_api(services, user_name="pager")
    assert api.user.user_id == user.user_id
    for cursor, message in refusals.items():
        response = api.post("/api/v1/tools/get_raw", {"cursor": cursor})
        assert response.status_code == 422 and message in response.json()["error"]
