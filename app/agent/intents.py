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
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any, Literal

from app.agent.dates import PeriodSpec, find_clocks, find_period, named
from app.rules.categories import Category
from app.text import CJK_CHARS, Language, language_of
from app.timeutil import zone
from app.tools.periods import Period

IntentKind = Literal[
    "now",
    "moment",
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


def _words(*alternatives: str) -> re.Pattern[str]:
    """One pattern for Chinese phrases (anywhere) and English words (whole words)."""
    zh = [a for a in alternatives if re.search(f"[{CJK_CHARS}]", a)]
    en = [a for a in alternatives if a not in zh]
    parts = zh + ([rf"\b(?:{'|'.join(en)})\b"] if en else [])
    return re.compile("|".join(parts), re.IGNORECASE)


CATEGORY_WORDS: dict[Category, re.Pattern[str]] = {
    "entertainment": _words(
        "娱乐", "游戏", "视频", "追剧", "摸鱼", "entertainment", "fun", "gaming", "games", "videos"
    ),
    "work": _words("工作", "上班", "写代码", "编程", "work", "working", "coding", "programming"),
    "study": _words("学习", "读书", "看书", "study", "studying", "learning", "reading"),
    "social": _words(
        "社交",
        "沟通",
        "聊天",
        "开会",
        "social",
        "chatting",
        "communication",
        "meetings",
        "messaging",
    ),
    "system": _words("系统", "锁屏", "system", "locked screen"),
    "uncategorized": _words("未分类", "uncategorized", "unclassified"),
}
SIGNAL_WORDS: dict[str, re.Pattern[str]] = {
    "forced_rollback": _words(
        "回滚", "强制回滚", "rollbacks?", "roll ?backs?", "reverts?", "reset"
    ),
    "rework": _words("返工", "重做", "撤销", "rework", "redo", "undo storms?", "undos?"),
    "late_night": _words("熬夜", "深夜", "晚睡", "late nights?", "late-night", "stayed up"),
    "focus_block": _words("专注", "深度工作", "focus", "focused", "deep work"),
    "distraction": _words("分心", "走神", "distractions?", "distracted"),
    "context_switch_storm": _words("频繁切换", "切换", "context switch(?:es|ing)?", "switching"),
    "idle_gap": _words("离开电脑", "空闲时段", "idle gaps?", "away from"),
}
HABITS = _words("坏习惯", "习惯", "返工", "回滚", "habits?", "rework", "rollbacks?", "reverts?")
NOW = _words(
    "现在", "正在", "此刻", "目前", "当前", "刚才", "刚刚",
    "right now", "currently", "at the moment", "just now", "am i doing", "doing now",
)  # fmt: skip
SEARCH = _words(
    "什么时候", "何时", "哪天", "哪一天", "上次", "上一次", "最近一次", "找一下", "找找", "搜索",
    "搜一下", "查找", "查一下",
    "when did", "when was", "last time", "find", "search", "look for", "looked at",
)  # fmt: skip
# "When did I last …": the newest match is wanted, so more matches are read.
LAST_TIME = _words("上次", "上一次", "最近一次", "last time", "did i last", "most recently")
SUMMARY = _words(
    "总结", "概括", "回顾", "汇总", "小结", "概况", "怎么样",
    "summary", "summarize", "summarise", "recap", "overview", "review", "how was",
)  # fmt: skip
COUNT = _words("几次", "多少次", "次数", "how many times", "how often", "how many")
EPISODE_COUNT = _words(
    "几段", "多少段", "多少个 ?episode", "几个 ?episode",
    "how many episodes", "how many sessions", "how many sittings", "episode count",
)  # fmt: skip
TOP_TITLES = _words(
    "哪些窗口", "窗口标题", "哪些标题", "top titles", "which windows", "which titles"
)
APP_RANKING = _words(
    "哪些应用", "哪个应用", "什么应用", "哪个软件", "哪些软件", "哪个 ?app", "哪些 ?app",
    "用得最多", "最常用", "which apps?", "what apps?", "top apps?", "most used", "most time in",
)  # fmt: skip
HOURS = _words(
    "多少小时", "几个小时", "几小时", "多久", "多长时间", "多少时间",
    "花了多少", "用了多少", "时长",
    "how many hours", "how much time", "how long", "hours?", "time did i spend", "time spent",
)  # fmt: skip
ACTIVE = _words(
    "活跃", "总共", "一共", "总计", "在电脑前", "active", "in total", "total", "overall"
)
EPISODES = _words(
    "做了什么", "干了什么", "干了啥", "做了啥", "做了哪些",
    "在做什么", "在干什么", "干嘛", "都做了",
    "what did i do", "what was i doing", "what have i done", "what i did",
    "activities", "episodes", "sessions",
)  # fmt: skip

# Words that carry no search meaning, removed before what is left is searched for
# or taken as an app name.
_FILLER = _words(
    "我", "我的", "的", "了", "吗", "呢", "吧", "过", "是", "在", "做", "有",
    "那次", "时候", "一下",
    "请", "帮我", "看看", "告诉", "花", "用", "上", "里", "中", "多少", "小时", "时间", "多久",
    "关于", "哪些", "什么", "多长", "一共", "总共", "几个", "个", "看", "打开", "去", "玩",
    "what", "when", "did", "do", "does", "i", "the", "a", "an", "was", "were", "is", "my", "me",
    "on", "in", "at", "last", "time", "find", "search", "for", "about", "how", "many", "much",
    "hours?", "spend", "spent", "using", "use", "used", "with", "of", "to", "it", "any", "ever",
    "am", "have", "has", "there", "that", "this", "which", "look", "looked", "show", "tell",
    "please", "app", "apps", "application", "per", "each", "by", "category", "categories",
    "stuff", "things", "各", "每个", "类别", "分类",
)  # fmt: skip
_PUNCT = re.compile(r"[\s?？!！。，,、：:；;“”\"'‘’()（）\[\]【】]+")
_LONG_CJK = re.compile(f"[{CJK_CHARS}]{{3,}}")


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
    question: str, *, today: date, time_zone: str = "UTC", cut_hour: int = 4
) -> Intent:
    """The intent of a question, the tool to call and its arguments; clock times are
    read in `time_zone` on logical days that start at `cut_hour`."""
    language = language_of(question)
    period = find_period(question, today=today)
    kinds = _signal_kinds(question)
    clocks = find_clocks(question)

    def make(kind: IntentKind, tool: str, arguments: dict[str, Any], **extra: Any) -> Intent:
        return Intent(kind=kind, tool=tool, arguments=arguments, language=language, **extra)

    def stats(
        kind: IntentKind,
        metric: str,
        spec: PeriodSpec,
        *,
        category: Category | None = None,
        top_n: int | None = None,
        app: str | None = None,
    ) -> Intent:
        args: dict[str, Any] = {"metric": metric, **spec.arguments()}
        args |= {"category": category} if category else {}
        args |= {"app": app} if app else {}
        args |= {"top_n": top_n} if top_n else {}
        return make(kind, "query_stats", args, period=spec, subject=app or category)

    # Habits and behaviours: counted, listed with their evidence, or the rework habits.
    if kinds and COUNT.search(question) and not HOURS.search(question):
        spec = _period_or(period, "this_month", today)
        return make(
            "signal_count",
            "query_stats",
            {"metric": "signal_counts", **spec.arguments()},
            period=spec,
            kinds=kinds,
        )
    if HABITS.search(question):
        spec = _period_or(period, "this_month", today)
        return make(
            "habits",
            "get_signals",
            {**spec.arguments(), "kinds": ["rework", "forced_rollback"], "limit": 8},
            period=spec,
            kinds=("rework", "forced_rollback"),
        )
    if clocks and (period is None or period.days == 1):
        day = period.date_from if period is not None else today
        start, end = _moment(clocks, day, time_zone=time_zone, cut_hour=cut_hour)
        if end - start <= timedelta(hours=2):
            arguments = {"ts_from": start.isoformat(), "ts_to": end.isoformat()}
            return make("moment", "get_raw", arguments, period=period)
    if NOW.search(question) and (period is None or period.period == "today"):
        return make("now", "get_now", {})
    if SEARCH.search(question):
        words = leftover_words(question, period, SEARCH)
        if words:
            args: dict[str, Any] = {"query": words, "k": 30 if LAST_TIME.search(question) else 8}
            if period is not None:
                args |= {
                    "date_from": period.date_from.isoformat(),
                    "date_to": period.date_to.isoformat(),
                }
            return make("search", "search_episodes", args, period=period, subject=words)
    if kinds and not HOURS.search(question):
        spec = _period_or(period, "this_month", today)
        return make(
            "signals",
            "get_signals",
            {**spec.arguments(), "kinds": list(kinds), "limit": 8},
            period=spec,
            kinds=kinds,
        )
    if SUMMARY.search(question):
        return summary_intent(period or named("yesterday", today=today), language=language)
    spec = _period_or(period, "today", today)
    if EPISODE_COUNT.search(question):
        return stats("episode_count", "episode_count", spec)
    if TOP_TITLES.search(question):
        return stats("top_titles", "top_titles", spec)
    if APP_RANKING.search(question):
        return stats("app_hours", "seconds_by_app", spec, top_n=10)
    category = _category(question)
    if HOURS.search(question):
        if category is not None:
            return stats("category_hours", "seconds_by_category", spec, category=category)
        if ACTIVE.search(question):
            return stats("active_hours", "active_seconds", spec)
        app = leftover_words(question, period, HOURS, ACTIVE)
        if app:
            return stats("app_hours", "seconds_by_app", spec, app=app)
        return stats("category_hours", "seconds_by_category", spec)
    if EPISODES.search(question):
        args = {**spec.arguments(), "limit": 60, **({"category": category} if category else {})}
        return make("episodes", "get_episodes", args, period=spec, subject=category)
    if category is not None:
        return stats("category_hours", "seconds_by_category", spec, category=category)
    words = leftover_words(question, period)
    if period is not None or not words:
        return summary_intent(spec, language=language)
    return make("search", "search_episodes", {"query": words, "k": 8}, subject=words)


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
