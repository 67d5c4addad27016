"""Time rules, one of each: the logical day (cut hour + IANA zone) and period keys.

logical_day(ts, zone=ZoneInfo("Asia/Shanghai"), cut_hour=4)  # 01:30 local -> the day before
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo


@lru_cache(maxsize=64)
def zone(name: str) -> ZoneInfo:
    return ZoneInfo(name)


def logical_day(ts: datetime, *, tz: ZoneInfo, cut_hour: int) -> date:
    """The user's day that `ts` belongs to: local days start at `cut_hour`, not midnight."""
    if ts.tzinfo is None:
        raise ValueError("logical_day needs an aware datetime")
    return (ts.astimezone(tz) - timedelta(hours=cut_hour)).date()


def day_bounds(day: date, *, tz: ZoneInfo, cut_hour: int) -> tuple[datetime, datetime]:
    """[start, end) of a logical day as aware datetimes (23 or 25 hours long across DST)."""
    start = datetime(day.year, day.month, day.day, cut_hour, tzinfo=tz)
    nxt = day + timedelta(days=1)
    end = datetime(nxt.year, nxt.month, nxt.day, cut_hour, tzinfo=tz)
    return start, end


def week_key(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def month_key(day: date) -> str:
    return f"{day.year}-{day.month:02d}"
