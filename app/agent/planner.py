"""The small planner: a question's parts (app/agent/parts.py) become one or more tool
calls and one answer, written the way a person would (the answer first, in the
question's language; no tool names or raw seconds: each call and its result travel in
the reply's metadata). Operations it plans: share, average per day, top N apps or
sites, days with or without a thing, which of two is more, both together, over or
under a threshold, and a thing or the apps inside a window of the day. Anything else
is left to the intent table (app/agent/intents.py): the operations return None. The
operations themselves are app/agent/operations.py and app/agent/contests.py; this
module holds what they share.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from app.agent.dates import PeriodSpec, named
from app.agent.lexicon import ACTIVE, Mention
from app.agent.parts import Parts
from app.agent.render import default_note
from app.agent.render_things import unknown_name
from app.agent.wording import (
    category_label,
    days_list,
    duration,
    in_language,
    percent,
    t,
    thing_label,
)
from app.text import Language
from app.tools import ToolContext, dispatch
from app.tools.recall import CompareResult, DaysWithResult
from app.tools.results import ToolError, ToolOutcome
from app.tools.stats import AppTime, CategoryTime, SiteTime, StatsResult

DEFAULT_DAYS = 7  # "which days …", averages: the last 7 days when no period is named


@dataclass(slots=True)
class Call:
    tool: str
    arguments: dict[str, Any]
    result: ToolOutcome


@dataclass(slots=True)
class Planned:
    """The calls a question needed and its answer."""

    kind: str
    period: PeriodSpec
    calls: list[Call] = field(default_factory=list)
    text: str = ""
    defaulted: bool = False  # the period is the stated default, not the question's

    def call(self, ctx: ToolContext, tool: str, arguments: dict[str, Any]) -> ToolOutcome:
        result = dispatch(ctx, tool, arguments)
        self.calls.append(Call(tool, arguments, result))
        return result


def last_days(n: int, today: date) -> PeriodSpec:
    return PeriodSpec("custom", today - timedelta(days=n - 1), today, (0, 0))


def period_of(parts: Parts, *, today: date, default_days: int | None) -> tuple[PeriodSpec, bool]:
    """The question's period, or the default: the last `default_days`, or today."""
    if parts.period is not None:
        return parts.period, False
    if default_days is None:
        return named("today", today=today), False
    return last_days(default_days, today), True


def period_words(spec: PeriodSpec, language: Language) -> str:
    first, last = spec.date_from.isoformat(), spec.date_to.isoformat()
    if first == last:
        return t(language, first, f"on {first}")
    return t(language, f"{first} 至 {last}", f"from {first} to {last}")


def window_words(parts: Parts) -> str:
    if parts.window is None:
        return ""
    w = parts.window
    return t(
        parts.language, f" {w.time_from}–{w.time_to}", f" between {w.time_from} and {w.time_to}"
    )


def _span(parts: Parts, spec: PeriodSpec) -> dict[str, Any]:
    window = parts.window.arguments() if parts.window is not None else {}
    return {**spec.arguments(), **window}


def seconds_of(
    ctx: ToolContext,
    planned: Planned,
    mention: Mention,
    arguments: dict[str, Any],
    *,
    language: Language,
) -> tuple[float | None, str]:
    """A thing's (or active time's) seconds and its label; None when it is unknown."""
    if mention.name == ACTIVE:
        result = planned.call(ctx, "query_stats", {"metric": "active_seconds", **arguments})
        if isinstance(result, StatsResult):
            return float(result.value or 0), t(language, "电脑前（活跃）", "active time")
        return None, mention.text
    result = planned.call(ctx, "query_stats", {"thing": mention.name, **arguments})
    if isinstance(result, StatsResult):
        return float(result.seconds or 0), thing_label(result.thing, mention.text, language)
    return None, mention.text


def not_known(parts: Parts, planned: Planned) -> str:
    """What to say when a call failed: a name the user lacks (with the closest names
    they have), or what was understood and what went wrong."""
    error = next((c.result for c in planned.calls if isinstance(c.result, ToolError)), None)
    if error is not None and error.unresolved is not None:
        mention = error.unresolved or (parts.things[0].text if parts.things else "")
        return unknown_name(mention, error.suggestions or [], parts.language)
    what = error.error if error is not None else ""
    return t(parts.language, f"没能回答：{what}", f"I couldn't answer that: {what}")


def stated_default(planned: Planned, language: Language) -> str:
    return default_note(planned.period, language) if planned.defaulted else ""


def top_items(result: ToolOutcome, language: Language = "en") -> list[tuple[str, int]]:
    """The apps or sites of a ranking, each with its seconds, most first."""
    if not isinstance(result, StatsResult):
        return []
    out: list[tuple[str, int]] = []
    for item in result.items or []:
        if isinstance(item, AppTime):
            out.append((item.app, item.seconds))
        elif isinstance(item, SiteTime):
            out.append((in_language(item.label or item.site, item.site, language), item.seconds))
        elif isinstance(item, CategoryTime):
            out.append((category_label(item.category, language), item.seconds))
    return sorted(out, key=lambda item: -item[1])


def compared(result: ToolOutcome) -> CompareResult | None:
    return result if isinstance(result, CompareResult) else None


def days_result(result: ToolOutcome) -> DaysWithResult | None:
    return result if isinstance(result, DaysWithResult) else None


def listed_days(days: list[date]) -> list[str]:
    return [d.isoformat() for d in days]


def say_days(days: list[date], language: Language) -> str:
    return days_list(listed_days(days), language)


def said(seconds: float, parts: Parts) -> str:
    return duration(seconds, parts.language, minutes=parts.minutes)


def share_of(seconds: float, whole: float) -> str:
    return percent(seconds / whole) if whole else "0%"
