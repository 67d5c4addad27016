"""Ways into a period beyond its day bars: the hours of the day it was active in, one
app's or site's titles and time, and every signal of the period.

    hours = hour_of_day(store, ctx, first=date(2026, 6, 1), last=date(2026, 6, 30))
    titles = app_titles(store, ctx, name="Visual Studio Code", first=..., last=...)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, timedelta
from typing import Protocol

from app.store.accounts import AccountStore
from app.store.digests import SignalRow
from app.store.tools import ToolStore
from app.store.web import TitleSeconds, WebStore
from app.timeutil import read_window, zone
from app.tools import ToolContext
from app.tools.periods import span
from app.tools.sites import named_titles

APP_TITLES = 50
PERIOD_EPISODES = 20_000


class ExploreStore(AccountStore, ToolStore, WebStore, Protocol):
    """Episodes and signals as the tools read them, and titles of an app."""


@dataclass(frozen=True, slots=True)
class HourOfDay:
    hour: int  # local clock hour, 0-23
    hours: dict[str, float]  # category -> active hours in that clock hour over the period

    @property
    def total(self) -> float:
        return sum(self.hours.values())


def hour_of_day(
    store: ExploreStore, ctx: ToolContext, *, first: date, last: date
) -> list[HourOfDay]:
    """Active hours by local clock hour over the logical days [first, last], by category,
    in the order of the user's day (from its cut hour). Each episode's active time is
    spread evenly over its span, so the bars add up to the period's active hours."""
    user = ctx.user
    tz = zone(user.time_zone)
    ts_from, ts_to = span(first, last, user=user)
    by_hour: list[dict[str, float]] = [{} for _ in range(24)]
    episodes = store.list_episodes(
        user_id=user.user_id, ts_from=ts_from, ts_to=ts_to, category=None, limit=PERIOD_EPISODES
    )
    for e in episodes:
        if not ts_from <= e.ts_start < ts_to or e.active_s <= 0:
            continue
        length = (e.ts_end - e.ts_start).total_seconds()
        if length <= 0:
            hour = e.ts_start.astimezone(tz).hour
            by_hour[hour][e.category] = by_hour[hour].get(e.category, 0.0) + e.active_s / 3600
            continue
        moment = e.ts_start.astimezone(UTC)
        end = e.ts_end.astimezone(UTC)
        while moment < end:
            local = moment.astimezone(tz)
            boundary = local.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
            step_end = min(end, boundary.astimezone(UTC))
            share = (step_end - moment).total_seconds() / length
            slot = by_hour[local.hour]
            slot[e.category] = slot.get(e.category, 0.0) + e.active_s * share / 3600
            moment = step_end
    order = [(user.day_cut_hour + i) % 24 for i in range(24)]
    return [HourOfDay(hour=h, hours=by_hour[h]) for h in order]


@dataclass(frozen=True, slots=True)
class AppTitles:
    name: str
    first: date
    last: date
    titles: list[TitleSeconds]
    total_seconds: float
    more_titles: int


def app_titles(
    store: ExploreStore, ctx: ToolContext, *, name: str, first: date, last: date, idle_gap_s: int
) -> AppTitles:
    """An app's (or a site's) window titles with their active time over [first, last]."""
    user = ctx.user
    read_from, read_to = read_window(*span(first, last, user=user), idle_gap_s=idle_gap_s)
    # A site: its URLs and the titles naming it, as every count of a site has it.
    named = named_titles(ctx, day_from=first, day_to=last, domains=(name,)) if "." in name else {}
    rows = store.title_seconds(
        user_id=user.user_id,
        name=name,
        day_from=first,
        day_to=last,
        ts_from=read_from,
        ts_to=read_to,
        limit=APP_TITLES,
        browsers=sorted(ctx.rules.apps.browsers),
        site_titles=sorted(named),
    )
    return AppTitles(
        name=name,
        first=first,
        last=last,
        titles=rows,
        total_seconds=rows[0].total if rows else 0.0,
        more_titles=max(0, rows[0].titles - len(rows)) if rows else 0,
    )


def period_signals(
    store: ExploreStore, ctx: ToolContext, *, first: date, last: date
) -> list[SignalRow]:
    """Every signal of the period, by day and then by strength."""
    rows = store.list_signals(user_id=ctx.user.user_id, day_from=first, day_to=last)
    return sorted(rows, key=lambda r: (r.day_local, -r.severity, r.kind))
