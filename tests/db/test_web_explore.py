"""Exploring time over HTTP (no browser): the timeline's window in the address and as
JSON (episodes, then runs of records), the date pickers, the episode drawer's pages of
records, an app's titles and time, the hour-of-day chart and every signal of a period,
each against the store or the tools. tests/e2e/test_web_explore.py drives the same in
Chromium."""

from __future__ import annotations

import itertools
import re
from datetime import UTC, date, datetime
from html import unescape
from typing import Any

import pytest

from app.pyramid.episodes import IDLE_TITLE
from app.runtime.services import Services
from app.timeutil import day_bounds, zone
from app.web.explore import hour_of_day
from tests.db.test_web import Browser
from tests.helpers import NOW, SAMPLE_MONTH, Preloaded

DAY = "2003-03-04"
pytestmark = pytest.mark.preloaded(SAMPLE_MONTH)


@pytest.fixture
def web(services: Services, preloaded: Preloaded) -> Browser:
    browser = Browser(services, preloaded.user)
    browser.sign_in()
    return browser


def _local(web: Browser, text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(zone(web.user.time_zone))


def _episodes(web: Browser, day: str) -> list[Any]:
    start, end = day_bounds(date.fromisoformat(day), tz=zone(web.user.time_zone), cut_hour=4)
    rows = web.services.store.list_episodes(
        user_id=web.user.user_id, ts_from=start, ts_to=end, category=None, limit=1_000
    )
    return [e for e in rows if start <= e.ts_start < end]


def test_the_timeline_json_needs_a_session(services: Services, preloaded: Preloaded) -> None:
    stranger = Browser(services, preloaded.user)
    reply = stranger.client.get(f"/day/{DAY}/timeline")
    assert reply.status_code == 303 and reply.headers["location"].startswith("/signin?next=")


def test_the_whole_day_is_one_block_per_episode_and_a_half_hour_is_runs_of_records(
    web: Browser,
) -> None:
    whole = web.client.get(f"/day/{DAY}/timeline").json()
    assert whole["whole"] and whole["level"] == "episodes"
    episodes = _episodes(web, DAY)
    shown = sorted(b["episode_id"] for lane in whole["lanes"] for b in lane["blocks"])
    assert shown == sorted(e.episode_id for e in episodes)
    assert [lane["name"] for lane in whole["lanes"]] == [
        name for _, _, name in sorted(SAMPLE_MONTH.data().devices)
    ]

    half = web.client.get(f"/day/{DAY}/timeline?from=10:00&to=10:30").json()
    assert (half["from_local"], half["to_local"], half["level"]) == ("10:00", "10:30", "records")
    assert _local(web, half["from"]).strftime("%Y-%m-%d %H:%M") == f"{DAY} 10:00"
    blocks = [b for lane in half["lanes"] for b in lane["blocks"]]
    assert blocks and all(b["key"].startswith("rec-") for b in blocks)
    for lane in half["lanes"]:
        ends = [(b["x"], b["x"] + b["width"]) for b in lane["blocks"]]
        assert all(0 <= x0 < x1 <= 100.0001 for x0, x1 in ends)
        # Runs of one device never overlap: the duration rule clips each at the next.
        assert all(a[1] <= b[0] + 0.13 for a, b in itertools.pairwise(ends))
    ids = {e.episode_id for e in episodes}
    assert {b["episode_id"] for b in blocks} <= ids
    assert [t["label"] for t in half["ticks"]] == [f"10:{m:02d}" for m in range(0, 31, 5)]


def test_a_window_too_narrow_or_backwards_is_the_whole_day(web: Browser) -> None:
    for query in ("from=10:00&to=10:03", "from=11:00&to=10:00", "from=xx&to=10:00"):
        data = web.client.get(f"/day/{DAY}/timeline?{query}").json()
        assert data["whole"], query


def test_the_address_keeps_the_view_and_its_zoom_links_step_around_its_middle(
    web: Browser,
) -> None:
    page = unescape(web.client.get(f"/day/{DAY}?from=10:00&to=11:00").text)
    start = re.search(r'data-from="([^"]+)"', page)
    assert start and _local(web, start.group(1)).strftime("%H:%M") == "10:00"
    assert f'class="zoom-in" href="/day/{DAY}?from=10:15&to=10:45"' in page
    assert f'class="zoom-out" href="/day/{DAY}?from=09:30&to=11:30"' in page
    assert "10:00–11:00 · records" in page
    # A block's link opens its episode in the same view.
    assert re.search(rf'href="/day/{DAY}\?from=10:00&to=11:00&episode=\d+#panel"', page)
    whole = unescape(web.client.get(f"/day/{DAY}").text)
    assert f'class="zoom-out" href="/day/{DAY}"' in whole


def test_the_pickers_open_the_day_week_or_month_chosen(web: Browser) -> None:
    for path, target in (
        ("/day?date=2003-03-09", "/day/2003-03-09"),
        ("/week?week=2003-W12", "/week/2003-W12"),
        ("/month?month=2003-02", "/month/2003-02"),
    ):
        reply = web.client.get(path)
        assert (reply.status_code, reply.headers["location"]) == (303, target), path
    for path in ("/day?date=2003-02-30", "/week?week=2003-W60", "/month?month=13"):
        assert web.client.get(path).status_code == 404, path


def test_the_drawer_pages_the_episodes_records(web: Browser) -> None:
    longest = max(
        (e for e in _episodes(web, DAY) if e.category != "system"), key=lambda e: e.duration_s
    )
    records = web.services.store.episode_records(
        user_id=web.user.user_id, episode_id=longest.episode_id, limit=1_000
    )
    assert len(records) > 50, "the sample's longest sitting has more than a page"
    page2 = web.client.get(f"/day/{DAY}?episode={longest.episode_id}&records=2").text
    times = re.findall(r"<tr(?: class=\"idle\")?><td>(\d\d:\d\d:\d\d)</td>", page2)
    tz = zone(web.user.time_zone)
    assert times == [r.ts_start.astimezone(tz).strftime("%H:%M:%S") for r in records[50:100]]
    assert 'class="records-prev"' in page2
    names = {d.device_id: d.name for d in web.services.store.list_devices(user_id=1)}
    assert f'<span class="device" title="{longest.device_id}">' in page2
    assert names[longest.device_id] in page2


def test_idle_sittings_read_in_the_pages_language(web: Browser) -> None:
    idle = next(e for e in _episodes(web, DAY) if e.title == IDLE_TITLE)
    english = web.client.get(f"/day/{DAY}?episode={idle.episode_id}").text
    assert IDLE_TITLE not in english and "Idle or locked" in english
    web.client.cookies.set("tt_lang", "zh")
    chinese = web.client.get(f"/day/{DAY}?episode={idle.episode_id}").text
    assert IDLE_TITLE not in chinese and "空闲或锁屏" in chinese


def test_an_apps_titles_add_up_to_its_time_in_query_stats(web: Browser) -> None:
    apps = web.tool(
        "query_stats", metric="seconds_by_app", period="custom", date_from=DAY, date_to=DAY
    )["items"]
    app = apps[0]
    page = unescape(web.client.get(f"/app?name={app['app']}&from={DAY}&to={DAY}").text)
    seconds = [int(s) for s in re.findall(r'<tr data-seconds="(\d+)">', page)]
    assert seconds == sorted(seconds, reverse=True) and len(seconds) > 1
    total = re.search(r'data-total-seconds="(\d+)"', page)
    assert total and int(total.group(1)) == pytest.approx(app["seconds"], abs=1)
    assert web.client.get(f"/app?name=x&from={DAY}&to=2003-02-01").status_code == 404


def test_the_hour_of_day_chart_adds_up_to_the_periods_active_hours(web: Browser) -> None:
    ctx = web.services.tool_context(user=web.user, now=NOW)
    first, last = date(2003, 3, 3), date(2003, 3, 9)
    hours = hour_of_day(web.services.store, ctx, first=first, last=last)
    assert [h.hour for h in hours] == [(4 + i) % 24 for i in range(24)]
    active = web.tool(
        "query_stats",
        metric="active_seconds",
        period="custom",
        date_from=first.isoformat(),
        date_to=last.isoformat(),
    )["value"]
    assert sum(h.total for h in hours) * 3600 == pytest.approx(active, abs=1)
    page = web.client.get("/week/2003-W10").text
    assert page.count("data-hour=") == 24


def test_every_signal_of_a_period_is_listed(web: Browser) -> None:
    rows = web.services.store.list_signals(
        user_id=web.user.user_id, day_from=date(2003, 3, 1), day_to=date(2003, 3, 31)
    )
    page = web.client.get("/signals?from=2003-03-01&to=2003-03-31").text
    assert sorted(int(i) for i in re.findall(r'data-signal="(\d+)"', page)) == sorted(
        r.signal_id for r in rows
    )
    assert '<a class="signals-all" href="/signals?from=2003-03-01&amp;to=2003-03-31">' in (
        web.client.get("/month/2003-03").text
    )


def test_an_empty_day_links_to_the_newest_day_with_records(web: Browser) -> None:
    page = web.client.get("/day/2003-02-01").text
    newest = max(e.ts_start for e in _episodes(web, "2003-03-31") + _episodes(web, "2003-04-01"))
    assert newest < datetime.now(UTC)
    link = re.search(r'<a href="/day/([\d-]+)" id="latest-day">', page)
    assert link and link.group(1) in ("2003-03-31", "2003-04-01")


def test_a_custom_range_is_a_period_page_with_the_numbers_of_query_stats(web: Browser) -> None:
    reply = web.client.get("/range?from=2003-03-03&to=2003-03-12")
    assert (reply.status_code, reply.headers["location"]) == (303, "/range/2003-03-03..2003-03-12")
    page = unescape(web.client.get(reply.headers["location"]).text)
    active = web.tool(
        "query_stats",
        metric="active_seconds",
        period="custom",
        date_from="2003-03-03",
        date_to="2003-03-12",
    )["hours"]
    assert f'data-active-hours="{active}"' in page
    assert page.count('class="bar-link"') == 10
    assert 'href="/range/2003-02-21..2003-03-02" rel="prev"' in page
    assert 'href="/range/2003-03-13..2003-03-22" rel="next"' in page
    assert page.count("data-hour=") == 24
    for path in ("/range?from=2003-03-12&to=2003-03-03", "/range/2003-01-01..2003-12-31"):
        assert web.client.get(path).status_code == 404, path
    markdown = web.client.get("/report/range/2003-03-03..2003-03-12?format=md")
    assert markdown.status_code == 200 and "2003" in markdown.text
