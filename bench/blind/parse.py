"""Reading an answer the way a person would: durations, percentages, dates, clock
times, a leading yes/no, and which of a set of names comes first."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

_NUM = r"(\d+(?:\.\d+)?)"
_H = r"(?:hours?|hrs?|h|小时|個小時|个小时|钟头)"
_M = r"(?:minutes?|mins?|m|分钟|分鐘|分)"
_ADJ = r"(?:(?:active|total|screen|on-screen)\s+)?"  # "12.4 active hours"
_DURATION = re.compile(
    rf"(?<![\d.]){_NUM}\s*{_ADJ}{_H}(?![a-z])(?:\s*(?:and\s*)?(\d+)\s*{_M}(?![a-z]))?"
    rf"|(?<![\d.]){_NUM}\s*{_ADJ}{_M}(?![a-z])",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Duration:
    seconds: float
    slack: float  # the rounding its form allows, in seconds
    minutes_form: bool  # given in minutes, or hours and minutes


def durations(text: str) -> list[Duration]:
    """Every duration written in `text`, with the rounding its form implies."""
    out = []
    for m in _DURATION.finditer(text):
        hours, mins_after, mins_only = m.group(1), m.group(2), m.group(3)
        if hours is not None and mins_after is not None:
            out.append(Duration(float(hours) * 3600 + int(mins_after) * 60, 60, True))
        elif hours is not None:
            decimals = len(hours.partition(".")[2])
            out.append(Duration(float(hours) * 3600, 0.5 * 3600 / 10**decimals, False))
        elif mins_only is not None:
            out.append(Duration(float(mins_only) * 60, 60, True))
    return out


def stated_durations(
    text: str, *, total: re.Pattern[str], after: re.Pattern[str] | None = None
) -> list[Duration]:
    """The durations an answer gives as its figure: the first one, and any marked as the
    figure (`total` just before it: "in all", "合计", "average"; `after` just after it:
    "per day"); not every duration of a list it shows."""
    out = []
    for i, m in enumerate(_DURATION.finditer(text)):
        marked = bool(total.search(text[max(0, m.start() - 20) : m.start()]))
        if after is not None and after.match(text, m.end()):
            marked = True
        if i == 0 or marked:
            out.extend(durations(m.group(0)))
    return out


def duration_matches(found: Duration, seconds: float, *, minutes: bool) -> bool:
    if minutes and not found.minutes_form:
        return False
    allowed = max(found.slack, 0.03 * seconds) + 1
    return abs(found.seconds - seconds) <= allowed


_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*[%％]|百分之\s*(\d+(?:\.\d+)?)")


def percents(text: str) -> list[float]:
    return [float(a or b) for a, b in _PERCENT.findall(text)]


_MONTH_NAMES = "jan feb mar apr may jun jul aug sep oct nov dec"
_MONTHS = {m: i + 1 for i, m in enumerate(_MONTH_NAMES.split(" "))}
_MON = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
)
_DATE = re.compile(
    rf"(?P<iso>(?P<y>\d{{4}})-(?P<im>\d{{1,2}})-(?P<id>\d{{1,2}}))"
    rf"|(?P<zh>(?P<zm>\d{{1,2}})\s*月\s*(?P<zd>\d{{1,2}})\s*[日号號]?)"
    rf"|(?P<en1>\b{_MON}\s+(?P<e1d>\d{{1,2}})(?:st|nd|rd|th)?\b)"
    rf"|(?P<en2>\b(?P<e2d>\d{{1,2}})(?:st|nd|rd|th)?\s+{_MON})"
    rf"|(?P<sl>(?<![\d/.:])(?P<sm>\d{{1,2}})/(?P<sd>\d{{1,2}})(?![\d/]))",
    re.IGNORECASE,
)
_RANGE_JOIN = re.compile(r"^\s*(?:–|—|-|－|~|～|to|through|until|至|到)\s*$", re.IGNORECASE)
_WEEKDAYS = re.compile(
    r"\b(mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:rs(?:day)?)?|fri(?:day)?"
    r"|sat(?:urday)?|sun(?:day)?)\b|(?:周|星期|礼拜)([一二三四五六日天])",
    re.IGNORECASE,
)
_ZH_WD = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_EN_WD = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}


def _month_day(month: int, dom: int, today: date) -> date | None:
    for year in (today.year, today.year - 1):
        try:
            d = date(year, month, dom)
        except ValueError:
            return None
        if d <= today + timedelta(days=1):
            return d
    return None


def _date_of(m: re.Match[str], today: date) -> date | None:
    g = m.groupdict()
    if g["iso"]:
        try:
            return date(int(g["y"]), int(g["im"]), int(g["id"]))
        except ValueError:
            return None
    if g["zh"]:
        return _month_day(int(g["zm"]), int(g["zd"]), today)
    if g["en1"] or g["en2"]:
        words = [w for w in m.groups() if w and w.lower()[:3] in _MONTHS and not w[0].isdigit()]
        dom = int(g["e1d"] or g["e2d"])
        return _month_day(_MONTHS[words[0].lower()[:3]], dom, today)
    return _month_day(int(g["sm"]), int(g["sd"]), today)


def dates(text: str, *, today: date, week: tuple[date, date] | None = None) -> set[date]:
    """The days `text` names (ranges "Nov 28 – Dec 4" left out: they state a period);
    weekday names count when `week` (within one Monday-to-Sunday week) is given."""
    found: list[tuple[int, int, date | None]] = [
        (m.start(), m.end(), _date_of(m, today)) for m in _DATE.finditer(text)
    ]
    dropped: set[int] = set()
    for i in range(len(found) - 1):
        if _RANGE_JOIN.match(text[found[i][1] : found[i + 1][0]]):
            dropped |= {i, i + 1}
    out = {d for i, (_, _, d) in enumerate(found) if d is not None and i not in dropped}
    if week is not None:
        for m in _WEEKDAYS.finditer(text):
            wd = _EN_WD[m.group(1).lower()[:3]] if m.group(1) else _ZH_WD[m.group(2)]
            d = week[0] + timedelta(days=(wd - week[0].weekday()) % 7)
            if d <= week[1]:
                out.add(d)
    return out


_CLOCK = re.compile(
    r"(上午|早上|中午|下午|晚上|凌晨|夜里)?\s*(\d{1,2})\s*(?:[:：]\s*(\d{2})|点\s*(\d{1,2})?\s*分?)"
    r"\s*(am|pm|a\.m\.|p\.m\.)?",
    re.IGNORECASE,
)


def clock_minutes(text: str) -> list[int]:
    """Every clock time in `text`, as minutes after midnight."""
    out = []
    for m in _CLOCK.finditer(text):
        zh, hour, minute = m.group(1), int(m.group(2)), int(m.group(3) or m.group(4) or 0)
        suffix = (m.group(5) or "").lower().replace(".", "")
        if hour > 24 or minute > 59:
            continue
        if (suffix == "pm" or zh in ("下午", "晚上")) and hour < 12:
            hour += 12
        if (suffix == "am" or zh in ("凌晨",)) and hour == 12:
            hour = 0
        out.append((hour % 24) * 60 + minute)
    return out


_LEAD = re.compile(r"^[\s*#>_\-•\"'“「]+")
_NO = re.compile(r"^(no\b|nope\b|nah\b|not\b|没|不|否|無|无)", re.IGNORECASE)
_YES = re.compile(r"^(yes\b|yep\b|yeah\b|yup\b|是|对|對|有)", re.IGNORECASE)


def leading_yes_no(text: str) -> bool | None:
    """True for an answer that starts with yes, False with no, None otherwise."""
    head = _LEAD.sub("", text)
    if _NO.match(head):
        return False
    if _YES.match(head):
        return True
    return None


def _pattern(name: str) -> re.Pattern[str]:
    if name.isascii():
        return re.compile(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", re.IGNORECASE)
    return re.compile(re.escape(name))


def first_mentions(text: str, names_by_label: dict[str, tuple[str, ...]]) -> dict[str, int]:
    """Where each label is first named in `text`; longer names are read first, so 微信读书
    is not also 微信."""
    spans: list[tuple[int, int, str]] = []
    everything = sorted(
        ((n, label) for label, names in names_by_label.items() for n in names),
        key=lambda p: -len(p[0]),
    )
    taken = [False] * len(text)
    for name, label in everything:
        for m in _pattern(name).finditer(text):
            if not any(taken[m.start() : m.end()]):
                spans.append((m.start(), m.end(), label))
                for i in range(m.start(), m.end()):
                    taken[i] = True
    out: dict[str, int] = {}
    for start, _, label in sorted(spans):
        out.setdefault(label, start)
    return out


_SENTENCE_END = re.compile(r"(?<!\d)\.(?!\d)|[。\n!?！？；;]")


def first_sentence(text: str) -> str:
    head = _LEAD.sub("", text)
    m = _SENTENCE_END.search(head)
    return head[: m.start()] if m else head


_ZH_NUM = {"零": 0, "一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
           "八": 8, "九": 9, "十": 10}  # fmt: skip
_DAY_COUNT = re.compile(
    r"(\d+|[零一两二三四五六七八九十]+)\s*(?:个)?\s*(?:days?\b|天|日)", re.IGNORECASE
)


_NO_DAY = re.compile(r"没有一天|没有哪一?天|no days?\b|not a single day|not one day", re.IGNORECASE)
_LABEL_COUNT = re.compile(r"(?<!\d)[:：]\s*(\d+)(?!\d|\.\d|\s*(?:h|min|小时|分|%))", re.IGNORECASE)


def day_counts(text: str) -> list[int]:
    """Counts of days: "5 days", "五天", or a count after a label ("late night: 5")."""
    text = _NO_DAY.sub("", text)
    out = [int(n) for n in _LABEL_COUNT.findall(text)]
    for m in _DAY_COUNT.finditer(text):
        raw = m.group(1)
        if raw.isdigit():
            out.append(int(raw))
        elif len(raw) == 1:
            out.append(_ZH_NUM[raw])
        elif raw.startswith("十"):
            out.append(10 + _ZH_NUM.get(raw[1:], 0))
        else:
            out.append(_ZH_NUM.get(raw[0], 0) * 10 + _ZH_NUM.get(raw[2:], 0))
    return out


_AFTER = re.compile(r"\b(?:most|more|longer|winner)\b\s*[:：]?\s*", re.IGNORECASE)
_BEFORE = re.compile(r"\s*(?:[（(][^()（）\n]{0,30}[)）])?\s*(?:最多|更多|更久|更长|胜出)")


def claimed_winner(text: str, names_by_label: dict[str, tuple[str, ...]]) -> str | None:
    """The label an answer calls the winner: named right after "most"/"more"/"longer",
    or right before 最多/更多/更久; else the first named in the first sentence."""
    for m in _AFTER.finditer(text):
        seen = first_mentions(text[m.end() : m.end() + 40], names_by_label)
        if seen and min(seen.values()) == 0:
            return min(seen, key=lambda k: seen[k])
    for label, names in names_by_label.items():
        for name in names:
            for m in _pattern(name).finditer(text):
                if _BEFORE.match(text, m.end()):
                    return label
    for part in (first_sentence(text), text):
        seen = first_mentions(part, names_by_label)
        if seen:
            return min(seen, key=lambda k: seen[k])
    return None
