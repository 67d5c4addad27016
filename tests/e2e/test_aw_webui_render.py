"""aw-webui in Chromium, from the door and from the real aw-server: the real aw-client sends
the same scripted day to both, the same aw-webui build (tests/fixtures/aw-webui) is served
by each from its own origin, and the Activity view of that day renders the same top
apps, top categories, time active and hourly timeline on both.

aw-server 0.12.0 has no `/api/0/settings`, where this aw-webui keeps its settings and
categories: its page is handed, through Playwright, the same settings the door keeps for
the user, so that both pages run the same categories and start of day.

A duration is drawn floored to the second and a timeline bar to 0.001 h, while the two
servers' seconds agree within 1 s (tests/e2e/test_aw_door_query.py): each number read
is compared within 1 s, a bar within one step of its rounding."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from playwright.sync_api import Browser, Route

from app.awdoor.server import door_in_thread
from app.awdoor.webui import webui_folder
from app.runtime.services import Services
from tests.aw_day import HOST, scripted_day
from tests.aw_real import CLASSES, ROOT, AwServer, aw_client_for, aw_dirs, aw_server, send
from tests.browser import chromium

BUILD = ROOT / "tests" / "fixtures" / "aw-webui"
ZONE = "Asia/Shanghai"
RENDER_TIMEOUT_MS = 60_000  # a second or two on an idle machine
BAR_STEP_H = 0.001  # aw-webui rounds an hour's bar to this

# What aw-webui reads from the settings: the categories (aw-webui's shape, with the
# Uncategorized entry its default tree has), the start of the day, and no prompts.
SETTINGS: dict[str, Any] = {
    "classes": [
        {"id": i, "name": name, "rule": rule, "data": {"color": color}}
        for i, ((name, rule), color) in enumerate(
            zip(CLASSES, ("#0F0", "#F00", "#00F"), strict=True), start=1
        )
    ]
    + [{"id": 0, "name": ["Uncategorized"], "rule": {"type": "none"}, "data": {"color": "#ccc"}}],
    "startOfDay": "04:00",
    "startOfWeek": "Monday",
    "landingpage": "/home",
    "newReleaseCheckData": {"isEnabled": False},
    "userSatisfactionPollData": {"isEnabled": False},
    "uncategorizedNotificationData": {"isEnabled": False},
}

# What the Activity view shows, read once it has drawn every part: each summary's
# entries (name, duration as drawn), the header's time active, the timeline's bars.
_READ = """() => {
  const box = title => [...document.querySelectorAll('h5')]
    .find(h => h.textContent.trim() === title)?.parentElement;
  const summary = title => [...(box(title)?.querySelectorAll('g[id^="summary_"]') ?? [])]
    .map(g => [...g.querySelectorAll('text')].map(t => t.textContent));
  const canvas = box('Timeline (barchart)')?.querySelector('canvas');
  let chart = canvas;
  while (chart && chart.__vue__?.$options.name !== 'TimelineBarChart') chart = chart.parentElement;
  const active = [...document.querySelectorAll('li')]
    .find(li => li.querySelector('b')?.textContent.trim().startsWith('Time active'));
  const apps = summary('Top Applications'), categories = summary('Top Categories');
  if (!apps.length || !categories.length || !chart || !active) return null;
  const data = chart.__vue__.chartData;
  return {apps, categories, active: active.querySelector('span').textContent.trim(),
          labels: data.labels, bars: data.datasets.map(d => [d.label, d.data])};
}"""


@pytest.fixture
def real_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AwServer]:
    """The real aw-server, serving the aw-webui build in place of its own static files."""
    home = tmp_path / "activitywatch"
    for name, value in aw_dirs(home).items():
        monkeypatch.setenv(name, value)
    with aw_server(home, webui=BUILD) as server:
        yield server


def _seconds(drawn: str) -> int:
    """aw-webui's `seconds_to_duration` ("1h 2m 3s", "4m 5s", "6s") read back."""
    parts = re.fullmatch(r"(?:(\d+)h )?(?:(\d+)m )?(\d+)s", drawn.strip())
    assert parts is not None, drawn
    hours, minutes, seconds = (int(p) if p else 0 for p in parts.groups())
    return hours * 3600 + minutes * 60 + seconds


def _serve_settings(route: Route) -> None:
    if route.request.method == "GET":
        key = route.request.url.split("/api/0/settings", 1)[1].strip("/")
        body = SETTINGS.get(key) if key else SETTINGS
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))
    else:  # aw-webui saving a setting it has by default: kept out of the comparison
        route.fulfill(status=200, content_type="application/json", body="{}")


def _rendered(browser: Browser, base: str, *, day: str, settings_here: bool) -> dict[str, Any]:
    """The Activity view of `day` as the page at `base` draws it, in the user's zone.
    `settings_here`: the server keeps aw-webui's settings; else Playwright answers them."""
    context = browser.new_context(timezone_id=ZONE, locale="en-US")
    try:
        if not settings_here:
            context.route(re.compile(r".*/api/0/settings(/.*)?$"), _serve_settings)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{base}/#/activity/{HOST}/day/{day}/view/summary")
        page.wait_for_function(_READ, timeout=RENDER_TIMEOUT_MS)
        page.wait_for_load_state("networkidle")  # every query answered and drawn
        shown: dict[str, Any] = page.evaluate(_READ)
        assert errors == []
        return shown
    finally:
        context.close()


def _put_settings(base: str) -> None:
    for key, value in SETTINGS.items():
        answer = httpx.post(f"{base}/api/0/settings/{key}", json=value, timeout=30)
        assert answer.status_code == 200, answer.text


def _entries(drawn: list[list[str]]) -> dict[str, int]:
    return {name: _seconds(duration) for name, duration in drawn}


def _assert_same_entries(ours: list[list[str]], theirs: list[list[str]]) -> None:
    assert [name for name, _ in ours] == [name for name, _ in theirs]
    mine, real = _entries(ours), _entries(theirs)
    assert {k: mine[k] - real[k] for k in real} == {k: pytest.approx(0, abs=1) for k in real}


def test_aw_webui_draws_the_same_day_from_the_door_as_from_aw_server(
    services: Services, real_server: AwServer
) -> None:
    day = scripted_day(hours=1.5)
    date = day.start.astimezone(ZoneInfo(ZONE)).date().isoformat()
    user = services.store.ensure_user(name="me", time_zone=ZONE, day_cut_hour=4)
    with (
        door_in_thread(services, user=user, webui=webui_folder(BUILD)) as base,
        aw_client_for(real_server) as real_client,
        chromium() as browser,
    ):
        door = AwServer("127.0.0.1", int(base.rsplit(":", 1)[1]), real_server.home / "door")
        with aw_client_for(door) as door_client:
            sent = threading.Thread(target=send, args=(real_client, day.buckets, day.beats))
            sent.start()
            assert send(door_client, day.buckets, day.beats) == len(day.beats)
            sent.join()
        _put_settings(base)
        ours = _rendered(browser, base, day=date, settings_here=True)
        theirs = _rendered(browser, real_server.url, day=date, settings_here=False)

    # The day has something to compare: apps, several categories, hours with time.
    assert len(theirs["apps"]) >= 3 and len(theirs["categories"]) >= 3, theirs
    _assert_same_entries(ours["apps"], theirs["apps"])
    _assert_same_entries(ours["categories"], theirs["categories"])
    assert _seconds(ours["active"]) == pytest.approx(_seconds(theirs["active"]), abs=1)
    assert ours["labels"] == theirs["labels"]
    first = min(beat.event.timestamp for beat in day.beats)
    _assert_same_bars(ours, theirs, before=_hour_before(first, theirs["labels"]))


def _hour_before(first: datetime, labels: list[str]) -> int:
    """Where in the chart is the hour that ends as the day's first heartbeat begins."""
    assert first.minute == first.second == first.microsecond == 0, first  # on the hour
    local = first.astimezone(ZoneInfo(ZONE)) - timedelta(hours=1)
    return labels.index(str(local.hour))


def _assert_same_bars(ours: dict[str, Any], theirs: dict[str, Any], *, before: int) -> None:
    """Every hour's bar of every category equal, to the step aw-webui rounds it to; but
    in the hour just before the day begins, which aw-server 0.12 fills with the whole of
    the first event (its memory store hands a period every event that starts at or
    before the period's end, uncut): the door draws nothing there."""
    assert [label for label, _ in ours["bars"]] == [label for label, _ in theirs["bars"]]
    hours_with_time = 0
    for (label, mine), (_, real) in zip(ours["bars"], theirs["bars"], strict=True):
        assert len(mine) == len(real) == 24, label
        for hour, (a, b) in enumerate(zip(mine, real, strict=True)):
            if hour == before:
                assert not a, (label, hour, a)
                continue
            assert abs((a or 0) - (b or 0)) <= BAR_STEP_H + 1e-9, (label, hour, a, b)
            hours_with_time += bool(b)
    assert hours_with_time >= 6, theirs["bars"]  # 4 categories over the day's 2 hours
    # The hour before is aw-server's own: the first event, uncut, of one category.
    assert sum(1 for _, real in theirs["bars"] if real[before]) == 1, theirs["bars"]
