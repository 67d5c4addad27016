"""The asking bench's development questions: the two thirds the offline parser was
tuned against (the held-back third is bench/agent_heldout.py)."""

from __future__ import annotations

from datetime import date

from bench.agent_cases import (
    IDLE,
    LAST_MONTH,
    LAST_WEEK,
    YESTERDAY,
    Case,
    Compare,
    Days,
    Fill,
    Hours,
    LastSeen,
    Moment,
    SignalDays,
    Unknown,
    app,
    category,
    days_ago,
    expand,
    first_week_of_months_ago,
    last_weekend,
    last_weeks_day,
    month_names,
    months_ago,
    past_days,
    site,
    this_week,
    weekday,
    weekday_range,
    weeks_ago,
)


def _hours(f: Fill) -> Hours:
    return Hours(f["t"], f["p"])  # type: ignore[arg-type]


def questions(today: date) -> list[Case]:
    month, month_no, year = month_names(today, 1)
    cases: list[Case] = []

    apps: list[Fill] = [
        {"thing": "Slack", "t": app("Slack"), "period": "yesterday", "p": YESTERDAY},
        {"thing": "VS Code", "t": app("Visual Studio Code"), "period": "last week", "p": LAST_WEEK},
        {"thing": "Steam", "t": app("Steam"), "period": "last month", "p": LAST_MONTH},
        {
            "thing": "terminal",
            "t": app("iTerm2"),
            "period": "the day before yesterday",
            "p": days_ago(2),
        },
        {"thing": "Spotify", "t": app("Spotify"), "period": "this week", "p": this_week},
        {"thing": "wechat", "t": app("微信"), "period": "over the past 7 days", "p": past_days(7)},
        {
            "thing": "Visual Studio Code",
            "t": app("Visual Studio Code"),
            "period": "yesterday",
            "p": YESTERDAY,
        },
        {"thing": "Anki", "t": app("Anki"), "period": "last week", "p": LAST_WEEK},
    ]
    apps_zh: list[Fill] = [
        {"thing": "微信", "t": app("微信"), "period": "昨天", "p": YESTERDAY},
        {"thing": "终端", "t": app("iTerm2"), "period": "上周", "p": LAST_WEEK},
        {
            "thing": "VS Code",
            "t": app("Visual Studio Code"),
            "period": "过去7天",
            "p": past_days(7),
        },
        {"thing": "Zoom", "t": app("Zoom"), "period": "上个月", "p": LAST_MONTH},
        {"thing": "小红书", "t": app("小红书"), "period": "前天", "p": days_ago(2)},
        {"thing": "Steam", "t": app("Steam"), "period": "这周", "p": this_week},
        {"thing": "微信读书", "t": app("微信读书"), "period": "上周", "p": LAST_WEEK},
        {"thing": "slack", "t": app("Slack"), "period": "昨天", "p": YESTERDAY},
    ]
    cases += expand(
        "app",
        [
            "how long did I use {thing} {period}?",
            "How many hours in {thing} {period}",
            "time spent in {thing} {period}",
            "{period} how much time did {thing} take",
            "how long was I in {thing} {period}",
            "{thing} usage {period}?",
            "how much {thing} {period}",
            "hours of {thing} {period}",
        ],
        apps,
        _hours,
    )
    cases += expand(
        "app",
        [
            "{period}{thing}用了多久？",
            "{period}用了多少小时{thing}",
            "{thing}{period}用了多长时间",
            "{period}在{thing}上花了多少时间？",
            "{period}我开{thing}开了多久",
            "{thing}{period}多少小时",
            "{period}{thing}咋用了这么久，多少小时",
            "{period}{thing}几个小时",
        ],
        apps_zh,
        _hours,
    )

    sites: list[Fill] = [
        {"thing": "YouTube", "t": site("youtube.com"), "period": "yesterday", "p": YESTERDAY},
        {"thing": "bilibili", "t": site("bilibili.com"), "period": "last week", "p": LAST_WEEK},
        {"thing": "GitHub", "t": site("github.com"), "period": "last month", "p": LAST_MONTH},
        {
            "thing": "arxiv",
            "t": site("arxiv.org"),
            "period": "over the past 7 days",
            "p": past_days(7),
        },
        {"thing": "Coursera", "t": site("coursera.org"), "period": "last week", "p": LAST_WEEK},
        {
            "thing": "stackoverflow",
            "t": site("stackoverflow.com"),
            "period": "yesterday",
            "p": YESTERDAY,
        },
    ]
    sites_zh: list[Fill] = [
        {"thing": "B站", "t": site("bilibili.com"), "period": "昨天", "p": YESTERDAY},
        {"thing": "YouTube", "t": site("youtube.com"), "period": "上周", "p": LAST_WEEK},
        {"thing": "github", "t": site("github.com"), "period": "过去7天", "p": past_days(7)},
        {"thing": "哔哩哔哩", "t": site("bilibili.com"), "period": "上个月", "p": LAST_MONTH},
        {
            "thing": "Stack Overflow",
            "t": site("stackoverflow.com"),
            "period": "上周",
            "p": LAST_WEEK,
        },
        {"thing": "Coursera", "t": site("coursera.org"), "period": "前天", "p": days_ago(2)},
    ]
    cases += expand(
        "site",
        [
            "how long did I watch {thing} {period}",
            "how much time on {thing} {period}?",
            "{period}, hours on {thing}",
            "how many hours did I spend on {thing} {period}",
            "time on {thing} {period}",
            "{thing} {period}?",
            "how long was I browsing {thing} {period}",
        ],
        sites,
        _hours,
    )
    cases += expand(
        "site",
        [
            "{period}看{thing}看了多久",
            "{period}{thing}刷了多长时间？",
            "{thing}{period}花了多少小时",
            "{period}在{thing}上待了多久",
            "{period}上{thing}多久",
            "{period}{thing}看了几个小时",
            "我{period}逛{thing}用了多少时间",
        ],
        sites_zh,
        _hours,
    )

    cats: list[Fill] = [
        {"thing": "entertainment", "c": "entertainment", "period": "yesterday", "p": YESTERDAY},
        {"thing": "work", "c": "work", "period": "last month", "p": LAST_MONTH},
        {"thing": "study", "c": "study", "period": "over the past 7 days", "p": past_days(7)},
        {"thing": "social", "c": "social", "period": "last week", "p": LAST_WEEK},
        {"thing": "娱乐", "c": "entertainment", "period": "上周", "p": LAST_WEEK},
        {"thing": "工作", "c": "work", "period": "昨天", "p": YESTERDAY},
        {"thing": "学习", "c": "study", "period": "上个月", "p": LAST_MONTH},
        {"thing": "社交", "c": "social", "period": "过去7天", "p": past_days(7)},
    ]

    def cat_truth(f: Fill) -> Hours:
        return Hours(category(str(f["c"])), f["p"])  # type: ignore[arg-type]

    cases += expand(
        "category",
        [
            "how many hours of {thing} {period}",
            "{thing} time {period}?",
            "how much {thing} did I do {period}",
            "{period}, total hours for {thing}",
        ],
        cats[:4],
        cat_truth,
        per_template=2,
    )
    cases += expand(
        "category",
        [
            "{period}{thing}了多少小时",
            "{period}{thing}花了多长时间？",
            "{thing}{period}一共几个小时",
            "{period}{thing}用时多少",
        ],
        cats[4:],
        cat_truth,
        per_template=2,
    )

    idle: list[Fill] = [
        {"period": "yesterday", "p": YESTERDAY},
        {"period": "last week", "p": LAST_WEEK},
        {"period": "the day before yesterday", "p": days_ago(2)},
        {"period": "昨天", "p": YESTERDAY},
        {"period": "上周", "p": LAST_WEEK},
        {"period": "前天", "p": days_ago(2)},
    ]

    def idle_truth(f: Fill) -> Hours:
        return Hours(IDLE, f["p"])  # type: ignore[arg-type]

    cases += expand(
        "idle",
        [
            "how long was I idle {period}",
            "{period}, how much time was the screen locked",
            "time away from my computer {period}?",
            "how many hours AFK {period}",
        ],
        idle[:3],
        idle_truth,
        per_template=2,
    )
    cases += expand(
        "idle",
        [
            "{period}离开电脑了多久",
            "{period}锁屏时间多少",
            "{period}电脑闲置了几个小时",
            "{period}我不在电脑前多久？",
        ],
        idle[3:],
        idle_truth,
        per_template=2,
    )

    pairs: list[Fill] = [
        {
            "a": "YouTube",
            "b": "bilibili",
            "ta": site("youtube.com"),
            "tb": site("bilibili.com"),
            "period": "last week",
            "p": LAST_WEEK,
        },
        {
            "a": "Slack",
            "b": "WeChat",
            "ta": app("Slack"),
            "tb": app("微信"),
            "period": "yesterday",
            "p": YESTERDAY,
        },
        {
            "a": "work",
            "b": "study",
            "ta": category("work"),
            "tb": category("study"),
            "period": "last month",
            "p": LAST_MONTH,
        },
        {
            "a": "VS Code",
            "b": "the terminal",
            "ta": app("Visual Studio Code"),
            "tb": app("iTerm2"),
            "period": "over the past 7 days",
            "p": past_days(7),
        },
        {
            "a": "B站",
            "b": "YouTube",
            "ta": site("bilibili.com"),
            "tb": site("youtube.com"),
            "period": "上周",
            "p": LAST_WEEK,
        },
        {
            "a": "工作",
            "b": "娱乐",
            "ta": category("work"),
            "tb": category("entertainment"),
            "period": "昨天",
            "p": YESTERDAY,
        },
        {
            "a": "Slack",
            "b": "飞书",
            "ta": app("Slack"),
            "tb": app("飞书"),
            "period": "上个月",
            "p": LAST_MONTH,
        },
        {
            "a": "Steam",
            "b": "抖音",
            "ta": app("Steam"),
            "tb": app("抖音"),
            "period": "过去7天",
            "p": past_days(7),
        },
    ]

    def compare(f: Fill) -> Compare:
        return Compare((f["ta"], f["tb"]), f["p"])  # type: ignore[arg-type]

    cases += expand(
        "compare",
        [
            "compare {a} and {b} {period}",
            "did I spend more time on {a} or {b} {period}?",
            "{a} versus {b} {period}",
            "{period}: {a} vs {b}, which was more",
            "how did {a} compare with {b} {period}",
            "which did I use more {period}, {a} or {b}",
            "{a} compared to {b} {period}?",
            "{period} was it more {a} or more {b}",
        ],
        pairs[:4],
        compare,
    )
    cases += expand(
        "compare",
        [
            "{period}{a}和{b}分别用了多久",
            "比较一下{period}{a}和{b}",
            "{period}{a}跟{b}哪个时间长？",
            "{a}和{b}{period}各花了多少时间",
            "{period}{a}多还是{b}多",
            "{a}对比{b}，{period}",
            "{period}{a}和{b}比起来怎么样",
            "{period}是{a}用得多还是{b}用得多？",
        ],
        pairs[4:],
        compare,
    )

    seen: list[Fill] = [
        {"thing": "Steam", "t": app("Steam")},
        {"thing": "YouTube", "t": site("youtube.com")},
        {"thing": "Zoom", "t": app("Zoom")},
        {"thing": "arXiv", "t": site("arxiv.org")},
        {"thing": "Notion", "t": app("Notion")},
        {"thing": "bilibili", "t": site("bilibili.com")},
        {"thing": "飞书", "t": app("飞书")},
        {"thing": "Coursera", "t": site("coursera.org")},
        {"thing": "微信读书", "t": app("微信读书")},
        {"thing": "Spotify", "t": app("Spotify")},
    ]

    def last(f: Fill) -> LastSeen:
        return LastSeen(f["t"])  # type: ignore[arg-type]

    cases += expand(
        "last_seen",
        [
            "when did I last use {thing}?",
            "when was I last on {thing}",
            "last time I opened {thing}",
            "when did I last play {thing}",
            "the last time I was in {thing}?",
        ],
        seen[:5],
        last,
        per_template=2,
    )
    cases += expand(
        "last_seen",
        [
            "我上次用{thing}是什么时候",
            "{thing}最后一次是什么时候？",
            "上一次打开{thing}是哪天",
            "最近一次看{thing}是啥时候",
            "我最后一次上{thing}是几号？",
        ],
        seen[5:],
        last,
    )

    counted: list[Fill] = [
        {"thing": "Steam", "t": app("Steam"), "period": "last month", "p": LAST_MONTH, "m": 1},
        {
            "thing": "bilibili",
            "t": site("bilibili.com"),
            "period": "last week",
            "p": LAST_WEEK,
            "m": 1,
        },
        {
            "thing": "Spotify",
            "t": app("Spotify"),
            "period": "in the past 14 days",
            "p": past_days(14),
            "m": 1,
        },
        {"thing": "Anki", "t": app("Anki"), "period": "last month", "p": LAST_MONTH, "m": 1},
        {
            "thing": "work",
            "t": category("work"),
            "period": "last week",
            "p": LAST_WEEK,
            "m": 300,
            "more": "5 hours",
        },
        {
            "thing": "entertainment",
            "t": category("entertainment"),
            "period": "last month",
            "p": LAST_MONTH,
            "m": 120,
            "more": "2 hours",
        },
        {"thing": "Steam", "t": app("Steam"), "period": "上个月", "p": LAST_MONTH, "m": 1},
        {"thing": "B站", "t": site("bilibili.com"), "period": "上周", "p": LAST_WEEK, "m": 1},
        {"thing": "Zoom", "t": app("Zoom"), "period": "过去两周", "p": past_days(14), "m": 1},
        {"thing": "小红书", "t": app("小红书"), "period": "上个月", "p": LAST_MONTH, "m": 1},
        {
            "thing": "工作",
            "t": category("work"),
            "period": "上个月",
            "p": LAST_MONTH,
            "m": 360,
            "more": "6小时",
        },
        {
            "thing": "娱乐",
            "t": category("entertainment"),
            "period": "上周",
            "p": LAST_WEEK,
            "m": 60,
            "more": "1小时",
        },
    ]

    def days_truth(listed: bool):  # type: ignore[no-untyped-def]
        return lambda f: Days(f["t"], f["p"], int(f["m"]), listed)

    cases += expand(
        "days_count",
        [
            "how many days did I play {thing} {period}?",
            "{period}, how many days did I use {thing}",
            "on how many days {period} was I on {thing}",
            "how many days {period} did I open {thing}",
        ],
        counted[:4],
        days_truth(False),
    )
    cases += expand(
        "days_count",
        [
            "how many days {period} did I do more than {more} of {thing}",
            "{period}, days with over {more} of {thing}: how many?",
        ],
        counted[4:6],
        days_truth(False),
    )
    cases += expand(
        "days_count",
        [
            "{period}有几天玩了{thing}",
            "{period}我有多少天用了{thing}？",
            "{period}{thing}用了几天",
            "{period}几天开过{thing}",
        ],
        counted[6:10],
        days_truth(False),
    )
    cases += expand(
        "days_count",
        ["{period}有几天{thing}超过{more}", "{period}{thing}超过{more}的有多少天？"],
        counted[10:],
        days_truth(False),
    )

    which: list[Fill] = [
        {"thing": "Steam", "t": app("Steam"), "period": "last week", "p": LAST_WEEK, "m": 1},
        {
            "thing": "YouTube",
            "t": site("youtube.com"),
            "period": "over the past 10 days",
            "p": past_days(10),
            "m": 1,
        },
        {"thing": "Anki", "t": app("Anki"), "period": "last week", "p": LAST_WEEK, "m": 1},
        {"thing": "Spotify", "t": app("Spotify"), "period": "last week", "p": LAST_WEEK, "m": 1},
        {
            "thing": "arXiv",
            "t": site("arxiv.org"),
            "period": "in the past 10 days",
            "p": past_days(10),
            "m": 1,
        },
        {"thing": "Steam", "t": app("Steam"), "period": "上周", "p": LAST_WEEK, "m": 1},
        {
            "thing": "B站",
            "t": site("bilibili.com"),
            "period": "过去10天",
            "p": past_days(10),
            "m": 1,
        },
        {"thing": "Anki", "t": app("Anki"), "period": "上周", "p": LAST_WEEK, "m": 1},
        {"thing": "小红书", "t": app("小红书"), "period": "过去10天", "p": past_days(10), "m": 1},
        {"thing": "Spotify", "t": app("Spotify"), "period": "上周", "p": LAST_WEEK, "m": 1},
    ]
    cases += expand(
        "days_which",
        [
            "on which days did I play {thing} {period}",
            "which days {period} did I use {thing}?",
            "what days was I on {thing} {period}",
            "{period}, on what days did I open {thing}",
            "which days did I watch {thing} {period}",
        ],
        which[:5],
        days_truth(True),
    )
    cases += expand(
        "days_which",
        [
            "{period}哪几天玩了{thing}",
            "{period}哪些天用了{thing}？",
            "{period}我是哪天上的{thing}",
            "{thing}{period}哪几天有用",
            "{period}在哪些日子开过{thing}",
        ],
        which[5:],
        days_truth(True),
        per_template=2,
    )

    habits: list[Fill] = [
        {"period": "last month", "p": LAST_MONTH},
        {"period": "last week", "p": LAST_WEEK},
        {"period": "over the past two weeks", "p": past_days(14)},
        {"period": "上个月", "p": LAST_MONTH},
        {"period": "上周", "p": LAST_WEEK},
        {"period": "过去两周", "p": past_days(14)},
    ]

    def signal_days(kind: str, counted: bool = False):  # type: ignore[no-untyped-def]
        return lambda f: SignalDays(kind, f["p"], counted)

    cases += expand(
        "habits",
        [
            "which days did I stay up late {period}?",
            "{period}, on which nights was I up late",
            "late nights {period}: which days",
        ],
        habits[:3],
        signal_days("late_night"),
    )
    cases += expand(
        "habits",
        [
            "which days did I roll back code {period}",
            "{period} on what days did I do a git reset or revert?",
        ],
        habits[:2],
        signal_days("forced_rollback"),
    )
    cases += expand(
        "habits",
        ["how many days did I stay up late {period}"],
        habits[:1],
        signal_days("late_night", True),
    )
    cases += expand(
        "habits",
        ["{period}哪几天熬夜了", "{period}哪些天熬夜？", "{period}熬夜都在哪几天"],
        habits[3:],
        signal_days("late_night"),
    )
    cases += expand(
        "habits",
        ["{period}哪几天回滚了代码", "{period}哪天强制回滚过？"],
        habits[3:5],
        signal_days("forced_rollback"),
    )
    cases += expand("habits", ["{period}熬夜了几天"], habits[3:4], signal_days("late_night", True))

    relative: list[Fill] = [
        {"period": "3 days ago", "p": days_ago(3), "thing": "work", "t": category("work")},
        {
            "period": "two days ago",
            "p": days_ago(2),
            "thing": "entertainment",
            "t": category("entertainment"),
        },
        {"period": "a week ago", "p": days_ago(7), "thing": "study", "t": category("study")},
        {"period": "2 weeks ago", "p": weeks_ago(2), "thing": "work", "t": category("work")},
        {
            "period": f"in {month} {year}",
            "p": months_ago(1),
            "thing": "entertainment",
            "t": category("entertainment"),
        },
        {"period": f"in {month}", "p": months_ago(1), "thing": "Zoom", "t": app("Zoom")},
        {
            "period": f"the first week of {month}",
            "p": first_week_of_months_ago(1),
            "thing": "work",
            "t": category("work"),
        },
        {
            "period": "over the past 5 days",
            "p": past_days(5),
            "thing": "entertainment",
            "t": category("entertainment"),
        },
        {"period": "in the last 3 days", "p": past_days(3), "thing": "Slack", "t": app("Slack")},
        {
            "period": "between Monday and Wednesday",
            "p": weekday_range(0, 2),
            "thing": "work",
            "t": category("work"),
        },
        {"period": "on Friday", "p": weekday(4), "thing": "study", "t": category("study")},
        {"period": "last Monday", "p": last_weeks_day(0), "thing": "work", "t": category("work")},
        {
            "period": "on Sunday",
            "p": weekday(6),
            "thing": "entertainment",
            "t": category("entertainment"),
        },
        {
            "period": "last weekend",
            "p": last_weekend,
            "thing": "entertainment",
            "t": category("entertainment"),
        },
        {"period": "5 days ago", "p": days_ago(5), "thing": "Steam", "t": app("Steam")},
        {"period": "3天前", "p": days_ago(3), "thing": "工作", "t": category("work")},
        {"period": "大前天", "p": days_ago(3), "thing": "学习", "t": category("study")},
        {"period": "四天前", "p": days_ago(4), "thing": "娱乐", "t": category("entertainment")},
        {"period": "上上周", "p": weeks_ago(2), "thing": "娱乐", "t": category("entertainment")},
        {"period": "两周前", "p": weeks_ago(2), "thing": "学习", "t": category("study")},
        {
            "period": f"{year}年{month_no}月",
            "p": months_ago(1),
            "thing": "工作",
            "t": category("work"),
        },
        {
            "period": f"{month_no}月份",
            "p": months_ago(1),
            "thing": "娱乐",
            "t": category("entertainment"),
        },
        {
            "period": f"{month_no}月的第一周",
            "p": first_week_of_months_ago(1),
            "thing": "学习",
            "t": category("study"),
        },
        {"period": "过去5天", "p": past_days(5), "thing": "工作", "t": category("work")},
        {"period": "最近三天", "p": past_days(3), "thing": "娱乐", "t": category("entertainment")},
        {"period": "周一到周三", "p": weekday_range(0, 2), "thing": "学习", "t": category("study")},
        {"period": "上周五", "p": last_weeks_day(4), "thing": "工作", "t": category("work")},
        {"period": "周日", "p": weekday(6), "thing": "娱乐", "t": category("entertainment")},
        {"period": "上周末", "p": last_weekend, "thing": "学习", "t": category("study")},
        {"period": "一周前", "p": days_ago(7), "thing": "微信", "t": app("微信")},
    ]
    cases += expand(
        "relative",
        [
            "how many hours of {thing} {period}",
            "{period}, how much {thing}?",
            "how long was {thing} {period}",
            "{thing} hours {period}",
            "{period} how much time went to {thing}",
        ],
        relative[:15],
        _hours,
        per_template=3,
    )
    cases += expand(
        "relative",
        [
            "{period}{thing}多少小时",
            "{period}{thing}了多久？",
            "{period}{thing}花了多长时间",
            "{thing}{period}有几个小时",
            "{period}在{thing}上用了多少时间",
        ],
        relative[15:],
        _hours,
        per_template=3,
    )

    moments: list[Fill] = [
        {"when": "yesterday at 3pm", "b": 1, "h": 15, "m": 0},
        {"when": "at 10:30 am yesterday", "b": 1, "h": 10, "m": 30},
        {"when": "the day before yesterday at 9 pm", "b": 2, "h": 21, "m": 0},
        {"when": "yesterday at 14:15", "b": 1, "h": 14, "m": 15},
        {"when": "at 11am 3 days ago", "b": 3, "h": 11, "m": 0},
        {"when": "yesterday at 7:45pm", "b": 1, "h": 19, "m": 45},
        {"when": "昨天下午3点", "b": 1, "h": 15, "m": 0},
        {"when": "昨天上午10点半", "b": 1, "h": 10, "m": 30},
        {"when": "前天晚上9点", "b": 2, "h": 21, "m": 0},
        {"when": "昨天14:15", "b": 1, "h": 14, "m": 15},
        {"when": "大前天上午11点", "b": 3, "h": 11, "m": 0},
        {"when": "昨晚8点", "b": 1, "h": 20, "m": 0},
    ]

    def moment(f: Fill) -> Moment:
        return Moment(int(f["b"]), int(f["h"]), int(f["m"]))  # type: ignore[call-overload]

    cases += expand(
        "moment",
        [
            "what was on my screen {when}?",
            "what was I doing {when}",
            "{when}, what was I looking at",
            "what was I working on {when}?",
            "which app was I in {when}",
            "what was open {when}",
        ],
        moments[:6],
        moment,
    )
    cases += expand(
        "moment",
        [
            "{when}我在看什么？",
            "{when}屏幕上是什么",
            "{when}我在干嘛",
            "{when}在用什么软件",
            "{when}我在做什么？",
            "{when}电脑上开着啥",
        ],
        moments[6:],
        moment,
    )

    cases += [
        Case(
            "followup",
            "and last month?",
            Hours(category("entertainment"), LAST_MONTH),
            ("how many hours of entertainment last week?",),
        ),
        Case(
            "followup",
            "what about Slack?",
            Hours(app("Slack"), YESTERDAY),
            ("how long was I in Zoom yesterday",),
        ),
        Case(
            "followup",
            "and yesterday",
            Hours(site("youtube.com"), YESTERDAY),
            ("time on YouTube the day before yesterday",),
        ),
        Case(
            "followup",
            "what about bilibili",
            Hours(site("bilibili.com"), LAST_WEEK),
            ("how long did I watch YouTube last week?",),
        ),
        Case(
            "followup",
            "and last week?",
            Compare((app("Slack"), app("Zoom")), LAST_WEEK),
            ("compare Slack and Zoom yesterday",),
        ),
        Case(
            "followup",
            "how about study?",
            Hours(category("study"), LAST_WEEK),
            ("how much work did I do last week",),
        ),
        Case(
            "followup",
            "and last month",
            Days(app("Steam"), LAST_MONTH, 1, False),
            ("how many days did I play Steam last week?",),
        ),
        Case(
            "followup",
            "what about Spotify?",
            LastSeen(app("Spotify")),
            ("when did I last use Steam",),
        ),
        Case(
            "followup",
            "那上个月呢？",
            Hours(category("entertainment"), LAST_MONTH),
            ("上周娱乐花了多少小时？",),
        ),
        Case(
            "followup", "那B站呢", Hours(site("bilibili.com"), YESTERDAY), ("昨天YouTube看了多久",)
        ),
        Case("followup", "那前天呢？", Hours(app("微信"), days_ago(2)), ("昨天微信用了多久？",)),
        Case("followup", "学习呢", Hours(category("study"), LAST_WEEK), ("上周工作了多久",)),
        Case(
            "followup",
            "那上周呢",
            Compare((category("work"), category("entertainment")), LAST_WEEK),
            ("昨天工作和娱乐分别多久",),
        ),
        Case("followup", "那飞书呢？", LastSeen(app("飞书")), ("我上次用Zoom是什么时候",)),
        Case(
            "followup",
            "那上个月呢",
            Days(app("Steam"), LAST_MONTH, 1, True),
            ("上周哪几天玩了Steam",),
        ),
        Case(
            "followup",
            "上周呢？",
            Hours(app("Steam"), LAST_WEEK),
            ("这周Steam玩了多久", "那昨天呢"),
        ),
    ]

    cases += [
        Case("unknown", "how long did I use Photoshop last week?", Unknown("Photoshop")),
        Case("unknown", "hours in Excel yesterday", Unknown("Excel")),
        Case("unknown", "how much time on Twitter last month", Unknown("Twitter")),
        Case("unknown", "time spent on Reddit yesterday?", Unknown("Reddit")),
        Case("unknown", "how long was I in Figma yesterday", Unknown("Figma")),
        Case("unknown", "昨天用了多久Photoshop", Unknown("Photoshop")),
        Case("unknown", "上周刷了多久知乎？", Unknown("知乎")),
        Case("unknown", "上个月淘宝逛了多久", Unknown("淘宝")),
        Case("unknown", "昨天钉钉用了多少小时", Unknown("钉钉")),
        Case("unknown", "上周网易云音乐听了多久", Unknown("网易云音乐")),
    ]
    return cases
