"""Periods the tools accept, resolved to logical days in the user's clock, and the
windows inside them.

    args = WindowArgs(period="last_week", time_from="22:00", time_to="02:00")
    resolve_window(args, user=user, now=now)
    # (first day, last day, [Window per day]): Monday 22:00 to Tuesday 02:00, ...
    args = WindowArgs(ts_from="2026-06-02T09:00+08:00", ts_to="2026-06-02T12:00+08:00")
    resolve_window(args, user=user, now=now)   # the one window of the two instants
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Literal, Self

from pydantic import Field, field_validator, model_validator

from app.boundary import Day
from app.store.accounts import UserContext
from app.timeutil import day_bounds, logical_day, zone
from app.tools.instants import ZONED_HELP, ZonedInstant
from app.tools.registry import ToolArgs

Period = Literal[
    "today", "yesterday", "this_week", "last_week", "this_month", "last_month", "custom"
]
MAX_DAYS = 400


class PeriodArgs(ToolArgs):
    period: Period = Field(
        "today",
        description="today | yesterday | this_week | last_week | this_month | last_month "
        "| custom (with date_from and date_to). 今天/昨天/本周/上周/本月/上月/自定义",
    )
    date_from: Day | None = Field(
        None, description="first logical day (YYYY-MM-DD); implies period custom"
    )
    date_to: Day | None = Field(None, description="last logical day (YYYY-MM-DD); implies custom")

    @model_validator(mode="after")
    def _custom_needs_dates(self) -> Self:
        if (self.date_from or self.date_to) and self.period != "custom":
            # Dates are never ignored: without a period they mean custom; with another
            # period they contradict it.
            if "period" in self.model_fields_set:
                raise ValueError(
                    f"date_from/date_to go with period 'custom', not {self.period!r}: "
                    "leave period out or drop the dates"
                )
            self.period = "custom"
        if self.period == "custom":
            if self.date_from is None or self.date_to is None:
                raise ValueError("period 'custom' needs date_from and date_to")
            if self.date_to < self.date_from:
                raise ValueError("date_to is before date_from")
            if (self.date_to - self.date_from).days >= MAX_DAYS:
                raise ValueError(f"a custom period is at most {MAX_DAYS} days")
        return self


def today_of(user: UserContext, now: datetime) -> date:
    return logical_day(now, tz=zone(user.time_zone), cut_hour=user.day_cut_hour)


def period_range(period: Period, *, today: date) -> tuple[date, date]:
    """First and last logical day of a named period, seen from `today`."""
    monday = today - timedelta(days=today.weekday())
    first = today.replace(day=1)
    match period:
        case "today":
            return today, today
        case "yesterday":
            return today - timedelta(days=1), today - timedelta(days=1)
        case "this_week":
            return monday, today
        case "last_week":
            return monday - timedelta(days=7), monday - timedelta(days=1)
        case "this_month":
            return first, today
        case "last_month":
            last = first - timedelta(days=1)
            return last.replace(day=1), last
        case _:
            raise ValueError("a custom period has its own dates")


def resolve(args: PeriodArgs, *, user: UserContext, now: datetime) -> tuple[date, date]:
    if args.period == "custom":
        assert args.date_from is not None and args.date_to is not None
        return args.date_from, args.date_to
    return period_range(args.period, today=today_of(user, now))


def span(day_from: date, day_to: date, *, user: UserContext) -> tuple[datetime, datetime]:
    tz = zone(user.time_zone)
    start, _ = day_bounds(day_from, tz=tz, cut_hour=user.day_cut_hour)
    _, end = day_bounds(day_to, tz=tz, cut_hour=user.day_cut_hour)
    return start, end


# -- windows inside days ---------------------------------------------------------------

CLOCK = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"
_CLOCK = re.compile(CLOCK)


class DayWindowArgs(PeriodArgs):
    """A period, and optionally a window of the clock applied to each of its days."""

    time_from: str | None = Field(
        None,
        json_schema_extra={"pattern": CLOCK},
        description="start of a window inside each day (HH:MM, the user's local clock; with "
        "time_to): only the time inside the window counts. 每天的时段开始",
    )
    time_to: str | None = Field(
        None,
        json_schema_extra={"pattern": CLOCK},
        description="end of that window (HH:MM); at or before time_from the window crosses "
        "midnight and belongs to the day it starts on (22:00-02:00 on Monday = Monday 22:00 to "
        "Tuesday 02:00). 每天的时段结束",
    )

    @field_validator("time_from", "time_to")
    @classmethod
    def _clock_time(cls, value: str | None) -> str | None:
        if value is not None and not _CLOCK.fullmatch(value):
            raise ValueError(f"{value!r} is not a time of day: give HH:MM from 00:00 to 23:59")
        return value

    @model_validator(mode="after")
    def _both_clock_times(self) -> Self:
        if (self.time_from is None) != (self.time_to is None):
            raise ValueError("give both time_from and time_to (HH:MM), or neither")
        return self


class WindowArgs(DayWindowArgs):
    """A period with a window inside each day, or two instants instead of the period."""

    ts_from: ZonedInstant | None = Field(
        None,
        description=f"from this instant (with ts_to; replaces the period): {ZONED_HELP}. 起始时刻",
    )
    ts_to: ZonedInstant | None = Field(
        None, description="to this instant, after ts_from (the same forms). 结束时刻"
    )

    @model_validator(mode="after")
    def _instants(self) -> Self:
        if (self.ts_from is None) != (self.ts_to is None):
            raise ValueError("give both ts_from and ts_to, or neither")
        if self.ts_from is None or self.ts_to is None:
            return self
        if self.ts_to <= self.ts_from:
            raise ValueError("ts_to must be after ts_from")
        if self.ts_to - self.ts_from > timedelta(days=MAX_DAYS):
            raise ValueError(f"ts_from..ts_to spans at most {MAX_DAYS} days")
        if self.time_from is not None:
            raise ValueError("give time_from/time_to or ts_from/ts_to, not both")
        if {"date_from", "date_to"} & self.model_fields_set:
            raise ValueError("ts_from/ts_to replace the period: leave out date_from/date_to")
        return self


@dataclass(frozen=True, slots=True)
class Window:
    """[start, end) of the time counted, and the logical day it belongs to."""

    day: date
    start: datetime
    end: datetime


def windowed(args: DayWindowArgs) -> bool:
    """Whether only part of each day (or the span between two instants) counts."""
    return args.time_from is not None or getattr(args, "ts_from", None) is not None


def _clock(text: str) -> time:
    hours, minutes = text.split(":")
    return time(int(hours), int(minutes))


def day_window(day: date, *, time_from: str, time_to: str, user: UserContext) -> Window:
    """The window of a logical day: it starts at time_from on the day's clock (a time
    before the day's cut hour is on the next calendar date) and ends at the first
    time_to after that, so a window across midnight ends on the next date."""
    tz = zone(user.time_zone)
    start_clock, end_clock = _clock(time_from), _clock(time_to)
    start_date = day if start_clock.hour >= user.day_cut_hour else day + timedelta(days=1)
    end_date = start_date if end_clock > start_clock else start_date + timedelta(days=1)
    start = datetime.combine(start_date, start_clock, tzinfo=tz)
    end = datetime.combine(end_date, end_clock, tzinfo=tz)
    return Window(day=day, start=start, end=end)


def instants_days(args: WindowArgs, *, user: UserContext) -> tuple[date, date]:
    """The logical days ts_from..ts_to touches (ts_to itself is not counted)."""
    assert args.ts_from is not None and args.ts_to is not None
    tz = zone(user.time_zone)
    last = args.ts_to - timedelta(microseconds=1)
    return (
        logical_day(args.ts_from, tz=tz, cut_hour=user.day_cut_hour),
        logical_day(last, tz=tz, cut_hour=user.day_cut_hour),
    )


def resolve_window(
    args: DayWindowArgs, *, user: UserContext, now: datetime
) -> tuple[date, date, list[Window]]:
    """The first and last logical day the arguments cover and the windows to count:
    none when the whole days count."""
    if isinstance(args, WindowArgs) and args.ts_from is not None and args.ts_to is not None:
        first, last = instants_days(args, user=user)
        return first, last, [Window(day=first, start=args.ts_from, end=args.ts_to)]
    day_from, day_to = resolve(args, user=user, now=now)
    if args.time_from is None or args.time_to is None:
        return day_from, day_to, []
    days = [day_from + timedelta(days=i) for i in range((day_to - day_from).days + 1)]
    return (
        day_from,
        day_to,
        [day_window(d, time_from=args.time_from, time_to=args.time_to, user=user) for d in days],
    )


def window_text(args: DayWindowArgs) -> str | None:
    """What the numbers are clipped to, said in the result."""
    if isinstance(args, WindowArgs) and args.ts_from is not None and args.ts_to is not None:
        return f"{args.ts_from.isoformat()} to {args.ts_to.isoformat()}"
    if args.time_from is not None and args.time_to is not None:
        across = " (across midnight)" if args.time_to <= args.time_from else ""
        return f"{args.time_from}-{args.time_to} each day{across}"
    return None
