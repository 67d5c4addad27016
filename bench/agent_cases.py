"""What the asking bench asks and how its truth is found: questions in English and
Chinese built from paraphrases × things × periods, each with a truth that SQL over
the records layer computes at run time, relative to the run's logical day.

The questions live in two files: bench/agent_questions.py (the ones the offline
parser was developed against) and bench/agent_heldout.py (a third, written first
and kept out of that development; the bench reports it separately).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Literal

Span = Callable[[date], tuple[date, date]]
Kind = Literal[
    "app",
    "site",
    "category",
    "idle",
    "compare",
    "last_seen",
    "days_count",
    "days_which",
    "habits",
    "relative",
    "moment",
    "followup",
    "unknown",
]


# ---- periods, seen from the run's logical day -------------------------------------


def _monday(today: date) -> date:
    return today - timedelta(days=today.weekday())


def today_span(today: date) -> tuple[date, date]:
    return today, today


def days_ago(n: int) -> Span:
    return lambda today: (today - timedelta(days=n), today - timedelta(days=n))


def past_days(n: int) -> Span:
    return lambda today: (today - timedelta(days=n - 1), today)


def this_week(today: date) -> tuple[date, date]:
    return _monday(today), today


def weeks_ago(n: int) -> Span:
    def span(today: date) -> tuple[date, date]:
        monday = _monday(today) - timedelta(days=7 * n)
        return monday, monday + timedelta(days=6)

    return span


def this_month(today: date) -> tuple[date, date]:
    return today.replace(day=1), today


def months_ago(n: int) -> Span:
    def span(today: date) -> tuple[date, date]:
        first = today.replace(day=1)
        for _ in range(n):
            first = (first - timedelta(days=1)).replace(day=1)
        following = (first + timedelta(days=32)).replace(day=1)
        return first, following - timedelta(days=1)

    return span


def first_week_of_months_ago(n: int) -> Span:
    def span(today: date) -> tuple[date, date]:
        first, _ = months_ago(n)(today)
        return first, first + timedelta(days=6)

    return span


def weekday(k: int) -> Span:
    """A bare weekday: the latest such day that is not after today."""

    def span(today: date) -> tuple[date, date]:
        day = _monday(today) + timedelta(days=k)
        if day > today:
            day -= timedelta(days=7)
        return day, day

    return span


def last_weeks_day(k: int) -> Span:
    def span(today: date) -> tuple[date, date]:
        day = _monday(today) - timedelta(days=7) + timedelta(days=k)
        return day, day

    return span


def weekday_range(first: int, last: int) -> Span:
    """Monday to Wednesday: this week's when it has begun by then, else last week's."""

    def span(today: date) -> tuple[date, date]:
        monday = _monday(today)
        if monday + timedelta(days=first) > today:
            monday -= timedelta(days=7)
        return monday + timedelta(days=first), monday + timedelta(days=last)

    return span


def last_weekend(today: date) -> tuple[date, date]:
    saturday = _monday(today) - timedelta(days=2)
    return saturday, saturday + timedelta(days=1)


YESTERDAY = days_ago(1)
LAST_WEEK = weeks_ago(1)
LAST_MONTH = months_ago(1)


# ---- things, as the user's data holds them ----------------------------------------


@dataclass(frozen=True, slots=True)
class Thing:
    """What a mention means in the sample: apps (canonical names), sites (domains),
    a category, or idle/locked time."""

    kind: Literal["app", "site", "category", "idle"]
    names: tuple[str, ...] = ()


def app(*names: str) -> Thing:
    return Thing("app", names)


# A browser record with no URL counts for the site its title names (as ingest reads it).
SITE_TITLES: dict[str, tuple[str, ...]] = {
    "bilibili.com": ("%哔哩哔哩%",),
    "youtube.com": ("% - YouTube%",),
    "arxiv.org": ("%arXiv%", "[2309.%"),  # the sample's arXiv pages (app/demo/sample.py)
    "coursera.org": ("%Coursera%",),
    "github.com": ("%GitHub%",),
    "stackoverflow.com": ("%Stack Overflow%",),
}
BROWSERS = ("Google Chrome", "Firefox", "Microsoft Edge", "Safari", "Chromium")


def site(*domains: str) -> Thing:
    return Thing("site", domains)


def category(name: str) -> Thing:
    return Thing("category", (name,))


IDLE = Thing("idle")


# ---- truths -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hours:
    thing: Thing
    span: Span


@dataclass(frozen=True, slots=True)
class Compare:
    things: tuple[Thing, ...]
    span: Span


@dataclass(frozen=True, slots=True)
class LastSeen:
    thing: Thing


@dataclass(frozen=True, slots=True)
class Days:
    """Days of a period with at least `minutes` of a thing: counted or listed."""

    thing: Thing
    span: Span
    minutes: int = 1
    listed: bool = False


@dataclass(frozen=True, slots=True)
class SignalDays:
    """Days of a period on which a behaviour was detected: listed, or counted."""

    kind: str
    span: Span
    counted: bool = False


@dataclass(frozen=True, slots=True)
class Moment:
    """What covered the screen at a clock time, `back` days before today."""

    back: int
    hour: int
    minute: int = 0


@dataclass(frozen=True, slots=True)
class Unknown:
    """A name the data does not hold: never answered as zero hours."""

    name: str


Truth = Hours | Compare | LastSeen | Days | SignalDays | Moment | Unknown


@dataclass(frozen=True, slots=True)
class Case:
    kind: Kind
    text: str
    truth: Truth
    before: tuple[str, ...] = field(default=())  # the conversation's earlier questions


# ---- building questions -----------------------------------------------------------

Fill = dict[str, object]


def expand(
    kind: Kind,
    templates: Sequence[str],
    fills: Sequence[Fill],
    truth: Callable[[Fill], Truth],
    *,
    per_template: int = 1,
    offset: int = 0,
) -> list[Case]:
    """Each template with `per_template` fills, walking the fills so that templates
    and fills pair up differently (paraphrase × thing × period)."""
    cases = []
    walk = itertools.cycle(range(len(fills)))
    for _ in range(offset % max(1, len(fills))):
        next(walk)
    for template in templates:
        for _ in range(per_template):
            fill = fills[next(walk)]
            text = template.format(**{k: v for k, v in fill.items() if isinstance(v, str)})
            cases.append(Case(kind, text, truth(fill)))
    return cases


def month_names(today: date, back: int) -> tuple[str, int, int]:
    """The English name, number and year of the month `back` months before today's."""
    first, _ = months_ago(back)(today)
    return first.strftime("%B"), first.month, first.year
