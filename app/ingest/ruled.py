"""The two things every record of a batch needs, worked out once and not per record:
what the rules make of its text (the same app, title, URL and flags give the same
verdict), and the logical day of its start (by the hour: a zone's offset is the
same over almost every hour).

    ruled = rule_text(rules, app="Code.exe", title="main.py", url=None, idle=False, incognito=False)
    days = LogicalDays(tz=zone("Asia/Shanghai"), cut_hour=4)
    days.of_micros(1_700_000_000_000_000)  # == logical_day(<that instant>, tz=..., cut_hour=4)
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from typing import NamedTuple
from zoneinfo import ZoneInfo

from app.rules.categories import Rules, Verdict
from app.text import canonical_domain
from app.timeutil import logical_day

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_DAY = date(1970, 1, 1)
_US = timedelta(microseconds=1)
HOUR_US = 3_600_000_000
DAY_US = 24 * HOUR_US


class Ruled(NamedTuple):
    """A record's text after the rules: the columns that depend on nothing else."""

    drop: bool
    app: str  # canonical
    app_raw: str
    window_title: str  # "" when redacted
    url: str | None
    domain: str | None
    category: str
    category_source: str
    redacted: bool


# The rules' verdicts by what they read: app, title, site, idle and incognito.
Verdicts = dict[tuple[str, str, str | None, bool, bool], Verdict]
# A URL whose host is plain (lower-case letters, digits, dots, hyphens; no port, no
# user), up to the path, query or fragment that follows it: its domain is its origin's.
_PLAIN_ORIGIN = re.compile(r"https?://[a-z0-9.-]+(?=[/?#])")


def site_of(url: str | None) -> str | None:
    """`canonical_domain(url)`, by its origin when that is plain: the origin's domain is
    cached, and pages of one site differ only after it."""
    if url and (origin := _PLAIN_ORIGIN.match(url)) is not None:
        return canonical_domain(origin.group())
    return canonical_domain(url)


def rule_text(
    rules: Rules,
    *,
    app: str,
    title: str,
    url: str | None,
    idle: bool,
    incognito: bool,
    verdicts: Verdicts | None = None,
) -> Ruled:
    """What the privacy and category rules make of one record's text; with `verdicts`,
    the rules run once per distinct app, title and site in it (URLs vary more)."""
    domain = site_of(url)
    if verdicts is None:
        verdict = rules.classify(
            app=app, title=title, domain=domain, idle=idle, incognito=incognito
        )
    else:
        key = (app, title, domain, idle, incognito)
        found = verdicts.get(key)
        if found is None:
            found = verdicts[key] = rules.classify(
                app=app, title=title, domain=domain, idle=idle, incognito=incognito
            )
        verdict = found
    hide = verdict.action == "redact"
    return Ruled(
        drop=verdict.action == "drop",
        app=verdict.app,
        app_raw=app.strip(),
        window_title="" if hide else title,
        url=None if hide else url,
        domain=None if hide else domain,
        category=verdict.category,
        category_source=verdict.source,
        redacted=hide,
    )


class LogicalDays:
    """`logical_day` for many instants of one user: per UTC hour the zone's offset is
    looked up once, and a day is then integer arithmetic. An hour the offset changes
    inside (a DST change) goes through `logical_day` itself; no zone changes its
    offset twice within an hour (tzdata's closest changes are days apart), so an hour
    with one offset at both ends has it throughout."""

    def __init__(self, *, tz: ZoneInfo, cut_hour: int) -> None:
        self._tz = tz
        self._cut_hour = cut_hour
        self._cut_us = cut_hour * HOUR_US
        self._offsets: dict[int, int | None] = {}
        self._days: dict[int, date] = {}
        # The hour `of` saw last, when one day covers it: records come in time order.
        self._hour: tuple[datetime, datetime, date] | None = None

    def _offset(self, hour: int) -> int | None:
        first = _EPOCH + hour * HOUR_US * _US
        last = first + (HOUR_US - 1) * _US
        offset = first.astimezone(self._tz).utcoffset()
        if offset is None or offset != last.astimezone(self._tz).utcoffset():
            return None
        return offset // _US

    def of_micros(self, micros: int) -> date:
        """The logical day of an instant given as microseconds since the epoch."""
        hour = micros // HOUR_US
        try:
            offset = self._offsets[hour]
        except KeyError:
            offset = self._offsets[hour] = self._offset(hour)
        if offset is None:
            return logical_day(_EPOCH + micros * _US, tz=self._tz, cut_hour=self._cut_hour)
        number = (micros + offset - self._cut_us) // DAY_US
        day = self._days.get(number)
        if day is None:
            day = self._days[number] = _EPOCH_DAY + timedelta(days=number)
        return day

    def around(self, micros: int) -> tuple[int, int, date]:
        """The logical day of an instant (µs), with a stretch [first, end) around it
        that all has that day: its UTC hour when one day and one offset cover the hour,
        else the instant alone."""
        day = self.of_micros(micros)
        first = micros - micros % HOUR_US
        if self._offsets[first // HOUR_US] is not None and self.of_micros(first) == self.of_micros(
            first + HOUR_US - 1
        ):
            return first, first + HOUR_US, day
        return micros, micros + 1, day

    def of(self, ts: datetime) -> date:
        """The logical day of an aware datetime."""
        if ts.tzinfo is None:
            raise ValueError("logical_day needs an aware datetime")
        hour = self._hour
        if hour is not None and hour[0] <= ts < hour[1]:
            return hour[2]
        first, end, day = self.around((ts - _EPOCH) // _US)
        if end - first == HOUR_US:
            start = _EPOCH + first * _US
            self._hour = (start, start + HOUR_US * _US, day)
        return day
