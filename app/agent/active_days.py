"""Days by their active time ("上周有几天超过8小时在电脑前", "which days was I on the
computer for under 2 hours"): one query_stats call of active seconds per day, since
days_with counts things and active time is no thing.

    active_days(ctx, parts, today)   # Planned: "3 days over 8 hours …: 2026-11-24, …"
"""

from __future__ import annotations

from datetime import date, timedelta

from app.agent.intents import DAYS_DEFAULT
from app.agent.parts import Parts
from app.agent.planner import Planned, period_of, period_words, say_days
from app.agent.wording import t
from app.tools import ToolContext
from app.tools.stats import StatsResult

MOST_DAYS = 31  # a call per day: longer periods are left to the intent table


def active_days(ctx: ToolContext, parts: Parts, today: date) -> Planned | None:
    spec, defaulted = period_of(parts, today=today, default_days=DAYS_DEFAULT)
    last = min(spec.date_to, today)
    count = (last - spec.date_from).days + 1
    if count < 1 or count > MOST_DAYS:
        return None
    planned = Planned("days", spec, defaulted=defaulted)
    window = parts.window.arguments() if parts.window is not None else {}
    seconds: dict[date, float] = {}
    for k in range(count):
        day = (spec.date_from + timedelta(days=k)).isoformat()
        arguments = {"metric": "active_seconds", "period": "custom", "date_from": day}
        result = planned.call(ctx, "query_stats", {**arguments, "date_to": day, **window})
        value = result.value if isinstance(result, StatsResult) else None
        seconds[spec.date_from + timedelta(days=k)] = float(value or 0)
    least = (parts.threshold_minutes or 1) * 60
    below = parts.negated or parts.under
    days = [d for d, s in seconds.items() if (s < least if below else s > least - 1)]
    planned.text = _said(parts, days, spec_words=period_words(spec, parts.language), least=least)
    return planned


def _said(parts: Parts, days: list[date], *, spec_words: str, least: float) -> str:
    lang, n = parts.language, len(days)
    below = parts.negated or parts.under
    hours = f"{least / 3600:g}"
    if least <= 60:
        bar = t(lang, "没用电脑", "without the computer") if below else t(lang, "用了电脑", "at it")
    elif below:
        bar = t(lang, f"不到 {hours} 小时", f"under {hours} hours")
    else:
        bar = t(lang, f"超过 {hours} 小时", f"over {hours} hours")
    listed = say_days(days, lang) if days else t(lang, "没有", "none")
    return t(
        lang,
        f"{n} 天：{spec_words}，在电脑前（活跃）{bar}的日子：{listed}。",
        f"{n} day{'s' if n != 1 else ''} {spec_words} with active time {bar}: {listed}.",
    )
