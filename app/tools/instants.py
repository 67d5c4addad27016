"""Instants in tool arguments: ISO 8601, or relative words read on the user's clock.

    read_instant("昨天下午3点", clock=Clock(now=now, tz=ZoneInfo("Asia/Shanghai"), cut_hour=4))
    # yesterday's logical day at 15:00 in Shanghai
    class RawArgs(ToolArgs):
        ts_from: ZonedInstant   # "2026-06-02T09:00+08:00", "2h ago", "today 09:00", "now"

Understood, in English and Chinese: `now` / 现在; an amount ago (`2h ago`, `30 min
ago`, `an hour ago`, `3小时前`, `半小时前`, `两天前`); a day word with or without a
clock time (`today 09:00`, `yesterday 3pm`, `3pm yesterday`, `昨天下午3点`, `昨晚8点`,
`前天`); a clock time alone (`15:00`, `下午3点`). Day words name logical days, as the
tools' periods do: a day starts at the user's cut hour in the user's zone, so `yesterday`
alone is the start of yesterday, and a clock time before the cut hour lies on the next
calendar date (`yesterday 2am` is the small hours after yesterday evening). A clock time
alone is the latest such time not after now. Hours, minutes and seconds ago are elapsed
time; days and weeks ago keep the wall clock (across a DST change a day ago is 23 or 25
hours). The words are read in the user's zone, never the server's: `dispatch` passes the
caller's clock as the validation context (`clock_context`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from pydantic import AfterValidator, BeforeValidator, ValidationInfo, WithJsonSchema

from app.boundary import Instant, instant_problem
from app.timeutil import logical_day, zone

RELATIVE_FORMS = "now, 2h ago, 30 min ago, yesterday 3pm, today 09:00, 3小时前, 昨天下午3点"
CONTEXT_KEY = "clock"


@dataclass(frozen=True, slots=True)
class Clock:
    """The caller's clock: now, and the user's zone and day cut hour."""

    now: datetime
    tz: ZoneInfo
    cut_hour: int


def clock_context(*, now: datetime, time_zone: str, cut_hour: int) -> dict[str, Clock]:
    """The validation context that lets tool arguments read relative instants."""
    return {CONTEXT_KEY: Clock(now=now, tz=zone(time_zone), cut_hour=cut_hour)}


_CN_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5}
_CN_DIGITS |= {"六": 6, "七": 7, "八": 8, "九": 9}
_EN_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_EN_NUMBERS |= {"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12}
_EN_NUMBERS |= {"fifteen": 15, "twenty": 20, "thirty": 30, "forty-five": 45}
_UNITS = {
    "s": "seconds", "sec": "seconds", "secs": "seconds", "second": "seconds",
    "seconds": "seconds", "秒": "seconds", "秒钟": "seconds",
    "m": "minutes", "min": "minutes", "mins": "minutes", "minute": "minutes",
    "minutes": "minutes", "分": "minutes", "分钟": "minutes",
    "h": "hours", "hr": "hours", "hrs": "hours", "hour": "hours", "hours": "hours",
    "小时": "hours", "钟头": "hours",
    "d": "days", "day": "days", "days": "days", "天": "days", "日": "days",
    "w": "weeks", "wk": "weeks", "wks": "weeks", "week": "weeks", "weeks": "weeks",
    "周": "weeks", "星期": "weeks", "礼拜": "weeks",
}  # fmt: skip
_EN_AMOUNT = r"\d+(?:\.\d+)?|half\s+an?|" + "|".join(sorted(_EN_NUMBERS, key=len, reverse=True))
_ZH_AMOUNT = r"\d+(?:\.\d+)?|半|[零一二两三四五六七八九十]{1,3}"
_AGO = re.compile(
    rf"(?P<en>{_EN_AMOUNT})\s*(?P<eu>[a-z]+)\s+(?:ago|back|earlier)"
    rf"|(?P<zh>{_ZH_AMOUNT})\s*(?:个)?(?P<half>半)?\s*(?P<zu>秒钟?|分钟?|小时|钟头|天|日|周|星期|礼拜)"
    r"\s*(?:以)?前"
)
# Day words, each with its offset from today and the part of the day it implies.
_DAYS = {
    "today": (0, None), "tonight": (0, "evening"), "this morning": (0, "morning"),
    "this afternoon": (0, "afternoon"), "this evening": (0, "evening"),
    "yesterday": (-1, None), "last night": (-1, "evening"),
    "the day before yesterday": (-2, None), "day before yesterday": (-2, None),
    "yesterday morning": (-1, "morning"), "yesterday afternoon": (-1, "afternoon"),
    "yesterday evening": (-1, "evening"), "tomorrow": (1, None),
    "今天": (0, None), "今日": (0, None), "今早": (0, "morning"), "今晚": (0, "evening"),
    "昨天": (-1, None), "昨日": (-1, None), "昨早": (-1, "morning"), "昨晚": (-1, "evening"),
    "昨夜": (-1, "night"), "前天": (-2, None), "大前天": (-3, None), "明天": (1, None),
}  # fmt: skip
_DAY = "|".join(re.escape(d) for d in sorted(_DAYS, key=len, reverse=True))
_PARTS_ZH = {
    "凌晨": "night", "半夜": "night", "夜里": "night", "早上": "morning", "早晨": "morning",
    "上午": "morning", "中午": "noon", "下午": "afternoon", "傍晚": "evening",
    "晚上": "evening", "晚": "evening",
}  # fmt: skip
_PART_ZH = "|".join(sorted(_PARTS_ZH, key=len, reverse=True))
_CLOCK = (
    r"(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)(?::(?P<s>[0-5]\d))?"
    r"|(?P<eh>1[0-2]|0?\d)(?::(?P<em>[0-5]\d))?\s*(?P<ampm>am|pm|a\.m\.|p\.m\.)"
    r"|(?P<word>noon|midday|midnight)"
    rf"|(?:(?P<zpart>{_PART_ZH})\s*)?(?P<zh>\d{{1,2}}|[零一二两三四五六七八九十]{{1,3}})\s*点"
    r"\s*(?:(?P<zhalf>半)|(?P<zm>\d{1,2}|[零一二两三四五六七八九十]{1,3})\s*分?)?"
)
_DAY_CLOCK = re.compile(rf"(?P<day>{_DAY})(?:\s*(?:at\s+|的)?(?:{_CLOCK}))?")
_CLOCK_DAY = re.compile(rf"(?:{_CLOCK})\s*,?\s*(?P<day>{_DAY})")
_CLOCK_ONLY = re.compile(_CLOCK)
_NOW = frozenset({"now", "right now", "现在", "此刻", "当前"})


def _cn_number(text: str) -> int:
    """A count written in digits or Chinese numerals up to 99: 3, 三, 十二, 两, 二十五."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_CN_DIGITS.get(tens, 1) if tens else 1) * 10 + _CN_DIGITS.get(ones, 0)
    return _CN_DIGITS.get(text, -1)


def _amount(text: str) -> float:
    text = " ".join(text.split())
    if text in ("半", "half a", "half an"):
        return 0.5
    if text in _EN_NUMBERS:
        return float(_EN_NUMBERS[text])
    try:
        return float(text)
    except ValueError:
        return float(_cn_number(text))


def _ago(match: re.Match[str], clock: Clock) -> datetime | None:
    unit = _UNITS.get(match["eu"] or match["zu"] or "")
    amount = _amount(match["en"] or match["zh"])
    if unit is None or amount < 0:
        return None
    amount += 0.5 if match["half"] else 0.0
    if unit in ("days", "weeks"):
        # Days keep the wall clock: a day ago across a DST change is 23 or 25 hours.
        local = clock.now.astimezone(clock.tz).replace(tzinfo=None)
        days = amount * (7 if unit == "weeks" else 1)
        return (local - timedelta(days=days)).replace(tzinfo=clock.tz)
    # Elapsed time, counted in UTC (Python subtracts wall clocks within one zone).
    return clock.now.astimezone(UTC) - timedelta(**{unit: amount})


def _hour_of(match: re.Match[str], part: str | None) -> tuple[int, int, int] | None:
    """(hour, minute, second) of a clock match; `part`: the part of the day a day word
    or a Chinese part word said (下午, last night), which moves 3 to 15."""
    if match["h"] is not None:
        return int(match["h"]), int(match["m"]), int(match["s"] or 0)
    if match["word"]:
        return (0, 0, 0) if match["word"] == "midnight" else (12, 0, 0)
    if match["eh"] is not None:
        hour, minute = int(match["eh"]), int(match["em"] or 0)
        pm = match["ampm"].startswith("p")
        return (hour % 12 + (12 if pm else 0)), minute, 0
    hour = _cn_number(match["zh"])
    minute = 30 if match["zhalf"] else (_cn_number(match["zm"]) if match["zm"] else 0)
    part = _PARTS_ZH.get(match["zpart"] or "", part)
    if (part in ("afternoon", "evening") and hour < 12) or (part == "noon" and hour < 6):
        hour += 12
    elif part in ("night", "morning") and hour == 12:
        hour = 0
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        return None
    return hour, minute, 0


def _on_day(day: date, hms: tuple[int, int, int], clock: Clock) -> datetime:
    """A clock time of a logical day: before the cut hour it is on the next date."""
    on = day if hms[0] >= clock.cut_hour else day + timedelta(days=1)
    return datetime.combine(on, time(*hms), tzinfo=clock.tz)


def _day_clock(match: re.Match[str], clock: Clock) -> datetime | None:
    offset, part = _DAYS[match["day"]]
    day = logical_day(clock.now, tz=clock.tz, cut_hour=clock.cut_hour) + timedelta(days=offset)
    if match["h"] is None and match["eh"] is None and match["word"] is None and not match["zh"]:
        return datetime.combine(day, time(clock.cut_hour), tzinfo=clock.tz)
    hms = _hour_of(match, part)
    return None if hms is None else _on_day(day, hms, clock)


def _clock_only(match: re.Match[str], clock: Clock) -> datetime | None:
    hms = _hour_of(match, None)
    if hms is None:
        return None
    local = clock.now.astimezone(clock.tz)
    at = datetime.combine(local.date(), time(*hms), tzinfo=clock.tz)
    return at if at <= clock.now else at - timedelta(days=1)


_READERS = (
    (_AGO, _ago),
    (_DAY_CLOCK, _day_clock),
    (_CLOCK_DAY, _day_clock),
    (_CLOCK_ONLY, _clock_only),
)


def read_instant(text: str, *, clock: Clock) -> datetime | None:
    """The instant relative words name on `clock`; None when they name none."""
    said = " ".join(text.strip().lower().replace("：", ":").split())
    if said in _NOW:
        return clock.now.astimezone(clock.tz)
    for pattern, read in _READERS:
        match = pattern.fullmatch(said)
        if match is not None:
            try:
                found = read(match, clock)
            except OverflowError:  # "99999999 weeks ago": before the calendar begins
                return None
            # In the user's zone (a wall time in a DST gap becomes the time it names).
            return None if found is None else found.astimezone(clock.tz)
    return None


# -- the argument types --------------------------------------------------------------------

_ISO_OR_NUMBER = re.compile(r"\s*(\d{4}-\d|[-+]?\d+(\.\d*)?([eE][-+]?\d+)?\s*$)")


def _clock_of(info: ValidationInfo) -> Clock | None:
    context = info.context if isinstance(info.context, dict) else {}
    found = context.get(CONTEXT_KEY)
    return found if isinstance(found, Clock) else None


def _relative(value: Any, info: ValidationInfo) -> Any:
    if not isinstance(value, str) or _ISO_OR_NUMBER.match(value):
        return value  # ISO 8601 (or a number, which the ISO check refuses clearly)
    # Validation alone (checking a model's arguments before a call) reads words on UTC.
    clock = _clock_of(info) or Clock(now=datetime.now(UTC), tz=zone("UTC"), cut_hour=0)
    instant = read_instant(value[:80], clock=clock)
    if instant is None:
        raise ValueError(
            f"{value[:40]!r} is not an instant: give ISO 8601 (2026-06-02T15:00:00+08:00) or "
            f"a relative time in your zone ({RELATIVE_FORMS})"
        )
    return instant


def _local(value: datetime, info: ValidationInfo) -> datetime:
    """An instant without a zone is the user's local time (left naive for the tool to
    place when no caller's clock came with the arguments)."""
    clock = _clock_of(info)
    if value.tzinfo is None and clock is not None:
        value = value.replace(tzinfo=clock.tz)
    problem = instant_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


_TEXT = WithJsonSchema({"type": "string"})
ZonedInstant = Annotated[Instant, BeforeValidator(_relative), _TEXT]
"""ISO 8601 with its UTC offset, or relative words read in the user's zone."""
LocalInstant = Annotated[datetime, BeforeValidator(_relative), AfterValidator(_local), _TEXT]
"""ISO 8601 (the user's local time without an offset), or relative words."""

ZONED_HELP = f"ISO 8601 with its zone, or relative in the user's zone ({RELATIVE_FORMS})"
LOCAL_HELP = (
    f"ISO 8601 (the user's local time unless a zone is given), or relative ({RELATIVE_FORMS})"
)
