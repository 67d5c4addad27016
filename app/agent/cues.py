"""The words a question is read by, as data: names beyond the resolver's vocabulary,
what "the computer" means, and the cue words that pick an operation, in Chinese and
English. app/agent/lexicon.py and app/agent/parts.py read these; no code lives here.

English cues match whole words (case-insensitive); Chinese cues match anywhere.
"""

from __future__ import annotations

from typing import Final

# Names people use that the resolver's vocabulary (app/rules/things.toml) lacks,
# mapped to a mention it resolves. Matched whole, in the loose form.
EXTRA_NAMES: Final[dict[str, str]] = {
    "游戏": "entertainment", "打游戏": "entertainment", "视频": "entertainment",
    "追剧": "entertainment", "gaming": "entertainment", "games": "entertainment",
    "videos": "entertainment",
    "看书": "study", "reading": "study",
    "messaging": "social", "socializing": "social",
    "vscode": "Visual Studio Code",
    "chrome": "Google Chrome", "谷歌浏览器": "Google Chrome",
    "b站": "bilibili.com", "破站": "bilibili.com",
    "dy": "douyin.com",
    "vsc": "Visual Studio Code", "game": "entertainment",
    "gamed": "entertainment", "video": "entertainment", "emails": "email", "e-mail": "email",
    "e-mails": "email",
    "studied": "study", "studying": "study", "studies": "study", "worked": "work",
    # Names as Chinese users say them, and romanised names of Chinese titles.
    "油管": "youtube.com", "ytb": "youtube.com", "推特": "x.com", "红书": "小红书",
    "genshin": "原神", "哈迪斯": "Hades",
}  # fmt: skip

# Nicknames a typo may be of, beside the whole names ("chorme", "vscdoe", "wechta"):
# only these, since a common word is often a letter from an alias ("coming", "coding").
TYPO_NICKNAMES: Final[tuple[str, ...]] = (
    "chrome", "vscode", "wechat", "weixin", "douyin", "tiktok", "xiaohongshu", "feishu",
    "youtube", "bilibili", "iterm", "terminal",
)  # fmt: skip

# Meetings: the meeting apps (the resolver's "meeting" group: Zoom, 腾讯会议, Teams) when
# the user has one, else the social category.
MEETING_NAMES: Final[tuple[str, ...]] = (
    "开会", "会议", "meeting", "meetings", "video calls",
)  # fmt: skip
MEETING_GROUP: Final = "meeting"
# Coding: the code editors (the resolver's "editor" group: VS Code, PyCharm, Cursor …)
# when the user has one, else the work category.
CODING_NAMES: Final[tuple[str, ...]] = (
    "写代码", "编程", "敲代码", "代码", "coding", "programming", "code", "coded",
)  # fmt: skip
CODING_GROUP: Final = "editor"

# "The computer", "my screen": the user's active (not idle) time.
ACTIVE_NAMES: Final[tuple[str, ...]] = (
    "computer", "the computer", "my computer", "screen", "my screen", "the screen", "pc",
    "laptop", "screen time", "active", "active time", "电脑", "电脑前", "屏幕",
    "电脑上", "屏幕前", "活跃",
)  # fmt: skip

# Words never taken as a name, even when a name is a letter or two away from them.
NOT_NAMES: Final[frozenset[str]] = frozenset((
    "a", "about", "above", "after", "afternoon", "again", "against", "ago", "all", "altogether",
    "am", "an", "and", "any", "app", "apps", "are", "as", "at", "average", "avg", "back", "be",
    "been", "before", "being", "below", "between", "both", "but", "by", "can", "combined",
    "compare", "day", "days", "did", "didnt", "do", "does", "doing", "done", "down", "during",
    "each", "either", "evening", "ever", "every", "far", "few", "fewer", "first", "for",
    "fraction", "from", "further", "give", "had", "has", "have", "having", "hour", "hours",
    "how", "hr", "hrs", "i", "if", "in", "into", "is", "it", "its", "last", "later", "least",
    "less", "list", "long", "longer", "longest", "look", "many", "me", "min", "mins", "minute",
    "minutes", "month", "months", "more", "morning", "most", "mostly", "much", "my", "myself",
    "next", "night", "nights", "no", "noon", "nor", "not", "now", "of", "off", "often", "on",
    "once", "only", "open", "opened", "or", "other", "our", "out", "over", "own", "part",
    "past", "per", "percent", "play", "played", "pm", "portion", "previous", "rank", "ranking",
    "rather", "same", "share", "should", "show", "site", "sites", "so", "so-far", "some",
    "spend", "spending", "spent", "still", "such", "sum", "tell", "than", "that", "the",
    "their", "them", "then", "there", "these", "they", "this", "those", "three", "through",
    "time", "times", "to", "today", "together", "too", "top", "total", "two", "under", "until",
    "up", "usage", "use", "used", "using", "versus", "very", "visit", "visited", "vs", "was",
    "watch", "watched", "website", "websites", "week", "weekday", "weekend", "weeks", "were",
    "what", "when", "where", "which", "while", "who", "whole", "whom", "why", "will", "with",
    "without", "would", "year", "yes", "yesterday", "you", "your", "wrap", "wrapped", "bed",
    "log", "logged"
))  # fmt: skip

# Common three-letter words that titles write with a capital ("Fix flaky test", "New
# tab"): never a short proper name of a title (app/agent/titles.py).
COMMON_SHORT: Final[frozenset[str]] = frozenset((
    "add", "api", "app", "bug", "buy", "cli", "cpu", "day", "dev", "doc", "faq", "fix", "get",
    "gpu", "hub", "key", "lab", "let", "log", "mac", "map", "max", "min", "mix", "new", "off",
    "old", "one", "pdf", "pro", "put", "raw", "red", "run", "say", "see", "set", "sql", "tab",
    "tag", "tip", "top", "try", "two", "ui", "url", "use", "web", "why", "win", "yes", "zsh",
    "ask", "big", "box", "car", "cat", "dog", "end", "far", "few", "fun", "god", "hot", "job",
    "lot", "man", "mom", "dad", "net", "now", "own", "pay", "pet", "pop", "rap", "sun", "tea",
    "ten", "war", "way", "who", "air", "art", "bed", "bus", "cup", "eat", "eye", "fly", "law",
))  # fmt: skip

# Vague words that name no app beside other plain words ("random stuff", "other
# things"): a few words are a name only when none of them is one of these.
VAGUE_WORDS: Final[frozenset[str]] = frozenset((
    "stuff", "things", "thing", "something", "anything", "everything", "nothing", "random",
    "misc", "various", "general", "overall", "kind", "sort", "lot", "lots", "bit", "little",
    "much", "good", "bad", "fun", "real", "actual", "actually", "really", "just", "also",
    "computer", "screen", "laptop", "online", "internet", "web", "net", "media", "game",
    "games", "video", "videos", "music", "work", "study", "school", "class", "meeting",
))  # fmt: skip

# Verbs said of a title ("work on segmenter.py", 改迁移说明.md, 跑 pytest): beside a
# title they name no thing, and a title phrase never starts or ends with one.
TITLE_VERBS: Final[frozenset[str]] = frozenset((
    "work", "worked", "working", "look", "looked", "looking", "read", "reading", "run",
    "ran", "running", "play", "played", "playing", "watch", "watched", "watching",
    "listen", "listened", "edit", "edited", "write", "wrote", "writing", "open", "opened",
    "code", "coding", "chat", "chatting", "spend", "spent", "review", "reviewed",
    "改", "看", "跑", "复习", "写", "听", "玩", "读", "学", "刷", "打开", "用",
))  # fmt: skip

# Operations, picked by cue words (first match in this order wins; see parts.py).
SHARE: Final[tuple[str, ...]] = (
    "percent", "percentage", "pct", "%", "share", "proportion", "fraction", "portion", "what part",
    "占比", "百分之", "百分比", "比例", "占了多少", "占多少", "几成", "占",
    "how much of my", "how much of the", "what part of", "多大比重", "比重",
)  # fmt: skip
AVERAGE: Final[tuple[str, ...]] = (
    "average", "avg", "on average", "per day", "a day", "daily", "each day", "every day",
    "平均", "日均", "每天", "一天平均", "每日",
    "typical day", "usual day", "normal day", "a typical", "通常一天", "一般一天", "平常一天",
)  # fmt: skip
TOP: Final[tuple[str, ...]] = (
    "top", "most used", "ranking", "rank", "biggest", "排行", "排名", "最多的", "用得最多",
    "最常去", "最常看", "最常上", "去得最多", "看得最多", "most visited",
    "最常用", "哪些应用", "哪些网站", "which apps", "what apps", "which sites", "what sites",
    "which websites", "most time", "主要花在", "fav", "favorite", "favourite", "最爱",
    "最喜欢", "time sink", "time sinks",
)  # fmt: skip
# A ranking of categories, not apps ("biggest category", "rank my categories", 哪个类别).
CATEGORY_RANK: Final[tuple[str, ...]] = (
    "category", "categories", "类别", "分类", "哪类", "哪一类", "什么类", "哪种事", "哪方面",
    "哪几类", "哪些类", "几类", "哪种类型", "what kind of", "which kind of", "kinds of",
)  # fmt: skip
# "Which app / site / category … most": a ranking, asked by what is ranked and a
# superlative anywhere in the sentence ("what website ate most of my time").
RANKED_GROUPS: Final[tuple[str, ...]] = (
    "app", "apps", "application", "applications", "program", "programs", "software",
    "site", "sites", "website", "websites", "category", "categories",
    "软件", "应用", "程序", "网站", "网页", "分类", "类别", "哪类", "哪一类",
)  # fmt: skip
SUPERLATIVE: Final[tuple[str, ...]] = (
    "most", "biggest", "largest", "longest", "top", "the bulk", "mostly", "最",
)  # fmt: skip
SITES: Final[tuple[str, ...]] = ("site", "sites", "website", "websites", "网站", "网页", "domains")
DAYS: Final[tuple[str, ...]] = (
    "which days", "what days", "which day", "what day", "how many days", "which nights",
    "how many nights", "on which", "any day", "any days", "days did", "days was", "days",
    "哪天", "哪几天", "哪些天", "哪一天", "几天", "多少天", "有没有哪天", "哪个晚上", "哪几个晚上",
    "日子", "天数", "number of days",
)  # fmt: skip
NEGATION: Final[tuple[str, ...]] = (
    "not", "didn't", "didnt", "did not", "without", "never", "no", "skip", "skipped",
    "w/o", "sans",
    "没", "没有", "不", "未", "没碰", "没开", "zero", "none",
)  # fmt: skip
CONTEST: Final[tuple[str, ...]] = (
    "more", "longer", "less", "shorter", "or", "vs", "versus", "compare", "compared",
    "which of", "which was", "bigger", "winner", "还是", "哪个多", "哪个长", "更多", "更久", "更长",
    "比较", "对比", "哪个", "多还是", "谁", "比", "哪个更", "which one",
    "which is more", "who won", "beat",
)  # fmt: skip
TOGETHER: Final[tuple[str, ...]] = (
    "together", "combined", "in total", "total", "sum", "both", "altogether", "加起来",
    "一共", "合计", "总共", "加在一起", "两个",
)  # fmt: skip
OVER: Final[tuple[str, ...]] = (
    "over", "more than", "at least", "above", "longer than", "exceed", "exceeded",
    "past", "go past", "went past", "hit", "reach", "reached", "cross", "crossed", "break",
    "exceeds", "beyond",
    "超过", "多于", "大于", "不少于", "至少", "以上", "过了", "有", "够", "满", "达到", "到了",
    "破", "上了", ">", ">=", "≥",
)  # fmt: skip
UNDER: Final[tuple[str, ...]] = (
    "under", "less than", "fewer than", "below", "at most", "shorter than",
    "不到", "少于", "小于", "不超过", "以下", "以内", "<", "<=", "≤",
)  # fmt: skip
MINUTES_WORDS: Final[tuple[str, ...]] = ("minutes", "minute", "mins", "min", "分钟", "分")
HOURS_WORDS: Final[tuple[str, ...]] = ("hours", "hour", "hrs", "hr", "h", "小时", "钟头")
# "So far": the period up to now (this week so far, 到目前为止).
SO_FAR: Final[tuple[str, ...]] = (
    "so far",
    "until now",
    "to date",
    "到目前为止",
    "目前为止",
    "至今",
)
# A past week with no calendar edge: the last 7 days.
PAST_WEEK: Final[tuple[str, ...]] = (
    "in the past week", "over the past week", "the past week", "past week",
    "past 7 days", "过去一周", "过去一个星期", "最近一周", "近一周", "过去7天", "最近7天",
)  # fmt: skip
# When something first began, or last ended, inside a period ("what time did I start
# working yesterday", 昨天几点开始用电脑的).
FIRST: Final[tuple[str, ...]] = (
    "first", "start", "started", "begin", "began", "earliest", "what time did i start",
    "几点开始", "最早", "第一次", "开始用", "几点起", "开始工作",
    "几点打开", "几点开", "几点启动", "几点上线", "几点登录", "什么时候打开", "啥时候打开",
    "什么时候开始", "啥时候开始", "what time did i open", "when did i open", "opened first",
    "log on", "logged on", "log in", "logged in", "get online", "got online", "开机", "上线",
)  # fmt: skip
# The first time inside a period, asked by its day ("第一次玩steam是哪天"): first.
FIRST_TIME: Final[tuple[str, ...]] = ("第一次", "头一次", "首次", "first time", "first day")
LAST_IN_PERIOD: Final[tuple[str, ...]] = (
    "stop", "stopped", "finish", "finished", "end", "ended", "quit", "latest",
    "几点结束", "最晚", "几点停", "几点下线", "几点睡",
    "最后", "最后一次", "上次", "几点关", "last time", "did i last", "was i last", "last used",
    "last opened", "last on", "my last", "last visit", "last visited", "log off", "logged off",
    "sign off", "signed off", "go to bed",
    "went to bed", "wrap up", "wrapped up", "call it a day", "called it a day", "shut down",
    "收工", "关机", "关电脑", "睡觉", "下线",
)  # fmt: skip
# A clock time asked for with no first or last word ("what time did I get on YouTube",
# 昨天几点用的微信): when it first began.
CLOCK_ASKED: Final[tuple[str, ...]] = (
    "what time", "at what time", "几点", "什么时间", "啥时候开", "什么时候开",
)  # fmt: skip
# What was done, asked ("what was on my screen", 在干嘛): the apps of a window, not
# its active time.
WHAT_DONE: Final[tuple[str, ...]] = (
    "what", "whats", "what's", "which apps", "在干", "干嘛", "干啥", "做了什么", "做什么",
    "做了啥", "用了什么", "用的什么", "哪些",
)  # fmt: skip
# The one day with the most of a thing ("which day last week did I game most").
PEAK: Final[tuple[str, ...]] = (
    "most", "longest", "the most", "最多", "最久", "最长", "最高",
)  # fmt: skip
# One app or site asked for ("my most used site", "哪个网站"), not a list.
ONE: Final[tuple[str, ...]] = ("site", "website", "app", "application", "哪个", "哪一个")
# A yes/no question: "did I …", "was I …", "…了吗", "有没有".
YES_NO: Final[tuple[str, ...]] = (
    "did", "was", "were", "have", "had", "is there", "are there", "any", "has", "do i",
    "吗", "有没有", "是不是", "是否", "了没",
)  # fmt: skip
# How much, asked: a yes/no cue beside one of these is still "how much".
HOW_MUCH: Final[tuple[str, ...]] = (
    "how long", "how much", "how many", "多久", "多少", "几个小时", "几小时", "多长",
)  # fmt: skip
# Every day of a period ("did I use YouTube every day last week", 每天都).
EVERY_DAY: Final[tuple[str, ...]] = ("every day", "each day", "every single day", "每天都", "天天")
# Kinds of app (the resolver's groups) as Chinese answers say them.
GROUP_LABELS_ZH: Final[dict[str, str]] = {
    "meeting": "会议", "terminal": "终端", "browser": "浏览器", "editor": "编辑器", "email": "邮件",
}  # fmt: skip
# A short turn that names nothing new and asks one of these of the turn before keeps
# its things and period ("那没开的是哪几天", "占总屏幕时间多少", "那日均呢", "and the
# first time?"): an operation edit (app/agent/followups.py).
FOLLOWUP_OPERATIONS: Final[tuple[str, ...]] = (
    "both", "together", "combined", "in total", "altogether", "as a share", "what percent",
    "what percentage", "percent", "percentage", "pct", "%", "share", "proportion", "per day",
    "on average", "average", "avg", "daily", "a day", "sites", "websites", "which days",
    "what days", "how many days", "which of the two", "which one", "which was longer",
    "which was more", "which is more", "which was bigger", "the days", "without", "didn't",
    "did not", "days off",
    "两个加起来", "加起来", "一共多少", "总共", "合计", "占比", "占总", "占了", "占多少", "百分比",
    "比例", "平均", "日均", "每天平均", "网站呢", "哪几天", "哪些天", "几天", "多少天",
    "哪个多", "哪个更多", "哪个长", "哪个久", "哪个更", "谁多", "谁更多", "没开", "没用", "没玩",
    "没看", "没刷", "没上", "没有的",
)  # fmt: skip
# Words that point back at the thing the turn before named ("and when did I first open
# it?", 它): a turn with one of them and no new thing keeps the earlier things.
PRONOUNS: Final[tuple[str, ...]] = ("it", "them", "它")
# Weighing a new thing against the turn before ("vs iterm, which one is more",
# "跟微信比呢"): the one new thing is the second side, the earlier thing the first.
FOLLOWUP_VERSUS: Final[tuple[str, ...]] = (
    "vs", "versus", "compared to", "compared with", "against", "which one is more",
    "which is more", "which was more", "which one", "or", "than",
    "比呢", "比一下", "比较", "对比", "相比", "哪个多", "哪个更多", "谁多", "还是",
)  # fmt: skip
# Words that say what was done with an app or site beside them ("code in vs code",
# 用微信读书看书): the app or site is the thing, not the category these name.
ACTIVITY_WORDS: Final[tuple[str, ...]] = (
    "code", "coded", "coding", "programming", "gaming", "game", "gamed", "reading",
    "studied", "studying", "worked", "working", "messaging", "chatting",
    "写代码", "敲代码", "编程", "代码", "看书", "读书", "打游戏", "游戏", "追剧", "视频",
    "开会", "会议", "meeting", "meetings", "video calls", "上班", "干活",
)  # fmt: skip
