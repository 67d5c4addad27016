"""The operations that weigh amounts: which of two is more, both together, over or
under a threshold (yes or no first), and how much inside a window of the day.

    CONTESTS["threshold"](ctx, parts, today).text   # "No: 18 minutes (0.3 h) on …"
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from app.agent.lexicon import ACTIVE, Mention
from app.agent.parts import Parts
from app.agent.planner import (
    Planned,
    _span,
    compared,
    not_known,
    period_of,
    period_words,
    said,
    seconds_of,
    top_items,
    window_words,
)
from app.agent.wording import duration, t, thing_label
from app.text import Language
from app.tools import ToolContext
from app.tools.results import ToolError

Planner = Callable[[ToolContext, Parts, date], Planned | None]


def _names(parts: Parts) -> list[str]:
    return list(dict.fromkeys(m.name for m in parts.things if m.name != ACTIVE))


def _contest(ctx: ToolContext, parts: Parts, today: date) -> Planned | None:
    names = _names(parts)
    if len(names) < 2:
        return None
    spec, defaulted = period_of(parts, today=today, default_days=None)
    planned = Planned(parts.operation, spec, defaulted=defaulted)
    lang = parts.language
    result = compared(planned.call(ctx, "compare", {"things": names[:5], **_span(parts, spec)}))
    if result is None:
        planned.text = not_known(parts, planned)
        return planned
    sides = [(thing_label(i, i.mention, lang), i.seconds) for i in result.items]
    listed = t(lang, "，", ", ").join(f"{label} {duration(s, lang)}" for label, s in sides)
    when = period_words(spec, lang) + window_words(parts)
    total = sum(s for _, s in sides)
    if parts.operation == "each":
        planned.text = t(
            lang,
            f"{when}：{listed}；合计 {duration(total, lang)}。",
            f"{listed[0].upper()}{listed[1:]} {when}; {duration(total, lang)} together.",
        )
        return planned
    if parts.operation == "together":
        planned.text = _verdict(parts, total) + t(
            lang,
            f"合计 {duration(total, lang)}：{when}，{listed}。",
            f"{duration(total, lang)} together {when}: {listed}.",
        )
        return planned
    ranked = sorted(sides, key=lambda side: -side[1])
    (first, most), (_, second) = ranked[0], ranked[1]
    if most == second:
        planned.text = t(lang, f"一样多：{when}，{listed}。", f"A tie {when}: {listed}.")
        return planned
    planned.text = t(
        lang,
        f"{first} 更多，多 {duration(most - second, lang)}：{when}，{listed}。",
        f"{first}, by {duration(most - second, lang)}: {listed} {when}.",
    )
    return planned


def _verdict(parts: Parts, seconds: float) -> str:
    """ "Yes: " or "No: " before a sum asked against a threshold ("b站+油管加起来超过6小时没")."""
    if parts.threshold_minutes is None:
        return ""
    over = seconds >= parts.threshold_minutes * 60
    yes = not over if parts.under else over
    return t(parts.language, "是：" if yes else "没有：", "Yes: " if yes else "No: ")


def _threshold(ctx: ToolContext, parts: Parts, today: date) -> Planned | None:
    if not parts.things:
        return None
    spec, defaulted = period_of(parts, today=today, default_days=None)
    planned = Planned("threshold", spec, defaulted=defaulted)
    lang, limit = parts.language, parts.threshold_minutes or 0
    seconds, label = seconds_of(ctx, planned, parts.things[0], _span(parts, spec), language=lang)
    if seconds is None:
        planned.text = not_known(parts, planned)
        return planned
    over = seconds > limit * 60
    yes = over != parts.under
    bar = t(lang, f"{limit:g} 分钟", f"{limit:g} minutes")
    if limit >= 60:
        bar = t(lang, f"{limit / 60:g} 小时", f"{limit / 60:g} hour{'s' if limit != 60 else ''}")
    relation = _relation(over=over, under=parts.under, language=lang)
    when = period_words(spec, lang) + window_words(parts)
    if not limit:  # "did I open Steam yesterday?": any time at all
        planned.text = t(
            lang,
            f"{'是' if over else '没有'}：{when}，{label} {said(seconds, parts)}。",
            f"{'Yes' if over else 'No'}: {said(seconds, parts)} on {label} {when}.",
        )
        return planned
    planned.text = t(
        lang,
        f"{'是' if yes else '没有'}：{when}，{label} {said(seconds, parts)}，{relation} {bar}。",
        f"{'Yes' if yes else 'No'}: {label} {when} was {said(seconds, parts)}, {relation} {bar}.",
    )
    return planned


def _relation(*, over: bool, under: bool, language: Language) -> str:
    if under:
        return t(language, "不到", "under") if not over else t(language, "不少于", "not under")
    return t(language, "超过", "over") if over else t(language, "没超过", "not over")


def _amount(ctx: ToolContext, parts: Parts, today: date) -> Planned | None:
    """How much of a thing inside a window of the day, or of active time."""
    active = any(m.name == ACTIVE for m in parts.things)
    if parts.window is None and not (active and len(parts.things) == 1):
        return None
    spec, defaulted = period_of(parts, today=today, default_days=None)
    planned = Planned("amount", spec, defaulted=defaulted)
    lang = parts.language
    seconds, label = seconds_of(ctx, planned, parts.things[0], _span(parts, spec), language=lang)
    if seconds is None:
        planned.text = not_known(parts, planned)
        return planned
    when = period_words(spec, lang) + window_words(parts)
    planned.text = t(
        lang,
        f"{said(seconds, parts)}：{when}，{label}。",
        f"{said(seconds, parts)} of {label} {when}.",
    )
    return planned


def _window(ctx: ToolContext, parts: Parts, today: date) -> Planned | None:
    """What happened inside a window of a day: its apps by time."""
    if parts.window is None:
        return None
    spec, defaulted = period_of(parts, today=today, default_days=None)
    planned = Planned("window", spec, defaulted=defaulted)
    lang = parts.language
    arguments = {"metric": "seconds_by_app", **_span(parts, spec), "limit": 5}
    items = top_items(planned.call(ctx, "query_stats", arguments))
    when = period_words(spec, lang) + window_words(parts)
    if isinstance(planned.calls[-1].result, ToolError):
        planned.text = not_known(parts, planned)
        return planned
    if not items:
        planned.text = t(lang, f"{when} 没有记录。", f"Nothing was recorded {when}.")
        return planned
    listed = [f"{name} {duration(seconds, lang)}" for name, seconds in items]
    planned.text = t(
        lang,
        f"{when}，主要在用：" + "，".join(listed) + "。",
        f"{when[0].upper()}{when[1:]}, mostly: " + ", ".join(listed) + ".",
    )
    return planned


def _periods(ctx: ToolContext, parts: Parts, today: date) -> Planned | None:
    """One thing (or active time) over two periods, the larger first."""
    first, second = parts.period, parts.second_period
    if first is None or second is None:
        return None
    mention = parts.things[0] if parts.things else Mention("", ACTIVE, (0, 0))
    planned = Planned("periods", first)
    lang, sides = parts.language, []
    for spec in sorted((first, second), key=lambda p: p.date_from):
        seconds, label = seconds_of(ctx, planned, mention, _span(parts, spec), language=lang)
        if seconds is None:
            planned.text = not_known(parts, planned)
            return planned
        sides.append((period_words(spec, lang), seconds))
    (a, sa), (_, sb) = sorted(sides, key=lambda side: -side[1])
    listed = t(lang, "，", "; ").join(f"{w} {duration(s, lang)}" for w, s in sides)
    planned.text = t(
        lang,
        f"{a}更多，多 {duration(sa - sb, lang)}：{label}，{listed}。",
        f"More {a}, by {duration(sa - sb, lang)}: {label} {listed}.",
    )
    return planned


CONTESTS: dict[str, Planner] = {
    "periods": _periods,
    "each": _contest,
    "contest": _contest,
    "together": _contest,
    "threshold": _threshold,
    "amount": _amount,
    "window": _window,
}
