"""A period (day, week or month) as a report, read through the tool registry from
digests and signals only — never raw frames: hours by category per day, top apps,
habits with their evidence episodes, and the narrative.

    report = build_report(ctx, grain="week", key="2026-W23")
    markdown = render_markdown(report, t=Translator("en"))
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, timedelta

from app.errors import InvalidInputError
from app.rules.categories import CATEGORIES
from app.timeutil import period_days
from app.tools import ToolContext
from app.tools.reads import CompactMetrics, DigestResult, Signal, SignalsResult
from app.tools.stats import AppTime, CategoryTime, StatsResult
from app.tools.user_categories import UserCategoryTime
from app.web.calls import call_tool
from app.web.charts import DayHours, stacked_bars
from app.web.i18n import Lang, Translator
from app.web.palette import css_variables
from app.web.render import CHART_CSS, render

GRAINS = ("day", "week", "month", "range")
RANGE_DAYS = 93  # a custom range: at most about a quarter
_KEY_FORMS = {
    "day": (re.compile(r"^\d{4}-\d{2}-\d{2}$"), "YYYY-MM-DD"),
    "week": (re.compile(r"^\d{4}-W\d{2}$"), "YYYY-Www, e.g. 2026-W23"),
    "month": (re.compile(r"^\d{4}-\d{2}$"), "YYYY-MM"),
    "range": (
        re.compile(r"^\d{4}-\d{2}-\d{2}\.\.\d{4}-\d{2}-\d{2}$"),
        f"YYYY-MM-DD..YYYY-MM-DD, at most {RANGE_DAYS} days",
    ),
}


def range_key(first: date, last: date) -> str:
    return f"{first}..{last}"


def _range_days(key: str) -> tuple[date, date] | None:
    try:
        first, last = (date.fromisoformat(part) for part in key.split(".."))
    except ValueError:
        return None
    if first > last or (last - first).days >= RANGE_DAYS:
        return None
    return first, last


def period_of(grain: str, key: str) -> tuple[date, date]:
    """First and last logical day of a period key, or InvalidInputError naming the form."""
    if grain not in GRAINS:
        raise InvalidInputError(f"grain: expected one of {', '.join(GRAINS)}, got {grain!r}")
    pattern, form = _KEY_FORMS[grain]
    if grain == "range" and pattern.match(key) and (days := _range_days(key)) is not None:
        return days
    if grain != "range" and pattern.match(key):
        try:
            return period_days(grain, key)
        except ValueError:
            pass
    raise InvalidInputError(f"scope: a {grain} is written {form}, got {key!r}")


def days_of(first: date, last: date) -> list[date]:
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


@dataclass(frozen=True, slots=True)
class Evidence:
    day: date
    episode_ids: list[int]
    cues: list[str]


@dataclass(frozen=True, slots=True)
class Habit:
    name: str  # kind, or kind:pattern
    count: int
    days: int
    cues: list[str]
    evidence: list[Evidence]


@dataclass(frozen=True, slots=True)
class PeriodReport:
    grain: str
    key: str
    first: date
    last: date
    days: list[DayHours]
    hours_by_category: dict[str, float]
    top_apps: list[tuple[str, float]]
    active_hours: float
    episodes: int
    minutes: dict[str, float]  # focus, distraction, late night
    digest_available: bool
    narrative: str | None  # the model's, or one written by rule from the numbers
    # done (the model's), rules (written by rule, no model due), pending (a model is due;
    # the rule's words stand in meanwhile), failed, skipped; "live" for a custom range;
    # "none" for a period with no activity
    narrative_status: str
    habits: list[Habit]
    signals_truncated: bool
    # The user's own categories (Games under entertainment), each with its subtree's time.
    user_categories: list[UserCategoryTime] = field(default_factory=list)


def _habits(result: SignalsResult) -> list[Habit]:
    evidence: dict[str, list[Evidence]] = {}
    for item in result.items:
        if not isinstance(item, Signal):
            continue
        name = item.kind + (f":{item.pattern}" if item.pattern else "")
        evidence.setdefault(name, []).append(
            Evidence(day=item.day, episode_ids=list(item.episode_ids), cues=list(item.cues or []))
        )
    return [
        Habit(
            name=name,
            count=info.count,
            days=info.days,
            cues=list(info.cues or []),
            evidence=sorted(evidence.get(name, []), key=lambda e: e.day),
        )
        for name, info in result.patterns.items()
    ]


def _range_metrics(ctx: ToolContext, first: date, last: date) -> CompactMetrics:
    """A custom range has no digest of its own: its numbers from query_stats."""
    period = {"period": "custom", "date_from": first.isoformat(), "date_to": last.isoformat()}
    by_category = call_tool(ctx, "query_stats", StatsResult, metric="seconds_by_category", **period)
    apps = call_tool(ctx, "query_stats", StatsResult, metric="seconds_by_app", top_n=8, **period)
    active = call_tool(ctx, "query_stats", StatsResult, metric="active_seconds", **period)
    count = call_tool(ctx, "query_stats", StatsResult, metric="episode_count", **period)
    return CompactMetrics(
        hours_by_category={
            i.category: i.hours for i in by_category.items or [] if isinstance(i, CategoryTime)
        },
        top_apps_hours={i.app: i.hours for i in apps.items or [] if isinstance(i, AppTime)},
        active_hours=active.hours or 0.0,
        idle_hours=round((active.idle_seconds or 0) / 3600, 2),
        episodes=int(count.value or 0),
        top_titles=[],
    )


def _narrative_status(digest: DigestResult | None) -> str:
    if digest is None:
        return "live"
    if digest.summary_by == "rules":
        return "pending" if digest.narrative_status == "pending" else "rules"
    if digest.narrative:
        return "done"
    return str(digest.narrative_status or "none")


def build_report(ctx: ToolContext, *, grain: str, key: str, language: Lang = "en") -> PeriodReport:
    """The period through get_digest (the period and each of its days) and get_signals;
    a custom range (grain "range") through query_stats."""
    first, last = period_of(grain, key)
    digest = (
        None
        if grain == "range"
        else call_tool(ctx, "get_digest", DigestResult, grain=grain, date=key, language=language)
    )
    metrics = digest.metrics if digest else _range_metrics(ctx, first, last)
    days = [
        DayHours(
            day=day,
            hours=call_tool(
                ctx, "get_digest", DigestResult, grain="day", date=day.isoformat(), language=None
            ).metrics.hours_by_category,
        )
        for day in days_of(first, last)
    ]
    signals = call_tool(
        ctx,
        "get_signals",
        SignalsResult,
        period="custom",
        date_from=first.isoformat(),
        date_to=last.isoformat(),
        limit=200,
    )
    available = digest.available if digest else False
    own = call_tool(
        ctx,
        "query_stats",
        StatsResult,
        metric="seconds_by_user_category",
        period="custom",
        date_from=first.isoformat(),
        date_to=last.isoformat(),
    )
    return PeriodReport(
        grain=grain,
        key=key,
        first=first,
        last=last,
        days=days,
        hours_by_category={
            c: metrics.hours_by_category[c] for c in CATEGORIES if metrics.hours_by_category.get(c)
        },
        top_apps=list(metrics.top_apps_hours.items()),
        active_hours=metrics.active_hours,
        episodes=metrics.episodes,
        minutes={
            name: float(minutes)
            for name in ("focus_minutes", "distraction_minutes", "late_night_minutes")
            if (minutes := getattr(metrics, name)) is not None
        },
        digest_available=available,
        narrative=digest.narrative if digest else None,
        narrative_status=_narrative_status(digest),
        habits=_habits(signals),
        signals_truncated=signals.truncated or bool(signals.more),
        user_categories=[i for i in own.items or [] if isinstance(i, UserCategoryTime)],
    )


def title_of(report: PeriodReport, *, t: Translator) -> str:
    return t("report_title", period=t.period(report.grain, report.key, report.first, report.last))


def narrative_note(report: PeriodReport) -> str | None:
    """The message beside the narrative (a model is due to replace the rule's words), or
    in its place when there is none."""
    if report.narrative and report.narrative_status in ("done", "rules"):
        return None
    if report.narrative and report.narrative_status == "pending":
        return "narrative_pending_rules"
    return {
        "live": "digest_live",
        "failed": "narrative_failed",
        "skipped": "narrative_skipped",
        "none": "narrative_none",
    }.get(report.narrative_status, "narrative_pending")


def _hours(value: float) -> str:
    return f"{value:.2f}"


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]|#~])")
_MD_LINE_START = re.compile(r"^(\s*(?:\d+)?)([-+.)])", re.MULTILINE)


def md_text(text: str, *, one_line: bool = True) -> str:
    """Captured (or model-written) text as literal Markdown: no HTML, link, emphasis,
    table cell or list it could open in a renderer."""
    if one_line:
        text = " ".join(text.split())
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _MD_LINE_START.sub(r"\1\\\2", text)


def render_markdown(report: PeriodReport, *, t: Translator) -> str:
    """The report as Markdown: tables for the numbers, a list for the habits."""
    lines = [f"# {title_of(report, t=t)}", ""]
    lines += [f"## {t('totals')}", "", f"| {t('category')} | {t('hours')} |", "|---|---:|"]
    for category, hours in report.hours_by_category.items():
        lines.append(f"| {t.category(category)} | {_hours(hours)} |")
    lines.append(f"| **{t('total')}** | **{_hours(sum(report.hours_by_category.values()))}** |")
    facts = [f"{t('active_hours')}: {t('hours_n', n=_hours(report.active_hours))}"]
    facts.append(t("episodes_n", n=report.episodes))
    facts += [
        f"{t(name)}: {t('minutes_n', n=round(value))}" for name, value in report.minutes.items()
    ]
    lines += ["", " · ".join(facts), ""]
    if report.user_categories:
        lines += [f"## {t('user_categories')}", "", f"| {t('category')} | {t('hours')} |"]
        lines.append("|---|---:|")
        lines += [
            f"| {md_text(c.category)} ({t.category(c.kind)}) | {_hours(c.hours)} |"
            for c in report.user_categories
        ]
        lines.append("")
    if len(report.days) > 1:
        shown = [c for c in CATEGORIES if any(d.hours.get(c) for d in report.days)]
        lines += [f"## {t('hours_per_day')}", ""]
        lines.append("| " + " | ".join([t("day"), *(t.category(c) for c in shown)]) + " |")
        lines.append("|---" + "|---:" * len(shown) + "|")
        for day in report.days:
            cells = [_hours(day.hours.get(c, 0.0)) for c in shown]
            lines.append("| " + " | ".join([t.short_day(day.day), *cells]) + " |")
        lines.append("")
    lines += [f"## {t('top_apps')}", ""]
    lines += [
        f"- {md_text(app)} — {t('hours_n', n=_hours(hours))}" for app, hours in report.top_apps
    ]
    if not report.top_apps:
        lines.append(t("none"))
    lines += ["", f"## {t('habits')}", ""]
    for habit in report.habits:
        cues = f" ({', '.join(md_text(c) for c in habit.cues)})" if habit.cues else ""
        lines.append(
            f"- **{t.habit(habit.name)}** — "
            f"{t('habit_count', count=habit.count, days=habit.days)}{cues}"
        )
        for item in habit.evidence[:5]:
            ids = ", ".join(f"#{i}" for i in item.episode_ids)
            lines.append(f"  - {t.short_day(item.day)}: {t('episode')} {ids}")
    if not report.habits:
        lines.append(t("none"))
    lines += ["", f"## {t('narrative')}", ""]
    note = narrative_note(report)
    if report.narrative:
        lines.append(md_text(report.narrative, one_line=False))
    if note:
        lines += [""] * bool(report.narrative) + [t(note)]
    return "\n".join(lines).rstrip() + "\n"


def render_html(report: PeriodReport, *, t: Translator) -> str:
    """The report as one self-contained HTML file: inline styles and an inline SVG chart,
    no script and nothing fetched."""
    return render(
        "report.html",
        report=report,
        chart=stacked_bars(report.days),
        title=title_of(report, t=t),
        note=narrative_note(report),
        css=css_variables(dark=False),
        chart_css=CHART_CSS,
        t=t,
        lang=t.lang,
    )
