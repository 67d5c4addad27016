"""The importer's timeline is aw-core 0.5.18's arithmetic, checked against aw-core itself
(imported here, not rewritten): `flood` over generated events equals
`aw_transform.flood`, and whole generated histories of window, afk and browser buckets
give each app the active seconds aw-core's query engine gives for aw-webui's canonical
query, on both the object and the tuple paths."""

from __future__ import annotations

import logging
import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from aw_client.queries import browser_appnames
from aw_core.models import Event as AwEvent
from aw_transform import flood as aw_flood

from app.importers import aw_hosts, aw_read
from app.importers.spill import EventSpill
from app.importers.timeline import Event, flood, flood_rows, half
from app.rules.categories import Rules, load_rules
from tests.aw_real import canonical_app_seconds_in_process

pytestmark = pytest.mark.heavy

EPOCH = datetime(2026, 3, 1, tzinfo=UTC)
NOW = datetime(2026, 12, 1, tzinfo=UTC)
US = timedelta(microseconds=1)


@pytest.fixture(autouse=True)
def _quiet_aw_core() -> Iterator[None]:
    """aw-core logs a warning per batch for overlaps it cannot merge: expected here."""
    logging.disable(logging.WARNING)
    yield
    logging.disable(logging.NOTSET)


def _events(rng: random.Random, count: int, datas: list[str]) -> list[tuple[int, int, str]]:
    """Events as (start µs, duration µs, data): starts on whole milliseconds (as aw-server
    stores them), durations to the microsecond; gaps and overlaps around every
    threshold of the flood (0, 0.1 s, 5 s), equal and differing data."""
    t, out = 0, []
    for _ in range(count):
        duration = rng.choice([0, 1, 3, 50_000, 99_999, 100_000, 4_999_999, 5_000_000])
        duration = rng.choice([duration, rng.randrange(1, 20_000_000), rng.randrange(10**9)])
        out.append((t - t % 1_000, duration, rng.choice(datas)))
        step = rng.choice([-2_000_000, -100_001, -100_000, -99_999, -3, 0, 0, 1, 3, 60_000])
        step = rng.choice([step, 4_999_999, 5_000_000, 5_000_001, 90_000_000, -duration])
        t = max(0, t + duration + step)
    rng.shuffle(out)  # as read: the spill and aw-core each sort them their own way
    return out


def _aw_event(start: int, duration: int, data: Any) -> AwEvent:
    return AwEvent(timestamp=EPOCH + start * US, duration=duration * US, data=data)


def _micros(moment: datetime) -> int:
    return (moment - EPOCH) // US


@pytest.mark.parametrize("seed", range(40))
def test_flood_equals_aw_cores_flood_on_both_paths(seed: int) -> None:
    rng = random.Random(seed)
    datas = ['{"a":1}', '{"a":2}', '{"a":3}'][: rng.randint(1, 3)]
    events = _events(rng, rng.randrange(1, 400), datas)
    expected = [
        (_micros(e.timestamp), _micros(e.timestamp + e.duration), e.data["x"])
        for e in aw_flood([_aw_event(s, d, {"x": x}) for s, d, x in events])
    ]
    # The spill's order: (start, duration), ties in the order read (aw-core's sort is stable).
    rows = sorted((s, d, order, x) for order, (s, d, x) in enumerate(events))
    assert list(flood_rows(rows)) == expected
    assert [(e.start, e.end, e.data) for e in flood(Event(s, d, x) for s, d, _, x in rows)] == (
        expected
    )


def test_half_a_gap_rounds_as_timedelta_division_does() -> None:
    for gap in range(-2_001, 2_002):
        assert half(gap) == (gap * US / 2) // US, gap


def test_the_browser_pairing_is_aw_clients_own() -> None:
    assert {k: frozenset(v) for k, v in browser_appnames.items()} == aw_hosts.AW_BROWSER_APPS
    assert list(browser_appnames) == list(aw_hosts.AW_BROWSER_APPS)  # the first name found wins


# -- whole histories ----------------------------------------------------------------------------

WINDOWS = [
    {"app": "Code.exe", "title": "main.py — Visual Studio Code"},
    {"app": "WeChat.exe", "title": "微信"},
    {"app": "firefox.exe", "title": "YouTube — Mozilla Firefox"},
    {"app": "firefox.exe", "title": "知乎 — Mozilla Firefox"},
    {"app": "chrome.exe", "title": "Gmail - Google Chrome"},
    {"app": "Firefox", "title": "a Mac's Firefox"},
    {"app": "Brave-browser", "title": "Brave on Linux (aw pairs it with Chrome's bucket)"},
]
TABS = [
    {"url": "https://www.youtube.com/", "title": "YouTube", "audible": True, "incognito": False},
    {"url": "https://www.zhihu.com/", "title": "知乎", "audible": False, "incognito": False},
    {"url": "https://x.example/", "title": "private", "audible": True, "incognito": True},
]


def _history(seed: int) -> dict[str, Any]:
    rng = random.Random(seed)

    def bucket(kind: str, host: str, datas: list[Any], count: int) -> dict[str, Any]:
        texts = [aw_read.canonical(d) for d in datas]
        events = _events(rng, count, texts)
        return {
            "type": kind,
            "hostname": host,
            "events": [
                {
                    "timestamp": (EPOCH + s * US).isoformat(),
                    "duration": d / 1e6,
                    "data": datas[texts.index(x)],
                }
                for s, d, x in events
            ],
        }

    afk = [{"status": "not-afk"}, {"status": "afk"}]
    return {
        "aw-watcher-window_pc": bucket("currentwindow", "pc", WINDOWS, rng.randrange(20, 300)),
        "aw-watcher-afk_pc": bucket("afkstatus", "pc", afk, rng.randrange(5, 60)),
        "aw-watcher-web-firefox": bucket("web.tab.current", "unknown", TABS, rng.randrange(60)),
        "aw-watcher-web-chrome": bucket("web.tab.current", "unknown", TABS, rng.randrange(60)),
    }


@pytest.fixture(scope="module")
def rules() -> Rules:
    return load_rules(user_file=None)


def _timetrace_seconds(buckets: dict[str, Any], rules: Rules, *, fast: bool) -> dict[str, float]:
    with EventSpill() as spill:
        reader = aw_read.Reader(spill, None, None)
        for bucket_id, bucket in buckets.items():
            made = reader.bucket(bucket_id)
            reader.describe(made, {**bucket, "id": bucket_id})
            # Newest first, as aw-server lists them in an export and to its own queries
            # (sorted oldest first, then reversed: events starting together come in
            # reverse order; flooding sorts them back stably, so that order matters).
            for event in sorted(bucket["events"], key=_start)[::-1]:
                reader.event(made, event, lambda: 0)
        (host,) = aw_hosts.group_hosts(reader.buckets)
        seconds: dict[str, float] = {}
        if fast:
            for start, end, window, active, _, _ in aw_hosts._host_streams(
                host, spill, rules=rules, audible_is_active=True
            ):
                if active:
                    app = aw_hosts.event_data(window)["app"]
                    seconds[app] = seconds.get(app, 0.0) + (end - start) / 1e6
        else:
            for record in aw_hosts.host_records(
                host, spill, rules=rules, now=NOW, audible_is_active=True
            ):
                if not record.is_idle:
                    span = (record.ts_end - record.ts_start).total_seconds()
                    seconds[record.app] = seconds.get(record.app, 0.0) + span
        return seconds


def _start(event: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(event["timestamp"])


@pytest.mark.parametrize("seed", range(60))
def test_active_seconds_per_app_equal_aw_cores_canonical_query(seed: int, rules: Rules) -> None:
    buckets = _history(seed)
    expected = canonical_app_seconds_in_process(
        buckets,
        window="aw-watcher-window_pc",
        afk="aw-watcher-afk_pc",
        browsers=["aw-watcher-web-firefox", "aw-watcher-web-chrome"],
        start=EPOCH - timedelta(days=1),
        end=EPOCH + timedelta(days=60),
    )
    assert expected
    for fast in (False, True):
        got = _timetrace_seconds(buckets, rules, fast=fast)
        assert got == pytest.approx(expected, abs=1e-6), fast
