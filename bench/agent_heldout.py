"""The held-back third of the asking bench: written before the offline parser was
tuned, and never used to tune it. Its own paraphrases, things and periods; the
bench reports it separately (`held_back_correct`, `held_back_questions`).
"""

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
    weekday_range,
    weeks_ago,
)


def questions(today: date) -> list[Case]:
    month, month_no, year = month_names(today, 1)
    cases: list[Case] = []

    apps: list[Fill] = [
        {"thing": "vs code", "t": app("Visual Studio Code"), "period": "yesterday", "p": YESTERDAY},
        {"thing": "WeChat", "t": app("微信"), "period": "last week", "p": LAST_WEEK},
        {"thing": "zoom", "t": app("Zoom"), "period": "in the past 7 days", "p": past_days(7)},
        {"thing": "Notion", "t": app("Notion"), "period": "last month", "p": LAST_MONTH},
        {"thing": "the terminal", "t": app("iTerm2"), "period": "yesterday", "p": YESTERDAY},
    ]
    apps_zh: list[Fill] = [
        {"thing": "飞书", "t": app("飞书"), "period": "上周", "p": LAST_WEEK},
        {"thing": "抖音", "t": app("抖音"), "period": "昨天", "p": YESTERDAY},
        {"thing": "命令行", "t": app("iTerm2"), "period": "上个月", "p": LAST_MONTH},
        {"thing": "vscode", "t": app("Visual Studio Code"), "period": "前天", "p": days_ago(2)},
        {"thing": "Spotify", "t": app("Spotify"), "period": "过去7天", "p": past_days(7)},
    ]
    hours = lambda f: Hours(f["t"], f["p"])  # noqa: E731
    cases += expand(
        "app",
        [
            "how much time did I burn in {thing} {period}",
            "{period}, how long was {thing} open",
            "hours in {thing} {period}?",
            "did I spend a lot of time on {thing} {period}",
        ],
        apps,
        hours,
    )
    cases += expand(
        "app",
        [
            "{period}{thing}用了几个小时",
            "{thing}{period}开了多久？",
            "{period}在{thing}上耗了多少时间",
            "{period}{thing}时长",
        ],
        apps_zh,
        hours,
    )

    sites: list[Fill] = [
        {"thing": "YouTube", "t": site("youtube.com"), "period": "last week", "p": LAST_WEEK},
        {"thing": "github", "t": site("github.com"), "period": "yesterday", "p": YESTERDAY},
        {
            "thing": "Stack Overflow",
            "t": site("stackoverflow.com"),
            "period": "last month",
            "p": LAST_MONTH,
        },
        {
            "thing": "coursera",
            "t": site("coursera.org"),
            "period": "over the last 7 days",
            "p": past_days(7),
        },
    ]
    sites_zh: list[Fill] = [
        {"thing": "哔哩哔哩", "t": site("bilibili.com"), "period": "上周", "p": LAST_WEEK},
        {"thing": "油管", "t": site("youtube.com"), "period": "昨天", "p": YESTERDAY},
        {"thing": "arXiv", "t": site("arxiv.org"), "period": "上个月", "p": LAST_MONTH},
        {"thing": "GitHub", "t": site("github.com"), "period": "前天", "p": days_ago(2)},
    ]
    cases += expand(
        "site",
        [
            "how long was I on {thing} {period}",
            "{period} time on {thing}?",
            "time spent browsing {thing} {period}",
            "{thing} {period} - how many hours",
        ],
        sites,
        hours,
    )
    cases += expand(
        "site",
        [
            "{period}刷{thing}刷了多久",
            "{thing}{period}看了多长时间",
            "{period}上{thing}花了几个小时",
            "{period}逛{thing}多久了",
        ],
        sites_zh,
        hours,
    )

    cats: list[Fill] = [
        {"thing": "work", "c": "work", "period": "last week", "p": LAST_WEEK},
        {"thing": "studying", "c": "study", "period": "yesterday", "p": YESTERDAY},
        {"thing": "socializing", "c": "social", "period": "last month", "p": LAST_MONTH},
        {"thing": "学习", "c": "study", "period": "上周", "p": LAST_WEEK},
        {"thing": "娱乐", "c": "entertainment", "period": "过去7天", "p": past_days(7)},
        {"thing": "工作", "c": "work", "period": "前天", "p": days_ago(2)},
    ]
    cat_truth = lambda f: Hours(category(str(f["c"])), f["p"])  # noqa: E731
    cases += expand(
        "category",
        [
            "total {thing} time {period}",
            "how much {thing} did I get done {period}?",
            "{period} how many hours went into {thing}",
        ],
        cats[:3],
        cat_truth,
    )
    cases += expand(
        "category",
        [
            "{period}{thing}一共多久",
            "{period}搞了几个小时{thing}",
            "{thing}{period}占了多少时间？",
            "{period}{thing}花了多少小时",
        ],
        cats[3:],
        cat_truth,
    )

    idle: list[Fill] = [
        {"period": "yesterday", "p": YESTERDAY},
        {"period": "last week", "p": LAST_WEEK},
        {"period": "昨天", "p": YESTERDAY},
        {"period": "上周", "p": LAST_WEEK},
        {"period": "过去7天", "p": past_days(7)},
    ]
    idle_truth = lambda f: Hours(IDLE, f["p"])  # noqa: E731
    cases += expand(
        "idle",
        [
            "how long was I away from the computer {period}",
            "{period} how much idle time was there",
            "{period}, hours with the screen locked?",
        ],
        idle[:2],
        idle_truth,
    )
    cases += expand(
        "idle",
        ["{period}离开电脑多久", "{period}电脑空闲了多长时间", "{period}锁屏了多久"],
        idle[2:],
        idle_truth,
    )

    pairs: list[Fill] = [
        {
            "a": "Slack",
            "b": "Zoom",
            "ta": app("Slack"),
            "tb": app("Zoom"),
            "period": "last week",
            "p": LAST_WEEK,
        },
        {
            "a": "YouTube",
            "b": "bilibili",
            "ta": site("youtube.com"),
            "tb": site("bilibili.com"),
            "period": "last month",
            "p": LAST_MONTH,
        },
        {
            "a": "work",
            "b": "entertainment",
            "ta": category("work"),
            "tb": category("entertainment"),
            "period": "yesterday",
            "p": YESTERDAY,
        },
        {
            "a": "微信",
            "b": "飞书",
            "ta": app("微信"),
            "tb": app("飞书"),
            "period": "上周",
            "p": LAST_WEEK,
        },
        {
            "a": "学习",
            "b": "娱乐",
            "ta": category("study"),
            "tb": category("entertainment"),
            "period": "上个月",
            "p": LAST_MONTH,
        },
        {
            "a": "抖音",
            "b": "小红书",
            "ta": app("抖音"),
            "tb": app("小红书"),
            "period": "过去7天",
            "p": past_days(7),
        },
    ]
    compare = lambda f: Compare((f["ta"], f["tb"]), f["p"])  # noqa: E731
    cases += expand(
        "compare",
        [
            "{a} or {b}: which took more of my time {period}",
            "{period} did I spend more on {a} than {b}?",
            "{a} vs {b} {period}",
        ],
        pairs[:3],
        compare,
    )
    cases += expand(
        "compare",
        ["{period}{a}和{b}哪个用得多", "{period}{a}跟{b}比一下", "{a}与{b}{period}分别多久"],
        pairs[3:],
        compare,
    )

    seen: list[Fill] = [
        {"thing": "Spotify", "t": app("Spotify")},
        {"thing": "Coursera", "t": site("coursera.org")},
        {"thing": "Anki", "t": app("Anki")},
        {"thing": "小红书", "t": app("小红书")},
        {"thing": "B站", "t": site("bilibili.com")},
        {"thing": "Zoom", "t": app("Zoom")},
        {"thing": "Notion", "t": app("Notion")},
        {"thing": "arXiv", "t": site("arxiv.org")},
    ]
    last = lambda f: LastSeen(f["t"])  # noqa: E731
    cases += expand(
        "last_seen",
        [
            "most recent time I opened {thing}?",
            "when was the last time I used {thing}",
            "{thing} — when did I last have it open",
            "last time on {thing}",
        ],
        seen[:4],
        last,
    )
    cases += expand(
        "last_seen",
        [
            "最后一次用{thing}是啥时候",
            "{thing}我最近一次打开是什么时候？",
            "上回开{thing}是几号",
            "我多久没用{thing}了，最后一次是哪天",
        ],
        seen[4:],
        last,
    )

    counted: list[Fill] = [
        {"thing": "Steam", "t": app("Steam"), "period": "last month", "p": LAST_MONTH, "m": 1},
        {
            "thing": "YouTube",
            "t": site("youtube.com"),
            "period": "in the past 14 days",
            "p": past_days(14),
            "m": 1,
        },
        {
            "thing": "work",
            "t": category("work"),
            "period": "last month",
            "p": LAST_MONTH,
            "m": 240,
            "more": "4 hours",
        },
        {"thing": "抖音", "t": app("抖音"), "period": "上个月", "p": LAST_MONTH, "m": 1},
        {
            "thing": "学习",
            "t": category("study"),
            "period": "过去两周",
            "p": past_days(14),
            "m": 60,
            "more": "1个小时",
        },
        {"thing": "Zoom", "t": app("Zoom"), "period": "上周", "p": LAST_WEEK, "m": 1},
    ]
    days_truth = lambda listed: lambda f: Days(f["t"], f["p"], int(f["m"]), listed)  # noqa: E731
    cases += expand(
        "days_count",
        ["{period}, on how many days did I open {thing}", "number of days I used {thing} {period}"],
        counted[:2],
        days_truth(False),
    )
    cases += expand(
        "days_count",
        ["{period} how many days had more than {more} of {thing}"],
        counted[2:3],
        days_truth(False),
    )
    cases += expand(
        "days_count",
        ["{period}有几天刷了{thing}", "{period}{thing}一共用了几天？"],
        [counted[3], counted[5]],
        days_truth(False),
    )
    cases += expand(
        "days_count", ["{period}有多少天{thing}超过{more}"], counted[4:5], days_truth(False)
    )

    which: list[Fill] = [
        {"thing": "Steam", "t": app("Steam"), "period": "last week", "p": LAST_WEEK, "m": 1},
        {
            "thing": "bilibili",
            "t": site("bilibili.com"),
            "period": "over the past 10 days",
            "p": past_days(10),
            "m": 1,
        },
        {"thing": "Spotify", "t": app("Spotify"), "period": "last week", "p": LAST_WEEK, "m": 1},
        {"thing": "小红书", "t": app("小红书"), "period": "上周", "p": LAST_WEEK, "m": 1},
        {
            "thing": "Coursera",
            "t": site("coursera.org"),
            "period": "过去10天",
            "p": past_days(10),
            "m": 1,
        },
        {"thing": "Steam", "t": app("Steam"), "period": "上周", "p": LAST_WEEK, "m": 1},
    ]
    cases += expand(
        "days_which",
        [
            "{period}, which days did I play {thing}?",
            "list the days I was on {thing} {period}",
            "what days {period} did I use {thing}",
        ],
        which[:3],
        days_truth(True),
    )
    cases += expand(
        "days_which",
        [
            "{period}都是哪些天玩了{thing}",
            "{period}哪天用过{thing}？列一下",
            "{thing}{period}是哪几天开的",
        ],
        which[3:],
        days_truth(True),
    )

    habits: list[Fill] = [
        {"period": "last month", "p": LAST_MONTH},
        {"period": "in the past 14 days", "p": past_days(14)},
        {"period": "上个月", "p": LAST_MONTH},
        {"period": "过去两周", "p": past_days(14)},
    ]
    cases += expand(
        "habits",
        ["{period}, what days did I stay up late", "nights I went to bed late {period}?"],
        habits[:2],
        lambda f: SignalDays("late_night", f["p"]),
    )
    cases += expand(
        "habits",
        ["{period} on which days did I have to roll back my code"],
        habits[:1],
        lambda f: SignalDays("forced_rollback", f["p"]),
    )
    cases += expand(
        "habits",
        ["{period}熬夜的是哪几天", "{period}哪些天我回滚了代码？", "{period}有几天熬夜了"],
        habits[2:] + habits[2:3],
        lambda f: SignalDays("late_night", f["p"]),
    )
    cases[-2] = Case("habits", cases[-2].text, SignalDays("forced_rollback", past_days(14)))
    cases[-1] = Case("habits", cases[-1].text, SignalDays("late_night", LAST_MONTH, counted=True))

    relative: list[Fill] = [
        {"period": "four days ago", "p": days_ago(4), "thing": "work", "t": category("work")},
        {
            "period": "the week before last",
            "p": weeks_ago(2),
            "thing": "entertainment",
            "t": category("entertainment"),
        },
        {"period": f"in {month} {year}", "p": months_ago(1), "thing": "Slack", "t": app("Slack")},
        {
            "period": f"during the first week of {month}",
            "p": first_week_of_months_ago(1),
            "thing": "study",
            "t": category("study"),
        },
        {"period": "the past 10 days", "p": past_days(10), "thing": "Zoom", "t": app("Zoom")},
        {
            "period": "last Thursday",
            "p": last_weeks_day(3),
            "thing": "coding",
            "t": category("work"),
        },
        {
            "period": "last weekend",
            "p": last_weekend,
            "thing": "gaming",
            "t": category("entertainment"),
        },
        {"period": "大前天", "p": days_ago(3), "thing": "娱乐", "t": category("entertainment")},
        {"period": "五天前", "p": days_ago(5), "thing": "学习", "t": category("study")},
        {"period": "上上周", "p": weeks_ago(2), "thing": "工作", "t": category("work")},
        {"period": f"{year}年{month_no}月", "p": months_ago(1), "thing": "微信", "t": app("微信")},
        {
            "period": f"{month_no}月的第一周",
            "p": first_week_of_months_ago(1),
            "thing": "娱乐",
            "t": category("entertainment"),
        },
        {"period": "周一到周三", "p": weekday_range(0, 2), "thing": "工作", "t": category("work")},
        {"period": "上周二", "p": last_weeks_day(1), "thing": "学习", "t": category("study")},
        {"period": "上周末", "p": last_weekend, "thing": "娱乐", "t": category("entertainment")},
    ]
    cases += expand(
        "relative",
        [
            "how much {thing} {period}",
            "{period}: hours of {thing}?",
            "time on {thing} {period}",
            "{thing} hours {period}",
            "{period}, how long did {thing} take",
            "what was my {thing} time {period}",
            "{period} how many hours {thing}",
        ],
        relative[:7],
        hours,
    )
    cases += expand(
        "relative",
        [
            "{period}{thing}多少小时",
            "{period}{thing}了多久",
            "{period}花在{thing}上的时间",
            "{thing}{period}几个小时？",
            "{period}{thing}时间有多少",
            "{period}我{thing}了几个钟头",
            "{period}{thing}用时",
            "{period}的{thing}时长是多少",
        ],
        relative[7:],
        hours,
    )

    moments: list[Fill] = [
        {"when": "yesterday at 4pm", "b": 1, "h": 16, "m": 0},
        {"when": "at 11:30 am the day before yesterday", "b": 2, "h": 11, "m": 30},
        {"when": "yesterday at 8 in the evening", "b": 1, "h": 20, "m": 0},
        {"when": "3 days ago at 10am", "b": 3, "h": 10, "m": 0},
        {"when": "昨天下午4点", "b": 1, "h": 16, "m": 0},
        {"when": "前天晚上10点", "b": 2, "h": 22, "m": 0},
        {"when": "昨天上午9点半", "b": 1, "h": 9, "m": 30},
        {"when": "大前天下午2点", "b": 3, "h": 14, "m": 0},
    ]
    moment = lambda f: Moment(int(f["b"]), int(f["h"]), int(f["m"]))  # noqa: E731
    cases += expand(
        "moment",
        [
            "what window was in front of me {when}",
            "{when}, what was I looking at?",
            "what app was open {when}",
            "show me my screen {when}",
        ],
        moments[:4],
        moment,
    )
    cases += expand(
        "moment",
        ["{when}屏幕上开着什么", "{when}我在用哪个软件？", "{when}电脑上是什么", "{when}我在看啥"],
        moments[4:],
        moment,
    )

    cases += [
        Case(
            "followup",
            "and the week before that?",
            Hours(category("work"), weeks_ago(2)),
            ("how many hours did I work last week",),
        ),
        Case(
            "followup",
            "what about YouTube",
            Hours(site("youtube.com"), YESTERDAY),
            ("how long was I on bilibili yesterday?",),
        ),
        Case(
            "followup",
            "ok and Steam?",
            Hours(app("Steam"), LAST_WEEK),
            ("hours in Spotify last week",),
        ),
        Case(
            "followup",
            "and last month",
            Hours(category("study"), LAST_MONTH),
            ("how much did I study last week?",),
        ),
        Case("followup", "那前天呢", Hours(app("微信"), days_ago(2)), ("昨天微信用了多久",)),
        Case("followup", "那抖音呢？", Hours(app("抖音"), LAST_WEEK), ("上周小红书刷了多久",)),
        Case(
            "followup", "上上周呢", Hours(category("work"), weeks_ago(2)), ("上周工作了多少小时",)
        ),
        Case("followup", "换成学习呢", Hours(category("study"), YESTERDAY), ("昨天娱乐了多久？",)),
    ]

    cases += [
        Case("unknown", "how long did I use Photoshop yesterday", Unknown("Photoshop")),
        Case("unknown", "hours on Netflix last week", Unknown("Netflix")),
        Case("unknown", "time in Figma last month?", Unknown("Figma")),
        Case("unknown", "how much time on Discord yesterday", Unknown("Discord")),
        Case("unknown", "昨天知乎看了多久", Unknown("知乎")),
        Case("unknown", "上周淘宝逛了多久", Unknown("淘宝")),
        Case("unknown", "上个月用了多久Excel", Unknown("Excel")),
        Case("unknown", "昨天微博刷了多久？", Unknown("微博")),
        Case("unknown", "hours in Blender last week", Unknown("Blender")),
        Case("unknown", "昨天拼多多看了多久", Unknown("拼多多")),
    ]
    return cases
