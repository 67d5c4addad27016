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
from app.rules.categories import Category
from app.text import CJK_CHARS, Language, language_of
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
        "socializing",
        "socialising",
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
    "late_night": _words(
        "熬夜",
        "深夜",
        "晚睡",
        "睡得晚",
        "late nights?",
        "late-night",
        "stayed up",
        "stay up",
        "up late",
        "bed late",
    ),
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
LAST_TIME = _words(
    "上次", "上一次", "上回", "最近一次", "最后一次", "多久没",
    "last time", "did i last", "was i last", "most recently", "most recent time", "last used",
    "last opened", "last played", "last watched",
)  # fmt: skip
# Idle or locked time, asked as a thing ("how long was I away").
IDLE = _words(
    "离开电脑", "不在电脑前", "没在电脑前", "电脑空闲", "空闲", "闲置", "锁屏", "挂机",
    "idle", "afk", "away from (?:the |my )?(?:computer|desk|keyboard|pc|laptop)",
    "screen (?:was )?locked", "locked screen", "the screen locked", "locked",
)  # fmt: skip
DAYS_WHICH = _words(
    "哪几天", "哪些天", "哪天", "哪一天", "哪些日子", "哪几个晚上", "哪些晚上",
    "which days?", "what days?", "which nights?", "what nights?", "on which", "list the days",
    "which dates", "what dates",
)  # fmt: skip
DAYS_COUNT = _words(
    "有几天", "几天", "多少天", "how many days", "number of days", "how many nights",
    "on how many days", "days with",
)  # fmt: skip
_THRESHOLD = re.compile(
    r"(?:超过|多于|大于|不少于|至少|more than|over|at least|above)\s*"
    r"(?P<n>\d+(?:\.\d+)?|[一两二三四五六七八九十半]+|\ban?\b|one|two|three|four|five)\s*(?:个)?\s*"
    r"(?P<unit>小时|钟头|hours?|hrs?|h\b|分钟|minutes?|mins?)(?:\s+of)?",
    re.IGNORECASE,
)
COMPARE = _words(
    "比较", "对比", "相比", "比一下", "比起来", "哪个", "分别", "各花", "各用", "还是",
    "compare", "compared", "versus", "vs", "more", "than",
)  # fmt: skip
_COMPARE_SPLIT = re.compile(
    r"\s+(?:compared\s+(?:to|with)|and|or|vs\.?|versus|than|with|against)\s+"
    r"|和|跟|与|还是|对比|相比|\s*,\s*or\s+",
    re.IGNORECASE,
)
# Names with a separator word inside, kept whole while a comparison is split.
_WHOLE_NAMES = re.compile(r"\bvs\s?code\b", re.IGNORECASE)
_COMPARE_WORDS = _words(
    "比较", "对比", "相比", "比一下", "比起来", "怎么样", "哪个用得多", "哪个时间长", "哪个多",
    "哪个", "分别", "各花了", "各用了", "各", "用得多", "时间长", "一下",
    "compare", "compared", "versus", "more", "less", "which was", "which took", "of my time",
    "which did", "was it",
)  # fmt: skip
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
    "用得最多", "最常用", "各个应用", "每个应用", "各应用", "各个软件", "每个软件",
    "which apps?", "what apps?", "top apps?", "most used", "most time in", "each app", "per app",
    "by app",
)  # fmt: skip
HOURS = _words(
    "多少小时", "几个小时", "几小时", "多久", "多长时间", "多少时间",
    "花了多少", "用了多少", "时长",
    "how many hours", "how much time", "how long", "hours?", "time did i spend", "time spent",
    "时间多少", "用时", "钟头", "时间有多少", "多长", "usage", "time on", "time in", "time went",
    "how much", "time for",
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
    "刷了", "逛了", "听了", "待了", "耗了", "开了", "看了", "玩了", "用了", "花了",
    "刷", "逛", "听", "待", "耗", "咋", "这么久", "那么久", "这么", "钟头", "用时", "时长", "占了",
    "搞了", "花在", "开过", "用过", "开",
    "啥", "那", "长", "都", "得", "列一下", "电脑上", "屏幕上",
    "watch", "watched", "watching", "browse", "browsing", "open", "opened", "usage", "burn",
    "lot", "play", "played", "playing", "be", "been", "get", "got", "done", "go", "went", "into",
    "take", "took", "had", "during", "over", "up", "it", "much", "long", "spend", "spending",
    "browsed", "visit", "visited", "went", "on", "hrs", "sum", "total", "overall", "altogether",
    "check", "checked", "checking", "screen time", "screen", "every", "each", "whats",
    "啊", "呀", "嘛", "哦", "呗", "每天", "每",
    "分别", "各自", "各个", "应用", "软件", "程序",
    "from", "between", "until", "till", "through", "since", "到", "至",
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
    if not (listed or DAYS_COUNT.search(a.question)):
        return None
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
        spec = a.or_default("this_month")
        args: dict[str, Any] = {"metric": "signal_counts", **spec.arguments()}
        return a.make("signal_count", "query_stats", args, period=spec, kinds=a.kinds)
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
