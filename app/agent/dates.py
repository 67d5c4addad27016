"""Periods named in a question, in Chinese or English, as the tools' period arguments.

    find_period("这个月娱乐花了多少小时", today=date(2026, 6, 20))
    # PeriodSpec(period="this_month", date_from=2026-06-01, date_to=2026-06-20, ...)

Recognised: 今天/昨天/前天/大前天/大后天, N 天前 / N days ago, 本周/上周/上上周 / two
weeks ago, 本月/上个月, 本月初/月底, 今年, 过去 N 天 / the past N days, weekdays with and
without 上/这/下 (周三, 上周三, 下周一, last Wednesday), weekday ranges (周一到周三,
between Monday and Wednesday), weekends, months (2026年6月, 6月份, in June 2026), the
first week of a month (6月的第一周), dates (2026-06-03, 6月3日, June 3, 3 June) and
ranges of two dates. Clock times (14:30, 下午3点半, 昨晚8点, 3 pm) are found by
`find_clocks`. These are hand-written: docs/dates.md says why no library does it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
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
    rf"|(?P<dm>\b(?P<dmd>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<dmm>{_MONTH})\b(?:,?\s+(?P<dy>\d{{4}}))?)"
    # 12/4, 12/04/2026: month first, as the question's own calendar writes it.
    r"|(?P<sl>(?<![\d/.])(?P<sm>1[0-2]|0?[1-9])/(?P<sd>3[01]|[12]\d|0?[1-9])(?:/(?P<sy>\d{4}))?(?![\d/])(?!\s*(?:h\b|hr|hour|min|小时|分钟)))",
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
_EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fourteen": 14,
    "fifteen": 15, "twenty": 20, "thirty": 30,
}  # fmt: skip
_WD = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_ZN = r"\d+|十|[一两二三四五六七八九]十?[一二三四五六七八九]?"
_EN_N = rf"\d+|{'|'.join(sorted(_EN_NUMBERS, key=len, reverse=True))}"
_LAST_DAYS = re.compile(
    rf"(?:过去|最近|近)\s*(?P<zn>{_ZN})\s*天"
    rf"|(?:last|past|previous)\s+(?P<en>{_EN_N})\s+days"
    rf"|(?:过去|最近|近)\s*(?P<zw>{_ZN})\s*(?:周|个?星期|个?礼拜)"
    rf"|(?:last|past|previous)\s+(?P<ew>{_EN_N})\s+weeks"
    # "the last 7", "past 14d": a bare count of days, unless a unit follows it.
    # Never a clock time: "stay up past 11", "past 11 pm".
    r"|(?<!\bup\s)(?:last|past|previous)\s+(?P<ed>\d+)(?:\s*d\b)?"
    r"(?!\s*(?:weeks?|wks?|months?|mos?|years?|yrs?|hours?|hrs?|h\b|min|times?|[\d%.:]"
    r"|[ap]\.?m\b|o'?clock|点))"
    # "in the past week" is the last 7 days, as 过去一周 is; "the past month" 30.
    r"|(?:(?:in|over|during)\s+)?(?:the\s+)?past\s+(?:(?P<pw>week)|(?P<pm>month))\b",
    re.IGNORECASE,
)
_DAYS_AGO = re.compile(
    rf"(?P<zn>{_ZN})\s*天(?:以)?前|\b(?P<en>{_EN_N})\s+days?\s+(?:ago|back|earlier)\b"
    r"|(?P<big>大前天)|(?P<bigafter>大后天)|(?P<after>后天)"
    rf"|(?P<zw>{_ZN})\s*(?:周|个?星期|个?礼拜)(?:以)?前|\b(?P<ew>{_EN_N})\s+weeks?\s+(?:ago|back|earlier)\b",
    re.IGNORECASE,
)
# "from 10 days ago to 4 days ago", "10 天前到 4 天前": the days between, both counted.
_AGO_RANGE = re.compile(
    rf"(?:from\s+)?(?P<ea>{_EN_N})\s+days?\s+ago\s+(?:to|till|until|through|and)\s+"
    rf"(?P<eb>{_EN_N})\s+days?\s+ago|(?:从)?(?P<za>{_ZN})\s*天(?:以)?前\s*(?:到|至|-|~)\s*"
    rf"(?P<zb>{_ZN})\s*天(?:以)?前",
    re.IGNORECASE,
)
_WEEK_BEFORE_LAST = re.compile(
    r"上上(?:个)?(?:周|星期|礼拜)(?![一二三四五六日天末])|the week before last", re.IGNORECASE
)
_WEEKEND = re.compile(
    r"(?P<z>上|这|本)个?(?:周末|星期六日)|(?P<e>last|this)\s+weekend"
    r"|(?P<bare>(?<![上这本个])周末|\b(?:the\s+|on\s+the\s+)?weekend\b)",
    re.IGNORECASE,
)
_MONTH_PART = re.compile(
    r"(?P<zwhich>本月|这个月|上个?月|(?P<zm>\d{1,2})月份?)(?:的)?(?P<zpart>初|底|末|中)"
    r"|(?:in|during)\s+(?P<epart>early|late)\s+(?P<ewhich>this|last)\s+month"
    r"|(?:the\s+)?(?P<eend>start|beginning|end)\s+of\s+(?P<eendwhich>this|last)\s+month",
    re.IGNORECASE,
)
_FIRST_WEEK = re.compile(
    r"(?:(?P<zy>\d{4})年)?(?P<zm>\d{1,2})月份?的?第(?P<zn>[一二三四1-4])(?:周|个星期|个礼拜)"
    rf"|(?:the\s+)?(?P<en>first|second|third|fourth|last)\s+week\s+of\s+(?P<em>{_MONTH})\b(?:\s+(?P<ey>\d{{4}}))?",
    re.IGNORECASE,
)
_MONTH_ONLY = re.compile(
    r"(?:(?P<zy>\d{4})\s*年\s*)?(?<![\d.])(?P<zm>1[0-2]|0?[1-9])\s*月份?(?![\d一二三四五六七八九十]+[日号])"
    rf"|\b(?P<ein>in|during|for|of|over)\s+(?P<em>{_MONTH})\b(?:\s+(?P<ey>\d{{4}}))?"
    rf"|\b(?P<em2>{_MONTH})\s+(?P<ey2>\d{{4}})\b",
    re.IGNORECASE,
)
_WEEKDAY_RANGE = re.compile(
    r"(?:周|星期|礼拜)(?P<za>[一二三四五六日天])\s*(?:到|至|-|~|—)\s*"
    r"(?:周|星期|礼拜)?(?P<zb>[一二三四五六日天])"
    rf"|(?:between|from)\s+(?P<ea>{_WD})"
    rf"\s+(?:and|to|through|till|until)\s+(?P<eb>{_WD})",
    re.IGNORECASE,
)
_SINCE_WEEKDAY = re.compile(
    r"(?:从|自)?(?:周|星期|礼拜)(?P<z>[一二三四五六日天])(?:以来|开始到现在|到现在|起)"
    rf"|\bsince\s+(?P<e>{_WD})",
    re.IGNORECASE,
)
_WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
# Weekdays as typed: whole, or short (tues, thurs, fri); mon/sat/sun, also words, only
# after on/last/this/next.
_WD_SAID = (
    "|".join(_WEEKDAYS_EN)
    + "|tues?|weds?|thu(?:rs?)?|fri"
    + "|(?:(?<=on )|(?<=last )|(?<=this )|(?<=next ))(?:mon|sat|sun)"
)
_WEEKDAY = re.compile(
    # 周一 but not 这周一共 / 周一直 (this week in total / all along).
    r"(?:(?P<zlast>上个?)|(?P<znext>下个?)|(?P<zthis>这个?|本))?(?:周|星期|礼拜)"
    r"(?P<zd>一(?![共直下起些样点个次半天周般])|[二三四五六天]|日(?!均))"
    rf"|(?:(?P<elast>last\s+)|(?P<enext>next\s+)|(?P<ethis>this\s+))?\b(?P<ed>{_WD_SAID})\b"
    # "tuesday last week", "friday of this week": the week said after the day.
    r"(?:,?\s+(?:of\s+|in\s+)?(?:(?P<elastweek>last|previous)|(?P<ethisweek>this))\s+week\b)?",
    re.IGNORECASE,
)
# Named periods, longest phrases first so that 上周三 is not read as 上周.
_NAMED: tuple[tuple[str, str], ...] = (
    ("before_yesterday", r"前天|前儿个?|day before yesterday"),
    ("last_year", r"去年|last year"),
    ("this_year", r"今年|this year"),
    ("last_week", r"上周|上个星期|上星期|上一周|上个?礼拜|上个周|last week"),
    ("this_week", r"本周|这周|这个星期|这星期|本星期|这一周|这个?礼拜|本礼拜|this week"),
    ("last_month", r"上个月|上月|last month"),
    ("this_month", r"本月|这个月|这月|this month"),
    ("yesterday", r"昨天|昨日|昨晚|昨儿个?|yesterday|last night"),
    ("today", r"今天|今日|今早|今晚|今儿个?|today|tonight|this morning|this afternoon"),
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


def spoken_number(text: str) -> int:
    """A count as written in a question: 3, three, 三, 十二, 两 (1 when unreadable)."""
    if text.isdigit():
        return int(text)
    if text.lower() in _EN_NUMBERS:
        return _EN_NUMBERS[text.lower()]
    if "十" in text:
        tens, _, ones = text.partition("十")
        return _CN_NUMBERS.get(tens, 1) * 10 + _CN_NUMBERS.get(ones, 0)
    return _CN_NUMBERS.get(text, 1)


def _date_of(match: re.Match[str], today: date, year_hint: int | None) -> tuple[date, bool] | None:
    """The date and whether its year was written out; a date without one takes the
    year of the date before it (3月1日到3月31日) or the latest year not in the future."""
    g = match.groupdict()
    if g["iso"]:
        year, month, day = int(g["iy"]), int(g["im"]), int(g["id"])
    elif g["zh"]:
        year, month, day = int(g["zy"] or 0), int(g["zm"]), int(g["zd"])
    elif g["sl"]:
        year, month, day = int(g["sy"] or 0), int(g["sm"]), int(g["sd"])
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
    return _relative(question, today) or _named(question, today)


def _weekday_number(name: str) -> int:
    if name in _WEEKDAYS_ZH:
        return _WEEKDAYS_ZH[name]
    return [day[:3] for day in _WEEKDAYS_EN].index(name.lower()[:3])


def _month_of(month: int, year: int | None, today: date) -> date:
    """The first day of a month named without a year: the latest one not in the future."""
    if year is not None:
        return date(year, month, 1)
    first = date(today.year, month, 1)
    return first if first <= today else first.replace(year=today.year - 1)


def _month_end(first: date) -> date:
    return (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)


def _relative(question: str, today: date) -> PeriodSpec | None:
    """Periods counted from today or from a month or a weekday, most specific first."""
    monday = today - timedelta(days=today.weekday())
    for pattern, read in _RELATIVE:
        if match := pattern.search(question):
            return read(match, today, monday)
    return None


Match = re.Match[str]


def _weekday_range(match: Match, today: date, monday: date) -> PeriodSpec:
    first_day = _weekday_number(match["za"] or match["ea"])
    last_day = _weekday_number(match["zb"] or match["eb"])
    start = monday if monday + timedelta(days=first_day) <= today else monday - timedelta(7)
    return _custom(
        start + timedelta(days=first_day), start + timedelta(days=last_day), match.span()
    )


def _first_week(match: Match, today: date, monday: date) -> PeriodSpec:
    if match["zm"]:
        year = int(match["zy"]) if match["zy"] else None
        first = _month_of(int(match["zm"]), year, today)
        nth = spoken_number(match["zn"]) if not match["zn"].isdigit() else int(match["zn"])
    else:
        year = int(match["ey"]) if match["ey"] else None
        first = _month_of(MONTH_NUMBERS[match["em"].lower()], year, today)
        nth = (
            ("first", "second", "third", "fourth").index(match["en"].lower()) + 1
            if (match["en"].lower() != "last")
            else 0
        )
    if nth == 0:  # the last week: its last seven days
        end = _month_end(first)
        return _custom(end - timedelta(days=6), end, match.span())
    start = first + timedelta(days=7 * (nth - 1))
    return _custom(start, min(start + timedelta(days=6), _month_end(first)), match.span())


def _month_part(match: Match, today: date, monday: date) -> PeriodSpec:
    which = (match["zwhich"] or match["ewhich"] or match["eendwhich"] or "").lower()
    if match["zm"]:
        first = _month_of(int(match["zm"]), None, today)
    elif which.startswith("上") or which == "last":
        first = (today.replace(day=1) - timedelta(days=1)).replace(day=1)
    else:
        first = today.replace(day=1)
    part = match["zpart"] or {"early": "初", "start": "初", "beginning": "初"}.get(
        (match["epart"] or match["eend"] or "").lower(), "底"
    )
    if part == "初":
        return _custom(first, first + timedelta(days=9), match.span())
    if part == "中":
        return _custom(first + timedelta(days=10), first + timedelta(days=19), match.span())
    return _custom(first + timedelta(days=20), _month_end(first), match.span())


def _month_only(match: Match, today: date, monday: date) -> PeriodSpec:
    if match["zm"]:
        month, year = int(match["zm"]), int(match["zy"]) if match["zy"] else None
    elif match["em"]:
        month, year = (
            MONTH_NUMBERS[match["em"].lower()],
            int(match["ey"]) if match["ey"] else None,
        )
    else:
        month, year = MONTH_NUMBERS[match["em2"].lower()], int(match["ey2"])
    first = _month_of(month, year, today)
    return _custom(first, _month_end(first), match.span())


def _since_weekday(match: Match, today: date, monday: date) -> PeriodSpec:
    day = monday + timedelta(days=_weekday_number(match["z"] or match["e"]))
    if day > today:
        day -= timedelta(days=7)
    return _custom(day, today, match.span())


def _week_before_last(match: Match, today: date, monday: date) -> PeriodSpec:
    return _custom(monday - timedelta(days=14), monday - timedelta(days=8), match.span())


def _ago_range(match: Match, today: date, monday: date) -> PeriodSpec:
    ends = sorted(
        min(spoken_number(match[a] or match[b]), 400) for a, b in (("ea", "za"), ("eb", "zb"))
    )
    first, last = today - timedelta(days=ends[1]), today - timedelta(days=ends[0])
    return _custom(first, last, match.span())


def _days_ago(match: Match, today: date, monday: date) -> PeriodSpec:
    if match["big"] or match["bigafter"] or match["after"]:
        shift = -3 if match["big"] else 3 if match["bigafter"] else 2
        day = today + timedelta(days=shift)
        return _custom(day, day, match.span())
    weeks = match["zw"] or match["ew"]
    n = max(0, min(spoken_number(weeks or match["zn"] or match["en"]), 400))
    if weeks and n >= 2:  # two weeks ago: that week
        start = monday - timedelta(days=7 * n)
        return _custom(start, start + timedelta(days=6), match.span())
    day = today - timedelta(days=7 * n if weeks else n)
    return _custom(day, day, match.span())


def _last_days(match: Match, today: date, monday: date) -> PeriodSpec:
    weeks = match["zw"] or match["ew"]
    if match["pw"] or match["pm"]:
        n = 7 if match["pw"] else 30
    else:
        n = spoken_number(weeks or match["zn"] or match["en"] or match["ed"]) * (7 if weeks else 1)
    n = max(1, min(n, 366))
    return _custom(today - timedelta(days=n - 1), today, match.span())


def _weekend(match: Match, today: date, monday: date) -> PeriodSpec:
    saturday = monday + timedelta(days=5)
    last = (match["z"] or match["e"] or "").lower() in ("上", "last")
    if last or (match["bare"] and saturday > today):  # "the weekend": the latest begun
        saturday -= timedelta(days=7)
    return _custom(saturday, saturday + timedelta(days=1), match.span())


def _weekday(match: Match, today: date, monday: date) -> PeriodSpec:
    day = monday + timedelta(days=_weekday_number(match["zd"] or match["ed"]))
    if match["elastweek"]:  # that weekday of last week, whatever today is
        return _custom(day - timedelta(days=7), day - timedelta(days=7), match.span())
    if match["zlast"] or match["elast"]:
        day -= timedelta(days=7)
    elif match["znext"] or match["enext"]:
        day += timedelta(days=7)
    elif day > today and not (match["zthis"] or match["ethis"] or match["ethisweek"]):
        day -= timedelta(days=7)
    return _custom(day, day, match.span())


_RELATIVE: tuple[tuple[re.Pattern[str], Callable[[Match, date, date], PeriodSpec]], ...] = (
    (_WEEKDAY_RANGE, _weekday_range),
    (_FIRST_WEEK, _first_week),
    (_MONTH_PART, _month_part),
    (_MONTH_ONLY, _month_only),
    (_SINCE_WEEKDAY, _since_weekday),
    (_WEEK_BEFORE_LAST, _week_before_last),
    (_AGO_RANGE, _ago_range),
    (_DAYS_AGO, _days_ago),
    (_LAST_DAYS, _last_days),
    (_WEEKEND, _weekend),
    (_WEEKDAY, _weekday),
)


def _named(question: str, today: date) -> PeriodSpec | None:
    for name, pattern in _NAMED_RE:
        if match := pattern.search(question):
            if name == "before_yesterday":
                day = today - timedelta(days=2)
                return _custom(day, day, match.span())
            if name == "this_year":
                return _custom(today.replace(month=1, day=1), today, match.span())
            if name == "last_year":
                year = today.year - 1
                return _custom(date(year, 1, 1), date(year, 12, 31), match.span())
            period = next(p for p in _TOOL_PERIODS if p == name)
            first, last = period_range(period, today=today)
            return PeriodSpec(period=period, date_from=first, date_to=last, span=match.span())
    return None


_CLOCK = re.compile(
    r"\b(?P<eh>\d{1,2})(?::(?P<em>[0-5]\d))?\s*(?P<ampm>am|pm|a\.m\.|p\.m\.)"
    r"|\b(?P<ph>\d{1,2})(?::(?P<pm>[0-5]\d))?\s+(?:o'clock\s+)?in\s+the\s+"
    r"(?P<part>morning|afternoon|evening|night)"
    r"|(?<![\d:-])(?P<h>[01]?\d|2[0-3])[:：](?P<m>[0-5]\d)(?![\d:])"
    # The optional part of day carries its own spaces: a bare `\s*` in front would be
    # tried from every space of a long run (a second for 4,000 spaces).
    r"|(?:(?P<zpart>凌晨|早上|上午|中午|下午|晚上|傍晚|晚)\s*)?"
    r"(?P<zh>\d{1,2}|[一两二三四五六七八九十]{1,3})\s*点"
    r"\s*(?:(?P<half>半)|(?P<zm>\d{1,2})\s*分?)?",
    re.IGNORECASE,
)


_NOON = re.compile(r"\bnoon\b|\bmidday\b|\bmidnight\b", re.IGNORECASE)


def clock_words(question: str) -> str:
    """The question with "noon" and "midnight" written as clock times, every other
    character where it was (spans found in the result hold for the question)."""

    def said(match: re.Match[str]) -> str:
        clock = "12am" if match[0].lower() == "midnight" else "12pm"
        return clock.ljust(len(match[0]))

    return _NOON.sub(said, question)


_CLOCK_AFTER = ("到", "至", "-", "~", "左右", "的时候", "钟", "前", "后", "以")


def _a_bit(match: re.Match[str], question: str) -> bool:
    """一点 with no part of the day, minutes or range is "a bit" (一点都没看), not 01:00."""
    if match["zh"] != "一" or match["zpart"] or match["half"] or match["zm"]:
        return False
    return not question[match.end() :].lstrip().startswith(_CLOCK_AFTER)


def find_clocks(question: str) -> list[tuple[int, int]]:
    """The clock times (hour, minute) a question names, in order."""
    found = []
    for match in _CLOCK.finditer(clock_words(question)):
        if match["h"]:
            hour, minute = int(match["h"]), int(match["m"])
        elif match["ph"]:
            hour, minute = int(match["ph"]), int(match["pm"] or 0)
            if match["part"].lower() != "morning" and hour < 12:
                hour += 12
        elif match["zh"]:
            if _a_bit(match, question):
                continue
            hour = spoken_number(match["zh"])
            minute = 30 if match["half"] else int(match["zm"] or 0)
            if (match["zpart"] in ("下午", "晚上", "傍晚", "晚") and hour < 12) or (
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
