"""Answers for the questions about things, days and moments, written from tool
results with no model, the number first: hours of a thing, comparisons, "when did I
last", "how many days" / "which days", habits by day, the moment on screen, and a
name the data does not hold (the closest names instead, never "0 h").

    THING_RENDERERS[intent.kind](intent, result, newest)
    # -> "3.5 小时：2026-12-01，YouTube (youtube.com)。"
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from app.agent.intents import Intent
from app.agent.wording import duration, in_language, thing_label
from app.signal_labels import signal_label
from app.text import Language
from app.tools.raw import RawRecord, RawResult
from app.tools.reads import SignalsResult
from app.tools.recall import CompareResult, DaysWithResult, LastSeenResult, MomentResult
from app.tools.results import Period, ThingInfo, ToolError, ToolResult
from app.tools.stats import StatsResult

R = TypeVar("R", bound=ToolResult)


def _t(language: Language, zh: str, en: str) -> str:
    return zh if language == "zh" else en


Renderer = Callable[[Intent, ToolResult], str]
ThingRenderer = Callable[[Intent, ToolResult, str | None], str]


def period_words(result: ToolResult, intent: Intent) -> str:
    """The period as the answer says it: its days (one day, or first to last)."""
    first = result.from_ if isinstance(result, Period) else None
    last = result.to if isinstance(result, Period) else None
    if first is None and intent.period:
        first, last = intent.period.date_from, intent.period.date_to
    if not first:
        return ""
    first_day, last_day = str(first)[:10], str(last or first)[:10]
    if first_day == last_day:
        return first_day
    return _t(intent.language, f"{first_day} 至 {last_day}", f"{first_day} to {last_day}")


def when(result: ToolResult, intent: Intent) -> str:
    """The period after a number: "on 2026-06-03" / "from … to …"; Chinese as is."""
    period = period_words(result, intent)
    if intent.language == "zh" or not period:
        return period
    return f"from {period}" if " to " in period else f"on {period}"


def _label(thing: ThingInfo | None, fallback: str, language: Language = "en") -> str:
    if thing is None:
        return fallback
    if thing.kind in ("category", "idle") or thing.matched_by == "group":
        return thing_label(thing, fallback, language)
    label = in_language(thing.label or thing.name or fallback, thing.name, language)
    return f"{label} ({thing.name})" if thing.name and thing.name not in label else label


def no_data_after(newest: str | None, language: Language) -> str:
    if not newest:
        return ""
    return _t(language, f"我没有 {newest} 之后的数据。", f"I have no data after {newest}.")


def never_seen_thing(intent: Intent, result: StatsResult) -> str:
    """A name the rules know that the user's data never held: no record at all, not 0 h."""
    period = period_words(result, intent)
    label = _label(result.thing, intent.mention or "", intent.language)
    mention = intent.mention or label
    thing = result.thing
    names = [n for n in ((thing.label, thing.name) if thing else ()) if n and n != mention]
    label = ", ".join(dict.fromkeys(names)) or label
    return _t(
        intent.language,
        f"你的数据里从来没有“{mention}”（{label}）的记录，{period}也没有。",
        f"Your data has no record of “{mention}” ({label}) at all, {period} included.",
    )


def _thing_hours(intent: Intent, result: StatsResult, newest: str | None) -> str:
    lang, period = intent.language, period_words(result, intent)
    label = _label(result.thing, intent.mention or "", lang)
    amount = duration(result.seconds or 0, lang, minutes=intent.minutes)
    if intent.mention == "idle" or (result.thing is not None and result.thing.kind == "idle"):
        label = _t(lang, "离开/空闲（锁屏）", "away (idle or locked)")
    return _t(
        lang,
        f"{amount}：{period}，{label}。",
        f"{amount} on {label} {when(result, intent)}.",
    )


def _compare(intent: Intent, result: CompareResult, newest: str | None) -> str:
    lang, period = intent.language, period_words(result, intent)
    items = result.items
    parts = [f"{_label(i, i.mention, lang)} {duration(i.seconds, lang)}" for i in items]
    if not parts:
        return _t(lang, f"{period} 没有可比较的记录。", f"Nothing to compare for {period}.")
    ranked = sorted(items, key=lambda i: -i.seconds)
    most = _label(ranked[0], ranked[0].mention, lang)
    head = _t(lang, f"{period}：", f"{period}: ")
    tail = _t(lang, f"；{most} 最多。", f"; most: {most}.")
    return head + _t(lang, "，", ", ").join(parts) + tail


def _last_seen(intent: Intent, result: LastSeenResult, newest: str | None) -> str:
    lang = intent.language
    label = _label(result.thing, intent.mention or "", intent.language)
    if not result.found or not result.at:
        return _t(lang, f"没有找到“{label}”的记录。", f"No record of “{label}” found.")
    detail = " — ".join(x for x in (result.app, result.title) if x)
    return _t(
        lang,
        f"最后一次是 {result.at}：{label}" + (f"（{detail}）" if detail else "") + "。",
        f"Last seen {result.at}: {label}" + (f" ({detail})" if detail else "") + ".",
    )


def _day_list(result: DaysWithResult | SignalsResult) -> list[str]:
    return sorted({str(item.day) for item in result.items})


def _days(intent: Intent, result: DaysWithResult | SignalsResult, newest: str | None) -> str:
    lang, period = intent.language, period_words(result, intent)
    days = _day_list(result)
    if intent.kind == "signal_days":
        what = "、".join(signal_label(k, "zh") for k in intent.kinds)
        what_en = ", ".join(signal_label(k, "en") for k in intent.kinds)
    else:
        minutes = int(intent.arguments.get("min_minutes", 1))
        thing = result.thing if isinstance(result, DaysWithResult) else None
        label = _label(thing, intent.mention or "", intent.language)
        least = _t(lang, f"（至少 {minutes} 分钟）", f" (at least {minutes} min)")
        what = what_en = label + (least if minutes > 1 else "")
    n = len(days)
    if not days:
        return _t(lang, f"{period} 没有一天有{what}。", f"No day in {period} had {what_en}.")
    listed = _t(lang, "、".join(days), ", ".join(days))
    return _t(
        lang,
        f"{n} 天{what}（{period}）：{listed}。",
        f"{n} day{'s' if n != 1 else ''} with {what_en} {when(result, intent)}: {listed}.",
    )


def _moment(intent: Intent, result: MomentResult | RawResult, newest: str | None) -> str:
    lang = intent.language
    at = result.at if isinstance(result, MomentResult) else ""
    at = at or str(intent.arguments.get("at") or intent.subject or "")
    when = at[:16].replace("T", " ")  # local, as the tool gives it
    clock = at[11:19]
    shown: list[tuple[str, str | None, str | None]] = []  # app, title, device
    if isinstance(result, MomentResult):  # per device, the covering record
        shown = [(d.covering.app, d.covering.title, d.device) for d in result.items if d.covering]
    else:  # get_raw: the records that began by then, the latest per device
        latest: dict[str, RawRecord] = {}
        for item in result.items:
            if item.at <= clock:
                latest[item.device] = item
        shown = [(r.app, r.title, r.device) for r in latest.values()]
    if not shown:
        return _t(lang, f"{when} 没有记录。", f"Nothing was recorded at {when}.")
    lines = [
        app
        + (f" — {title}" if title else "")
        + (f"（{device}）" if lang == "zh" and device else "")
        + (f" ({device})" if lang != "zh" and device else "")
        for app, title, device in shown[:3]
    ]
    head = _t(lang, f"{when} 屏幕上是：", f"At {when} the screen showed: ")
    return head + _t(lang, "；", "; ").join(lines) + _t(lang, "。", ".")


def unknown_thing(intent: Intent, result: ToolError) -> str | None:
    """A name the data does not hold: say so and give the closest names, never 0 h."""
    if result.unresolved is None:
        return None
    mention = result.unresolved or intent.mention or ""
    return unknown_name(mention, result.suggestions or [], intent.language)


def unknown_name(mention: str, suggestions: list[str], language: Language) -> str:
    """ "I have no … called X", with the closest names the user has."""
    closest = _t(language, "、".join(suggestions), ", ".join(suggestions))
    return _t(
        language,
        f"你的数据里没有叫“{mention}”的应用、网站或类别"
        + (f"；最接近的是：{closest}。" if closest else "。"),
        f"I have no app, site or category called “{mention}” in your data"
        + (f"; the closest names are: {closest}." if closest else "."),
    )


def reads(answer: type[R], write: Callable[[Intent, R, str | None], str]) -> ThingRenderer:
    """A renderer of `answer` results: any other result is a bug of the intent table."""

    def run(intent: Intent, result: ToolResult, newest: str | None) -> str:
        if not isinstance(result, answer):
            raise TypeError(f"{intent.kind}: {type(result).__name__} is not {answer.__name__}")
        return write(intent, result, newest)

    return run


def _days_of(intent: Intent, result: ToolResult, newest: str | None) -> str:
    if not isinstance(result, DaysWithResult | SignalsResult):
        raise TypeError(f"{intent.kind}: {type(result).__name__} lists no days")
    return _days(intent, result, newest)


def _moment_of(intent: Intent, result: ToolResult, newest: str | None) -> str:
    if not isinstance(result, MomentResult | RawResult):
        raise TypeError(f"{intent.kind}: {type(result).__name__} is not a moment")
    return _moment(intent, result, newest)


THING_RENDERERS: dict[str, ThingRenderer] = {
    "thing_hours": reads(StatsResult, _thing_hours),
    "compare": reads(CompareResult, _compare),
    "last_seen": reads(LastSeenResult, _last_seen),
    "days": _days_of,
    "signal_days": _days_of,
    "moment": _moment_of,
}
