"""Records through the real ingest path equal hand-checked and generated truth."""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import date
from typing import Any

from app.demo.sample import generate_sample
from app.rules.categories import load_rules
from app.runtime.services import Services
from app.text import canonical_domain
from tests.helpers import load_golden, make_api


def test_golden_day_hours_per_category_match_the_hand_count(
    services: Services, golden_day: dict[str, Any]
) -> None:
    api = load_golden(services, golden_day)
    live = services.store.day_category_seconds(
        user_id=api.user.user_id, day_from=date(2003, 3, 11), day_to=date(2003, 3, 14)
    )
    expected = {
        (date.fromisoformat(day), category): seconds
        for day, by_category in golden_day["expected_seconds"].items()
        for category, seconds in by_category.items()
    }
    assert {(r.day_local, r.category): r.seconds for r in live} == expected


def test_golden_day_ingest_says_how_many_seconds_its_overlaps_cut(
    services: Services, golden_day: dict[str, Any]
) -> None:
    api = make_api(services, time_zone=golden_day["time_zone"])
    clipped = {
        device_id: api.ingest(device_id, records).json()["clipped_s"]
        for device_id, records in golden_day["records"].items()
    }
    assert clipped == {k: v for k, v in golden_day["expected_clipped_s"].items() if k != "why"}


def test_golden_day_redacts_what_the_fixture_says(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    load_golden(services, golden_day)
    redacted = [
        r["client_record_id"]
        for r in conn.execute("SELECT client_record_id FROM records WHERE redacted ORDER BY 1")
    ]
    assert redacted == golden_day["expected_redacted"]


def test_sample_generator_is_deterministic() -> None:
    a = generate_sample(start=date(2003, 3, 3), days=3, seed=11)
    b = generate_sample(start=date(2003, 3, 3), days=3, seed=11)
    c = generate_sample(start=date(2003, 3, 3), days=3, seed=12)
    assert a.records == b.records and a.seconds == b.seconds
    assert a.records != c.records


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


def test_sample_fortnight_through_http_equals_ground_truth(services: Services) -> None:
    data = generate_sample(start=date(2003, 3, 3), days=14, seed=3)
    api = make_api(services, time_zone=data.time_zone)
    sent = Counter[str]()
    for body in data.batches(size=2_000):
        reply = api.post("/api/v1/records", body)
        assert reply.status_code == 200, reply.text
        sent.update(reply.json())
    assert sent["new"] == len(data.records) and sent["excluded"] == 0
    # Each planted overlap is clipped once, in the batch that holds its later record.
    assert data.overlaps and sent["clipped_s"] == sum(data.overlaps.values())
    live = services.store.day_category_seconds(
        user_id=api.user.user_id, day_from=data.days[0], day_to=data.days[-1]
    )
    assert {(r.day_local, r.category): round(r.seconds) for r in live} == data.seconds
