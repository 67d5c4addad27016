"""Windows inside days that a question names, as the tools' `time_from`/`time_to`
("HH:MM", the user's clock; a window whose end is not after its start crosses
midnight and belongs to the day it starts on).

    find_window("between 2 and 4 pm on Monday", cut_hour=4)   # Window("14:00", "16:00")
    find_window("上午十点到十二点", cut_hour=4)                  # Window("10:00", "12:00")
    find_window("after 10 pm", cut_hour=4)                     # Window("22:00", "04:00")
    find_window("昨天晚上", cut_hour=4)                          # Window("18:00", "04:00")
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.agent.dates import clock_words, spoken_number

_ZN = r"\d{1,2}|[一两二三四五六七八九十]{1,3}"
_ZPART = r"凌晨|早上|早晨|上午|中午|下午|傍晚|晚上|夜里|半夜|晚"
_EN_CLOCK = r"(\d{1,2})(?::([0-5]\d))?\s*(am|pm|a\.m\.|p\.m\.)?"
_EN_SAID = r"(\d{1,2})(?::([0-5]\d))?\s*(am|pm|a\.m\.|p\.m\.)"
_EN_RANGE = re.compile(
    rf"(?:between|from)\s+{_EN_CLOCK}\s+(?:and|to|till|until|-)\s+{_EN_CLOCK}"
    rf"|(?<![\d-])\b{_EN_CLOCK}\s*(?:-|–|to)\s*{_EN_SAID}",
    re.IGNORECASE,
)
_ZH_CLOCK = rf"(?:({_ZPART})\s*)?({_ZN})\s*[点:：]\s*(半|[0-5]?\d)?\s*分?"
_ZH_RANGE = re.compile(rf"{_ZH_CLOCK}\s*(?:到|至|-|–|~)\s*{_ZH_CLOCK}")
_HM_RANGE = re.compile(
    r"\b([01]?\d|2[0-3])[:：]([0-5]\d)\s*(?:-|–|to|到|至|~)\s*([01]?\d|2[0-3])[:：]([0-5]\d)"
)
# "after 10 pm", "after 22:00": a clock, never a count ("the past 7 days").
_AFTER = re.compile(
    rf"(?:after|past|since)\s+{_EN_SAID}(?![\w:])|(?:after|past|since)\s+(\d{{1,2}}):([0-5]\d)()"
    rf"|{_ZH_CLOCK}\s*(?:以后|之后|后|以来)",
    re.IGNORECASE,
)
_BEFORE = re.compile(
    rf"before\s+{_EN_SAID}(?![\w:])|before\s+(\d{{1,2}}):([0-5]\d)()"
    rf"|{_ZH_CLOCK}\s*(?:以前|之前|前)",
    re.IGNORECASE,
)
_PARTS: dict[str, tuple[int, int | None]] = {
    "morning": (6, 12), "afternoon": (12, 18), "evening": (18, None), "at night": (22, None),
    "night": (18, None),
    "late at night": (22, None), "tonight": (18, None), "last night": (18, None),
    "after midnight": (0, None), "past midnight": (0, None), "lunchtime": (11, 14),
    "lunch time": (11, 14), "lunch break": (11, 14), "at lunch": (11, 14),
    "午饭": (11, 14), "午休": (11, 14), "午饭时间": (11, 14),
    "上午": (6, 12), "早上": (6, 12), "早晨": (6, 12), "中午": (11, 14), "下午": (12, 18),
    "傍晚": (17, 20), "晚上": (18, None), "昨晚": (18, None), "今晚": (18, None),
    "半夜": (0, None), "凌晨": (0, None), "深夜": (22, None),
}  # fmt: skip
_PART_WORDS = re.compile(
    "|".join(rf"\b{p}\b" if p.isascii() else p for p in sorted(_PARTS, key=len, reverse=True)),
    re.IGNORECASE,
)
_LATE = ("下午", "傍晚", "晚上", "晚", "夜里", "半夜")


@dataclass(frozen=True, slots=True)
class Window:
    """A window inside each day of a period, on the user's clock."""

    time_from: str
    time_to: str
    span: tuple[int, int]
    part_of_day: bool = False  # "morning", 晚上: no clock time named

    def arguments(self) -> dict[str, str]:
        return {"time_from": self.time_from, "time_to": self.time_to}

    @property
    def crosses_midnight(self) -> bool:
        return self.time_to <= self.time_from


def _hm(hour: int, minute: int) -> str:
    return f"{hour % 24:02d}:{minute:02d}"


def _en(hour: str, minute: str | None, ampm: str | None) -> tuple[int, int]:
    h = int(hour)
    if ampm and ampm.lower().startswith("p") and h < 12:
        h += 12
    elif ampm and ampm.lower().startswith("a") and h == 12:
        h = 0
    return h, int(minute or 0)


def _zh(part: str | None, number: str, minute: str | None) -> tuple[int, int]:
    h = spoken_number(number)
    if (part in _LATE and h < 12) or (part == "中午" and h < 6):
        h += 12
    if part == "晚上" and h == 24:
        h = 0
    return h, 30 if minute == "半" else int(minute or 0)


def _en_range(match: re.Match[str]) -> tuple[tuple[int, int], tuple[int, int]]:
    g = match.groups()
    h1, m1, a1, h2, m2, a2 = g[0:6] if g[0] else g[6:12]
    end = _en(h2, m2, a2)
    start = _en(h1, m1, a1 or a2)
    if not a1 and start > end and a2:  # "between 11 and 1 pm": 11 am
        start = _en(h1, m1, "am")
    if not a1 and not a2 and end < start and end[0] + 12 > start[0]:  # "from 9 to 5"
        end = (end[0] + 12, end[1])
    return start, end


def _zh_range(match: re.Match[str]) -> tuple[tuple[int, int], tuple[int, int]]:
    p1, n1, m1, p2, n2, m2 = match.groups()
    start = _zh(p1, n1, m1)
    end = _zh(p2 or (p1 if p1 not in ("凌晨",) else None), n2, m2)
    if p2 is None and end < start:  # "晚上11点到1点": past midnight, not 13:00
        end = _zh(None, n2, m2)
    if p2 is None and p1 in _LATE and end[0] < start[0] and end[0] < 12:
        end = (end[0] + 12, end[1]) if end[0] + 12 > start[0] else end
    if p1 is None and p2 is None and end < start and start[0] < end[0] + 12 <= 23:
        end = (end[0] + 12, end[1])  # "12点半到1点", "11点到2点": past noon, not overnight
    return start, end


def _edge(g: tuple[str | None, ...]) -> tuple[int, int]:
    """The clock of an after/before match: "10 pm", "22:00" or 晚上10点."""
    if g[0]:
        return _en(g[0], g[1], g[2])
    if g[3]:
        return _en(g[3], g[4], None)
    return _zh(g[6], str(g[7]), g[8])


def find_window(question: str, *, cut_hour: int) -> Window | None:
    """The window inside days the question names, or None."""
    question = clock_words(question)
    if match := _HM_RANGE.search(question):
        h1, m1, h2, m2 = (int(x) for x in match.groups())
        return Window(_hm(h1, m1), _hm(h2, m2), match.span())
    for pattern, read in ((_ZH_RANGE, _zh_range), (_EN_RANGE, _en_range)):
        if match := pattern.search(question):
            start, end = read(match)
            return Window(_hm(*start), _hm(*end), match.span())
    if match := _AFTER.search(question):
        return Window(_hm(*_edge(match.groups())), _hm(cut_hour, 0), match.span())
    if match := _BEFORE.search(question):
        return Window(_hm(cut_hour, 0), _hm(*_edge(match.groups())), match.span())
    return (
        _after_in_part(question, cut_hour=cut_hour)
        or _hours_in_part(question, cut_hour=cut_hour)
        or part_of_day(question, cut_hour=cut_hour)
    )


# "morning 9-10", "evening 8 to 10": bare hours, never a date (12/1) or a count of units.
_BARE_RANGE = re.compile(
    r"(?<![\d/:.-])\b(\d{1,2})(?::([0-5]\d))?\s*(?:-|–|to)\s*(\d{1,2})(?::([0-5]\d))?\b"
    r"(?![\d/:.])"
    r"(?!\s*(?:%|h\b|hrs?\b|hours?|mins?\b|minutes?|days?|weeks?|months?|times?|apps?))",
    re.IGNORECASE,
)


def _hours_in_part(question: str, *, cut_hour: int) -> Window | None:
    """Bare hours beside a part of the day are inside it: pm when the part is later."""
    part = part_of_day(question, cut_hour=cut_hour)
    match = _BARE_RANGE.search(question)
    if part is None or match is None:
        return None
    hours = [int(match[1]), int(match[3])]
    if part.time_from >= "12:00":
        hours = [h + 12 if h < 12 else h for h in hours]
    if hours[1] < hours[0] < hours[1] + 12:
        hours[1] += 12  # "lunchtime 12-1": it ends past noon
    if max(hours) > 23 or hours[1] <= hours[0]:
        return None
    start, end = min(part.span[0], match.start()), max(part.span[1], match.end())
    minutes = [int(match[2] or 0), int(match[4] or 0)]
    return Window(_hm(hours[0], minutes[0]), _hm(hours[1], minutes[1]), (start, end))


_AFTER_BARE = re.compile(r"\b(?:after|past|since)\s+(\d{1,2})(?![\d:])(?!\s*(?:days?|weeks?))")


def _after_in_part(question: str, *, cut_hour: int) -> Window | None:
    """ "Thursday night after 9": a bare hour after a later part of the day is pm."""
    part = part_of_day(question, cut_hour=cut_hour)
    match = _AFTER_BARE.search(question)
    if part is None or match is None or part.time_from < "12:00":
        return None
    hour = int(match[1])
    hour += 12 if hour < 12 else 0
    if hour > 23:
        return None
    start, end = min(part.span[0], match.start()), max(part.span[1], match.end())
    return Window(_hm(hour, 0), _hm(cut_hour, 0), (start, end))


def part_of_day(question: str, *, cut_hour: int) -> Window | None:
    """Morning, afternoon, evening (上午, 下午, 晚上) with no clock time."""
    match = _PART_WORDS.search(question)
    if match is None:
        return None
    first, last = _PARTS[match[0].lower()]
    end = _hm(cut_hour if last is None else last, 0)
    return Window(_hm(first, 0), end, match.span(), part_of_day=True)
