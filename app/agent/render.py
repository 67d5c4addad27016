"""Answers written from tool results, in the question's language, with no model:
every number in them is a number of the result, and every episode is cited as #id.

    render(intent, result)  # "本月（2026-06-01 至 2026-06-20）娱乐共 25.43 小时。…"
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from app.agent.intents import Intent
from app.agent.render_things import THING_RENDERERS, no_data_after, unknown_thing, when
from app.rules.categories import CATEGORY_LABELS_ZH
from app.signal_labels import signal_label
from app.text import Language

MAX_LINES = 8


def _t(language: Language, zh: str, en: str) -> str:
    return zh if language == "zh" else en


_ZH: dict[str, str] = {str(k): v for k, v in CATEGORY_LABELS_ZH.items()}


def _category(name: str, language: Language) -> str:
    return _ZH.get(name, name) if language == "zh" else name


def _signal(name: str, language: Language) -> str:
    return signal_label(name, language)


def _sentence(language: Language, head_zh: str, head_en: str, parts: list[str]) -> str:
    """A head and a list, punctuated as the language wants."""
    if language == "zh":
        return head_zh + "，".join(parts) + "。"
    return head_en + ", ".join(parts) + "."


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times"


def _period(result: dict[str, Any], language: Language) -> str:
    first, last = result.get("from"), result.get("to")
    if not first:
        return ""
    if first == last:
        return str(first)
    return _t(language, f"{first} 至 {last}", f"{first} to {last}")


def _episode(item: dict[str, Any], language: Language) -> str:
    return _t(
        language,
        f"#{item['id']} {item['when']} {item['title']}（{_category(item['category'], language)}，"
        f"{item['minutes']} 分钟）",
        f"#{item['id']} {item['when']} {item['title']} ({item['category']}, {item['minutes']} min)",
    )


def _now(intent: Intent, result: dict[str, Any]) -> str:
    lang = intent.language
    items = result.get("items", [])
    if not items:
        return _t(lang, "还没有任何记录。", "Nothing has been recorded yet.")
    latest = items[0]
    where = f"{latest['app']}" + (f" — {latest['title']}" if latest.get("title") else "")
    category = _category(latest["category"], lang)
    text = _t(
        lang,
        f"最新的记录（{latest['at']}，{latest['device']}）：{where}（{category}）。",
        f"Latest record ({latest['at']}, {latest['device']}): {where} ({category}).",
    )
    if latest.get("idle"):
        text += _t(lang, " 屏幕处于空闲/锁定。", " The screen is idle or locked.")
    sitting = result.get("current_sitting")
    if sitting:
        since, minutes, app = sitting["since"], sitting["minutes"], sitting["main_app"]
        text += _t(
            lang,
            f" 这一段从 {since} 开始，已有 {minutes} 分钟，主要在 {app}。",
            f" This sitting started at {since}, {minutes} minutes ago, mostly in {app}.",
        )
    last = result.get("last_episode")
    if last:
        text += _t(
            lang, f" 上一段：{_episode(last, lang)}。", f" Before that: {_episode(last, lang)}."
        )
    return text


def _moment(intent: Intent, result: dict[str, Any]) -> str:
    lang = intent.language
    items = result.get("items", [])
    start = str(intent.arguments["ts_from"])[:16].replace("T", " ")
    end = str(intent.arguments["ts_to"])[11:16]
    if not items:
        return _t(lang, f"{start}–{end} 没有记录。", f"Nothing was recorded {start}–{end}.")
    lines = [
        f"- {i['at']} {i['device']} {i['app']}" + (f" — {i['title']}" if i.get("title") else "")
        for i in items[:MAX_LINES]
    ]
    head = _t(
        lang,
        f"{start}–{end} 共 {len(items)} 条记录：",
        f"{start}–{end}: {len(items)} records:",
    )
    return head + "\n" + "\n".join(lines)


def _category_hours(intent: Intent, result: dict[str, Any]) -> str:
    lang, period = intent.language, _period(result, intent.language)
    items = result.get("items", [])
    if intent.subject and items:
        item = items[0]
        category, hours, seconds = _category(item["category"], lang), item["hours"], item["seconds"]
        return _t(
            lang,
            f"{hours} 小时：{period}，{category}（{seconds} 秒）。",
            f"{hours} hours of {category} {when(result, intent)} ({seconds} s).",
        )
    if not items:
        return _t(lang, f"{period} 没有记录到活动。", f"No activity recorded for {period}.")
    parts = [
        _t(
            lang,
            f"{_category(i['category'], lang)} {i['hours']} 小时",
            f"{i['category']} {i['hours']} h",
        )
        for i in items
    ]
    total = round(result.get("total_seconds", 0) / 3600, 2)
    return _t(
        lang,
        f"{period}按类别：" + "，".join(parts) + f"；合计 {total} 小时。",
        f"{period} by category: " + ", ".join(parts) + f"; {total} hours in all.",
    )


def _app_hours(intent: Intent, result: dict[str, Any]) -> str:
    lang, period = intent.language, _period(result, intent.language)
    items = result.get("items", [])
    if intent.subject:
        wanted = intent.subject.casefold()
        match = sorted(items, key=lambda i: i["app"].casefold() != wanted)  # the exact name first
        if not match:
            return _t(
                lang,
                f"{period} 没有找到“{intent.subject}”的使用时长。",
                f"No time in “{intent.subject}” for {period}.",
            )
        app = match[0]
        return _t(
            lang,
            f"{app['hours']} 小时：{period}，{app['app']}（{app['seconds']} 秒）。",
            f"{app['hours']} hours in {app['app']} {when(result, intent)} ({app['seconds']} s).",
        )
    parts = [f"{i['app']} {i['hours']}" + _t(lang, " 小时", " h") for i in items[:MAX_LINES]]
    if not parts:
        return _t(lang, f"{period} 没有记录到应用使用。", f"No app time recorded for {period}.")
    return _sentence(lang, f"{period}用得最多的应用：", f"{period}, most used apps: ", parts)


def _value(intent: Intent, result: dict[str, Any]) -> str:
    lang, period = intent.language, _period(result, intent.language)
    if intent.kind == "active_hours":
        return _t(
            lang,
            f"{result['hours']} 小时：{period}活跃（非空闲）（{result['value']} 秒）。",
            f"{result['hours']} active (not idle) hours {when(result, intent)} "
            f"({result['value']} s).",
        )
    return _t(
        lang, f"{period}共 {result['value']} 段 episode。", f"{period}: {result['value']} episodes."
    )


def _top_titles(intent: Intent, result: dict[str, Any]) -> str:
    lang, period = intent.language, _period(result, intent.language)
    parts = [f"{i['title']} ({i['hours']} h)" for i in result.get("items", [])[:MAX_LINES]]
    return _t(lang, f"{period}时间最多的窗口：", f"{period}, top windows: ") + "; ".join(parts)


def _signal_count(intent: Intent, result: dict[str, Any]) -> str:
    lang, period = intent.language, _period(result, intent.language)
    counts = {i["kind"]: i["count"] for i in result.get("items", [])}
    parts = [
        _t(
            lang,
            f"{_signal(k, lang)} {counts.get(k, 0)} 次",
            f"{_signal(k, lang)}: {counts.get(k, 0)}",
        )
        for k in intent.kinds
    ]
    return _sentence(lang, f"{period}：", f"{period}: ", parts)


def _signals(intent: Intent, result: dict[str, Any]) -> str:
    lang, period = intent.language, _period(result, intent.language)
    patterns: dict[str, dict[str, Any]] = result.get("patterns", {})
    if not patterns:
        return _t(
            lang, f"{period} 没有检测到这类行为。", f"No such behaviour detected in {period}."
        )
    lines = []
    for name, p in list(patterns.items())[:MAX_LINES]:
        cues = f"（{'、'.join(p['cues'])}）" if lang == "zh" and p.get("cues") else ""
        cues = cues or (f" (e.g. {', '.join(p['cues'])})" if p.get("cues") else "")
        lines.append(
            _t(
                lang,
                f"{_signal(name, lang)} {p['count']} 次，分布在 {p['days']} 天{cues}",
                f"{_signal(name, lang)}: {_times(p['count'])} on {p['days']} "
                f"day{'s' if p['days'] != 1 else ''}{cues}",
            )
        )
    evidence = []
    for item in result.get("items", [])[:4]:
        ids = "、".join(f"#{i}" for i in item.get("episode_ids", [])[:3])
        if ids:
            evidence.append(f"{item['day']} {ids}")
    head = _t(
        lang,
        f"{period}检测到的习惯：" if intent.kind == "habits" else f"{period}：",
        f"{period}, habits detected: " if intent.kind == "habits" else f"{period}: ",
    )
    text = head + _t(lang, "；", "; ").join(lines) + _t(lang, "。", ".")
    if evidence:
        text += _t(lang, " 证据 episode：", " Evidence episodes: ") + "; ".join(evidence) + "."
    return text


def _episodes(intent: Intent, result: dict[str, Any]) -> str:
    lang, period = intent.language, _period(result, intent.language)
    items = result.get("items", [])
    if not items:
        return _t(lang, f"{period} 没有 episode。", f"No episodes in {period}.")
    shown, total = items[:MAX_LINES], str(len(items) + result.get("omitted", 0))
    total += "+" if "note" in result else ""  # the tool's limit cut the list
    head = _t(
        lang,
        f"{period}共 {total} 段，最近的 {len(shown)} 段：",
        f"{period}: {total} episodes; the latest {len(shown)}:",
    )
    return head + "\n" + "\n".join(f"- {_episode(i, lang)}" for i in shown)


def _search(intent: Intent, result: dict[str, Any]) -> str:
    lang = intent.language
    items = sorted(result.get("items", []), key=lambda i: i["when"], reverse=True)
    if not items:
        return _t(
            lang,
            f"没有找到与“{intent.subject}”相关的 episode。",
            f"No episode matches “{intent.subject}”.",
        )
    head = _t(
        lang,
        f"与“{intent.subject}”最相关的 {len(items)} 段中，最近一次是 #{items[0]['id']}：",
        f"Of the {len(items)} episodes that best match “{intent.subject}”, the latest is "
        f"#{items[0]['id']}:",
    )
    return head + "\n" + "\n".join(f"- {_episode(i, lang)}" for i in items[:5])


def _summary(intent: Intent, result: dict[str, Any]) -> str:
    if intent.tool == "query_stats":
        return _category_hours(intent, result)
    lang = intent.language
    metrics = result.get("metrics", {})
    hours = metrics.get("hours_by_category", {})
    parts = [
        _t(lang, f"{_category(c, lang)} {h} 小时", f"{c} {h} h") for c, h in list(hours.items())[:6]
    ]
    key, active, episodes = (
        result["key"],
        metrics.get("active_hours", 0),
        metrics.get("episodes", 0),
    )
    text = _t(
        lang,
        f"{key}：活跃 {active} 小时，{episodes} 段 episode；" + "，".join(parts) + "。",
        f"{key}: {active} active hours, {episodes} episodes; " + ", ".join(parts) + ".",
    )
    if result.get("narrative"):
        text += "\n" + str(result["narrative"])
    elif not result.get("available"):
        text += _t(
            lang,
            "（摘要尚未生成，以上为实时统计。）",
            " (The digest is not built yet: live numbers.)",
        )
    return text


RENDERERS: dict[str, Callable[[Intent, dict[str, Any]], str]] = {
    "now": _now,
    "moment": _moment,
    "category_hours": _category_hours,
    "app_hours": _app_hours,
    "active_hours": _value,
    "episode_count": _value,
    "top_titles": _top_titles,
    "signal_count": _signal_count,
    "habits": _signals,
    "signals": _signals,
    "episodes": _episodes,
    "search": _search,
    "summary": _summary,
}


def render(intent: Intent, result: dict[str, Any], *, newest: str | None = None) -> str:
    """The answer to `intent` from its tool's `result`, saying which tool answered;
    `newest` is the day of the newest record, when the period may reach past it."""
    lang = intent.language
    if "error" in result:
        body = unknown_thing(intent, result) or _t(
            lang, f"没能回答：{result['error']}", f"Could not answer: {result['error']}"
        )
    elif intent.kind in THING_RENDERERS:
        body = THING_RENDERERS[intent.kind](intent, result, newest)
    else:
        body = RENDERERS[intent.kind](intent, result)
    period = intent.period
    if newest and period is not None and newest[:10] < period.date_from.isoformat():
        body = no_data_after(newest, lang) + " " + body
    source = f", {result['source']}" if "source" in result else ""
    return body + _t(
        lang, f"\n（由 {intent.tool} 回答{source}）", f"\n(answered by {intent.tool}{source})"
    )
