"""The day timeline's pure parts: the window an address asks for (across midnight and
the cut hour), the zoom steps, and runs of records placed by the duration rule."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

import pytest

from app.store.accounts import UserContext
from app.store.episodes import EpisodeLine
from app.store.web import WindowRecord
from app.timeutil import zone
from app.web.i18n import Translator
from app.web.timeline import ZOOM_SPANS_S, _record_blocks, day_window, zoom

USER = UserContext(user_id=1, name="me", time_zone="Asia/Shanghai", day_cut_hour=4)
DAY = date(2003, 3, 5)
TZ = zone(USER.time_zone)


def _at(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=TZ).astimezone(UTC)


def test_a_window_past_midnight_belongs_to_the_logical_day() -> None:
    w = day_window(DAY, user=USER, start="23:30", end="01:00")
    assert (w.lo, w.hi, w.whole) == (_at(DAY, 23, 30), _at(DAY + timedelta(days=1), 1), False)
    # The cut hour is the day's start as a start and its end as an end.
    whole = day_window(DAY, user=USER, start="04:00", end="04:00")
    assert (whole.lo, whole.hi) == (_at(DAY, 4), _at(DAY + timedelta(days=1), 4))
    assert whole.seconds == 86400 and whole.level == "episodes"
    # ISO instants (the script's requests) are taken as they are, inside the day.
    w = day_window(DAY, user=USER, start=_at(DAY, 10).isoformat(), end="2003-03-05T02:30:00Z")
    assert (w.lo, w.hi, w.level) == (_at(DAY, 10), _at(DAY, 10, 30), "records")


@pytest.mark.parametrize(
    ("start", "end"), [("10:00", "10:04"), ("11:00", "10:00"), ("25:00", "26:00"), (None, "10:00")]
)
def test_a_window_that_is_no_window_is_the_whole_day(start: str | None, end: str) -> None:
    assert day_window(DAY, user=USER, start=start, end=end).whole


def test_zoom_steps_halve_around_the_middle_and_widen_back_to_the_whole_day() -> None:
    whole = day_window(DAY, user=USER, start="08:00", end="23:00")
    whole = replace(whole, whole=True)  # as the day's span of activity
    queries = []
    window = whole
    for _ in range(len(ZOOM_SPANS_S) + 1):
        query = zoom(window, whole, steps=1, tz=TZ)
        queries.append(query)
        start, end = (part.split("=")[1] for part in query.split("&"))
        window = day_window(DAY, user=USER, start=start, end=end)
    assert queries[:3] == ["from=09:30&to=21:30", "from=11:30&to=19:30", "from=13:30&to=17:30"]
    assert queries[-2:] == ["from=15:27&to=15:32", "from=15:27&to=15:32"]  # 5 min is the floor
    assert (
        zoom(day_window(DAY, user=USER, start="09:30", end="21:30"), whole, steps=-1, tz=TZ) == ""
    )


def test_runs_of_records_merge_alike_neighbours_and_end_by_the_duration_rule() -> None:
    def record(n: int, minute: int, app: str, end: int | None = None) -> WindowRecord:
        return WindowRecord(
            record_id=n,
            device_id="laptop",
            ts_start=_at(DAY, 10, minute),
            ts_end=_at(DAY, 10, end) if end is not None else None,
            app=app,
            window_title="t",
            category="work",
            is_idle=False,
        )

    rows = [record(1, 0, "A"), record(2, 1, "A"), record(3, 2, "B", end=3), record(4, 20, "A")]
    window = day_window(DAY, user=USER, start="10:00", end="10:30")
    sitting = EpisodeLine(
        episode_id=7,
        device_id="laptop",
        ts_start=_at(DAY, 9, 50),
        ts_end=_at(DAY, 10, 25),
        category="work",
        category_source="records",
        title="t",
        summary=None,
        duration_s=2100,
        active_s=2100,
    )
    (blocks,) = _record_blocks(
        rows, window, TZ, Translator("en"), episodes=[sitting], idle_gap_s=300, selected=7
    ).values()
    assert [(b.key, b.start, b.end, b.minutes) for b in blocks] == [
        ("rec-1", "10:00", "10:02", 2),  # two records of A: one run to B's start
        ("rec-3", "10:02", "10:03", 1),  # B ends at its own end
        ("rec-4", "10:20", "10:25", 5),  # the last runs to the idle gap's cap
    ]
    assert blocks[0].x == 0 and blocks[0].width == pytest.approx(2 / 30 * 100, abs=0.001)
    assert all(b.selected for b in blocks)
