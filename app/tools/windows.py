"""Seconds inside windows of the day, or between two instants, counted from records.

    rows = window_rows(ctx, windows=[...], day_from=..., day_to=...)
    totals = window_totals(ctx, rows)        # active, idle, by category, app and site
    by_day = thing_by_day(ctx, thing, rows)  # one thing's seconds on each day

A window cuts records: only the part of a record's effective span (the duration rule)
inside it counts, so these numbers come from the records themselves, never from
episodes or digests (whose numbers are whole records). Without windows the same read
counts whole records of whole logical days (the sites of a period).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from app.rules.things import Thing, domain_matches
from app.store.tools import WindowSeconds
from app.timeutil import read_window
from app.tools.periods import Window, span
from app.tools.registry import ToolContext
from app.tools.things import from_records, site_confirmed


def window_rows(
    ctx: ToolContext,
    *,
    windows: Sequence[Window],
    day_from: date,
    day_to: date,
    title: str | None = None,
) -> list[WindowSeconds]:
    """The grouped seconds inside `windows`; with none, of the whole days [day_from, day_to]."""
    if windows:
        start = min(w.start for w in windows)
        end = max(w.end for w in windows)
        # A record that started up to a day before a window may still run into it.
        read_from, read_to = start - timedelta(days=1), end
    else:
        read_from, read_to = read_window(
            *span(day_from, day_to, user=ctx.user), idle_gap_s=ctx.settings.idle_gap_s
        )
    return ctx.store.window_seconds(
        user_id=ctx.user.user_id,
        windows=[(w.day, w.start, w.end) for w in windows],
        day_from=day_from,
        day_to=day_to,
        read_from=read_from,
        read_to=read_to,
        browsers=sorted(ctx.rules.apps.browsers),
        title=title,
    )


@dataclass(slots=True)
class WindowTotals:
    """The additive numbers of some rows: active time is never idle time."""

    active: float = 0.0
    idle: float = 0.0
    by_category: dict[str, float] = field(default_factory=dict)
    by_app: dict[str, float] = field(default_factory=dict)
    by_site: dict[str, float] = field(default_factory=dict)


def site_key(ctx: ToolContext, row: WindowSeconds) -> str | None:
    """The site a row's time was on: its URL's domain (the most specific known site it
    lies under, as timetrace_site_seconds_v1 folds it), else the site its URL-less
    browser title names; None when neither."""
    apps = ctx.rules.apps
    if row.domain:
        known = [s.domain for s in apps.sites if domain_matches(row.domain, (s.domain,))]
        return min(known, key=lambda d: (-len(d), d)) if known else row.domain
    if row.page_title is not None:
        return apps.site_of(apps.page_title(row.page_title))
    return None


def window_totals(ctx: ToolContext, rows: Iterable[WindowSeconds]) -> WindowTotals:
    """Active and idle seconds, by category (idle time is `system`), by app and by site."""
    totals = WindowTotals()
    by_category: dict[str, float] = defaultdict(float)
    by_app: dict[str, float] = defaultdict(float)
    by_site: dict[str, float] = defaultdict(float)
    sites: dict[tuple[str | None, str | None], str | None] = {}
    for row in rows:
        by_category["system" if row.is_idle else row.category] += row.seconds
        if row.is_idle:
            totals.idle += row.seconds
            continue  # time away is never time in an app or on a site
        totals.active += row.seconds
        by_app[row.app] += row.seconds
        key = (row.domain, row.page_title)
        if key not in sites:
            sites[key] = site_key(ctx, row)
        site = sites[key]
        if site is not None:
            by_site[site] += row.seconds
    totals.by_category, totals.by_app = dict(by_category), dict(by_app)
    totals.by_site = dict(by_site)
    return totals


def row_belongs(ctx: ToolContext, thing: Thing, row: WindowSeconds) -> bool:
    """Whether a row is part of the thing: the rule of `things.belongs`, on a group."""
    if thing.idle and row.is_idle:
        return True
    if row.category in thing.categories:
        return True
    if row.is_idle:
        return False
    if row.app in thing.apps:
        return True
    if thing.domains:
        if row.domain:
            if domain_matches(row.domain, thing.domains):
                return True
        elif row.page_title is not None and site_confirmed(ctx, thing, row.page_title):
            return True
    return bool(thing.title and row.titled)


def thing_by_day(
    ctx: ToolContext, thing: Thing, rows: Iterable[WindowSeconds]
) -> dict[date, float]:
    """The thing's seconds on each day of the rows that has any."""
    by_day: dict[date, float] = defaultdict(float)
    for row in rows:
        if row_belongs(ctx, thing, row):
            by_day[row.day_local] += row.seconds
    return {day: seconds for day, seconds in sorted(by_day.items()) if seconds > 0}


def thing_parts(ctx: ToolContext, thing: Thing, rows: Iterable[WindowSeconds]) -> dict[str, float]:
    """The thing's seconds by part, as the whole-day counts name them: a site (or the
    thing, for a browser title naming it), else an app, a category or idle time."""
    parts: dict[str, float] = defaultdict(float)
    for row in rows:
        if row_belongs(ctx, thing, row):
            parts[_part(thing, row)] += row.seconds
    return dict(parts)


def _part(thing: Thing, row: WindowSeconds) -> str:
    if from_records(thing):
        if row.domain and thing.domains and domain_matches(row.domain, thing.domains):
            return row.domain
        return thing.name if row.page_title is not None else row.app
    if row.is_idle:
        return "idle" if thing.idle else row.category
    return row.app if row.app in thing.apps else row.category
