"""aw-webui's canonical query answered from the door's kept pieces (app/awdoor/daycache.py)
equals aw-core's engine run over the whole period: a day, a week and a month of history
with window and not-afk events crossing midnight, audible tabs while away, categories;
and after heartbeats, inserts and deletions in a day already kept."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
from aw_client.classes import default_classes
from aw_client.queries import DesktopQueryParams, fullDesktopQuery
from starlette.testclient import TestClient

from app.awdoor.api import Door, door_app
from app.awdoor.events import micros_of
from app.awdoor.prefetch import Prefetched
from app.awdoor.webui_shape import recognise_webui
from app.runtime.services import Services
from tests.aw_real import activity_query
from tests.aw_webui_query import webui_activity_query

D0 = datetime(2003, 3, 1, tzinfo=UTC)  # sentinel month: far from today
DAYS = 31
WINDOW = "aw-watcher-window_desk"
AFK = "aw-watcher-afk_desk"
WEB = "aw-watcher-web-firefox"
QUERY = activity_query(window=WINDOW, afk=AFK, browsers=[WEB], classes=default_classes)
# The same query where the door does not recognise it: aw-core's engine answers it.
ENGINE_QUERY = "nothing = [];\n" + QUERY
APPS = [("Code", "main.py - vim"), ("Slack", "general"), ("Firefox", ""), ("Terminal", "git")]
TABS = [
    ("https://github.com/ActivityWatch/aw-webui", "aw-webui · GitHub"),
    ("https://www.youtube.com/watch?v=x", "a talk - YouTube"),
]


def _event(at: datetime, seconds: float, data: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": at.isoformat(), "duration": seconds, "data": data}


def _day(rng: random.Random, day: datetime) -> dict[str, list[dict[str, Any]]]:
    """08:00 to 18:00 at the desk (12:00-12:30 away, a tab playing), every third day a
    late session from 23:40 running past midnight; afk otherwise, past midnight too."""
    out: dict[str, list[dict[str, Any]]] = {WINDOW: [], AFK: [], WEB: []}
    sessions = [(8 * 3600, 12 * 3600), (12.5 * 3600, 18 * 3600)]
    if day.day % 3 == 0:
        sessions.append((23 * 3600 + 40 * 60, 24 * 3600 + 25 * 60))
    for begin, stop in sessions:
        t = float(begin)
        while t < stop:
            app, title = rng.choice(APPS)
            length = min(rng.choice((4, 20, 90, 300)) * rng.uniform(0.8, 1.2), stop - t)
            at = day + timedelta(seconds=t)
            if app == "Firefox":
                url, title = rng.choice(TABS)
                data = {"url": url, "title": title, "audible": False, "incognito": False}
                out[WEB].append(_event(at + timedelta(seconds=0.2), length - 0.4, data))
            out[WINDOW].append(_event(at, length, {"app": app, "title": title}))
            t += length + rng.choice((0, 0, 1, 3, 8))
    # Away at lunch, with a talk playing in Firefox: audible counts as active.
    noon = day + timedelta(hours=12)
    out[WINDOW].append(_event(noon, 1800, {"app": "Firefox", "title": "a talk - YouTube"}))
    out[WEB].append(
        _event(noon, 1500, {"url": TABS[1][0], "title": TABS[1][1], "audible": True,
                            "incognito": False})
    )  # fmt: skip
    spans = [(8 * 3600, 12 * 3600, "not-afk"), (12 * 3600, 12.5 * 3600, "afk")]
    spans.append((12.5 * 3600, 18 * 3600, "not-afk"))
    if day.day % 3 == 0:
        spans += [(18 * 3600, 23 * 3600 + 40 * 60, "afk")]
        spans += [(23 * 3600 + 40 * 60, 24 * 3600 + 25 * 60, "not-afk")]
        spans += [(24 * 3600 + 25 * 60, 32 * 3600, "afk")]
    else:
        spans += [(18 * 3600, 32 * 3600, "afk")]
    for begin, stop, status in spans:
        at = day + timedelta(seconds=begin)
        out[AFK].append(_event(at, stop - begin, {"status": status}))
    return out


@pytest.fixture
def door(services: Services) -> Iterator[TestClient]:
    user = services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)
    app = door_app(store=services.store, user=user, port=5600, hostname="desk")
    with TestClient(app, base_url="http://127.0.0.1:5600") as client:
        for bucket_id, kind in ((WINDOW, "currentwindow"), (AFK, "afkstatus"),
                                (WEB, "web.tab.current")):  # fmt: skip
            made = client.post(
                f"/api/0/buckets/{bucket_id}",
                json={"client": "aw-watcher", "type": kind, "hostname": "desk"},
            )
            assert made.status_code == 200
        rng = random.Random(5)
        for n in range(DAYS):
            for bucket_id, events in _day(rng, D0 + timedelta(days=n)).items():
                posted = client.post(f"/api/0/buckets/{bucket_id}/events", json=events)
                assert posted.status_code == 200
        yield client


def _ask(door: TestClient, query: str, start: datetime, end: datetime) -> Any:
    answer = door.post(
        "/api/0/query/",
        json={"timeperiods": [f"{start.isoformat()}/{end.isoformat()}"], "query": [query]},
    )
    assert answer.status_code == 200, answer.text
    _door(door).day_cache.settle()  # a cold period's pieces, worked out off the request
    return orjson.loads(answer.content)


def _door(door: TestClient) -> Door:
    inner: Any = door.app
    while not hasattr(inner, "state"):  # the guards around the door's Starlette app
        inner = inner.app
    state: Door = inner.state.door
    return state


def _kept(door: TestClient) -> dict[tuple[Any, ...], object]:
    return _door(door).day_cache.kept()


def _both(door: TestClient, start: datetime, end: datetime) -> tuple[Any, Any]:
    return _ask(door, QUERY, start, end), _ask(door, ENGINE_QUERY, start, end)


@pytest.mark.parametrize("days", [1, 7, DAYS])
def test_the_kept_answer_is_the_engines(door: TestClient, days: int) -> None:
    start = D0 + timedelta(days=2, hours=4)  # aw-webui's periods start at the day's cut
    end = start + timedelta(days=days)
    fast, engine = _both(door, start, end)
    assert fast == engine
    # Asked again: from the kept pieces alone (a piece per day: the cuts were found).
    assert _ask(door, QUERY, start, end) == engine
    assert len(_kept(door)) >= 2 * days - 1
    (result,) = fast
    assert result["window"]["duration"] > 0 and result["browser"]["urls"]
    categories = {tuple(e["data"]["$category"]) for e in result["window"]["cat_events"]}
    assert ("Work", "Programming") in categories  # "vim" in a title


def test_writes_into_a_kept_day_change_the_answer(door: TestClient) -> None:
    start, end = D0 + timedelta(hours=4), D0 + timedelta(days=DAYS - 1, hours=4)
    before, _ = _both(door, start, end)
    # A new event on day 10 (an insert), and the last day's event extended by heartbeats.
    late = D0 + timedelta(days=10, hours=20)
    new = [_event(late, 600, {"app": "Code", "title": "late.py - vim"})]
    assert door.post(f"/api/0/buckets/{WINDOW}/events", json=new).status_code == 200
    new_afk = [_event(late, 600, {"status": "not-afk"})]
    assert door.post(f"/api/0/buckets/{AFK}/events", json=new_afk).status_code == 200
    fast, engine = _both(door, start, end)
    assert fast == engine
    seconds = {e["data"]["app"]: e["duration"] for e in fast[0]["window"]["app_events"]}
    was = {e["data"]["app"]: e["duration"] for e in before[0]["window"]["app_events"]}
    assert seconds["Code"] == pytest.approx(was["Code"] + 600, abs=0.01)
    # A deletion (the database counts it): the day's answer moves back.
    events = door.get(
        f"/api/0/buckets/{WINDOW}/events",
        params={"start": late.isoformat(), "end": (late + timedelta(seconds=1)).isoformat()},
    ).json()
    (event,) = [e for e in events if e["data"]["title"] == "late.py - vim"]
    gone = door.delete(f"/api/0/buckets/{WINDOW}/events/{event['id']}")
    assert gone.status_code == 200
    fast, engine = _both(door, start, end)
    assert fast == engine
    again = {e["data"]["app"]: e["duration"] for e in fast[0]["window"]["app_events"]}
    assert again["Code"] == pytest.approx(was["Code"], abs=0.01)


def test_heartbeats_today_change_only_the_last_piece(door: TestClient) -> None:
    start, end = D0 + timedelta(hours=4), D0 + timedelta(days=DAYS, hours=12)
    _both(door, start, end)  # cold: the engine answers, the pieces are worked out after
    _both(door, start, end)  # from the pieces: their answer is kept too
    kept = _kept(door)
    last = D0 + timedelta(days=DAYS, hours=9)  # "today": after the last night's afk
    for n in range(6):
        at = last + timedelta(seconds=n)
        beat = _event(at, 0, {"app": "Slack", "title": "random"})
        sent = door.post(f"/api/0/buckets/{WINDOW}/heartbeat?pulsetime=2", json=beat)
        assert sent.status_code == 200
        beat = _event(at, 0, {"status": "not-afk"})
        sent = door.post(f"/api/0/buckets/{AFK}/heartbeat?pulsetime=2", json=beat)
        assert sent.status_code == 200
    fast, engine = _both(door, start, end)
    assert fast == engine
    titles = {e["data"]["title"]: e["duration"] for e in fast[0]["window"]["title_events"]}
    assert titles["random"] == 5.0
    # Only what ends after the heartbeats was worked out again (the last day's cut and
    # piece): every other cut and piece is the one kept before.
    after = _kept(door)
    assert after.keys() == kept.keys()
    for kind in ("cut", "piece"):
        before = {key: value for key, value in kept.items() if key[0] == kind}
        same = [key for key, value in before.items() if after[key] is value]
        assert len(same) == len(before) - 1


def test_a_period_ending_at_a_cut_and_one_running_past_it(door: TestClient) -> None:
    """A period that ends where another one is cut reads a millisecond more there (as
    aw-server reads): the two pieces [start, cut) are not the same piece."""
    start = D0 + timedelta(days=4, hours=4)
    cut = D0 + timedelta(days=5, hours=8)  # the first window event of day 5: a cut
    for end in (cut, D0 + timedelta(days=9, hours=4), cut):
        fast, engine = _both(door, start, end)
        assert fast == engine
    keys = [key for key in _kept(door) if key[0] == "piece" and key[3] == micros_of(start)]
    assert len(keys) == 2  # [start, cut) as the last piece, and as a piece before a cut


@pytest.mark.parametrize(
    "changes",
    [{"include_audible": False}, {"filter_afk": False}, {"filter_classes": [["Work"]]}],
)
def test_the_builders_other_forms_are_the_engines_too(
    door: TestClient, changes: dict[str, Any]
) -> None:
    params = DesktopQueryParams(
        bid_window=WINDOW, bid_afk=AFK, bid_browsers=[WEB], classes=default_classes, **changes
    )
    query = fullDesktopQuery(params).replace("{default_limit}", "100")
    start = D0 + timedelta(days=1, hours=4)
    end = start + timedelta(days=7)
    fast = _ask(door, query, start, end)
    assert any(key[0] == "piece" for key in _kept(door))
    assert fast == _ask(door, "nothing = [];\n" + query, start, end)


# aw-webui's own Activity query, as its vendored build sends it (tests/aw_webui_query.py).
WEBUI = webui_activity_query(
    window=WINDOW, afk=AFK, browsers=[WEB], categories=[[list(n), r] for n, r in default_classes]
)


def _ask_webui(door: TestClient, query: list[str], start: datetime, end: datetime) -> Any:
    answer = door.post(
        "/api/0/query/",
        json={"timeperiods": [f"{start.isoformat()}/{end.isoformat()}"], "query": query},
    )
    assert answer.status_code == 200, answer.text
    _door(door).day_cache.settle()  # a cold period's pieces, worked out off the request
    return orjson.loads(answer.content)


@pytest.mark.parametrize("days", [1, 7, DAYS])
def test_aw_webuis_own_query_is_the_engines(door: TestClient, days: int) -> None:
    start = D0 + timedelta(days=2, hours=4)
    end = start + timedelta(days=days)
    fast = _ask_webui(door, WEBUI, start, end)
    pieces = [key for key in _kept(door) if key[0] == "piece"]
    assert len(pieces) >= days  # answered from pieces, not by the engine
    assert fast == _ask_webui(door, ["nothing = [];", *WEBUI], start, end)
    assert _ask_webui(door, WEBUI, start, end) == fast  # asked again: kept pieces
    (result,) = fast
    assert "events" not in result and result["stopwatch"] == {"stopwatch_events": []}
    assert result["browser"]["titles"] and result["window"]["duration"] > 0
    categories = {tuple(e["data"]["$category"]) for e in result["window"]["cat_events"]}
    assert ("Media", "Video") in categories  # the talk on YouTube, matched by its title


@pytest.mark.parametrize(
    "changes",
    [
        {"include_audible": False},
        {"filter_afk": False},
        {"filter_categories": [["Work"]]},
        {"always_active_pattern": "Slack|Terminal"},
        {"window": "aw-watcher-window_", "afk": "aw-watcher-afk_"},
    ],
)
def test_aw_webuis_other_forms_are_the_engines_too(
    door: TestClient, changes: dict[str, Any]
) -> None:
    params: dict[str, Any] = {"window": WINDOW, "afk": AFK, "browsers": [WEB]}
    params["categories"] = [[list(n), r] for n, r in default_classes]
    query = webui_activity_query(**{**params, **changes})
    start = D0 + timedelta(days=1, hours=4)
    end = start + timedelta(days=7)
    fast = _ask_webui(door, query, start, end)
    assert any(key[0] == "piece" for key in _kept(door))
    assert fast == _ask_webui(door, ["nothing = [];", *query], start, end)


@pytest.mark.parametrize(
    "text",
    [
        # a stopwatch bucket: its events come newest first into union_no_overlap
        "".join(
            webui_activity_query(
                window=WINDOW, afk=AFK, browsers=[WEB], categories=[], stopwatch="aw-stopwatch"
            )
        ),
        # a statement smuggled into the always-active pattern's string
        "".join(
            webui_activity_query(
                window=WINDOW,
                afk=AFK,
                browsers=[WEB],
                categories=[],
                always_active_pattern='x\\");events=[];a=(\\"',
            )
        ),
        "".join(WEBUI).replace('"status"', '"state"'),
        "".join(WEBUI).replace("RETURN = {", 'RETURN = {"x": query_bucket("a"), '),
    ],
)
def test_anything_else_is_not_aw_webuis_query(text: str) -> None:
    assert recognise_webui("".join(WEBUI)) is not None
    assert recognise_webui(text) is None


def test_prefetched_reads_are_the_databases(door: TestClient) -> None:
    """A bucket read once for the period, then sliced, gives each read's rows exactly
    (events running across either end, newest first); reads outside go to the database."""
    state = _door(door)

    def read(bucket: str, a: datetime | None, b: datetime | None, n: int | None) -> list[Any]:
        return state.store.aw_events(
            user_id=state.user.user_id, bucket_id=bucket, start_at=a, end_at=b, lim=n
        )

    lo, hi = D0 + timedelta(days=3), D0 + timedelta(days=10)
    once = Prefetched(read, lo_us=micros_of(lo), hi_us=micros_of(hi))
    rng = random.Random(9)
    for _ in range(60):
        a = lo + timedelta(seconds=rng.uniform(0, 6 * 86_400))
        b = min(hi, a + timedelta(seconds=rng.choice((1, 600, 40_000, 200_000))))
        for bucket in (WINDOW, AFK, WEB):
            assert once(bucket, a, b, None) == read(bucket, a, b, None)
    assert once.reads == 3  # one read of each bucket over the whole period
    outside = once(WINDOW, lo - timedelta(hours=1), lo + timedelta(hours=1), None)
    assert outside == read(WINDOW, lo - timedelta(hours=1), lo + timedelta(hours=1), None)
    assert once.reads == 4


def test_a_cold_month_is_the_engines_and_its_pieces_come_after(door: TestClient) -> None:
    """Nothing kept: the engine answers the month (no piece is worked out on the
    request), and a thread of its own works the pieces out for the next ask."""
    start = D0 + timedelta(days=1, hours=4)
    end = start + timedelta(days=28)
    cache = _door(door).day_cache
    ran: list[int] = []
    fill = cache.fill
    cache.fill = lambda job: fill(lambda g: (ran.append(g), job(g)))  # type: ignore[method-assign]
    body = {"timeperiods": [f"{start.isoformat()}/{end.isoformat()}"], "query": [QUERY]}
    first = door.post("/api/0/query/", json=body)
    assert first.status_code == 200
    cache.settle()
    assert len(ran) == 1
    pieces = [key for key in _kept(door) if key[0] == "piece"]
    assert len(pieces) >= 27
    assert _ask(door, QUERY, start, end) == orjson.loads(first.content)
    assert len(ran) == 1  # asked again: from the pieces, on the request
