"""The importers' spill gives each bucket's events back by start time and duration (as
aw-core's flood sorts them), ties in the order they came, whether they arrived newest
first (an export), shuffled across many runs, or with buckets interleaved."""

from __future__ import annotations

import random

import pytest

from app.importers.spill import EventSpill, canonical


def _events(count: int, *, seed: int) -> list[tuple[int, int, dict[str, object]]]:
    rng = random.Random(seed)
    # Few distinct starts and durations, so that many events tie and their order added
    # must hold.
    return [
        (rng.randrange(0, count // 3) * 1_000_000, rng.randrange(1, 4), {"n": i, "t": "标题"})
        for i in range(count)
    ]


@pytest.mark.parametrize("order", ["newest first", "shuffled", "oldest first"])
def test_events_come_back_by_start_and_duration_with_ties_in_the_order_added(order: str) -> None:
    events = _events(5_000, seed=3)
    if order == "newest first":
        events.sort(key=lambda e: -e[0])
    elif order == "oldest first":
        events.sort(key=lambda e: e[0])
    other = _events(700, seed=4)
    with EventSpill(run=600) as spill:  # many runs of each bucket, both buckets interleaved
        for index, (start, duration, data) in enumerate(events):
            spill.add(bucket=1, start=start, duration=duration, data=data)
            if index < len(other):
                spill.add(bucket=2, start=other[index][0], duration=1, data=other[index][2])
        assert spill.count == len(events) + len(other)
        got = [(e.start, e.duration, e.data) for e in spill.events(bucket=1)]
        assert [e.start for e in spill.events(bucket=2)] == sorted(s for s, _, _ in other)
        assert list(spill.events(bucket=3)) == []
    expected = sorted(enumerate(events), key=lambda pair: (pair[1][0], pair[1][1], pair[0]))
    assert got == [(start, duration, canonical(data)) for _, (start, duration, data) in expected]


def test_canonical_data_is_the_same_text_for_equal_data_and_survives_odd_values() -> None:
    assert canonical({"b": 1, "a": "x"}) == canonical({"a": "x", "b": 1}) == '{"a":"x","b":1}'
    # What the fast encoder refuses falls back to the standard one, with the same shape.
    assert canonical({"n": 2**70, "s": "\ud800"}) == '{"n":1180591620717411303424,"s":"\ud800"}'
