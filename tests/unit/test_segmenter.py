"""segment_records(): the boundary rules, and properties over random streams."""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.pyramid.segmenter import SegmentInput, SegmentParams, segment_records

DAY = date(2003, 3, 12)
P = SegmentParams()
FAR = 10**10  # a horizon long after the data: everything can close


def stream(*spec: tuple[str, float] | tuple[str, float, float]) -> list[SegmentInput]:
    """Back-to-back records from (category, seconds[, gap before]) triples."""
    out = []
    t = 1_000_000.0
    for i, item in enumerate(spec):
        category, seconds = item[0], item[1]
        t += item[2] if len(item) == 3 else 0  # type: ignore[misc]
        out.append(
            SegmentInput(
                record_id=i + 1,
                ts=t,
                duration=seconds,
                app=f"{category}-app",
                title="",
                domain=None,
                category="system" if category == "idle" else category,
                is_idle=category == "idle",
                day=DAY,
            )
        )
        t += seconds
    return out


def sizes(records: list[SegmentInput], **kw: object) -> list[int]:
    result = segment_records(records, params=SegmentParams(**kw), now=FAR)  # type: ignore[arg-type]
    assert result.open_from is None
    return [len(s.members) for s in result.closed]


def test_short_gaps_and_alt_tabs_do_not_split() -> None:
    records = stream(("work", 600), ("social", 2), ("work", 600, 200), ("work", 600, 290))
    assert sizes(records) == [4]


def test_a_gap_longer_than_the_idle_gap_splits() -> None:
    assert sizes(stream(("work", 600), ("work", 600, 301))) == [1, 1]


def test_the_cap_splits_on_a_members_end_but_keeps_a_long_record_whole() -> None:
    assert sizes(stream(*[("work", 600)] * 7)) == [6, 1]
    assert sizes(stream(("work", 5000), ("work", 60))) == [1, 1]


def test_a_long_idle_run_is_its_own_system_segment() -> None:
    result = segment_records(stream(("work", 600), ("idle", 200), ("work", 600)), params=P, now=FAR)
    assert [(s.kind, s.category, len(s.members)) for s in result.closed] == [
        ("active", "work", 1),
        ("idle", "system", 1),
        ("active", "work", 1),
    ]


def test_a_short_idle_blip_stays_inside() -> None:
    assert sizes(stream(("work", 600), ("idle", 60), ("work", 600))) == [3]


def test_short_entertainment_inside_work_is_an_interruption() -> None:
    result = segment_records(
        stream(("work", 600), ("entertainment", 120), ("entertainment", 100), ("work", 600)),
        params=P,
        now=FAR,
    )
    assert len(result.closed) == 1
    only = result.closed[0]
    assert only.category == "work" and only.interruptions == [(1, 3)]


def test_entertainment_of_five_minutes_or_more_splits() -> None:
    assert sizes(stream(("work", 600), ("entertainment", 300), ("work", 600))) == [1, 1, 1]


def test_a_switch_that_comes_back_within_the_debounce_is_no_boundary() -> None:
    assert sizes(stream(("work", 600), ("social", 100), ("work", 600))) == [3]
    assert sizes(stream(("work", 600), ("social", 130), ("work", 600))) == [1, 1, 1]


def test_a_young_segment_is_not_closed_by_a_switch() -> None:
    # 30 s of chat, then an hour of work: one sitting, and work is its category.
    result = segment_records(stream(("social", 30), ("work", 1800)), params=P, now=FAR)
    assert [len(s.members) for s in result.closed] == [2]
    assert result.closed[0].category == "work"


def test_a_new_logical_day_splits() -> None:
    records = stream(("work", 60), ("work", 60))
    records[1] = records[1].model_copy(update={"day": date(2003, 3, 13)})
    assert sizes(records) == [1, 1]


def test_the_tail_stays_open_until_time_passes_it() -> None:
    records = stream(("work", 600), ("work", 600, 400), ("work", 60))
    end = records[-1].end
    early = segment_records(records, params=P, now=end + 10)
    assert len(early.closed) == 1 and early.open_from == 1
    late = segment_records(records, params=P, now=end + 301)
    assert len(late.closed) == 2 and late.open_from is None


def test_an_undecided_switch_keeps_the_segment_open() -> None:
    records = stream(("work", 600), ("social", 60))
    now = records[-1].end + 5
    result = segment_records(records, params=P, now=now)
    assert result.closed == [] and result.open_from == 0


def test_drift_splits_only_when_enabled() -> None:
    vectors = [[1.0, 0.0], [0.99, 0.01], [1.0, 0.0], [1.0, 0.0]] + [[0.0, 1.0]] * 4
    records = [
        r.model_copy(update={"embedding": v})
        for r, v in zip(stream(*[("work", 60)] * 8), vectors, strict=True)
    ]
    assert sizes(records) == [8]
    assert sizes(records, drift_enabled=True) == [4, 4]


def test_records_out_of_order_are_refused() -> None:
    records = stream(("work", 60), ("work", 60))
    try:
        segment_records(list(reversed(records)), params=P, now=FAR)
    except ValueError as exc:
        assert "time order" in str(exc)
    else:
        raise AssertionError("expected a ValueError")


CATEGORIES = st.sampled_from(["work", "study", "social", "entertainment", "uncategorized", "idle"])
STREAMS = st.lists(
    st.tuples(CATEGORIES, st.floats(0, 4_000), st.sampled_from([0, 0, 0, 1, 30, 299, 301, 5000])),
    min_size=1,
    max_size=120,
)


@pytest.mark.heavy
@settings(max_examples=300, deadline=None)
@given(STREAMS, st.floats(0, 20_000))
def test_properties_of_any_stream(spec: list[tuple[str, float, float]], after: float) -> None:
    records = stream(*spec)
    now = records[-1].end + after
    result = segment_records(records, params=P, now=now)
    members = [m for s in result.closed for m in s.members]
    tail = records[result.open_from :] if result.open_from is not None else []
    # Every record in exactly one place, order kept.
    assert [m.record_id for m in members + tail] == [r.record_id for r in records]
    for s in result.closed:
        ids = [m.record_id for m in s.members]
        assert ids == sorted(ids) and ids
        # No segment over the cap, unless it is one record longer than the cap.
        assert len(s.members) == 1 or s.ts_end - s.ts_start <= P.max_episode_s
        assert all(0 <= a < b <= len(s.members) for a, b in s.interruptions)
    # Durations add up.
    assert sum(m.duration for m in members + tail) == sum(r.duration for r in records)
    # Once time has passed the idle gap after the data, nothing stays open.
    if after > P.idle_gap_s + P.interruption_max_s:
        assert result.open_from is None
