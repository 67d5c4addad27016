"""The user's calendar at a moment: now in their zone, the hour their day starts, and
the named periods as ready ranges, so that a client can pass instants or dates without
working out zones, cut hours or ISO weeks itself (MCP's `timetrace://context`).

    calendar = user_calendar(user=user, now=datetime.now(UTC))
    calendar.yesterday.from_, calendar.yesterday.to   # [start, end) as instants
    calendar.yesterday.date_from                      # the logical day, for period=custom
"""

from __future__ import annotations

from datetime import date, datetime
from typing import get_args

from pydantic import Field

from app.store.accounts import UserContext
from app.timeutil import week_key, zone
from app.tools.instants import RELATIVE_FORMS
from app.tools.periods import Period, period_range, span, today_of
from app.tools.results import Shape, Stamp

NAMED = tuple(p for p in get_args(Period) if p != "custom")


class Range(Shape):
    """A named period: [from, to) as instants, and its first and last logical day."""

    from_: Stamp = Field(alias="from", description="its start, in the user's zone")
    to: Stamp = Field(description="its end (not included)")
    date_from: date = Field(description="its first logical day")
    date_to: date = Field(description="its last logical day")


class Calendar(Shape):
    """What a client needs to name times the user's way."""

    now: Stamp = Field(description="now, in the user's zone")
    time_zone: str = Field(description="the user's IANA time zone")
    utc_offset: str = Field(description="the zone's offset from UTC now (+08:00)")
    day_cut_hour: int = Field(description="the local hour a logical day starts at")
    today: date = Field(description="today's logical day")
    week: str = Field(description="this ISO week (2026-W23)")
    periods: dict[str, Range] = Field(
        description="today, yesterday, this_week, last_week, this_month, last_month: the "
        "tools' `period` names (a running period ends with today)"
    )
    relative_instants: str = Field(description="the relative forms instant arguments take")


def user_calendar(*, user: UserContext, now: datetime) -> Calendar:
    """The user's calendar at `now`."""
    tz = zone(user.time_zone)
    local = now.astimezone(tz)
    today = today_of(user, now)
    periods = {}
    for name in NAMED:
        first, last = period_range(name, today=today)
        start, end = span(first, last, user=user)
        periods[name] = Range(from_=start, to=end, date_from=first, date_to=last)
    return Calendar(
        now=local,
        time_zone=user.time_zone,
        utc_offset=local.isoformat()[-6:],
        day_cut_hour=user.day_cut_hour,
        today=today,
        week=week_key(today),
        periods=periods,
        relative_instants=RELATIVE_FORMS,
    )
