"""The sample generator: deterministic, holding what the demo promises, and agreeing with
the default rules on every record."""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import date

import pytest

from app.demo.sample import generate_sample
from app.rules.categories import load_rules
from app.text import canonical_domain


def test_sample_generator_is_deterministic() -> None:
    a = generate_sample(start=date(2003, 3, 3), days=3, seed=11)
    b = generate_sample(start=date(2003, 3, 3), days=3, seed=11)
    c = generate_sample(start=date(2003, 3, 3), days=3, seed=12)
    assert a.records == b.records and a.seconds == b.seconds
    assert a.records != c.records


@pytest.mark.heavy
def test_sample_month_has_what_the_issue_asks_for() -> None:
    data = generate_sample(start=date(2003, 3, 3), days=35)
    apps = {r.app for r in data.records}
    canonical = load_rules(user_file=None).apps.canonical
    assert {"微信", "抖音", "Visual Studio Code", "iTerm2", "Slack"} <= {canonical(a) for a in apps}
    # Each device names apps the way its platform's capture tools do (from the corpus).
    assert {"Code", "Google Chrome", "zoom.us"} <= {
        r.app for r in data.records if r.device_id == "laptop"
    }
    assert {"chrome.exe", "firefox.exe", "steam.exe", "LockApp.exe"} <= {
        r.app for r in data.records if r.device_id == "desktop"
    }
    assert {"com.ss.android.ugc.aweme", "com.tencent.mm"} <= {
        r.app for r in data.records if r.device_id == "phone"
    }
    firefox = [r for r in data.records if r.app == "firefox.exe"]
    assert firefox and all(r.url is None and "Mozilla Firefox" in r.window_title for r in firefox)
    assert any(r.window_title.endswith("Private Browsing") and not r.incognito for r in firefox)
    assert {r.device_id for r in data.records} == {"laptop", "desktop", "phone"}
    assert {p.kind for p in data.rework} == {"forced_rollback", "undo_storm", "error_retry"}
    assert len(data.late_nights) >= 3
    assert data.interruptions and all(seconds < 300 for _, _, seconds in data.interruptions)
    assert any(r.is_idle for r in data.records)
    titles = " ".join(r.window_title for r in data.records)
    assert "git reset --hard" in titles and "git revert" in titles
    assert set(Counter(category for _, category in data.seconds)) == {
        "work",
        "study",
        "social",
        "entertainment",
        "system",
        "uncategorized",
    }
    # A share of intervals end after the next record of their device starts (5-120 s).
    ends = [r for r in data.records if r.ts_end is not None]
    assert 0.02 < len(data.overlaps) / len(ends) < 0.08
    for rec, nxt in itertools.pairwise(data.records):
        if rec.client_record_id in data.overlaps:
            assert nxt.device_id == rec.device_id and rec.ts_end is not None
            past = (rec.ts_end - nxt.ts_start).total_seconds()
            assert past == data.overlaps[rec.client_record_id] and 5 <= past <= 120
    # Sittings are the planted episode boundaries: ordered and non-overlapping per device.
    for device in ("laptop", "desktop", "phone"):
        spans = sorted((s.start, s.end) for s in data.sittings if s.device_id == device)
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in itertools.pairwise(spans))


def test_the_generator_and_the_default_rules_agree_on_every_record() -> None:
    rules = load_rules(user_file=None)
    data = generate_sample(start=date(2003, 3, 3), days=14)
    wrong = [
        (r.app, r.window_title, r.category)
        for r in data.records
        if rules.classify(
            app=r.app,
            title=r.window_title,
            domain=canonical_domain(r.url),
            idle=r.is_idle,
            incognito=r.incognito,
        ).category
        != r.category
    ]
    assert wrong == []
