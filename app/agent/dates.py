"""Periods named in a question, in Chinese or English, as the tools' period arguments.

    find_period("这个月娱乐花了多少小时", today=date(2026, 6, 20))
    # PeriodSpec(period="this_month", date_from=2026-06-01, date_to=2026-06-20, ...)

Recognised: 今天/昨天/前天, 本周/上周, 本月/上个月, 今年, 过去 N 天, weekdays (周三,
上周三, last Wednesday), dates (2026-06-03, 6月3日, June 3, 3 June, "on June 3rd") and
ranges of two dates — and their English names (today, this week, last month …).
Clock times (14:30, 下午3点半, 3 pm) are found by `find_clocks`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from app.timeutil import MONTH_NUMBERS
from app.tools.periods import Period, period_range

_MONTH = "|".join(sorted(MONTH_NUMBERS, key=len, reverse=True))
_DATES = re.compile(
    r"(?P<iso>(?P<iy>\d{4})-(?P<im>\d{1,2})-(?P<id>\d{1,2}))"
    r"|(?P<zh>(?:(?P<zy>\d{4})年)?(?P<zm>\d{1,2})月(?P<zd>\d{1,2})[日号])"
    rf"|(?P<md>\b(?P<mm>{_MONTH})\.?\s+(?P<mdd>\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(?P<my>\d{{4}}))?)"
    rf"|(?P<dm>\b(?P<dmd>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dmm>{_MONTH})\b(?:,?\s+(?P<dy>\d{{4}}))?)",
    re.IGNORECASE,
)
_CN_NUMBERS = {
    "一": 1,
    "两": 2,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_LAST_DAYS = re.compile(
    r"(?:过去|最近|近)\s*(?P<zn>\d+|十|[一两二三四五六七八九]十?[一二三四五六七八九]?)\s*天"
    r"|(?:last|past|previous)\s+(?P<en>\d+)\s+days",
    re.IGNORECASE,
)
_WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = re.compile(
    # 周一 but not 这周一共 / 周一直 (this week in total / all along).
    r"(?P<zlast>上个?)?(?:周|星期|礼拜)(?P<zd>一(?![共直下起些样点个次半天周])|[二三四五六日天])"
    rf"|(?P<elast>last\s+)?\b(?P<ed>{'|'.join(_WEEKDAYS_EN)})\b",
    re.IGNORECASE,
)
# Named periods, longest phrases first so that 上周三 is not read as 上周.
_NAMED: tuple[tuple[str, str], ...] = (
    ("before_yesterday", r"前天|day before yesterday"),
    ("this_year", r"今年|this year"),
    ("last_week", r"上周|上个星期|上星期|上一周|上个礼拜|last week"),
    ("this_week", r"本周|这周|这个星期|这星期|本星期|这一周|这个礼拜|this week"),
    ("last_month", r"上个月|上月|last month"),
    ("this_month", r"本月|这个月|这月|this month"),
    ("yesterday", r"昨天|昨日|昨晚|yesterday|last night"),
    ("today", r"今天|今日|今早|今晚|today|tonight|this morning|this afternoon"),
)
_NAMED_RE = [(name, re.compile(pattern, re.IGNORECASE)) for name, pattern in _NAMED]
_TOOL_PERIODS: tuple[Period, ...] = (
    "today",
    "yesterday",
    "this_week",
    "last_week",
    "this_month",
    "last_month",
)


@dataclass(frozen=True, slots=True)
class PeriodSpec:
    """A period the question names: the tool's period argument and its days."""

    period: Period
    date_from: date
    date_to: date
    span: tuple[int, int]  # where the question names it

    def arguments(self) -> dict[str, Any]:
        if self.period != "custom":
            return {"period": self.period}
        return {
            "period": "custom",
            "date_from": self.date_from.isoformat(),
            "date_to": self.date_to.isoformat(),
        }

    @property
    def days(self) -> int:
        return (self.date_to - self.date_from).days + 1


def _cn_number(text: str) -> int:
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return _CN_NUMBERS.get(tens, 1) * 10 + _CN_NUMBERS.get(ones, 0)
    return _CN_NUMBERS[text]


def _date_of(match: re.Match[str], today: date, year_hint: int | None) -> tuple[date, bool] | None:
    """The date and whether its year was written out; a date without one takes the
    year of the date before it (3月1日到3月31日) or the latest year not in the future."""
    g = match.groupdict()
    if g["iso"]:
        year, month, day = int(g["iy"]), int(g["im"]), int(g["id"])
    elif g["zh"]:
        year, month, day = int(g["zy"] or 0), int(g["zm"]), int(g["zd"])
    elif g["md"]:
        year, month, day = int(g["my"] or 0), MONTH_NUMBERS[g["mm"].lower()], int(g["mdd"])
    else:
        year, month, day = int(g["dy"] or 0), MONTH_NUMBERS[g["dmm"].lower()], int(g["dmd"])
    try:
        found = date(year or year_hint or today.year, month, day)
    except ValueError:
        return None
    if not year and not year_hint and found > today:  # "June 3" in January means last June
        found = found.replace(year=found.year - 1)
    return found, bool(year)


def _custom(first: date, last: date, span: tuple[int, int]) -> PeriodSpec:
    return PeriodSpec(period="custom", date_from=first, date_to=last, span=span)


def find_period(question: str, *, today: date) -> PeriodSpec | None:
    """The period a question names, or None when it names none."""
    dates: list[tuple[date, tuple[int, int]]] = []
    year_hint: int | None = None
    for written in _DATES.finditer(question):
        if found := _date_of(written, today, year_hint):
            day, explicit = found
            if dates and not explicit and day < dates[-1][0]:  # 12月30日到1月2日
                day = date(day.year + 1, day.month, min(day.day, 28 if day.month == 2 else 31))
            year_hint = day.year if explicit or dates else year_hint
            dates.append((day, written.span()))
    if dates:
        days = sorted(d for d, _ in dates[:2])
        return _custom(days[0], days[-1], (dates[0][1][0], dates[min(1, len(dates) - 1)][1][1]))
    if match := _LAST_DAYS.search(question):
        n = _cn_number(match["zn"]) if match["zn"] else int(match["en"])
        n = max(1, min(n, 366))
        return _custom(today - timedelta(days=n - 1), today, match.span())
    if match := _WEEKDAY.search(question):
        wanted = (
            _WEEKDAYS_ZH[match["zd"]] if match["zd"] else _WEEKDAYS_EN.index(match["ed"].lower())
        )
        monday = today - timedelta(days=today.weekday())
        day = monday + timedelta(days=wanted)
        if match["zlast"] or match["elast"] or day > today:
            day -= timedelta(days=7)
        return _custom(day, day, match.span())
    for name, pattern in _NAMED_RE:
        if match := pattern.search(question):
            if name == "before_yesterday":
                day = today - timedelta(days=2)
                return _custom(day, day, match.span())
            if name == "this_year":
                return _custom(today.replace(month=1, day=1), today, match.span())
            period = next(p for p in _TOOL_PERIODS if p == name)
            first, last = period_range(period, today=today)
            return PeriodSpec(period=period, date_from=first, date_to=last, span=match.span())
    return None


_CLOCK = re.compile(
    r"\b(?P<eh>\d{1,2})(?::(?P<em>[0-5]\d))?\s*(?P<ampm>am|pm|a\.m\.|p\.m\.)"
    r"|(?<![\d:-])(?P<h>[01]?\d|2[0-3])[:：](?P<m>[0-5]\d)(?![\d:])"
    # The optional part of day carries its own spaces: a bare `\s*` in front would be
    # tried from every space of a long run (a second for 4,000 spaces).
    r"|(?:(?P<zpart>凌晨|早上|上午|中午|下午|晚上)\s*)?(?P<zh>\d{1,2})\s*点"
    r"\s*(?:(?P<half>半)|(?P<zm>\d{1,2})\s*分?)?",
    re.IGNORECASE,
)


def find_clocks(question: str) -> list[tuple[int, int]]:
    """The clock times (hour, minute) a question names, in order."""
    found = []
    for match in _CLOCK.finditer(question):
        if match["h"]:
            hour, minute = int(match["h"]), int(match["m"])
        elif match["zh"]:
            hour, minute = int(match["zh"]), 30 if match["half"] else int(match["zm"] or 0)
            if (match["zpart"] in ("下午", "晚上") and hour < 12) or (
                match["zpart"] == "中午" and hour < 6
            ):
                hour += 12
        else:
            hour, minute = int(match["eh"]), int(match["em"] or 0)
            if match["ampm"].lower().startswith("p") and hour < 12:
                hour += 12
            elif match["ampm"].lower().startswith("a") and hour == 12:
                hour = 0
        if hour <= 23 and minute <= 59:
            found.append((hour, minute))
    return found


def named(period: Period, *, today: date) -> PeriodSpec:
    """A named period as if the question had said it (for defaults)."""
    first, last = period_range(period, today=today)
    return PeriodSpec(period=period, date_from=first, date_to=last, span=(0, 0))
