"""A period's narrative without a model: a few sentences written by rule from the
numbers get_digest already holds, in the reader's language (`summary_by: rules`).

    words = period_words(ctx, grain="week", key="2003-W11", metrics=metrics, language="en")
    # 'Work took the most time: 20.50 h of 31.20 h active. Top apps: Code 10.20 h, …
    #  Against the previous week (2003-W10), work changed the most: from 18.00 h to
    #  20.50 h. Longest focus: 95 minutes from 2003-03-12 09:10. Habits: rework 3 times
    #  on 2 days.'

What took the time (the top category and apps), what changed against the previous
period (the category whose hours moved most, with both figures), the longest focus
(the longest focus_block signal: work or study episodes in a row) and the habits (the
period's other signals). Every number is one the digest's metrics (or the previous
period's, read the same way) or a signal holds, rounded as query_stats rounds hours;
nothing is computed that SQL did not. Written at read time: it follows the numbers as
they are now, and a model's narrative, once written, is shown instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from app.pyramid.signals import FOCUS_MIN_S
from app.rules.categories import CATEGORY_LABELS_ZH
from app.signal_labels import signal_label
from app.store.documents import DigestMetrics
from app.store.tools import SignalKind
from app.timeutil import FIRST_DAY, day_key, month_key, period_days, week_key, zone
from app.tools.registry import ToolContext

Language = Literal["en", "zh"]
TOP_APPS = 3
HABITS = 3
_ZH_CATEGORIES: dict[str, str] = {str(k): v for k, v in CATEGORY_LABELS_ZH.items()}
_KEYS: dict[str, Callable[[date], str]] = {"day": day_key, "week": week_key, "month": month_key}
_PREVIOUS = {
    "en": {"day": "the previous day", "week": "the previous week", "month": "the previous month"},
    "zh": {"day": "前一天", "week": "上周", "month": "上月"},
}


@dataclass(frozen=True, slots=True)
class Change:
    category: str
    before: float  # hours, as query_stats rounds them
    after: float


@dataclass(frozen=True, slots=True)
class PeriodFacts:
    """The numbers the words say; hours rounded as query_stats rounds them."""

    grain: str
    hours_by_category: dict[str, float]  # most first
    active_hours: float
    top_apps: list[tuple[str, float]]
    previous_key: str | None  # None: the previous period is outside the days kept
    change: Change | None  # None: no category's hours moved (or no previous period)
    longest_focus: tuple[float, str] | None  # minutes, local start (YYYY-MM-DD HH:MM)
    habits: list[tuple[str, int, int]]  # kind, times, days


def hours(seconds: float) -> float:
    """Hours as query_stats and get_digest give them."""
    return round(seconds / 3600, 2)


def _h(value: float, language: Language) -> str:
    return f"{value:.2f} 小时" if language == "zh" else f"{value:.2f} h"


def _category(name: str, language: Language) -> str:
    return _ZH_CATEGORIES.get(name, name) if language == "zh" else name


def biggest_change(before: dict[str, float], after: dict[str, float]) -> Change | None:
    """The category whose hours moved most between two periods (ties: the larger now)."""
    moves = [
        Change(category=c, before=before.get(c, 0.0), after=after.get(c, 0.0))
        for c in dict.fromkeys([*after, *before])
    ]
    moved = [m for m in moves if m.before != m.after]
    return max(moved, key=lambda m: abs(m.after - m.before)) if moved else None


def _what_took_the_time(facts: PeriodFacts, language: Language) -> list[str]:
    top, top_hours = next(iter(facts.hours_by_category.items()))
    apps_en = ", ".join(f"{app} {_h(h, 'en')}" for app, h in facts.top_apps)
    apps_zh = "、".join(f"{app} {_h(h, 'zh')}" for app, h in facts.top_apps)
    if language == "zh":
        out = [
            f"用时最多的是{_category(top, 'zh')}：{_h(top_hours, 'zh')}，"
            f"共活跃 {_h(facts.active_hours, 'zh')}。"
        ]
        return out + ([f"主要应用：{apps_zh}。"] if facts.top_apps else [])
    out = [
        f"{top.capitalize()} took the most time: {_h(top_hours, 'en')} of "
        f"{_h(facts.active_hours, 'en')} active."
    ]
    return out + ([f"Top apps: {apps_en}."] if facts.top_apps else [])


def _what_changed(facts: PeriodFacts, language: Language) -> list[str]:
    if facts.previous_key is None:
        return []
    than = f"{_PREVIOUS[language][facts.grain]}（{facts.previous_key}）"
    change = facts.change
    if language == "zh":
        if change is None:
            return [f"与{than}相比，各类别用时没有变化。"]
        verb = "增加" if change.after > change.before else "减少"
        return [
            f"与{than}相比，变化最大的是{_category(change.category, 'zh')}："
            f"从 {_h(change.before, 'zh')}{verb}到 {_h(change.after, 'zh')}。"
        ]
    than = f"{_PREVIOUS['en'][facts.grain]} ({facts.previous_key})"
    if change is None:
        return [f"Against {than}, no category's hours changed."]
    verb = "rose" if change.after > change.before else "fell"
    return [
        f"Against {than}, {change.category} changed the most: it {verb} from "
        f"{_h(change.before, 'en')} to {_h(change.after, 'en')}."
    ]


def _focus_and_habits(facts: PeriodFacts, language: Language) -> list[str]:
    floor = FOCUS_MIN_S // 60
    out: list[str] = []
    if facts.longest_focus is None:
        out.append(
            f"没有 {floor} 分钟以上的连续专注。"
            if language == "zh"
            else f"No focus of {floor} minutes or more in a row."
        )
    else:
        minutes, since = facts.longest_focus
        out.append(
            f"最长的连续专注：{since} 起 {round(minutes)} 分钟。"
            if language == "zh"
            else f"Longest focus: {round(minutes)} minutes from {since}."
        )
    if language == "zh":
        habits = "；".join(f"{signal_label(k, 'zh')} {n} 次（{d} 天）" for k, n, d in facts.habits)
        out.append(f"习惯：{habits}。" if habits else "没有检测到习惯信号。")
    else:
        habits = "; ".join(
            f"{signal_label(k, 'en')} {n} times on {d} days" for k, n, d in facts.habits
        )
        out.append(f"Habits: {habits}." if habits else "No habit signals.")
    return out


def write_words(facts: PeriodFacts, *, language: Language) -> str:
    """The narrative of a period with some activity, in English or Chinese."""
    parts = [
        *_what_took_the_time(facts, language),
        *_what_changed(facts, language),
        *_focus_and_habits(facts, language),
    ]
    return ("" if language == "zh" else " ").join(parts)


def _signal_facts(
    kinds: list[SignalKind], ctx: ToolContext
) -> tuple[tuple[float, str] | None, list[tuple[str, int, int]]]:
    """The longest focus block (minutes, local start) and the other kinds by count."""
    longest = None
    for k in kinds:
        if k.kind == "focus_block":
            since = k.top_start.astimezone(zone(ctx.user.time_zone)).strftime("%Y-%m-%d %H:%M")
            longest = (k.top_severity, since)
    habits = sorted((k for k in kinds if k.kind != "focus_block"), key=lambda k: (-k.times, k.kind))
    return longest, [(k.kind, k.times, k.days) for k in habits[:HABITS]]


def previous_key(grain: str, key: str) -> str | None:
    """The period before this one, or None when it would start before the days kept."""
    first, _ = period_days(grain, key)
    if first <= FIRST_DAY:
        return None
    return _KEYS[grain](first - timedelta(days=1))


def period_words(
    ctx: ToolContext,
    *,
    grain: str,
    key: str,
    metrics: DigestMetrics,
    previous: Callable[[str], DigestMetrics],
    kinds: list[SignalKind],
    language: Language,
) -> str | None:
    """The period's narrative by rule; None when it holds no active time. `previous`
    reads a period's metrics as get_digest does (its digest, else live); `kinds`: the
    period's signals by kind (period_signal_kinds)."""
    by_category = {
        c: hours(s)
        for c, s in sorted(metrics.get("seconds_by_category", {}).items(), key=lambda kv: -kv[1])
        if hours(s)
    }
    if not by_category:
        return None
    before_key = previous_key(grain, key)
    change = None
    if before_key is not None:
        before = previous(before_key).get("seconds_by_category", {})
        change = biggest_change({c: hours(s) for c, s in before.items()}, by_category)
    apps = sorted(metrics.get("seconds_by_app", {}).items(), key=lambda kv: -kv[1])
    longest, habits = _signal_facts(kinds, ctx)
    facts = PeriodFacts(
        grain=grain,
        hours_by_category=by_category,
        active_hours=hours(metrics.get("active_seconds", 0.0)),
        top_apps=[(a, hours(s)) for a, s in apps[:TOP_APPS] if hours(s)],
        previous_key=before_key,
        change=change,
        longest_focus=longest,
        habits=habits,
    )
    return write_words(facts, language=language)
