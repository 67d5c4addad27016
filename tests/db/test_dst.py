"""Daylight-saving time: logical days of 23 and 25 hours, from the clock rule through
ingest, the pyramid and query_stats.

With the day cut at 04:00, the night the clocks change (at 02:00 or 03:00 local) belongs
to the logical day *before* the calendar date of the change: in New York the logical day
2026-03-07 runs from 03-07 04:00 EST to 03-08 04:00 EDT (23 hours), and 2026-03-08 is a
day of 24 hours. Every instant below is worked out by hand, in UTC.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app.pyramid.build import backfill
from app.runtime.services import Services
from app.timeutil import day_bounds, logical_day, month_key, week_key
from app.tools import dispatch_json
from tests.helpers import Api, make_api

CUT = 4
STEP = timedelta(minutes=5)
HOUR = 3600


def utc(year: int, month: int, day: int, hour: int) -> datetime:
    return datetime(year, month, day, hour, tzinfo=UTC)


@dataclass(frozen=True)
class Day:
    zone: str
    day: date
    start: datetime  # the logical day's bounds in UTC
    end: datetime
    hours: int
    change: datetime | None = None  # when the clocks change inside it, in UTC


CHANGES = [
    # 02:00 EST -> 03:00 EDT on 03-08, inside the logical day that began 03-07 04:00 EST.
    Day(
        "America/New_York",
        date(2026, 3, 7),
        utc(2026, 3, 7, 9),
        utc(2026, 3, 8, 8),
        23,
        change=utc(2026, 3, 8, 7),
    ),
    # 02:00 EDT -> 01:00 EST on 11-01, inside the logical day that began 10-31 04:00 EDT.
    Day(
        "America/New_York",
        date(2026, 10, 31),
        utc(2026, 10, 31, 8),
        utc(2026, 11, 1, 9),
        25,
        change=utc(2026, 11, 1, 6),
    ),
    # 02:00 CET -> 03:00 CEST on 03-29.
    Day(
        "Europe/Berlin",
        date(2026, 3, 28),
        utc(2026, 3, 28, 3),
        utc(2026, 3, 29, 2),
        23,
        change=utc(2026, 3, 29, 1),
    ),
    # 03:00 CEST -> 02:00 CET on 10-25.
    Day(
        "Europe/Berlin",
        date(2026, 10, 24),
        utc(2026, 10, 24, 2),
        utc(2026, 10, 25, 3),
        25,
        change=utc(2026, 10, 25, 1),
    ),
]
# The calendar dates of the changes start after the change: ordinary 24-hour days.
CALENDAR_DATES = [
    Day("America/New_York", date(2026, 3, 8), utc(2026, 3, 8, 8), utc(2026, 3, 9, 8), 24),
    Day("America/New_York", date(2026, 11, 1), utc(2026, 11, 1, 9), utc(2026, 11, 2, 9), 24),
    Day("Europe/Berlin", date(2026, 3, 29), utc(2026, 3, 29, 2), utc(2026, 3, 30, 2), 24),
    Day("Europe/Berlin", date(2026, 10, 25), utc(2026, 10, 25, 3), utc(2026, 10, 26, 3), 24),
]


def _id(d: Day) -> str:
    return f"{d.zone.split('/')[1]}-{d.day}"


@pytest.mark.parametrize("d", CHANGES + CALENDAR_DATES, ids=_id)
def test_day_bounds_are_the_exact_instants_and_the_day_is_23_24_or_25_hours(d: Day) -> None:
    start, end = day_bounds(d.day, tz=ZoneInfo(d.zone), cut_hour=CUT)
    # Convert before comparing: datetimes sharing a tzinfo compare and subtract wall clocks.
    assert (start.astimezone(UTC), end.astimezone(UTC)) == (d.start, d.end)
    assert end.astimezone(UTC) - start.astimezone(UTC) == timedelta(hours=d.hours)
    tz = ZoneInfo(d.zone)
    assert logical_day(d.start, tz=tz, cut_hour=CUT) == d.day
    assert logical_day(d.end - timedelta(microseconds=1), tz=tz, cut_hour=CUT) == d.day
    assert logical_day(d.end, tz=tz, cut_hour=CUT) == d.day + timedelta(days=1)
    if d.change is not None:  # the clocks really do change inside the day, then
        assert d.start < d.change < d.end
        before, after = d.change - timedelta(seconds=1), d.change
        offsets = (before.astimezone(tz).utcoffset(), after.astimezone(tz).utcoffset())
        assert abs(offsets[1] - offsets[0]) == timedelta(hours=1)  # type: ignore[operator]


# -- three whole days over the API, the pyramid, query_stats ----------------------------------


def _asleep(ts: datetime, tz: ZoneInfo) -> bool:
    return ts.astimezone(tz).hour < 6  # locked screen from midnight to 06:00 local


def _records(d: Day) -> list[dict[str, Any]]:
    """A 5-minute record with an explicit end from the day before to the day after `d`."""
    tz = ZoneInfo(d.zone)
    out = []
    ts = d.start - timedelta(days=1)
    while ts < d.end + timedelta(days=1):
        idle = _asleep(ts, tz)
        out.append(
            {
                "client_record_id": f"r{len(out)}",
                "ts_start": ts.isoformat(),
                "ts_end": (ts + STEP).isoformat(),
                "app": "loginwindow" if idle else "Code",
                "window_title": "" if idle else f"dst_{ts.hour}.py — clocks",
                "is_idle": idle,
            }
        )
        ts += STEP
    return out


def _truth(d: Day) -> dict[date, dict[str, int]]:
    """Active and idle seconds of the day before, the day, and the day after, from the
    hand-written UTC bounds (the neighbours are ordinary 24-hour days)."""
    tz = ZoneInfo(d.zone)
    bounds = {
        d.day - timedelta(days=1): (d.start - timedelta(days=1), d.start),
        d.day: (d.start, d.end),
        d.day + timedelta(days=1): (d.end, d.end + timedelta(days=1)),
    }
    out: dict[date, dict[str, int]] = {}
    for day, (first, last) in bounds.items():
        starts = [first + i * STEP for i in range(int((last - first) / STEP))]
        idle = sum(int(STEP.total_seconds()) for ts in starts if _asleep(ts, tz))
        out[day] = {"active": int((last - first).total_seconds()) - idle, "idle": idle}
    return out


def _digest(conn: Any, grain: str, key: str) -> dict[str, Any]:
    row = conn.execute(
        "SELECT metrics, finalized, extract(epoch FROM period_end - period_start) AS length_s "
        "FROM digests WHERE grain = %s AND scope_key = %s",
        [grain, key],
    ).fetchone()
    assert row is not None, (grain, key)
    return dict(row)


def _seconds(metrics: dict[str, Any]) -> dict[str, float]:
    return {"active": metrics["active_seconds"], "idle": metrics["idle_seconds"]}


@pytest.fixture(params=CHANGES, ids=_id)
def dst_days(request: pytest.FixtureRequest, services: Services) -> tuple[Day, Api]:
    """The day with a change of clock and its neighbours, ingested over the API and built."""
    d: Day = request.param
    api = make_api(services, time_zone=d.zone, devices=("laptop",))
    reply = api.ingest("laptop", _records(d))
    assert reply.status_code == 200, reply.text
    backfill(services.store, now=d.end + timedelta(days=3), settings=services.settings)
    return d, api


def test_a_whole_dst_day_adds_up_in_the_day_week_and_month_digests(
    dst_days: tuple[Day, Api], conn: Any
) -> None:
    d, _ = dst_days
    truth = _truth(d)
    assert truth[d.day]["active"] + truth[d.day]["idle"] == d.hours * HOUR
    assert truth[d.day]["idle"] > 0 and truth[d.day]["active"] > 0

    # Day digests: every second of each logical day, split into active and idle.
    for day, want in truth.items():
        digest = _digest(conn, "day", day.isoformat())
        assert digest["finalized"], day
        assert _seconds(digest["metrics"]) == want, day
        assert digest["metrics"]["seconds_by_category"] == {
            "system": want["idle"],
            "work": want["active"],
        }, day
        assert digest["length_s"] == sum(want.values()), day
    assert _digest(conn, "day", d.day.isoformat())["length_s"] == d.hours * HOUR

    # Week and month digests are the sums of their days (the three days share a week; a
    # 25-hour day at the end of October has its next day in November).
    for grain, key_of in (("week", week_key), ("month", month_key)):
        for key in {key_of(day) for day in truth}:
            days = [day for day in truth if key_of(day) == key]
            want = {k: sum(truth[day][k] for day in days) for k in ("active", "idle")}
            assert _seconds(_digest(conn, grain, key)["metrics"]) == want, key


def test_query_stats_counts_every_second_of_a_dst_day(
    dst_days: tuple[Day, Api], services: Services
) -> None:
    d, api = dst_days
    truth = _truth(d)
    # Over HTTP: the same totals for the day, and for it with its neighbours.
    day_args = {"period": "custom", "date_from": str(d.day), "date_to": str(d.day)}
    by_category = api.post("/api/v1/tools/query_stats", day_args).json()
    assert by_category["total_seconds"] == d.hours * HOUR
    assert {i["category"]: i["seconds"] for i in by_category["items"]} == {
        "work": truth[d.day]["active"],
        "system": truth[d.day]["idle"],
    }
    assert by_category["source"] == "digest"
    active = api.post("/api/v1/tools/query_stats", {**day_args, "metric": "active_seconds"})
    assert active.json()["value"] == truth[d.day]["active"]
    three = api.post(
        "/api/v1/tools/query_stats",
        {
            "period": "custom",
            "date_from": str(d.day - timedelta(days=1)),
            "date_to": str(d.day + timedelta(days=1)),
        },
    ).json()
    assert three["total_seconds"] == (d.hours + 48) * HOUR

    # Through dispatch: "today", half an hour after the clocks changed, is still the day.
    assert d.change is not None
    ctx = services.tool_context(user=api.user, now=d.change + timedelta(minutes=30))
    today = dispatch_json(ctx, "query_stats", {"period": "today"})
    assert (today["from"], today["to"]) == (str(d.day), str(d.day))
    assert today["total_seconds"] == d.hours * HOUR
