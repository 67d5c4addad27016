"""What a question asks, decided without a model: the intent, the tool that answers
it and the tool's arguments. Chinese and English alike.

    parse_intent("这个月娱乐花了多少小时？", today=date(2026, 6, 20))
    # Intent(kind="category_hours", tool="query_stats",
    #        arguments={"metric": "seconds_by_category", "period": "this_month",
    #                   "category": "entertainment"}, ...)

Rules are tried in order (behaviour counts, habits, clock times, now, search,
behaviours, summary, counts, apps, hours, episodes); a question none of them
claims is searched for, or summarised when it only names a period.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any, Literal

from app.agent.dates import PeriodSpec, find_clocks, find_period, named, spoken_number
from app.agent.intent_words import (
    _COMPARE_SPLIT,
    _COMPARE_WORDS,
    _FILLER,
    _LONG_CJK,
    _PUNCT,
    _THRESHOLD,
    _WHOLE_NAMES,
    ACTIVE,
    APP_RANKING,
    CATEGORY_WORDS,
    COMPARE,
    COUNT,
    DAYS_COUNT,
    DAYS_WHICH,
    EPISODE_COUNT,
    EPISODES,
    FIRST_TIME,
    HABITS,
    HOURS,
    IDLE,
    LAST_TIME,
    NOW,
    SEARCH,
    SIGNAL_WORDS,
    SUMMARY,
    TOP_TITLES,
    _words,
)
from app.rules.categories import Category
from app.text import Language, language_of
from app.timeutil import zone
from app.tools.periods import Period
from app.tools.registry import ordered_tools

IntentKind = Literal[
    "planned",  # answered by the planner (app/agent/operations.py), maybe with several calls
    "now",
    "moment",
    "thing_hours",
    "compare",
    "last_seen",
    "days",
    "signal_days",
    "category_hours",
    "app_hours",
    "active_hours",
    "episode_count",
    "top_titles",
    "signal_count",
    "habits",
    "signals",
    "episodes",
    "search",
    "summary",
]


@dataclass(frozen=True, slots=True)
class Intent:
    """What the question asks and which tool answers it."""

    kind: IntentKind
    tool: str
    arguments: dict[str, Any]
    language: Language
    period: PeriodSpec | None = None
    subject: str | None = None  # the category, app, signal kinds or search words
    kinds: tuple[str, ...] = field(default=())
    mention: str | None = None  # the thing as the question writes it (follow-ups swap it)
    listed: bool = False  # days: list them (which days) rather than count them
    minutes: bool = False  # the question asks in minutes
    defaulted: bool = False  # the question named no period: `period` is the default
    yes_no: bool = False  # the question wants a yes or a no first


def _category(question: str) -> Category | None:
    for category, pattern in CATEGORY_WORDS.items():
        if pattern.search(question):
            return category
    return None


def _signal_kinds(question: str) -> tuple[str, ...]:
    return tuple(kind for kind, pattern in SIGNAL_WORDS.items() if pattern.search(question))


def leftover_words(question: str, period: PeriodSpec | None, *patterns: re.Pattern[str]) -> str:
    """The question without its period, the given patterns, fillers and punctuation:
    what it is about (search words, an app name). Long Chinese runs become their
    overlapping two-character words, so that each can match on its own."""
    text = question
    if period is not None and period.span != (0, 0):
        text = text[: period.span[0]] + " " + text[period.span[1] :]
    for pattern in patterns:
        text = pattern.sub(" ", text)
    text = _PUNCT.sub(" ", text)
    text = _FILLER.sub(" ", text)
    text = _LONG_CJK.sub(lambda m: " ".join(m[0][i : i + 2] for i in range(len(m[0]) - 1)), text)
    return " ".join(text.split())


def thing_mention(question: str, period: PeriodSpec | None, *patterns: re.Pattern[str]) -> str:
    """What the question names as its thing (an app, a site, a category word): the
    question without its period, the given patterns, fillers and punctuation."""
    text = question
    if period is not None and period.span != (0, 0):
        text = text[: period.span[0]] + " " + text[period.span[1] :]
    for pattern in patterns:
        text = pattern.sub(" ", text)
    text = re.sub(r"(?<=\w)['’]s\b", "", text)  # what's, Chrome's
    text = _PUNCT.sub(" ", text)
    text = _FILLER.sub(" ", text)
    text = re.sub(r"[-—–·|/]+", " ", text)
    return " ".join(text.split())


def _compared(question: str, period: PeriodSpec | None) -> list[str]:
    """The things a comparison names, in order ("A 和 B", "A vs B", "A or B")."""
    text = question
    if period is not None and period.span != (0, 0):
        text = text[: period.span[0]] + " " + text[period.span[1] :]
    text = re.sub(r"[?？!！。]", " ", text)
    text = _WHOLE_NAMES.sub("VSCode", text)
    parts = []
    for part in _COMPARE_SPLIT.split(text):
        part = _COMPARE_WORDS.sub(" ", part)
        name = thing_mention(part, None, HOURS)
        name = re.sub(r"(?<=[^\s])多$", "", name)  # A多还是B多
        if name:
            parts.append(name)
    return parts


def _minutes(question: str) -> tuple[int, re.Match[str] | None]:
    """The least minutes a day needs ("more than 2 hours", "超过1小时"); 1 by default."""
    match = _THRESHOLD.search(question)
    if match is None:
        return 1, None
    raw = match["n"]
    n = 0.5 if raw == "半" else float(raw) if raw[0].isdigit() else float(spoken_number(raw))
    hours = match["unit"].lower().startswith(("小", "钟", "h"))
    return max(1, round(n * 60 if hours else n)), match


def _registered(name: str) -> bool:
    return any(t.name == name for t in ordered_tools())


MOMENT_TOOLS = ("get_moment", "moment", "at_moment")
DAYS_DEFAULT = 30  # days asked about with no period: the last 30 days


def _period_or(period: PeriodSpec | None, default: Period, today: date) -> PeriodSpec:
    return period if period is not None else named(default, today=today)


MOMENT_S = 600  # a moment is read as the records of ten minutes either side


def _moment(
    clocks: list[tuple[int, int]], day: date, *, time_zone: str, cut_hour: int
) -> tuple[datetime, datetime]:
    """The window a clock time (or two) names on a logical day, in the user's zone: ten
    minutes either side of one time, or from the first to the second."""

    def at(hour: int, minute: int) -> datetime:
        calendar = day + timedelta(days=1) if hour < cut_hour else day  # 01:00 is the day's end
        return datetime(
            calendar.year, calendar.month, calendar.day, hour, minute, tzinfo=zone(time_zone)
        )

    start = at(*clocks[0])
    if len(clocks) == 1:
        return start - timedelta(seconds=MOMENT_S), start + timedelta(seconds=MOMENT_S)
    end = at(*clocks[1])
    while end <= start:  # 晚上11点到12点: the second time is later the same evening
        end += timedelta(hours=12)
    return start, end


def parse_intent(
    question: str,
    *,
    today: date,
    time_zone: str = "UTC",
    cut_hour: int = 4,
    language: Language | None = None,
) -> Intent:
    """The intent of a question, the tool to call and its arguments; clock times are
    read in `time_zone` on logical days that start at `cut_hour`. `language` is the
    answer's language when it is not the question's (a follow-up rewritten)."""
    period = find_period(question, today=today)
    intent = _parse(question, period, today=today, time_zone=time_zone, cut_hour=cut_hour,
                    language=language or language_of(question))  # fmt: skip
    if period is None and intent.period is not None:
        return replace(intent, defaulted=True)
    return intent


@dataclass(frozen=True, slots=True)
class _Asked:
    """A question being read by the rules, with what every rule needs."""

    question: str
    period: PeriodSpec | None
    today: date
    time_zone: str
    cut_hour: int
    language: Language
    kinds: tuple[str, ...]
    clocks: list[tuple[int, int]]

    def make(self, kind: IntentKind, tool: str, arguments: dict[str, Any], **extra: Any) -> Intent:
        return Intent(kind=kind, tool=tool, arguments=arguments, language=self.language, **extra)

    def stats(
        self,
        kind: IntentKind,
        metric: str,
        spec: PeriodSpec,
        *,
        category: Category | None = None,
        top_n: int | None = None,
    ) -> Intent:
        args: dict[str, Any] = {"metric": metric, **spec.arguments()}
        args |= {"category": category} if category else {}
        args |= {"top_n": top_n} if top_n else {}
        return self.make(kind, "query_stats", args, period=spec, subject=category)

    def thing(
        self, kind: IntentKind, tool: str, arguments: dict[str, Any], mention: str, **extra: Any
    ) -> Intent:
        return self.make(kind, tool, arguments, subject=mention, mention=mention, **extra)

    def or_default(self, default: Period) -> PeriodSpec:
        return _period_or(self.period, default, self.today)


def _parse(
    question: str,
    period: PeriodSpec | None,
    *,
    today: date,
    time_zone: str,
    cut_hour: int,
    language: Language,
) -> Intent:
    asked = _Asked(
        question, period, today, time_zone, cut_hour, language,
        kinds=_signal_kinds(question), clocks=find_clocks(question),
    )  # fmt: skip
    for rule in _RULES:
        intent = rule(asked)
        if intent is not None:
            return intent
    return _rest(asked)


def _moment_rule(a: _Asked) -> Intent | None:
    """The moment: a clock time on one day; the record that covered it first."""
    if not a.clocks or (a.period is not None and a.period.days != 1):
        return None
    day = a.period.date_from if a.period is not None else a.today
    start, end = _moment(a.clocks, day, time_zone=a.time_zone, cut_hour=a.cut_hour)
    if len(a.clocks) == 1:
        at = start + timedelta(seconds=MOMENT_S)
        tool = next((t for t in MOMENT_TOOLS if _registered(t)), None)
        if tool is not None:
            return a.make("moment", tool, {"at": at.isoformat()}, period=a.period)
        arguments = {
            "ts_from": start.isoformat(),
            "ts_to": (at + timedelta(seconds=60)).isoformat(),
        }
        return a.make("moment", "get_raw", arguments, period=a.period, subject=at.isoformat())
    if end - start <= timedelta(hours=2):
        arguments = {"ts_from": start.isoformat(), "ts_to": end.isoformat()}
        return a.make("moment", "get_raw", arguments, period=a.period)
    return None


def _last_rule(a: _Asked) -> Intent | None:
    """ "When did I last …": the newest record of the thing, exactly."""
    if not LAST_TIME.search(a.question) or a.kinds:
        return None
    cut = _words("哪天", "几号", "what day", "which day")
    mention = thing_mention(a.question, a.period, LAST_TIME, SEARCH, cut)
    return a.thing("last_seen", "last_seen", {"thing": mention}, mention) if mention else None


_DAY_WORDS = [
    _words("每天", "每一天", "every day", "each day"),
    DAYS_WHICH,
    DAYS_COUNT,
    HOURS,
    _words("days?", "nights?", "with", "列", "有", "超过", "天"),
]


def _days_rule(a: _Asked) -> Intent | None:
    """ "How many days / on which days": of a behaviour (by day), or of a thing."""
    listed = bool(DAYS_WHICH.search(a.question))
    if not (listed or DAYS_COUNT.search(a.question)) or FIRST_TIME.search(a.question):
        return None  # "第一次…是哪天" asks for the first time, not the days
    # "Which day …" with no period: the last 30 days, not this month so far.
    spec = a.period or PeriodSpec(
        "custom", a.today - timedelta(days=DAYS_DEFAULT - 1), a.today, (0, 0)
    )
    if a.kinds:
        args: dict[str, Any] = {**spec.arguments(), "kinds": list(a.kinds), "by_day": True}
        return a.make("signal_days", "get_signals", args, period=spec, kinds=a.kinds, listed=listed)
    minutes, threshold = _minutes(a.question)
    text = a.question if threshold is None else a.question.replace(threshold[0], " ")
    mention = "idle" if IDLE.search(text) else thing_mention(text, a.period, *_DAY_WORDS)
    if not mention:
        return None
    args = {"thing": mention, **spec.arguments(), "min_minutes": minutes}
    return a.thing("days", "days_with", args, mention, period=spec, listed=listed)


def _compare_rule(a: _Asked) -> Intent | None:
    """Comparisons: two or more things over one period, side by side."""
    if not COMPARE.search(a.question) or a.kinds:
        return None
    names = _compared(a.question, a.period)
    if len(names) < 2:
        return None
    spec = a.or_default("today")
    args = {"things": names[:5], **spec.arguments()}
    return a.make("compare", "compare", args, period=spec, subject=" / ".join(names))


def _habit_rule(a: _Asked) -> Intent | None:
    """Habits and behaviours counted, or the rework habits with their evidence."""
    if a.kinds and COUNT.search(a.question) and not HOURS.search(a.question):
        # Counted with the days they fell on: "how many late nights" is asked of days.
        spec = a.or_default("this_month")
        args: dict[str, Any] = {**spec.arguments(), "kinds": list(a.kinds), "limit": 8}
        return a.make("signals", "get_signals", args, period=spec, kinds=a.kinds)
    if HABITS.search(a.question):
        spec = a.or_default("this_month")
        kinds = ("rework", "forced_rollback")
        args = {**spec.arguments(), "kinds": list(kinds), "limit": 8}
        return a.make("habits", "get_signals", args, period=spec, kinds=kinds)
    return None


def _now_or_search_rule(a: _Asked) -> Intent | None:
    if NOW.search(a.question) and (a.period is None or a.period.period == "today"):
        return a.make("now", "get_now", {})
    if not SEARCH.search(a.question):
        return None
    words = leftover_words(a.question, a.period, SEARCH)
    if not words:
        return None
    args: dict[str, Any] = {"query": words, "k": 30 if LAST_TIME.search(a.question) else 8}
    if a.period is not None:
        args |= {
            "date_from": a.period.date_from.isoformat(),
            "date_to": a.period.date_to.isoformat(),
        }
    return a.make("search", "search_episodes", args, period=a.period, subject=words)


def _idle_or_signals_rule(a: _Asked) -> Intent | None:
    if IDLE.search(a.question) and not COUNT.search(a.question):
        spec = a.or_default("today")
        args: dict[str, Any] = {"thing": "idle", **spec.arguments()}
        return a.thing("thing_hours", "query_stats", args, "idle", period=spec)
    if a.kinds and not HOURS.search(a.question):
        spec = a.or_default("this_month")
        args = {**spec.arguments(), "kinds": list(a.kinds), "limit": 8}
        return a.make("signals", "get_signals", args, period=spec, kinds=a.kinds)
    if SUMMARY.search(a.question):
        return summary_intent(a.period or named("yesterday", today=a.today), language=a.language)
    return None


def _ranking_rule(a: _Asked) -> Intent | None:
    spec = a.or_default("today")
    if EPISODE_COUNT.search(a.question):
        return a.stats("episode_count", "episode_count", spec)
    if TOP_TITLES.search(a.question):
        return a.stats("top_titles", "top_titles", spec)
    if APP_RANKING.search(a.question):
        return a.stats("app_hours", "seconds_by_app", spec, top_n=10)
    return None


def _hours_rule(a: _Asked) -> Intent | None:
    """How long: of idle time, a category, active time or a thing."""
    if not HOURS.search(a.question):
        return None
    spec, category = a.or_default("today"), _category(a.question)
    if IDLE.search(a.question):
        args: dict[str, Any] = {"thing": "idle", **spec.arguments()}
        return a.thing("thing_hours", "query_stats", args, "idle", period=spec)
    mention = thing_mention(a.question, a.period, HOURS)
    if category is not None and (
        not mention or CATEGORY_WORDS[category].fullmatch(mention) is not None
    ):
        intent = a.stats("category_hours", "seconds_by_category", spec, category=category)
        return replace(intent, mention=mention or None)
    if ACTIVE.search(a.question) and not thing_mention(a.question, a.period, HOURS, ACTIVE):
        return a.stats("active_hours", "active_seconds", spec)
    if mention:
        args = {"thing": mention, **spec.arguments()}
        return a.thing("thing_hours", "query_stats", args, mention, period=spec)
    return a.stats("category_hours", "seconds_by_category", spec)


def _rest(a: _Asked) -> Intent:
    """Episodes, a category, a thing and a period, a period alone, or a search."""
    spec, category = a.or_default("today"), _category(a.question)
    if EPISODES.search(a.question):
        args = {**spec.arguments(), "limit": 60, **({"category": category} if category else {})}
        return a.make("episodes", "get_episodes", args, period=spec, subject=category)
    if category is not None:
        return a.stats("category_hours", "seconds_by_category", spec, category=category)
    words = leftover_words(a.question, a.period)
    mention = thing_mention(a.question, a.period)
    if a.period is not None and mention and len(mention.split()) <= 2 and len(mention) <= 24:
        # "YouTube yesterday?": a thing and a period, nothing else: its hours.
        args = {"thing": mention, **spec.arguments()}
        return a.thing("thing_hours", "query_stats", args, mention, period=spec)
    if a.period is not None or not words:
        return summary_intent(spec, language=a.language)
    return a.make("search", "search_episodes", {"query": words, "k": 8}, subject=words)


# Tried in order; the first that claims the question answers it.
_RULES = (
    _moment_rule,
    _last_rule,
    _days_rule,
    _compare_rule,
    _habit_rule,
    _now_or_search_rule,
    _idle_or_signals_rule,
    _ranking_rule,
    _hours_rule,
)


def summary_intent(spec: PeriodSpec, *, language: Language) -> Intent:
    """A day, week or month is summarised by its digest; any other range by its hours."""
    grain = {"today": "day", "yesterday": "day", "this_week": "week", "last_week": "week"}.get(
        spec.period, "month" if spec.period in ("this_month", "last_month") else None
    )
    if grain is None and spec.days == 1:
        grain = "day"
    if grain is None:
        return Intent(
            kind="summary",
            tool="query_stats",
            arguments={"metric": "seconds_by_category", **spec.arguments()},
            language=language,
            period=spec,
        )
    return Intent(
        kind="summary",
        tool="get_digest",
        arguments={"grain": grain, "date": spec.date_from.isoformat()},
        language=language,
        period=spec,
    )
