"""Where a pass of the door's live conversion starts flooding a bucket: the start of
its run of neighbours within 5 s (`app/awdoor/live.py` `chain_start`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.awdoor.live import chain_start
from app.store.awdoor import AwSpanIdRow

T0 = datetime(2003, 3, 4, 9, 0, tzinfo=UTC)


def _rows(*spans: tuple[float, float]) -> list[AwSpanIdRow]:
    """(start s, duration s) in time order, as the store reads them: newest first."""
    rows = [
        AwSpanIdRow(
            bucket_id="b",
            ts=T0 + timedelta(seconds=at),
            duration_us=round(duration * 1_000_000),
            data="{}",
            event_id=i,
        )
        for i, (at, duration) in enumerate(spans)
    ]
    return rows[::-1]


def test_a_run_starts_after_the_last_gap_over_five_seconds() -> None:
    rows = _rows((0, 10), (15.001, 3), (19, 2), (25.999, 1), (27, 4))
    assert chain_start(rows) == T0 + timedelta(seconds=15.001)


def test_a_gap_of_exactly_five_seconds_still_floods() -> None:
    rows = _rows((0, 10), (15, 3), (20, 1))
    assert chain_start(rows) == T0


def test_a_long_earlier_event_keeps_the_run_going_past_a_short_one() -> None:
    # The second event ends at 2 s, but the first reaches to 60 s: 62 s is within 5 s.
    rows = _rows((0, 60), (1, 1), (62, 1))
    assert chain_start(rows) == T0


def test_no_rows_no_start() -> None:
    assert chain_start([]) is None
