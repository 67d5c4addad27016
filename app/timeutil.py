"""Time rules, one of each: the logical day (cut hour + IANA zone) and period keys.

logical_day(ts, zone=ZoneInfo("Asia/Shanghai"), cut_hour=4)  # 01:30 local -> the day before
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

# The days TimeTrace keeps and may be asked about: far enough out for any real history,
# and far enough inside Python's calendar (years 1-9999) that a period's edges, and a
# day's in any zone, always exist.
FIRST_DAY = date(1970, 1, 1)
LAST_DAY = date(2999, 12, 31)


@lru_cache(maxsize=64)
def zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


_HOURS = [timedelta(hours=hour) for hour in range(24)]  # called per record on import


def logical_day(ts: datetime, *, tz: ZoneInfo, cut_hour: int) -> date:
    """The user's day that `ts` belongs to: local days start at `cut_hour`, not midnight."""
    if ts.tzinfo is None:
        raise ValueError("logical_day needs an aware datetime")
    return (ts.astimezone(tz) - _HOURS[cut_hour]).date()


def day_bounds(day: date, *, tz: ZoneInfo, cut_hour: int) -> tuple[datetime, datetime]:
    """[start, end) of a logical day as aware datetimes (23 or 25 hours long across DST)."""
    start = datetime(day.year, day.month, day.day, cut_hour, tzinfo=tz)
    nxt = day + timedelta(days=1)
    end = datetime(nxt.year, nxt.month, nxt.day, cut_hour, tzinfo=tz)
    return start, end


def read_window(start: datetime, end: datetime, *, idle_gap_s: float) -> tuple[datetime, datetime]:
    """The records to read for the logical days in [start, end): from a day before (a
    record of these days may have been stamped in another zone) to the idle gap after
    the end (the last record's duration needs its successor)."""
    return start - timedelta(days=1), end + timedelta(seconds=idle_gap_s)


def week_key(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def month_key(day: date) -> str:
    return f"{day.year}-{day.month:02d}"


def day_key(day: date) -> str:
    return day.isoformat()


def period_days(grain: str, key: str) -> tuple[date, date]:
    """First and last logical day of a day, ISO week (2026-W23) or month (2026-06) key;
    a ValueError for a key that is no period, or one outside FIRST_DAY..LAST_DAY."""
    try:
        first, last = _period_days(grain, key)
    except OverflowError:
        first = last = date.max
    if first < FIRST_DAY or last > LAST_DAY:
        raise ValueError(f"{key} is outside the days kept ({FIRST_DAY} to {LAST_DAY})")
    return first, last


def _period_days(grain: str, key: str) -> tuple[date, date]:
    if grain == "day":
        day = date.fromisoformat(key)
        return day, day
    if grain == "week":
        iso_year, iso_week = key.split("-W")
        first = date.fromisocalendar(int(iso_year), int(iso_week), 1)
        return first, first + timedelta(days=6)
    if grain == "month":
        year, month = (int(p) for p in key.split("-"))
        first = date(year, month, 1)
        nxt = date(year + month // 12, month % 12 + 1, 1)
        return first, nxt - timedelta(days=1)
    raise ValueError(f"unknown grain {grain!r}")


def scope_keys(day: date) -> tuple[str, str, str]:
    """The day, week and month digest keys a logical day rolls up into."""
    return day_key(day), week_key(day), month_key(day)


# English month names and abbreviations, as people and models write them in dates.
MONTH_NUMBERS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}
