"""Records through the real ingest path equal hand-checked and generated truth."""

from __future__ import annotations

from collections import Counter
from datetime import date
from typing import Any

from app.demo.sample import generate_sample
from app.runtime.services import Services
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
