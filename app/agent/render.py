"""Answers written from tool results, in the question's language, with no model:
every number in them is a number of the result, and every episode is cited as #id.

    render(intent, result)  # "25.43 小时：2026-06-01 至 2026-06-20，娱乐。"
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from app.agent.dates import PeriodSpec
from app.agent.intents import Intent
from app.agent.render_things import (
    THING_RENDERERS,
    Renderer,
    never_seen_thing,
    no_data_after,
    unknown_thing,
    when,
)
from app.agent.wording import category_label, duration
from app.signal_labels import signal_label
from app.text import Language
from app.tools.raw import RawResult
from app.tools.reads import (
    DigestResult,
    Episode,
    EpisodesResult,
    NowResult,
    Signal,
    SignalsResult,
)
from app.tools.results import Period, ToolError, ToolOutcome, ToolResult
from app.tools.search import SearchResult
from app.tools.stats import AppTime, CategoryTime, KindCount, StatsResult, TitleTime

T = TypeVar("T")
R = TypeVar("R", bound=ToolResult)

MAX_LINES = 8


def _t(language: Language, zh: str, en: str) -> str:
    return zh if language == "zh" else en


def _category(name: str, language: Language) -> str:
    return category_label(name, language)


def _signal(name: str, language: Language) -> str:
    return signal_label(name, language)


def _sentence(language: Language, head_zh: str, head_en: str, parts: list[str]) -> str:
    """A head and a list, punctuated as the language wants."""
    if language == "zh":
        return head_zh + "，".join(parts) + "。"
    return head_en + ", ".join(parts) + "."


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _period(result: Period, language: Language) -> str:
    first, last = result.from_, result.to
    if first == last:
        return str(first)
    return _t(language, f"{first} 至 {last}", f"{first} to {last}")


def _episode(item: Episode, language: Language) -> str:
    return _t(
        language,
        f"#{item.id} {item.when} {item.title}（{_category(item.category, language)}，"
        f"{item.minutes} 分钟）",
        f"#{item.id} {item.when} {item.title} ({item.category}, {item.minutes} minutes)",
    )


def _now(intent: Intent, result: NowResult) -> str:
    lang = intent.language
    if not result.items:
        return _t(lang, "还没有任何记录。", "Nothing has been recorded yet.")
    latest = result.items[0]
    where = latest.app + (f" — {latest.title}" if latest.title else "")
    category = _category(latest.category, lang)
    text = _t(
        lang,
        f"最新的记录（{latest.at}，{latest.device}）：{where}（{category}）。",
        f"Latest record ({latest.at}, {latest.device}): {where} ({category}).",
    )
    if latest.idle:
        text += _t(lang, " 屏幕处于空闲/锁定。", " The screen is idle or locked.")
    sitting = result.current_sitting
    if sitting:
        since, minutes, app = sitting.since, sitting.minutes, sitting.main_app
        text += _t(
            lang,
            f" 这一段从 {since} 开始，已有 {minutes} 分钟，主要在 {app}。",
            f" This sitting started at {since}, {minutes} minutes ago, mostly in {app}.",
        )
    last = result.last_episode
    if last:
        text += _t(
            lang, f" 上一段：{_episode(last, lang)}。", f" Before that: {_episode(last, lang)}."
        )
    return text


def _moment(intent: Intent, result: RawResult) -> str:
    lang = intent.language
    items = result.items
    start = str(intent.arguments["ts_from"])[:16].replace("T", " ")
    end = str(intent.arguments["ts_to"])[11:16]
    if not items:
        return _t(lang, f"{start}–{end} 没有记录。", f"Nothing was recorded {start}–{end}.")
    lines = [
        f"- {i.at} {i.device} {i.app}" + (f" — {i.title}" if i.title else "")
        for i in items[:MAX_LINES]
    ]
    head = _t(
        lang,
        f"{start}–{end} 共 {len(items)} 条记录：",
        f"{start}–{end}: {len(items)} records:",
    )
    return head + "\n" + "\n".join(lines)


def _of(result: StatsResult, kind: type[T]) -> list[T]:
    """The items of one kind of a query_stats answer."""
    return [i for i in result.items or [] if isinstance(i, kind)]


def _category_hours(intent: Intent, result: StatsResult) -> str:
    lang, period = intent.language, _period(result, intent.language)
    items = _of(result, CategoryTime)
    if intent.subject and items:
        item = items[0]
        category = _category(item.category, lang)
        amount = duration(item.seconds, lang, minutes=intent.minutes)
        return _t(
            lang,
            f"{amount}：{period}，{category}。",
            f"{amount} of {category} {when(result, intent)}.",
        )
    if not items:
        return _t(lang, f"{period} 没有记录到活动。", f"No activity recorded for {period}.")
    parts = [f"{_category(i.category, lang)} {duration(i.seconds, lang)}" for i in items]
    total = duration(result.total_seconds or 0, lang)
    return _t(
        lang,
        f"{period}按类别：" + "，".join(parts) + f"；合计 {total}。",
        f"{period} by category: " + ", ".join(parts) + f"; {total} in all.",
    )


def _app_hours(intent: Intent, result: StatsResult) -> str:
    lang, period = intent.language, _period(result, intent.language)
    items = _of(result, AppTime)
    if intent.subject:
        wanted = intent.subject.casefold()
        match = sorted(items, key=lambda i: i.app.casefold() != wanted)  # the exact name first
        if not match:
            return _t(
                lang,
                f"{period} 没有找到“{intent.subject}”的使用时长。",
                f"No time in “{intent.subject}” for {period}.",
            )
        app = match[0]
        amount = duration(app.seconds, lang, minutes=intent.minutes)
        return _t(
            lang,
            f"{amount}：{period}，{app.app}。",
            f"{amount} in {app.app} {when(result, intent)}.",
        )
    parts = [f"{i.app} {duration(i.seconds, lang)}" for i in items[:MAX_LINES]]
    if not parts:
        return _t(lang, f"{period} 没有记录到应用使用。", f"No app time recorded for {period}.")
    return _sentence(lang, f"{period}用得最多的应用：", f"{period}, most used apps: ", parts)


def _value(intent: Intent, result: StatsResult) -> str:
    lang, period = intent.language, _period(result, intent.language)
    if intent.kind == "active_hours":
        amount = duration(result.value or 0, lang, minutes=intent.minutes)
        return _t(
            lang,
            f"{amount}：{period}在电脑前（活跃，不含空闲）。",
            f"{amount} active (not idle) {when(result, intent)}.",
        )
    return _t(lang, f"{period}共 {result.value} 段活动。", f"{period}: {result.value} episodes.")


def _top_titles(intent: Intent, result: StatsResult) -> str:
    lang, period = intent.language, _period(result, intent.language)
    parts = [
        f"{i.title}: {duration(i.hours * 3600, lang)}" for i in _of(result, TitleTime)[:MAX_LINES]
    ]
    return _t(lang, f"{period}时间最多的窗口：", f"{period}, top windows: ") + "; ".join(parts)


def _signal_count(intent: Intent, result: StatsResult) -> str:
    lang, period = intent.language, _period(result, intent.language)
    counts = {i.kind: i.count for i in _of(result, KindCount)}
    parts = [
        _t(
            lang,
            f"{_signal(k, lang)} {counts.get(k, 0)} 次",
            f"{_signal(k, lang)}: {counts.get(k, 0)}",
        )
        for k in intent.kinds
    ]
    return _sentence(lang, f"{period}：", f"{period}: ", parts)


def _signals(intent: Intent, result: SignalsResult) -> str:
    """What was detected; a yes/no question ("熬夜了吗") hears 是/没有, Yes/No first."""
    text = _signals_text(intent, result)
    if not intent.yes_no:
        return text
    found = bool(result.patterns)
    return _t(intent.language, "是：" if found else "没有：", "Yes: " if found else "No: ") + text


def _signals_text(intent: Intent, result: SignalsResult) -> str:
    lang, period = intent.language, _period(result, intent.language)
    if not result.patterns:
        return _t(
            lang, f"{period} 没有检测到这类行为。", f"No such behaviour detected in {period}."
        )
    lines = []
    for name, p in list(result.patterns.items())[:MAX_LINES]:
        cues = f"（{'、'.join(p.cues)}）" if lang == "zh" and p.cues else ""
        cues = cues or (f" (e.g. {', '.join(p.cues)})" if p.cues else "")
        lines.append(
            _t(
                lang,
                f"{_signal(name, lang)} {p.count} 次，分布在 {p.days} 天{cues}",
                f"{_signal(name, lang)}: {_times(p.count)} on {p.days} "
                f"day{'s' if p.days != 1 else ''}{cues}",
            )
        )
    evidence = []
    for item in result.items[:4]:
        ids = "、".join(f"#{i}" for i in item.episode_ids[:3]) if isinstance(item, Signal) else ""
        if ids:
            evidence.append(f"{item.day} {ids}")
    head = _t(
        lang,
        f"{period}检测到的习惯：" if intent.kind == "habits" else f"{period}：",
        f"{period}, habits detected: " if intent.kind == "habits" else f"{period}: ",
    )
    text = head + _t(lang, "；", "; ").join(lines) + _t(lang, "。", ".")
    if evidence:
        text += _t(lang, " 证据：", " Evidence episodes: ") + "; ".join(evidence) + "."
    return text


def _episodes(intent: Intent, result: EpisodesResult) -> str:
    lang, period = intent.language, _period(result, intent.language)
    items = result.items
    if not items:
        return _t(lang, f"{period} 没有活动记录。", f"No episodes in {period}.")
    shown, total = items[:MAX_LINES], str(len(items) + (result.omitted or 0))
    total += "+" if result.note else ""  # the tool's limit cut the list
    head = _t(
        lang,
        f"{period}共 {total} 段，最近的 {len(shown)} 段：",
        f"{period}: {total} episodes; the latest {len(shown)}:",
    )
    return head + "\n" + "\n".join(f"- {_episode(i, lang)}" for i in shown)


def _search(intent: Intent, result: SearchResult) -> str:
    lang = intent.language
    items = sorted(result.items, key=lambda i: i.when, reverse=True)
    if not items:
        return _t(
            lang,
            f"没有找到与“{intent.subject}”相关的活动。",
            f"No episode matches “{intent.subject}”.",
        )
    head = _t(
        lang,
        f"与“{intent.subject}”最相关的 {len(items)} 段活动中，最近一次是 #{items[0].id}：",
        f"Of the {len(items)} episodes that best match “{intent.subject}”, the latest is "
        f"#{items[0].id}:",
    )
    return head + "\n" + "\n".join(f"- {_episode(i, lang)}" for i in items[:5])


def _summary(intent: Intent, result: DigestResult | StatsResult) -> str:
    if isinstance(result, StatsResult):
        return _category_hours(intent, result)
    lang = intent.language
    metrics = result.metrics
    parts = [
        f"{_category(c, lang)} {duration(h * 3600, lang)}"
        for c, h in list(metrics.hours_by_category.items())[:6]
    ]
    key, active, episodes = result.key, metrics.active_hours, metrics.episodes
    text = _t(
        lang,
        f"{key}：活跃 {duration(active * 3600, lang)}，{episodes} 段活动；"
        + "，".join(parts)
        + "。",
        f"{key}: {duration(active * 3600, lang)} active, {episodes} episodes; "
        + ", ".join(parts)
        + ".",
    )
    if result.narrative and result.summary_by != "rules":  # by rule: the numbers above
        text += "\n" + result.narrative
    elif not result.available:
        text += _t(
            lang,
            "（摘要尚未生成，以上为实时统计。）",
            " (The digest is not built yet: these are live numbers.)",
        )
    return text


def reads(answer: type[R], write: Callable[[Intent, R], str]) -> Renderer:
    """A renderer of `answer` results: any other result is a bug of the intent table."""

    def run(intent: Intent, result: ToolResult) -> str:
        if not isinstance(result, answer):
            raise TypeError(f"{intent.kind}: {type(result).__name__} is not {answer.__name__}")
        return write(intent, result)

    return run


def _summary_of(intent: Intent, result: ToolResult) -> str:
    if not isinstance(result, DigestResult | StatsResult):
        raise TypeError(f"summary: {type(result).__name__} is not a digest or stats")
    return _summary(intent, result)


RENDERERS: dict[str, Renderer] = {
    "now": reads(NowResult, _now),
    "moment": reads(RawResult, _moment),
    "category_hours": reads(StatsResult, _category_hours),
    "app_hours": reads(StatsResult, _app_hours),
    "active_hours": reads(StatsResult, _value),
    "episode_count": reads(StatsResult, _value),
    "top_titles": reads(StatsResult, _top_titles),
    "signal_count": reads(StatsResult, _signal_count),
    "habits": reads(SignalsResult, _signals),
    "signals": reads(SignalsResult, _signals),
    "episodes": reads(EpisodesResult, _episodes),
    "search": reads(SearchResult, _search),
    "summary": _summary_of,
}


def render(
    intent: Intent, result: ToolOutcome, *, newest: str | None = None, never_seen: bool = False
) -> str:
    """The answer to `intent` from its tool's `result` (which tool answered is the
    reply's metadata, never the text); `newest` is the day of the newest record, when
    the period may reach past it; `never_seen`: the thing asked about has no record at
    all (not "0 h")."""
    lang = intent.language
    if isinstance(result, ToolError):
        body = unknown_thing(intent, result) or _t(
            lang, f"没能回答：{result.error}", f"Could not answer: {result.error}"
        )
    elif never_seen and isinstance(result, StatsResult):
        body = never_seen_thing(intent, result)
    elif intent.kind in THING_RENDERERS:
        body = THING_RENDERERS[intent.kind](intent, result, newest)
    else:
        body = RENDERERS[intent.kind](intent, result)
    period = intent.period
    if newest and period is not None and newest[:10] < period.date_from.isoformat():
        body = no_data_after(newest, lang) + " " + body
    if intent.defaulted and period is not None and intent.kind not in ("now", "moment"):
        body += default_note(period, lang)
    return body  # which tool answered, and from what, is the reply's metadata


_DEFAULTS = {
    "today": ("今天", "today"),
    "yesterday": ("昨天", "yesterday"),
    "this_month": ("本月至今", "this month so far"),
    "this_week": ("本周至今", "this week so far"),
}


def default_note(period: PeriodSpec, language: Language) -> str:
    """The period a question that named none was read for, said after the answer."""
    zh, en = _DEFAULTS.get(
        period.period, (f"最近 {period.days} 天", f"the last {period.days} days")
    )
    return _t(language, f"（问题没有说时间，按{zh}算。）", f" (No period was named, so {en}.)")
