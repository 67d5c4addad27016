"""Exploring time in a real Chromium: zoom the day from the whole day to a 30-minute
window and back with the keyboard (the address keeps the view), pick a date, open the
episode drawer, follow an app to its titles; and the polish a user notices — no text
overlaps another at 390, 768 and 1280 px on any page, and the dark scheme meets WCAG
AA contrast as rendered.

The site, the browser and the signed-in tab come from test_web_browser's fixtures.
"""

# ruff: noqa: F811  (the shared fixtures are imported by name, then asked for by name)
from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.test_web_browser import (  # noqa: F401 (fixtures)
    READ_DAY,
    Site,
    Tab,
    _watch,
    browser,
    shots,
    site,
    tab,
)

WIDTHS = (390, 768, 1280)

# Every visible text node's box (cut to the boxes of ancestors that clip it), and the
# pairs of text from different elements whose boxes overlap by more than a pixel; text
# under a fixed layer (the drawer) it does not belong to is covered, not overlapping.
OVERLAPS_JS = """
() => {
  const layers = [...document.querySelectorAll('body *')].filter(
    (e) => getComputedStyle(e).position === 'fixed' && e.getBoundingClientRect().width > 0);
  const boxes = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    if (el.closest('title, script, style, noscript, option, .sr-only, .skip:not(:focus)')) continue;
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    if (el.closest('[display=none]')) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      let box = {l: r.left, t: r.top, r: r.right, b: r.bottom};
      for (let a = el; a && a !== document.documentElement; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.overflowX !== 'visible' || s.overflowY !== 'visible') {
          const c = a.getBoundingClientRect();
          box = {l: Math.max(box.l, c.left), t: Math.max(box.t, c.top),
                 r: Math.min(box.r, c.right), b: Math.min(box.b, c.bottom)};
        }
      }
      if (box.r - box.l < 1 || box.b - box.t < 1) continue;
      const layer = layers.find((l) => l.contains(el)) || null;
      const covered = layers.some((l) => {
        if (l === layer || l.contains(layer)) return false;
        const c = l.getBoundingClientRect();
        return box.l < c.right && box.r > c.left && box.t < c.bottom && box.b > c.top;
      });
      if (covered) continue;
      boxes.push({el, box, text: node.textContent.trim().slice(0, 40)});
    }
  }
  const found = [];
  const width = document.documentElement.clientWidth;
  for (const a of boxes) {
    if (a.box.r > width + 1 || a.box.l < -1) found.push(`off the page: ${a.text}`);
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      if (a.el === b.el || a.el.contains(b.el) || b.el.contains(a.el)) continue;
      const w = Math.min(a.box.r, b.box.r) - Math.max(a.box.l, b.box.l);
      const h = Math.min(a.box.b, b.box.b) - Math.max(a.box.t, b.box.t);
      if (w > 1 && h > 1) found.push(`${a.text} | ${b.text}`);
    }
  }
  return found;
}
"""

# Every visible HTML text against the first opaque background behind it, by WCAG 2.x.
CONTRAST_JS = """
() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const ch = (v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b);
  };
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const back = (el) => {
    for (let a = el; a; a = a.parentElement) {
      const c = rgb(getComputedStyle(a).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] === 1)) return c.slice(0, 3);
    }
    return rgb(getComputedStyle(document.documentElement).backgroundColor).slice(0, 3);
  };
  const low = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let checked = 0;
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const el = node.parentElement;
    if (!node.textContent.trim()) continue;
    if (el.closest('svg, title, script, style, option, .sr-only, .skip')) continue;
    if (!el.checkVisibility()) continue;
    checked++;
    const value = ratio(rgb(getComputedStyle(el).color).slice(0, 3), back(el));
    const text = node.textContent.trim().slice(0, 30);
    if (value < 4.5) low.push(`${value.toFixed(2)} ${el.tagName} ${text}`);
  }
  return {checked, low};
}
"""


def _pages(site: Site) -> dict[str, str]:
    episode = site.episodes(READ_DAY)[3]
    return {
        "signin": "/signin",
        "day": f"/day/{READ_DAY}",
        "day-zoomed": f"/day/{READ_DAY}?from=10:00&to=10:30",
        "drawer": f"/day/{READ_DAY}?episode={episode.episode_id}#panel",
        "empty-day": "/day/2003-02-01",
        "week": "/week/2003-W10",
        "month": "/month/2003-03",
        "range": "/range/2003-03-03..2003-03-12",
        "app": "/app?name=" + quote("Visual Studio Code") + "&from=2003-03-01&to=2003-03-31",
        "signals": "/signals?from=2003-03-01&to=2003-03-31",
        "search": "/search?q=" + quote("哔哩哔哩"),
        "ask": "/ask",
        "privacy": "/privacy",
        "rules": "/rules",
        "error": "/day/2003-13-40",
    }


@pytest.fixture
def page(tab: Tab) -> Iterator[Page]:
    tab.page.set_viewport_size({"width": 1280, "height": 900})
    yield tab.page
    tab.page.set_viewport_size({"width": 1280, "height": 900})


def _window(page: Page) -> tuple[datetime, datetime]:
    section = page.locator("#timeline")
    return (
        datetime.fromisoformat(section.get_attribute("data-from") or ""),
        datetime.fromisoformat(section.get_attribute("data-to") or ""),
    )


def _wait_window(page: Page, before: tuple[datetime, datetime]) -> tuple[datetime, datetime]:
    page.wait_for_function(
        "([f, t]) => { const d = document.getElementById('timeline').dataset;"
        " return d.from !== f || d.to !== t; }",
        arg=[before[0].isoformat(), before[1].isoformat()],
    )
    return _window(page)


def test_the_keyboard_zooms_the_day_to_30_minutes_and_back(tab: Tab, page: Page) -> None:
    site = tab.site
    tab.open(f"/day/{READ_DAY}")
    whole = _window(page)
    episodes = len(site.episodes(READ_DAY))
    assert page.locator("svg.track a.block").count() == episodes
    spans = []
    window = whole
    while (window[1] - window[0]).total_seconds() > 1800:
        page.keyboard.press("+")
        window = _wait_window(page, window)
        spans.append((window[1] - window[0]).total_seconds())
    assert spans == [43200, 28800, 14400, 7200, 3600, 1800]
    assert page.locator("#timeline").get_attribute("data-level") == "records"
    # The address keeps the view: a reload draws the same 30 minutes, server-side.
    assert re.search(r"\?from=\d\d:\d\d&to=\d\d:\d\d$", page.url), page.url
    blocks = page.locator("svg.track a.block")
    assert blocks.count() > 0
    keys = [blocks.nth(i).get_attribute("id") or "" for i in range(blocks.count())]
    assert all(k.startswith("rec-") for k in keys)
    tab.shot("zoomed-30-minutes")
    page.reload()
    assert _window(page) == window
    assert [blocks.nth(i).get_attribute("id") for i in range(blocks.count())] == keys
    # Pan later by a quarter, then all the way back out.
    page.keyboard.press("Shift+ArrowRight")
    panned = _wait_window(page, window)
    assert (panned[0] - window[0]).total_seconds() == pytest.approx(450, abs=30)  # whole minutes
    window = panned
    while page.locator("#timeline").get_attribute("data-from") != whole[0].isoformat():
        page.keyboard.press("-")
        window = _wait_window(page, window)
    assert _window(page) == whole
    assert page.url.endswith(f"/day/{READ_DAY}")
    assert page.locator("svg.track a.block").count() == episodes


def test_the_window_json_is_token_protected_and_says_its_level(
    tab: Tab, browser: Browser, site: Site
) -> None:
    reply = tab.page.request.get(f"{site.base}/day/{READ_DAY}/timeline?from=10:00&to=10:30")
    data: dict[str, Any] = reply.json()
    assert (data["from_local"], data["to_local"], data["level"]) == ("10:00", "10:30", "records")
    assert [t["label"] for t in data["ticks"]][:2] == ["10:00", "10:05"]
    wide = tab.page.request.get(f"{site.base}/day/{READ_DAY}/timeline").json()
    assert wide["level"] == "episodes" and wide["whole"]
    assert sum(len(lane["blocks"]) for lane in wide["lanes"]) == len(site.episodes(READ_DAY))
    stranger = browser.new_context()
    refused = stranger.request.get(f"{site.base}/day/{READ_DAY}/timeline", max_redirects=0)
    assert refused.status == 303 and "/signin" in refused.headers["location"]
    stranger.close()


def test_picking_a_date_opens_that_day(tab: Tab, page: Page) -> None:
    tab.open(f"/day/{READ_DAY}")
    page.fill("#pick-date", "2003-03-19")
    page.wait_for_url("**/day/2003-03-19")
    assert page.locator("h1").inner_text() == "Wed 19 Mar 2003"
    tab.open("/week/2003-W10")
    page.fill("#pick-week", "2003-W12")
    page.wait_for_url("**/week/2003-W12")
    tab.open("/month/2003-03")
    page.fill("#pick-month", "2003-02")
    page.wait_for_url("**/month/2003-02")


def test_the_drawer_names_the_device_as_its_lane_and_pages_records(tab: Tab, page: Page) -> None:
    site = tab.site
    longest = max(site.episodes(READ_DAY), key=lambda e: e.duration_s)
    tab.open(f"/day/{READ_DAY}?episode={longest.episode_id}#panel")
    lane = page.locator(f".lane[data-device='{longest.device_id}'] .lane-name").inner_text()
    assert page.locator("#panel .device").inner_text() == lane
    box = page.locator("#panel").bounding_box()
    assert box is not None and box["x"] > 600 and box["height"] <= 900  # a drawer, not a page
    rows = page.locator("#panel table.records tbody tr")
    assert 0 < rows.count() <= 50
    if page.locator("#panel a.records-next").count():
        first = rows.first.inner_text()
        page.click("#panel a.records-next")
        page.wait_for_url(re.compile(r"records=2#panel$"))
        assert rows.first.inner_text() != first
    idle = next(e for e in site.episodes(READ_DAY) if e.category == "system")
    assert page.locator(f"#ep-{idle.episode_id} title").text_content().endswith("Idle or locked")  # type: ignore[union-attr]
    assert "空闲" not in page.locator("#timeline").inner_text()


def test_an_empty_day_links_to_the_latest_day_with_data(tab: Tab, page: Page) -> None:
    tab.open("/day/2003-02-01")
    link = page.locator("#latest-day")
    link.click()
    page.wait_for_url(re.compile(r"/day/2003-0[34]-\d\d$"))
    assert page.locator("svg.track a.block").count() > 0


def test_a_top_app_opens_its_titles_and_time(tab: Tab, page: Page) -> None:
    tab.open(f"/day/{READ_DAY}")
    first = page.locator("table.apps tr[data-app]").first
    name = first.get_attribute("data-app")
    seconds = int(first.locator("td[data-seconds]").get_attribute("data-seconds") or 0)
    first.locator("a:not(.always)").click()
    page.wait_for_url(re.compile(r"/app\?"))
    assert page.locator("h1").inner_text().startswith(name or "?")
    titles = page.locator("table.titles tr[data-seconds]")
    assert titles.count() > 0
    total = sum(
        int(titles.nth(i).get_attribute("data-seconds") or 0) for i in range(titles.count())
    )
    assert total == pytest.approx(seconds, abs=titles.count() + 2)


def test_week_and_month_show_an_hour_of_day_chart(tab: Tab, page: Page) -> None:
    for path in ("/week/2003-W10", "/month/2003-03"):
        tab.open(path)
        bars = page.locator("svg.hours-chart rect[data-hour]")
        assert bars.count() == 24
        hours = sum(float(bars.nth(i).get_attribute("data-hours") or 0) for i in range(24))
        active = float(page.locator("[data-active-hours]").get_attribute("data-active-hours") or 0)
        assert hours == pytest.approx(active, abs=0.05)


@pytest.mark.parametrize("width", WIDTHS)
def test_no_text_overlaps_another_on_any_page(tab: Tab, page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    problems = {}
    for name, path in _pages(tab.site).items():
        tab.open(path)
        found = page.evaluate(OVERLAPS_JS)
        if found:
            problems[name] = found[:5]
        tab.shot(f"{name}-{width}")
    assert problems == {}
    tab.errors.clear()  # the error page answers 404 on purpose


def test_the_dark_scheme_meets_aa_contrast_as_rendered(
    browser: Browser, site: Site, tab: Tab
) -> None:
    context = browser.new_context(color_scheme="dark", viewport={"width": 1280, "height": 900})
    context.add_cookies(tab.page.context.cookies())
    page = context.new_page()
    errors: list[str] = []
    _watch(page, errors)
    for name, path in _pages(site).items():
        page.goto(site.base + path)
        background = page.eval_on_selector("body", "e => getComputedStyle(e).backgroundColor")
        assert background == "rgb(15, 23, 42)", name
        result = page.evaluate(CONTRAST_JS)
        assert result["checked"] > 5 and result["low"] == [], (name, result["low"][:5])
    context.close()


def test_the_ask_sidebar_lists_the_conversation_as_it_happens(tab: Tab, page: Page) -> None:
    tab.open("/ask")
    page.fill("#question", f"How many hours of work on {READ_DAY}?")
    page.keyboard.press("Enter")
    page.locator("#turns article.turn.done").first.wait_for()
    item = page.locator("ul.conversations li a[aria-current=page]")
    item.wait_for()
    assert item.inner_text().startswith("How many hours")
    assert page.locator("ul.conversations li.muted").count() == 0


def test_more_signals_link_to_where_they_are(tab: Tab, page: Page) -> None:
    tab.open("/month/2003-03")
    link = page.locator("a.signals-all")
    assert link.count() == 1
    link.click()
    page.wait_for_url(re.compile(r"/signals\?"))
    assert page.locator("li[data-signal]").count() >= page.locator("details.habit").count()


def test_dragging_pans_and_a_pinch_zooms_around_the_pointer(tab: Tab, page: Page) -> None:
    tab.open(f"/day/{READ_DAY}?from=10:00&to=12:00")
    start = _window(page)
    track = page.locator(".lane[data-device] svg.track").first.bounding_box()
    assert track is not None
    y = track["y"] + track["height"] / 2
    # Drag a quarter of the lane to the left: the view moves 30 minutes later.
    page.mouse.move(track["x"] + track["width"] * 0.6, y)
    page.mouse.down()
    page.mouse.move(track["x"] + track["width"] * 0.45, y, steps=4)
    page.mouse.move(track["x"] + track["width"] * 0.35, y, steps=4)
    page.mouse.up()
    moved = _wait_window(page, start)
    assert (moved[0] - start[0]).total_seconds() == pytest.approx(1800, abs=60)
    assert (moved[1] - moved[0]).total_seconds() == 7200
    assert page.url.endswith("?from=10:30&to=12:30")
    # A pinch (ctrl + wheel) at the lane's left edge zooms in, keeping that edge.
    page.mouse.move(track["x"] + 1, y)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -120)
    page.keyboard.up("Control")
    zoomed = _wait_window(page, moved)
    assert (zoomed[1] - zoomed[0]).total_seconds() == 3600
    assert (zoomed[0] - moved[0]).total_seconds() == pytest.approx(0, abs=60)
