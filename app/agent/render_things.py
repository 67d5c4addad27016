"""Answers for the questions about things, days and moments, written from tool
results with no model, the number first: hours of a thing, comparisons, "when did I
last", "how many days" / "which days", habits by day, the moment on screen, and a
name the data does not hold (the closest names instead, never "0 h").

    THING_RENDERERS[intent.kind](intent, result, newest)
    # -> "3.5 小时：昨天（2026-12-01）在 YouTube（youtube.com）。"
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from app.agent.intents import Intent
from app.signal_labels import signal_label
from app.text import Language


def _t(language: Language, zh: str, en: str) -> str:
    return zh if language == "zh" else en


def period_words(result: dict[str, Any], intent: Intent) -> str:
    """The period as the answer says it: its days (one day, or first to last)."""
    first = result.get("from") or (intent.period.date_from if intent.period else None)
    last = result.get("to") or (intent.period.date_to if intent.period else None)
    if not first:
        return ""
    first, last = str(first)[:10], str(last or first)[:10]
    if first == last:
        return first
    return _t(intent.language, f"{first} 至 {last}", f"{first} to {last}")


def when(result: dict[str, Any], intent: Intent) -> str:
    """The period after a number: "on 2026-06-03" / "from … to …"; Chinese as is."""
    period = period_words(result, intent)
    if intent.language == "zh" or not period:
        return period
    return f"from {period}" if " to " in period else f"on {period}"


def _label(thing: Any, fallback: str) -> str:
    if isinstance(thing, dict):
        label = str(thing.get("label") or thing.get("name") or fallback)
        name = str(thing.get("name") or "")
        return f"{label} ({name})" if name and name not in label else label
    return fallback


def _hours(item: dict[str, Any]) -> str:
    if "hours" in item:
        return str(item["hours"])
    return str(round(float(item.get("seconds", 0)) / 3600, 2))


def no_data_after(newest: str | None, language: Language) -> str:
    if not newest:
        return ""
    return _t(language, f"我没有 {newest} 之后的数据。", f"I have no data after {newest}.")


def _thing_hours(intent: Intent, result: dict[str, Any], newest: str | None) -> str:
    lang, period = intent.language, period_words(result, intent)
    label = _label(result.get("thing"), intent.mention or "")
    hours, seconds = _hours(result), round(float(result.get("seconds", 0)))
    if result.get("never_seen"):
        mention = intent.mention or label
        thing = result.get("thing") or {}
        names = [str(n) for n in (thing.get("label"), thing.get("name")) if n and n != mention]
        label = ", ".join(dict.fromkeys(names)) or label
        return _t(
            lang,
            f"你的数据里从来没有“{mention}”（{label}）的记录，{period}也没有。",
            f"Your data has no record of “{mention}” ({label}) at all, {period} included.",
        )
    if intent.mention == "idle" or (result.get("thing") or {}).get("kind") == "idle":
        label = _t(lang, "离开/空闲（锁屏）", "away (idle or locked)")
    return _t(
        lang,
        f"{hours} 小时：{period}，{label}（{seconds} 秒）。",
        f"{hours} hours on {label} {when(result, intent)} ({seconds} s).",
    )


def _compare(intent: Intent, result: dict[str, Any], newest: str | None) -> str:
    lang, period = intent.language, period_words(result, intent)
    items = result.get("items") or result.get("things") or []
    parts = [
        _t(
            lang,
            f"{_label(i.get('thing', i), str(i.get('mention', '')))} {_hours(i)} 小时",
            f"{_label(i.get('thing', i), str(i.get('mention', '')))} {_hours(i)} h",
        )
        for i in items
    ]
    if not parts:
        return _t(lang, f"{period} 没有可比较的记录。", f"Nothing to compare for {period}.")
    ranked = sorted(items, key=lambda i: -float(i.get("seconds", 0)))
    most = _label(ranked[0].get("thing", ranked[0]), str(ranked[0].get("mention", "")))
    head = _t(lang, f"{period}：", f"{period}: ")
    tail = _t(lang, f"；{most} 最多。", f"; most: {most}.")
    return head + _t(lang, "，", ", ").join(parts) + tail


_CLOCK = re.compile(r"(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})")


def _last_seen(intent: Intent, result: dict[str, Any], newest: str | None) -> str:
    lang = intent.language
    record = result.get("last") or result.get("record") or result
    if isinstance(record, list):
        record = record[0] if record else {}
    when = ""
    for key in ("at", "ts_start", "start", "when", "last_seen", "from"):
        value = record.get(key) if isinstance(record, dict) else None
        if value and (match := _CLOCK.search(str(value))):
            when = f"{match[1]} {match[2]}"
            break
    label = _label(result.get("thing"), intent.mention or "")
    if not when:
        return _t(lang, f"没有找到“{label}”的记录。", f"No record of “{label}” found.")
    where = record.get("app", "") if isinstance(record, dict) else ""
    title = record.get("title", "") if isinstance(record, dict) else ""
    detail = " — ".join(x for x in (where, title) if x)
    return _t(
        lang,
        f"最后一次是 {when}：{label}" + (f"（{detail}）" if detail else "") + "。",
        f"Last seen {when}: {label}" + (f" ({detail})" if detail else "") + ".",
    )


def _day_list(result: dict[str, Any]) -> list[str]:
    days = result.get("days")
    if days is None:  # a list of signals: their days
        days = [i.get("day") for i in result.get("items", [])]
    out = []
    for day in days:
        value = day.get("day") if isinstance(day, dict) else day
        if value and str(value)[:10] not in out:
            out.append(str(value)[:10])
    return sorted(out)


def _days(intent: Intent, result: dict[str, Any], newest: str | None) -> str:
    lang, period = intent.language, period_words(result, intent)
    days = _day_list(result)
    verb = ""
    if intent.kind == "signal_days":
        what = "、".join(signal_label(k, "zh") for k in intent.kinds)
        what_en = ", ".join(signal_label(k, "en") for k in intent.kinds)
    else:
        minutes = int(intent.arguments.get("min_minutes", 1))
        label = _label(result.get("thing"), intent.mention or "")
        least = _t(lang, f"（至少 {minutes} 分钟）", f" (at least {minutes} min)")
        what, what_en = (
            label + (least if minutes > 1 else ""),
            label + (least if minutes > 1 else ""),
        )
    n = len(days)
    if not days:
        text = _t(lang, f"{period} 没有一天有{what}。", f"No day in {period} had {what_en}.")
        return text
    listed = _t(lang, "、".join(days), ", ".join(days))
    return _t(
        lang,
        f"{n} 天{verb}{what}（{period}）：{listed}。",
        f"{n} day{'s' if n != 1 else ''} with {what_en} {when(result, intent)}: {listed}.",
    )


def _moment(intent: Intent, result: dict[str, Any], newest: str | None) -> str:
    lang = intent.language
    at = str(result.get("at") or intent.arguments.get("at") or intent.subject or "")
    when = at[:16].replace("T", " ")  # local, as the tool gives it
    clock = at[11:19]
    items = result.get("items") or []
    if items and "covering" in items[0]:  # get_moment: per device, the covering record
        items = [{**i["covering"], "device": i.get("device")} for i in items if i.get("covering")]
    elif intent.tool == "get_raw":  # the records that began by then, the latest per device
        latest: dict[str, dict[str, Any]] = {}
        for item in items:
            if str(item.get("at", "")) <= clock:
                latest[str(item.get("device", ""))] = item
        items = list(latest.values())
    if not items:
        return _t(lang, f"{when} 没有记录。", f"Nothing was recorded at {when}.")
    lines = [
        f"{i.get('app', '')}"
        + (f" — {i['title']}" if i.get("title") else "")
        + (f"（{i['device']}）" if lang == "zh" and i.get("device") else "")
        + (f" ({i['device']})" if lang != "zh" and i.get("device") else "")
        for i in items[:3]
    ]
    head = _t(lang, f"{when} 屏幕上是：", f"At {when} the screen showed: ")
    return head + _t(lang, "；", "; ").join(lines) + _t(lang, "。", ".")


def unknown_thing(intent: Intent, result: dict[str, Any]) -> str | None:
    """A name the data does not hold: say so and give the closest names, never 0 h."""
    error = str(result.get("error", ""))
    if "in your data" not in error and "no app, site" not in error:
        return None
    mention = intent.mention or ""
    found = re.search(r"called '([^']*)'|called \"([^\"]*)\"", error)
    if found:
        mention = found[1] or found[2] or mention
    suggestions = result.get("suggestions")
    if suggestions is None:
        close = re.search(r"closest in your data: (.*)$", error)
        suggestions = [s.strip() for s in close[1].split(",")] if close else []
    closest = _t(intent.language, "、".join(suggestions), ", ".join(suggestions))
    return _t(
        intent.language,
        f"你的数据里没有叫“{mention}”的应用、网站或类别"
        + (f"；最接近的是：{closest}。" if closest else "。"),
        f"I have no app, site or category called “{mention}” in your data"
        + (f"; the closest names are: {closest}." if closest else "."),
    )


THING_RENDERERS: dict[str, Callable[[Intent, dict[str, Any], str | None], str]] = {
    "thing_hours": _thing_hours,
    "compare": _compare,
    "last_seen": _last_seen,
    "days": _days,
    "signal_days": _days,
    "moment": _moment,
}
