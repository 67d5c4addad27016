"""The words the intent table (app/agent/intents.py) reads a question by, as
patterns: categories, behaviours, and the cue words of each rule, Chinese and English
alike, with the fillers that are stripped before what is left is taken as a name.
"""

from __future__ import annotations

import re

from app.rules.categories import Category
from app.text import CJK_CHARS


def _words(*alternatives: str) -> re.Pattern[str]:
    """One pattern for Chinese phrases (anywhere) and English words (whole words)."""
    zh = [a for a in alternatives if re.search(f"[{CJK_CHARS}]", a)]
    en = [a for a in alternatives if a not in zh]
    parts = zh + ([rf"\b(?:{'|'.join(en)})\b"] if en else [])
    return re.compile("|".join(parts), re.IGNORECASE)


CATEGORY_WORDS: dict[Category, re.Pattern[str]] = {
    "entertainment": _words(
        "娱乐",
        "游戏",
        "视频",
        "追剧",
        "摸鱼",
        "entertainment",
        "fun",
        "gaming",
        "games",
        "videos",
        "game",
        "gamed",
    ),
    "work": _words(
        "工作",
        "上班",
        "写代码",
        "代码",
        "编程",
        "work",
        "worked",
        "working",
        "coding",
        "programming",
        "coded",
    ),
    "study": _words("学习", "读书", "看书", "study", "studied", "studying", "learning", "reading"),
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
    "rework": _words(
        "返工",
        "重做",
        "撤销",
        "改了又改",
        "反复改",
        "反复修改",
        "rework",
        "redo(?:ing|ne|es)?",
        "redid",
        "undo storms?",
        "undos?",
    ),
    "late_night": _words(
        "熬夜",
        "熬[了过个几次多少回]{1,4}夜",  # 熬了几次夜, 熬过夜
        "开[了过个几次多少回]{0,4}夜车",
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
    "distraction": _words(
        "分心",
        "走神",
        "打断",
        "打扰",
        "distractions?",
        "distracted",
        "interrupt(?:ed|ions?|s)?",
    ),
    "context_switch_storm": _words("频繁切换", "切换", "context switch(?:es|ing)?", "switching"),
    "idle_gap": _words(
        "离开电脑",
        "空闲时段",
        "空档",
        "空当",
        "空隙",
        "[啥什么]都没[干做]",
        "[啥什么]也没[干做]",
        "idle gaps?",
        "away from",
        "gaps?",
        "did nothing",
        "doing nothing",
    ),
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
    "哪几天", "哪些天", "哪天", "哪一天", "哪些日子", "的日子", "哪几个晚上", "哪些晚上",
    "which days?", "what days?", "which nights?", "what nights?", "on which", "list the days",
    "which dates", "what dates", "^\\W*(?:days|nights)", "(?:days|nights) (?:i|when|that|where)",
)  # fmt: skip
# The first time inside a period ("第一次玩steam是哪天"): when it began, not the days.
FIRST_TIME = _words("第一次", "头一次", "首次", "first time", "the first day", "first day")
DAYS_COUNT = _words(
    "有几天", "几天", "多少天", "how many days", "number of days", "how many nights",
    "on how many days", "days with", "(?:n|no\\.?|num|count) of days", "天数",
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
    "by app", "rank(?:ing|ed)? (?:of )?(?:my )?apps", "apps? ranking", "排行", "排名",
    # What ate the time, asked without the word app: the longest app.
    "time[- ]?sinks?", "time[- ]?wasters?", "time[- ]?hogs?", "最耗时", "最花时间", "花时间最多",
    "最占时间", "ate (?:up )?(?:the )?most", "took (?:up )?(?:the )?most",
)  # fmt: skip
HOURS = _words(
    "多少小时", "几个小时", "几小时", "多久", "多长时间", "多少时间",
    "花了多少", "用了多少", "时长",
    "how many hours", "how much time", "how long", "hours?", "time did i spend", "time spent",
    "时间多少", "用时", "钟头", "时间有多少", "多长", "usage", "time on", "time in", "time went",
    "how much", "time for", "[看玩刷听逛用花写学读]了?多少(?![次天个])",
    "how many min(?:ute)?s", "how many hrs", "多少分钟", "几分钟",
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
    "搞了", "花在", "开过", "用过", "开", "waste", "wasted", "kill", "killed", "lose", "lost",
    "啥", "那", "长", "都", "得", "列一下", "电脑上", "屏幕上",
    "watch", "watched", "watching", "browse", "browsing", "open", "opened", "usage", "burn",
    "lot", "play", "played", "playing", "be", "been", "get", "got", "done", "go", "went", "into",
    "take", "took", "had", "during", "over", "up", "it", "much", "long", "spend", "spending",
    "browsed", "visit", "visited", "went", "on", "hrs", "sum", "total", "overall", "altogether",
    "check", "checked", "checking", "screen time", "screen", "every", "each", "whats",
    "啊", "呀", "嘛", "哦", "呗", "每天", "每",
    "分别", "各自", "各个", "应用", "软件", "程序",
    "from", "between", "until", "till", "through", "since", "到", "至",
    "主要", "哪里", "哪儿", "哪", "上面", "mostly", "most", "where", "go", "goes",
)  # fmt: skip
_PUNCT = re.compile(r"[\s?？!！。，,、：:；;“”\"'‘’()（）\[\]【】]+")
_LONG_CJK = re.compile(f"[{CJK_CHARS}]{{3,}}")
