"""The operations the planner answers, one function each: the tool calls a question's
parts need and the answer, the answer first.

    planned = plan(ctx, parts, today=date(2026, 12, 1))
    planned.text   # "Yes: 52 minutes (0.87 h) on YouTube on 2026-11-30, over 45 minutes."
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date

from app.agent.active_days import active_days
from app.agent.contests import CONTESTS
from app.agent.dates import PeriodSpec
from app.agent.firsts import FIRSTS
from app.agent.intents import DAYS_DEFAULT
from app.agent.lexicon import ACTIVE
from app.agent.parts import Parts
from app.agent.planner import (
    DEFAULT_DAYS,
    Planned,
    days_result,
    not_known,
    period_of,
    period_words,
    said,
    say_days,
    seconds_of,
    share_of,
    stated_default,
    top_items,
    window_words,
)
from app.agent.planner import _span as span_of
from app.agent.shares import share_sides
from app.agent.wording import duration, t, thing_label
from app.tools import ToolContext
from app.tools.results import ThingInfo, ToolError
from app.tools.stats import StatsResult

Planner = Callable[[ToolContext, Parts, date], Planned | None]


def _share(ctx: ToolContext, parts: Parts, today: date) -> Planned | None:
    spec, defaulted = period_of(parts, today=today, default_days=None)
    planned = Planned("share", spec, defaulted=defaulted)
    lang, args = parts.language, span_of(parts, spec)
    part, whole_mention = share_sides(parts)
    seconds, label = seconds_of(ctx, planned, part, args, language=lang)
    if seconds is None:
        planned.text = not_known(parts, planned)
        return planned
    result = planned.calls[-1].result
    found: float | None = result.window_active_seconds if isinstance(result, StatsResult) else None
    whole_label = t(lang, "活跃时间", "active")
    if whole_mention is not None:
        found, whole_label = seconds_of(ctx, planned, whole_mention, args, language=lang)
        if found is None:
            planned.text = not_known(parts, planned)
            return planned
    elif found is None:  # active time itself, or a tool that gave no share
        active = planned.call(ctx, "query_stats", {"metric": "active_seconds", **args})
        found = active.value if isinstance(active, StatsResult) else None
    whole = float(found or 0)
    when = period_words(spec, lang) + window_words(parts)
    planned.text = t(
        lang,
        f"{share_of(seconds, whole)}：{when}，{label} {said(seconds, parts)}，"
        f"占{whole_label} {duration(whole, lang)}。",
        f"{share_of(seconds, whole)}: {label} was {said(seconds, parts)} of "
        f"{duration(whole, lang)} {whole_label} {when}.",
    )
    return planned


def _average(ctx: ToolContext, parts: Parts, today: date) -> Planned | None:
    spec, defaulted = period_of(parts, today=today, default_days=DEFAULT_DAYS)
    planned = Planned("average", spec, defaulted=defaulted)
    lang, args = parts.language, span_of(parts, spec)
    days = (min(spec.date_to, today) - spec.date_from).days + 1
    if days < 1:
        return None
    mention = parts.things[0] if parts.things else None
    if mention is None or mention.name == ACTIVE:
        result = planned.call(ctx, "query_stats", {"metric": "active_seconds", **args})
        total = float(result.value or 0) if isinstance(result, StatsResult) else None
        label = t(lang, "电脑前（活跃）", "active time")
    else:
        found = days_result(planned.call(ctx, "days_with", {"thing": mention.name, **args}))
        total = float(found.total_seconds) if found is not None else None
        label = thing_label(found.thing if found else None, mention.text, lang)
    if total is None:
        planned.text = not_known(parts, planned)
        return planned
    per_day = total / days
    when = period_words(spec, lang)
    planned.text = t(
        lang,
        f"平均每天 {said(per_day, parts)}：{when}{window_words(parts)}，{label}"
        f"共 {duration(total, lang)}，{days} 天。",
        f"{said(per_day, parts)} a day on average: {label}{window_words(parts)} {when}, "
        f"{duration(total, lang)} over {days} days.",
    )
    return planned


_RANKED = {
    "apps": "seconds_by_app", "sites": "seconds_by_site", "categories": "seconds_by_category"
}  # fmt: skip
_RANKED_ZH = {"apps": "应用", "sites": "网站", "categories": "类别"}


# Categories asked for as a list, not the one biggest: "rank my categories", 哪几类.
_ALL_CATEGORIES = re.compile(
    r"categories|rank|kinds of|哪几类|哪些类|几类|排序|排个序|排名|排行", re.IGNORECASE
)


def _top(ctx: ToolContext, parts: Parts, today: date) -> Planned | None:
    if parts.top_n is None and not (parts.sites or parts.categories or parts.one):
        return None  # "which apps most": the intent table's ranking of ten
    spec, defaulted = period_of(parts, today=today, default_days=None)
    planned = Planned("top", spec, defaulted=defaulted)
    lang, n = parts.language, parts.top_n or (1 if parts.one else 5)
    if parts.categories and parts.top_n is None:
        n = 6 if _ALL_CATEGORIES.search(parts.question) else 1
    kind = "categories" if parts.categories else "sites" if parts.sites else "apps"
    arguments = {"metric": _RANKED[kind], **span_of(parts, spec)}
    if kind != "categories":
        arguments["limit"] = n
    result = planned.call(ctx, "query_stats", arguments)
    items = top_items(result, lang)
    if not items and parts.sites and isinstance(result, ToolError):
        planned.text = not_known(parts, planned)
        return planned
    what = t(lang, _RANKED_ZH[kind], kind)
    listed = [f"{k}. {name} {duration(s, lang)}" for k, (name, s) in enumerate(items[:n], 1)]
    when = period_words(spec, lang) + window_words(parts)
    if not listed:
        planned.text = t(lang, f"{when} 没有记录。", f"Nothing was recorded {when}.")
        return planned
    if len(listed) == 1:
        name, seconds = items[0]
        one = t(lang, what, kind.removesuffix("s").replace("categorie", "category"))
        planned.text = t(
            lang,
            f"{name}：{when}用得最多的{one}，{duration(seconds, lang)}。",
            f"{name}: the most used {one} {when}, {duration(seconds, lang)}.",
        )
        return planned
    planned.text = t(
        lang,
        f"{when}，用得最多的 {len(listed)} 个{what}：" + "；".join(listed) + "。",
        f"Top {len(listed)} {what} {when}: " + "; ".join(listed) + ".",
    )
    return planned


def _days(ctx: ToolContext, parts: Parts, today: date) -> Planned | None:
    """Days with or without a thing (or under a ceiling); the intent table keeps the
    plain "days with" questions."""
    if len(parts.things) == 1 and parts.things[0].name == ACTIVE:
        return active_days(ctx, parts, today)
    if parts.things and parts.peak and not parts.negated:
        return _peak_day(ctx, parts, today)
    over = parts.threshold_minutes is not None and not parts.under
    if not parts.things or not (parts.negated or parts.under or over):
        return None
    spec, defaulted = period_of(parts, today=today, default_days=DAYS_DEFAULT)
    planned = Planned("days", spec, defaulted=defaulted)
    mention = parts.things[0]
    least = parts.threshold_minutes or 0  # no threshold: any time at all that day
    found = days_result(
        planned.call(
            ctx, "days_with", {"thing": mention.name, **span_of(parts, spec), "min_minutes": least}
        )
    )
    if found is None:
        planned.text = not_known(parts, planned)
        return planned
    if over and not parts.negated:
        reached = [d.day for d in found.series if d.seconds >= least * 60]
        planned.text = _days_over_text(parts, mention.text, found.thing, reached, spec, least)
        return planned
    missing = [d.day for d in found.series if d.day < today and not _reached(d.seconds, least)]
    planned.text = _days_text(parts, mention.text, found.thing, missing, spec, least)
    return planned


def _reached(seconds: int, least: float) -> bool:
    """A day has the thing: any time at all, or at least `least` minutes when asked."""
    return seconds >= least * 60 and seconds > 0


def _days_over_text(
    parts: Parts, name: str, thing: ThingInfo, days: list[date], spec: PeriodSpec, least: float
) -> str:
    """The days a thing reached a threshold ("days with YouTube for 40+ minutes")."""
    lang = parts.language
    label, when = thing_label(thing, name, lang), period_words(spec, lang)
    bar = t(lang, f"{label}至少 {duration(least * 60, lang)}", f"{label} for at least "
            f"{duration(least * 60, lang)}")  # fmt: skip
    if not days:
        return t(lang, f"0 天{bar}（{when}）。", f"0 days with {bar} {when}.")
    n = len(days)
    return t(
        lang,
        f"{n} 天{bar}（{when}）：{say_days(days, lang)}。",
        f"{n} day{_plural(n)} with {bar} {when}: {say_days(days, lang)}.",
    )


def _peak_day(ctx: ToolContext, parts: Parts, today: date) -> Planned | None:
    """The day of the period with the most of a thing."""
    mention = parts.things[0]
    if mention.name == ACTIVE:
        return None
    spec, defaulted = period_of(parts, today=today, default_days=DAYS_DEFAULT)
    planned = Planned("days", spec, defaulted=defaulted)
    found = days_result(
        planned.call(ctx, "days_with", {"thing": mention.name, **span_of(parts, spec)})
    )
    if found is None:
        planned.text = not_known(parts, planned)
        return planned
    lang = parts.language
    when = period_words(spec, lang)
    label = thing_label(found.thing, mention.text, lang)
    best = max(found.series, key=lambda d: d.seconds, default=None)
    if best is None or best.seconds == 0:
        planned.text = t(lang, f"{when}没有{label}。", f"No {label} {when}.")
        return planned
    planned.text = t(
        lang,
        f"{best.day.isoformat()}：{when}，{label}最多的一天，{duration(best.seconds, lang)}。",
        f"{best.day.isoformat()}: the day with the most {label} {when}, "
        f"{duration(best.seconds, lang)}.",
    )
    return planned


def _days_text(
    parts: Parts,
    name: str,
    thing: ThingInfo,
    missing: list[date],
    spec: PeriodSpec,
    least: float,
) -> str:
    lang = parts.language
    label = thing_label(thing, name, lang)
    when = period_words(spec, lang)
    bar = (
        t(lang, f"不到 {least:g} 分钟", f"under {least:g} minutes")
        if parts.under or least > 1
        else t(lang, "没有", "without")
    )
    if not missing:
        return t(
            lang,
            f"0 天{bar}{label}（{when}）：每天都有{label}。",
            f"0 days {bar} {label} {when}: you used it every day.",
        )
    n = len(missing)
    days = say_days(missing, lang)
    return t(
        lang,
        f"{n} 天{bar}{label}（{when}）：{days}。",
        f"{n} day{_plural(n)} {bar} {label} {when}: {days}.",
    )


def _every_day(ctx: ToolContext, parts: Parts, today: date) -> Planned | None:
    """ "Did I … every day last week?": yes, or no with the days without it."""
    mention = parts.things[0]
    if mention.name == ACTIVE:
        return None
    spec, defaulted = period_of(parts, today=today, default_days=DEFAULT_DAYS)
    planned = Planned("days", spec, defaulted=defaulted)
    found = days_result(
        planned.call(ctx, "days_with", {"thing": mention.name, **span_of(parts, spec)})
    )
    if found is None:
        planned.text = not_known(parts, planned)
        return planned
    lang = parts.language
    label, when = thing_label(found.thing, mention.text, lang), period_words(spec, lang)
    missing = [d.day for d in found.series if d.day < today and d.seconds == 0]
    if not missing:
        planned.text = t(lang, f"是：{when}，每天都有{label}。", f"Yes: {label} every day {when}.")
        return planned
    days = say_days(missing, lang)
    planned.text = t(
        lang,
        f"没有：{when}，有 {len(missing)} 天没有{label}：{days}。",
        f"No: {len(missing)} day{_plural(len(missing))} {when} without {label}: {days}.",
    )
    return planned


def _plural(n: int) -> str:
    return "" if n == 1 else "s"


PLANNERS: dict[str, Planner] = {
    "share": _share,
    "average": _average,
    "top": _top,
    "days": _days,
    "every_day": _every_day,
}


def plan(ctx: ToolContext, parts: Parts, *, today: date) -> Planned | None:
    """The calls and the answer for the question's parts, or None when the intent
    table answers it better."""
    planner = {**PLANNERS, **CONTESTS, **FIRSTS}.get(parts.operation)
    if planner is None:
        return None
    planned = planner(ctx, parts, today)
    if planned is not None:
        planned.text += stated_default(planned, parts.language)
    return planned
