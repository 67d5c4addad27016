"""Periods the tools accept, resolved to logical days in the user's clock."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Literal, Self

from pydantic import Field, model_validator

from app.boundary import Day
from app.store import UserContext
from app.timeutil import day_bounds, logical_day, zone
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
