"""The batch build's pure parts: active intervals of a device's timeline, and the
device-overlap sweep over them (held to the SQL sweep by tests/db/test_batch_build.py)."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime

from app.pyramid.batch import active_intervals, join_intervals, micros, overlap_seconds
from app.store.batch import StreamRecord

DAY = date(2001, 5, 7)


def record(ts: float, duration: float, *, idle: bool = False) -> StreamRecord:
    return StreamRecord.model_construct(
        record_id=1,
        key=f"k{ts}",
        ts=ts,
        duration=duration,
        app="Code",
        title="",
        domain=None,
        category="work",
        is_idle=idle,
        day=DAY,
        ts_start=datetime.fromtimestamp(ts, UTC),
        cluster="code",
        text="",
        unbuilt=True,
    )


def test_touching_spans_merge_and_idle_ones_do_not_count() -> None:
    records = [record(100, 10), record(110, 5), record(115, 5, idle=True), record(130, 1.5)]
    assert active_intervals(records) == [(100_000_000, 115_000_000), (130_000_000, 131_500_000)]


def test_a_later_read_joins_the_interval_it_continues() -> None:
    assert join_intervals([(0, 10)], [(10, 20), (30, 40)]) == [(0, 20), (30, 40)]
    assert join_intervals([(0, 10)], [(11, 20)]) == [(0, 10), (11, 20)]


def test_the_sweep_counts_seconds_on_two_devices_or_more_within_the_period() -> None:
    laptop = [(0, 10_000_000), (20_000_000, 30_000_000)]
    phone = [(5_000_000, 25_000_000)]
    tablet = [(29_000_000, 40_000_000)]
    # 5-10 and 20-25 laptop+phone, 29-30 laptop+tablet; clipped to [8 s, 40 s).
    assert overlap_seconds([laptop, phone, tablet], ts_from=8_000_000, ts_to=40_000_000) == 8.0
    assert overlap_seconds([laptop], ts_from=0, ts_to=40_000_000) == 0.0


def test_the_sweep_equals_counting_every_microsecond() -> None:
    rng = random.Random(7)
    devices = []
    for _ in range(3):
        spans, at = [], 0
        while at < 2_000:
            start = at + rng.randrange(0, 40)
            end = start + rng.randrange(1, 60)
            spans.append((start, end))
            at = end
        devices.append(spans)
    covered = [0] * 2_200
    for spans in devices:
        for start, end in spans:
            for t in range(start, end):
                covered[t] += 1
    want = sum(1 for t in range(300, 1_700) if covered[t] >= 2)
    assert overlap_seconds(devices, ts_from=300, ts_to=1_700) * 1_000_000 == want


def test_micros_is_exact() -> None:
    when = datetime(2001, 5, 7, 3, 59, 59, 999_999, tzinfo=UTC)
    assert micros(when) == round(when.timestamp() * 1_000_000)
