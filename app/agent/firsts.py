"""When something first began or last ended inside a period. A named app, site or
title: its first (last) day of use from days_with, then the minute by its seconds in
halved windows of that day (eleven more days_with reads). A category or any
activity: the earliest or latest episode, from get_episodes.

    FIRSTS["first"](ctx, parts, today).text   # "09:12 on 2003-03-30: the first …"
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, time, timedelta

from app.agent.lexicon import ACTIVE
from app.agent.parts import Parts
from app.agent.planner import Planned, days_result, not_known, period_of, period_words
from app.agent.wording import category_label, t, thing_label
from app.rules.categories import CATEGORIES
from app.rules.things import loose
from app.tools import ToolContext
from app.tools.reads import Episode, EpisodesResult
from app.tools.recall import LastSeenResult

Planner = Callable[[ToolContext, Parts, date], Planned | None]


def _matching(items: list[Episode], name: str | None) -> list[Episode]:
    """The episodes of a thing: its category, or a title that names it."""
    if name is None or name in CATEGORIES:
        return items
    key = loose(name.split(".")[0])
    return [i for i in items if key and key in loose(i.title)]


DAY_MINUTES = 1440


def _window_seconds(
    ctx: ToolContext, planned: Planned, name: str, day: date, minutes: tuple[int, int]
) -> int:
    """The thing's seconds on a logical day between two offsets from its cut hour."""
    cut = ctx.user.day_cut_hour * 60
    clocks = [f"{(cut + m) // 60 % 24:02d}:{(cut + m) % 60:02d}" for m in minutes]
    one_day = {"period": "custom", "date_from": day.isoformat(), "date_to": day.isoformat()}
    arguments = {"thing": name, **one_day, "time_from": clocks[0], "time_to": clocks[1]}
    found = days_result(planned.call(ctx, "days_with", arguments))
    return found.total_seconds if found is not None else 0


def _edge_minute(ctx: ToolContext, planned: Planned, name: str, day: date, first: bool) -> int:
    """The minute after the day's cut hour at which the thing first began (or last
    ended) on a day it was used: halving the window, eleven reads of days_with."""
    low, high = 0, DAY_MINUTES
    while high - low > 1:
        middle = (low + high) // 2
        span = (0, middle) if first else (middle, DAY_MINUTES)
        inside = _window_seconds(ctx, planned, name, day, span) > 0
        if first:
            low, high = (low, middle) if inside else (middle, high)
        else:
            low, high = (middle, high) if inside else (low, middle)
    return low if first else high


def _thing_edge(ctx: ToolContext, parts: Parts, today: date, name: str) -> Planned:
    """When a named thing first began or last ended in the period, to the minute, by
    its seconds in ever smaller windows of the day (the thing as the tools resolve it,
    not as episode titles say it)."""
    spec, defaulted = period_of(parts, today=today, default_days=None)
    planned = Planned(parts.operation, spec, defaulted=defaulted)
    lang, first = parts.language, parts.operation == "first"
    found = days_result(planned.call(ctx, "days_with", {"thing": name, **spec.arguments()}))
    if found is None:
        planned.text = not_known(parts, planned)
        return planned
    used = [d.day for d in found.series if d.seconds > 0]
    when = period_words(spec, lang)
    what = thing_label(found.thing, parts.things[0].text, lang)
    if not used:
        titled = _last_in_titles(ctx, planned, parts, name, today=today)
        none = t(lang, f"{when} 没有{what}的记录。", f"No {what} was recorded {when}.")
        planned.text = titled or none
        return planned
    day = used[0] if first else used[-1]
    minute = ctx.user.day_cut_hour * 60 + _edge_minute(ctx, planned, name, day, first)
    at = datetime.combine(day, time()) + timedelta(minutes=minute)
    clock, on = f"{at:%H:%M}", at.date().isoformat()
    planned.text = t(
        lang,
        f"{clock}：{when}，{what}{'最早从这时开始' if first else '最晚到这时结束'}（{on}）。",
        f"{clock}: {what} {when} {'first began' if first else 'last ended'} then ({on}).",
    )
    return planned


def _last_in_titles(
    ctx: ToolContext, planned: Planned, parts: Parts, name: str, *, today: date
) -> str | None:
    """A name the resolver knows (原神 is a game) that the records hold only in window
    titles (原神 on bilibili): when it was last on screen in the period, by its title."""
    if parts.operation != "last":
        return None
    spec = planned.period
    arguments: dict[str, str] = {"title": name}
    if spec.date_to < today:
        end = datetime.combine(spec.date_to + timedelta(days=1), time(ctx.user.day_cut_hour))
        arguments["before"] = end.isoformat(timespec="minutes")
    seen = planned.call(ctx, "last_seen", arguments)
    if not isinstance(seen, LastSeenResult) or not seen.found or seen.day is None:
        return None
    if not spec.date_from <= seen.day <= spec.date_to or seen.at is None:
        return None
    lang, when = parts.language, period_words(spec, parts.language)
    shown = " · ".join(x for x in (seen.app, seen.title) if x)
    return t(
        lang,
        f"{seen.at}：{when}最后一次是{shown}。",
        f"{seen.at}: the last time {when}, {shown}.",
    )


def _edge(ctx: ToolContext, parts: Parts, today: date) -> Planned | None:
    mention = parts.things[0] if parts.things else None
    name = None if mention is None or mention.name in (ACTIVE, "idle") else mention.name
    if mention is not None and mention.name == "idle":
        return None
    if name is not None and name not in CATEGORIES:
        return _thing_edge(ctx, parts, today, name)
    spec, defaulted = period_of(parts, today=today, default_days=None)
    planned = Planned(parts.operation, spec, defaulted=defaulted)
    arguments = {**spec.arguments(), "limit": 1000}
    if name in CATEGORIES:
        arguments["category"] = name
    result = planned.call(ctx, "get_episodes", arguments)
    if not isinstance(result, EpisodesResult):
        planned.text = not_known(parts, planned)
        return planned
    active = [i for i in result.items if i.minutes > 0]  # an idle run is no activity
    items = sorted(_matching(active, name), key=lambda i: i.when)
    planned.text = _said(parts, spec_words=period_words(spec, parts.language), items=items)
    return planned


def _said(parts: Parts, *, spec_words: str, items: list[Episode]) -> str:
    lang, first = parts.language, parts.operation == "first"
    what = parts.things[0].text if parts.things else t(lang, "活动", "activity")
    if parts.things and parts.things[0].name in CATEGORIES:
        what = category_label(parts.things[0].name, lang)
    if not items:
        return t(lang, f"{spec_words} 没有{what}的记录。", f"No {what} was recorded {spec_words}.")
    item = items[0] if first else items[-1]
    day, clocks = item.when.split(" ", 1)
    clock = clocks.split("–")[0] if first else clocks.split("–")[-1]
    cited = f"#{item.id} {item.title}"
    edge = "最早从这时开始" if first else "最晚到这时结束"
    return t(
        lang,
        f"{clock}：{spec_words}，{what}{edge}（{cited}，{day}）。",
        f"{clock}: {what} {spec_words} {'first began' if first else 'last ended'} then "
        f"({cited}, {day}).",
    )


FIRSTS: dict[str, Planner] = {"first": _edge, "last": _edge}
