"""The duration rule lives once, in `timetrace_spans_v1` (migration 0032): a record runs
from its start to the earlier of its own end and the next record's start on its device
(ties by key, in code-point order); with no end, to the next start capped at the idle
gap. Here the function is held to that rule written in Python, record by record, on the
golden day, over windows that cut the day where the last record's successor lies past
the window's end."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from app.runtime.services import Services
from tests.helpers import load_golden

SHANGHAI = "+08:00"


def _at(clock: str, day: str = "2003-03-12") -> datetime:
    return datetime.fromisoformat(f"{day}T{clock}{SHANGHAI}")


def python_spans(golden: dict[str, Any], *, idle_gap_s: float) -> dict[str, float]:
    """Each record's seconds by the duration rule, from the fixture's own records."""
    out: dict[str, float] = {}
    gap = timedelta(seconds=idle_gap_s)
    for records in golden["records"].values():
        timeline = sorted(
            (
                datetime.fromisoformat(r["ts_start"]),
                r["client_record_id"].encode(),  # code-point order, as COLLATE "C"
                datetime.fromisoformat(r["ts_end"]) if "ts_end" in r else None,
            )
            for r in records
        )
        for (start, key, end), after in itertools.zip_longest(timeline, timeline[1:]):
            until = end if end is not None else start + gap  # the golden day is long past
            if after is not None:
                until = min(until, after[0])
            out[key.decode()] = max(0.0, (until - start).total_seconds())
    return out


def _spans(conn: Any, user_id: int, lo: datetime, hi: datetime, device: str | None = None) -> Any:
    rows = conn.execute(
        "SELECT client_record_id, device_id, ts_start, day_local, category, span_end, seconds "
        "FROM timetrace_spans_v1(%(user)s, %(lo)s, %(hi)s) "
        "WHERE %(device)s::text IS NULL OR device_id = %(device)s::text",
        {"user": user_id, "lo": lo, "hi": hi, "device": device},
    ).fetchall()
    return {r["client_record_id"]: r for r in rows}


def test_the_function_gives_every_golden_record_its_seconds_by_the_rule(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    api = load_golden(services, golden_day)
    expected = python_spans(golden_day, idle_gap_s=services.settings.idle_gap_s)
    forever = datetime(1990, 1, 1, tzinfo=UTC), datetime(2090, 1, 1, tzinfo=UTC)
    spans = _spans(conn, api.user.user_id, *forever)
    assert {k: r["seconds"] for k, r in spans.items()} == expected
    for r in spans.values():  # the effective end is the start plus the seconds, exactly
        assert r["span_end"] == r["ts_start"] + timedelta(seconds=r["seconds"])
    # Summed by day and category: the fixture's hand count.
    by_category: dict[tuple[str, str], float] = {}
    for r in spans.values():
        key = (r["day_local"].isoformat(), r["category"])
        by_category[key] = by_category.get(key, 0.0) + r["seconds"]
    assert by_category == {
        (day, category): seconds
        for day, per_category in golden_day["expected_seconds"].items()
        for category, seconds in per_category.items()
    }


@pytest.mark.parametrize(
    ("lo", "hi", "device"),
    [
        # The laptop's g01 (to 09:13) is cut by g02 at 09:10, which lies past the window.
        (_at("08:00"), _at("09:10"), None),
        # The phone's point events: the last one in the window runs to the next, outside it.
        (_at("12:10"), _at("12:12"), "phone"),
        # g19 (20:00-21:45) is cut by g20 at 21:30, where the window ends.
        (_at("19:00"), _at("21:30"), "desktop"),
        (_at("12:00"), _at("04:00", "2003-03-13"), None),
    ],
)
def test_a_window_cut_anywhere_gives_its_records_the_same_seconds(
    services: Services,
    golden_day: dict[str, Any],
    conn: Any,
    lo: datetime,
    hi: datetime,
    device: str | None,
) -> None:
    api = load_golden(services, golden_day)
    expected = python_spans(golden_day, idle_gap_s=services.settings.idle_gap_s)
    window = _spans(conn, api.user.user_id, lo, hi, device)
    assert window  # each window holds records
    assert all(lo <= r["ts_start"] < hi for r in window.values())
    assert all(device in (None, r["device_id"]) for r in window.values())
    assert {k: r["seconds"] for k, r in window.items()} == {k: expected[k] for k in window}


def test_the_psql_view_reads_the_same_spans(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    api = load_golden(services, golden_day)
    expected = python_spans(golden_day, idle_gap_s=services.settings.idle_gap_s)
    rows = conn.execute(
        "SELECT client_record_id, duration_s FROM v_record_durations WHERE user_id = %s",
        [api.user.user_id],
    ).fetchall()
    assert {r["client_record_id"]: r["duration_s"] for r in rows} == expected
    assert date(2003, 3, 12) in {
        r["day_local"] for r in conn.execute("SELECT day_local FROM v_day_category_hours")
    }
