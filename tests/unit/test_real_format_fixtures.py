"""Every real-format fixture the repository holds (ActivityWatch exports of both servers,
the scripted Windows day, the Windows day with no browser extension) is at most a
quarter uncategorized by active time with the default rules alone, each and all
together, measured through the importer's own conversion (tests/real_format.py); so is
the hand-checked golden day, sent to the HTTP ingest."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from app.rules.categories import Rules, load_rules
from tests.aw_day import AFK_BUCKET, CHROME_BUCKET, DAY_START, FIREFOX_BUCKET, WINDOW_BUCKET
from tests.aw_real import canonical_app_seconds_in_process
from tests.real_format import (
    FIXTURES,
    WINDOWS_DAY_START,
    Share,
    category_share,
    fixture_exports,
    fixture_shares,
    golden_day_share,
    pooled,
)

LIMIT = 0.25
NAMES = ["activitywatch/array_form", "activitywatch/python_server", "activitywatch/rust_server"]
# Common apps and sites, not one person's: Windows executables, macOS app names, Linux
# WM_CLASS names, browser titles without URLs, screenpipe-style app names.
NAMES += [
    "activitywatch/browser_titles",
    "activitywatch/linux_wmclass",
    "activitywatch/macos_apps",
    "activitywatch/screenpipe_names",
    "activitywatch/windows_apps",
]
NAMES += ["aw_day", "windows_day"]


@pytest.fixture(scope="module")
def shares() -> dict[str, Share]:
    return fixture_shares(load_rules(user_file=None))


@pytest.fixture(autouse=True)
def _quiet_aw_core() -> Iterator[None]:
    """aw-core logs a warning for overlaps its query cannot merge: expected here."""
    logging.disable(logging.WARNING)
    yield
    logging.disable(logging.NOTSET)


def test_every_export_fixture_is_measured() -> None:
    on_disk = {f"activitywatch/{p.stem}" for p in FIXTURES.glob("*.json")}
    assert on_disk and on_disk <= set(fixture_exports())
    assert set(fixture_exports()) == set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_a_fixture_is_at_most_a_quarter_uncategorized(name: str, shares: dict[str, Share]) -> None:
    share = shares[name]
    assert share.active > 900, share.seconds  # a quarter of an hour at least
    assert share.share <= LIMIT, (name, round(share.share, 4), share.left[:5])


def test_the_golden_day_is_at_most_a_quarter_uncategorized(golden_day: dict[str, Any]) -> None:
    """Its hand-checked seconds (the product is held to them in tests/db): a Mac, a
    desktop and a phone; what is left is a password manager, a PDF and a private tab."""
    share = golden_day_share()
    metrics = golden_day["expected_day_metrics"]
    day = golden_day["expected_seconds"]["2003-03-12"]
    assert sum(day.values()) - metrics["idle_seconds"] == metrics["active_seconds"]
    assert share.uncategorized == 1890 and share.active > 9 * 3600
    assert share.share <= LIMIT, round(share.share, 4)


def test_all_fixtures_together_are_at_most_a_quarter_uncategorized(
    shares: dict[str, Share],
) -> None:
    every = {**shares, "golden_day": golden_day_share()}
    together = pooled(every)
    assert together.active == pytest.approx(sum(s.active for s in every.values()))
    assert together.share <= LIMIT, round(together.share, 4)


def test_what_is_left_is_what_no_name_tells(shares: dict[str, Share]) -> None:
    """The largest uncategorized windows are a private window (no title kept), shopping,
    news, a local text file: nothing a default rule could rightly say."""
    left = {(app, title) for share in shares.values() for app, title, _, _ in share.left}
    assert ("Firefox", "") in left  # Firefox's private window
    assert ("Notepad", "notes.txt - Notepad") in left
    assert ("Google Chrome", "Hacker News - Google Chrome") in left


def test_the_measure_counts_uncategorized_time(tmp_path: Path) -> None:
    """With no category rule every active second is uncategorized; with a user's rule
    for every app, none is — the measure can fail either way."""
    export = fixture_exports()["windows_day"]
    defaults = load_rules(user_file=None)
    nothing = Rules(categories=[], excludes=[], apps=defaults.apps)
    assert category_share(export, nothing).share == pytest.approx(1.0)
    rules_file = tmp_path / "rules.toml"
    rules_file.write_text('[[category]]\nname = "all"\ncategory = "work"\napp = ".*"\n')
    assert category_share(export, load_rules(user_file=rules_file)).share == 0.0
    assert category_share(export, defaults).share == pytest.approx(
        fixture_shares(defaults)["windows_day"].share
    )


@pytest.mark.parametrize(
    ("name", "window", "afk", "browsers", "start"),
    [
        ("aw_day", WINDOW_BUCKET, AFK_BUCKET, [FIREFOX_BUCKET, CHROME_BUCKET], DAY_START),
        (
            "windows_day",
            "aw-watcher-window_DESKTOP-WIN11",
            "aw-watcher-afk_DESKTOP-WIN11",
            [],
            WINDOWS_DAY_START,
        ),
    ],
)
def test_the_built_exports_active_time_is_aw_cores_own(
    name: str,
    window: str,
    afk: str,
    browsers: list[str],
    start: datetime,
    shares: dict[str, Share],
) -> None:
    """The exports built from the scripted day and the TSV day have the active time
    aw-core's query engine gives them (aw-webui's canonical query), so the share is
    of the time ActivityWatch itself counts."""
    buckets = json.loads(fixture_exports()[name])["buckets"]
    expected = canonical_app_seconds_in_process(
        buckets,
        window=window,
        afk=afk,
        browsers=browsers,
        start=start - timedelta(days=1),
        end=start + timedelta(days=2),
    )
    assert shares[name].active == pytest.approx(sum(expected.values()), abs=1e-3)
