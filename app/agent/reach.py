"""The time a conversation turn read, so that deleting records finds the turns that
may quote them (`NewTurn.reach`).

    turn_reach(called_tools=True, texts=[arguments_json, result_json, answer])

Every tool result names the time of what it holds (records and episodes carry their
start and end, digests their day, week or month key, stats their period), so the hull
of every time named in a turn's arguments, results and answer holds every record the
turn could quote. A day, week or month key stands for its whole span, widened by a day
on each side for any time zone and day-cut hour. A turn that called tools but names no
time reaches everything; one that called none and names none reaches nothing (its
history is covered another way: a turn that goes takes the later ones with it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from typing import Literal

# Fixed-width pieces only, each optional part at most once: linear in the text.
_TIME = re.compile(
    r"(?<!\d)(\d{4})-(?:W(\d{2})|(\d{2})(?:-(\d{2})"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?)?)(?!\d)"
)
_MARGIN = timedelta(days=1)
MAX_TEXT = 400_000  # characters read per text: tool results are capped far below this


def _span(match: re.Match[str]) -> tuple[datetime, datetime] | None:
    year, week, month, day, hour, minute, second, offset = match.groups()
    try:
        if week is not None:
            monday = date.fromisocalendar(int(year), int(week), 1)
            start = datetime.combine(monday, datetime.min.time())
            end = start + timedelta(days=7)
        elif day is None:
            first = date(int(year), int(month), 1)
            start = datetime.combine(first, datetime.min.time())
            end = datetime.combine((first + timedelta(days=32)).replace(day=1), datetime.min.time())
        else:
            start = datetime(int(year), int(month), int(day))
            end = start + timedelta(days=1)
            if hour is not None:
                start = end = start.replace(
                    hour=int(hour), minute=int(minute), second=int(second or 0)
                )
                if offset is not None:
                    parsed = datetime.fromisoformat(f"2000-01-01T00:00{_iso_offset(offset)}")
                    shift = parsed.utcoffset() or timedelta(0)
                    start = end = start - shift
        return (start - _MARGIN).replace(tzinfo=UTC), (end + _MARGIN).replace(tzinfo=UTC)
    except (ValueError, OverflowError):  # not a date after all (e.g. 2026-13, 0000-01)
        return None


def _iso_offset(offset: str) -> str:
    if offset == "Z":
        return "+00:00"
    return offset if ":" in offset else f"{offset[:3]}:{offset[3:]}"


def turn_reach(
    *, called_tools: bool, texts: Iterable[str]
) -> tuple[datetime, datetime] | Literal["nothing"] | None:
    """The first and last instant a turn's texts name; "nothing" or None (everything)
    when they name none, by whether the turn called tools."""
    first: datetime | None = None
    last: datetime | None = None
    for text in texts:
        for match in _TIME.finditer(text[:MAX_TEXT]):
            span = _span(match)
            if span is None:
                continue
            first = span[0] if first is None else min(first, span[0])
            last = span[1] if last is None else max(last, span[1])
    if first is None or last is None:
        return None if called_tools else "nothing"
    return first, last
