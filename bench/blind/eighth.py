"""The eighth blind set: written blind, then scored once against the answerer with
branches asking6, cats and sites merged: 207/210 (98.6 %), run day 2026-12-06, a Sunday
in the sample's zone; the JSON line is eighth.score.json, every miss is in
eighth.misses.md. Not edited after scoring.

Written from the sample generator (`app/demo/sample.py`), the harness
(`bench/agent_blind.py`, `bench/blind/spec.py`, `bench/blind/judge.py`) and the
records layer only: without reading the offline answerer, its docs or any other
question set. Questions are worded as people type them to a chatbot (short forms,
typos, mixed Chinese and English, with or without a question mark); half are
Chinese. Every truth is computed by SQL at run time (`bench/blind/judge.py`).

    python bench/agent_blind.py --set eighth --truth-only
"""

from __future__ import annotations

from bench.blind.spec import (
    ALL,
    ANKI,
    ARXIV,
    BILIBILI,
    CHROME,
    CODE,
    COURSERA,
    DOUYIN,
    FEISHU,
    FIREFOX,
    FUN,
    GITHUB,
    ITERM,
    MAIL,
    NOTION,
    SCREEN,
    SLACK,
    SOCIAL,
    SPOTIFY,
    STACKOVERFLOW,
    STEAM,
    STUDY,
    WECHAT,
    WEREAD,
    WORK,
    XHS,
    YOUTUBE,
    ZOOM,
    Amount,
    Average,
    Contest,
    Days,
    LastFirst,
    NoPeriod,
    Q,
    Share,
    Signals,
    Threshold,
    Top,
    Unknown,
    Window,
    anyof,
    day,
    last_days,
    month,
    title,
    week,
    weekday,
)

# Things the sample's window titles name (files, pages, songs, chats).
SEGMENTER = title("segmenter.py")
INGEST_PY = title("ingest.py")
MIGRATION_NOTE = title("迁移说明", "迁移说明.md")
WEEKLY_REPORT = title("周报")
ROADMAP = title("Roadmap 2026", "Roadmap")
HADES = title("Hades II", "Hades")
SUNNY_DAY = title("晴天")
JAPANESE = title("日语 N2", "日语", "N2")
CSAPP = title("深入理解计算机系统", "CSAPP")
PROJECT_GROUP = title("项目群")
EM_LLM = title("EM-LLM")
INVOICE = title("invoice_2026", "invoice")
UNNEST = title("unnest")
LOFI = title("lofi hip hop", "lofi")
LIN_DM = title("Direct message with Lin", "Lin")

AMOUNT = [
    Q("周四vsc开了多久", "amount", Amount(CODE, weekday(3))),
    Q("前天刷抖音刷了多就啊", "amount", Amount(DOUYIN, day(2))),
    Q("这周在B站上花了多少时间？", "amount", Amount(BILIBILI, week(0))),
    Q("上周zoom开会一共开了多长时间", "amount", Amount(ZOOM, week(1))),
    Q("{d4:zh}那天vx用了几个小时", "amount", Amount(WECHAT, day(4))),
    Q("最近7天学习时间总共多少", "amount", Amount(STUDY, last_days(7))),
    Q(
        "上周五在iterm里呆了多少分钟。",
        "amount",
        Amount(ITERM, weekday(4, weeks_back=1), minutes=True),
    ),
    Q("how long was i on yt yesterday", "amount", Amount(YOUTUBE, day(1))),
    Q("total screentime lsat week?", "amount", Amount(SCREEN, week(1))),
    Q("how many hrs did i spend in slack this week", "amount", Amount(SLACK, week(0))),
    Q("time on gh over the past 3 days", "amount", Amount(GITHUB, last_days(3))),
    Q("how much steam did i play last saturday", "amount", Amount(STEAM, weekday(5, loose=True))),
    Q("mins in notion on {d2:en}?", "amount", Amount(NOTION, day(2), minutes=True)),
    Q("hw much entertainment this month", "amount", Amount(FUN, month(0))),
]

SHARE = [
    Q("周三工作占了屏幕时间的百分之多少", "share", Share(WORK, weekday(2))),
    Q("上周娱乐时间占比多少？", "share", Share(FUN, week(1))),
    Q("这个月社交占总时长的百分比", "share", Share(SOCIAL, month(0))),
    Q("最近7天b站占我娱乐时间的比例是多少", "share", Share(BILIBILI, last_days(7), whole=FUN)),
    Q("上周六学习占比", "share", Share(STUDY, weekday(5, weeks_back=1))),
    Q("这周vscode占工作时间的百分之几", "share", Share(CODE, week(0), whole=WORK)),
    Q("过去两周抖音占了我多少%的时间", "share", Share(DOUYIN, last_days(14))),
    Q("what % of my time yesterday was entertainment", "share", Share(FUN, day(1))),
    Q("share of work last week?", "share", Share(WORK, week(1))),
    Q("what percent of screen time went to chrome this week", "share", Share(CHROME, week(0))),
    Q(
        "how much of my social time was wechat last week, as a percentage",
        "share",
        Share(WECHAT, week(1), whole=SOCIAL),
    ),
    Q("percentage of time on study this month", "share", Share(STUDY, month(0))),
    Q("yt as a % of total time, past 7 days", "share", Share(YOUTUBE, last_days(7))),
    Q("what fraction of {d4:en} did i spend in the terminal (in %)", "share", Share(ITERM, day(4))),
]

AVERAGE = [
    Q("最近一周平均每天用电脑多久", "average", Average(SCREEN, last_days(7))),
    Q("上周平均每天工作几个小时？", "average", Average(WORK, week(1))),
    Q("这个月日均刷抖音多少", "average", Average(DOUYIN, month(0))),
    Q("过去30天平均一天b站看多久", "average", Average(BILIBILI, last_days(30))),
    Q("上个礼拜每天平均学习时长", "average", Average(STUDY, week(1))),
    Q("近两周微信平均每天多长时间", "average", Average(WECHAT, last_days(14))),
    Q("这周平均每天用vsc多久呀", "average", Average(CODE, week(0))),
    Q("avg daily screen time last week", "average", Average(SCREEN, week(1))),
    Q(
        "on average how long do i spend on youtube per day, past 2 weeks",
        "average",
        Average(YOUTUBE, last_days(14)),
    ),
    Q("whats my daily average for slack this month", "average", Average(SLACK, month(0))),
    Q(
        "average hours of work per day over the last 10 days",
        "average",
        Average(WORK, last_days(10)),
    ),
    Q("how much entertainment do i average a day this week", "average", Average(FUN, week(0))),
    Q("mean time per day in iterm last week?", "average", Average(ITERM, week(1))),
    Q("social apps per day on avg, past 7 days", "average", Average(SOCIAL, last_days(7))),
]

TOP = [
    Q("昨天用得最多的三个app", "top", Top("apps", day(1), 3)),
    Q("上周哪个网站逛得最多", "top", Top("sites", week(1), 1)),
    Q("这个月时间都花在哪些类别上了 前三", "top", Top("categories", month(0), 3)),
    Q("前天最常用的app是啥", "top", Top("apps", day(2), 1)),
    Q("最近7天排名前五的应用", "top", Top("apps", last_days(7), 5)),
    Q("这周看的网站排个前二", "top", Top("sites", week(0), 2)),
    Q("{d3:md}哪类活动最多？", "top", Top("categories", day(3), 1)),
    Q("top 3 apps last week", "top", Top("apps", week(1), 3)),
    Q("which site did i spend the most time on yestrday", "top", Top("sites", day(1), 1)),
    Q("most used app this month?", "top", Top("apps", month(0), 1)),
    Q("top 2 categories past 7 days", "top", Top("categories", last_days(7), 2)),
    Q("what were my top 5 apps on {d5:en}", "top", Top("apps", day(5), 5)),
    Q("biggest time sink last week by category", "top", Top("categories", week(1), 1)),
    Q("top websites this week, top 3 pls", "top", Top("sites", week(0), 3)),
]

DAYS_WITH = [
    Q("上周哪几天玩了steam", "days_with", Days(STEAM, week(1))),
    Q("这个月有几天用了anki？", "days_with", Days(ANKI, month(0), count=True)),
    Q("最近7天哪些天开过zoom会", "days_with", Days(ZOOM, last_days(7))),
    Q("上周有哪些天看了油管", "days_with", Days(YOUTUBE, week(1))),
    Q(
        "过去两周有几天学习超过一小时",
        "days_with",
        Days(STUDY, last_days(14), count=True, min_minutes=60),
    ),
    Q("这周哪天刷了xhs", "days_with", Days(XHS, week(0))),
    Q("上个月有多少天用了微信读书", "days_with", Days(WEREAD, month(1), count=True)),
    Q("whcih days last week did i open coursera", "days_with", Days(COURSERA, week(1))),
    Q(
        "how many days this month did i use spotify",
        "days_with",
        Days(SPOTIFY, month(0), count=True),
    ),
    Q("what days in the past week did i read arxiv papers", "days_with", Days(ARXIV, last_days(7))),
    Q(
        "number of days i worked more than 5 hrs in the last 2 weeks",
        "days_with",
        Days(WORK, last_days(14), count=True, min_minutes=300),
    ),
    Q("days i used weread last week?", "days_with", Days(WEREAD, week(1))),
    Q(
        "how many days did i play steam in the past 30 days",
        "days_with",
        Days(STEAM, last_days(30), count=True),
    ),
    Q("on which days this week was i on slack", "days_with", Days(SLACK, week(0))),
]

DAYS_WITHOUT = [
    Q("上周哪几天没开vscode", "days_without", Days(CODE, week(1), present=False)),
    Q(
        "这个月有几天没看b站",
        "days_without",
        Days(BILIBILI, month(0), present=False, count=True),
    ),
    Q("最近一周哪天没刷抖音", "days_without", Days(DOUYIN, last_days(7), present=False)),
    Q(
        "上周有没有哪天一次微信都没打开？哪几天",
        "days_without",
        Days(WECHAT, week(1), present=False),
    ),
    Q(
        "过去14天几天没学习",
        "days_without",
        Days(STUDY, last_days(14), present=False, count=True),
    ),
    Q("这周哪些天没开zoom", "days_without", Days(ZOOM, week(0), present=False)),
    Q(
        "上个月有几天没用anki",
        "days_without",
        Days(ANKI, month(1), present=False, count=True),
    ),
    Q(
        "which days last week didnt i study at all",
        "days_without",
        Days(STUDY, week(1), present=False),
    ),
    Q(
        "how many days this month without any work",
        "days_without",
        Days(WORK, month(0), present=False, count=True),
    ),
    Q(
        "days in the past week i didnt work",
        "days_without",
        Days(WORK, last_days(7), present=False),
    ),
    Q(
        "any days last week with no github at all? which ones",
        "days_without",
        Days(GITHUB, week(1), present=False),
    ),
    Q(
        "how many days in the last 2 weeks did i not use anki",
        "days_without",
        Days(ANKI, last_days(14), present=False, count=True),
    ),
    Q("which days this week no notion", "days_without", Days(NOTION, week(0), present=False)),
    Q(
        "count the days last month i stayed off xhs",
        "days_without",
        Days(XHS, month(1), present=False, count=True),
    ),
]

CONTEST = [
    Q("昨天b站和油管哪个看得多", "contest", Contest(BILIBILI, YOUTUBE, day(1))),
    Q("上周微信跟飞书谁用得多", "contest", Contest(WECHAT, FEISHU, week(1))),
    Q("这个月抖音vs小红书", "contest", Contest(DOUYIN, XHS, month(0))),
    Q("最近7天学习和娱乐哪个时间长？", "contest", Contest(STUDY, FUN, last_days(7))),
    Q("这周 vsc 和 iterm 哪个开得久", "contest", Contest(CODE, ITERM, week(0))),
    Q("前天slack多还是vx多", "contest", Contest(SLACK, WECHAT, day(2))),
    Q(
        "上周日 steam 跟 B站 比一比哪个多",
        "contest",
        Contest(STEAM, BILIBILI, weekday(6, weeks_back=1)),
    ),
    Q(
        "chrome or firefox, which did i use more last week",
        "contest",
        Contest(CHROME, FIREFOX, week(1)),
    ),
    Q(
        "did i spend more time on github or stack overflow this month",
        "contest",
        Contest(GITHUB, STACKOVERFLOW, month(0)),
    ),
    Q("yt vs bilibili past 7 days", "contest", Contest(YOUTUBE, BILIBILI, last_days(7))),
    Q("work or entertainment on wednesday - which won", "contest", Contest(WORK, FUN, weekday(2))),
    Q("anki vs coursera this month, which more", "contest", Contest(ANKI, COURSERA, month(0))),
    Q(
        "zoom or slack last week?? which one ate more time",
        "contest",
        Contest(ZOOM, SLACK, week(1)),
    ),
    Q(
        "spotify versus steam in the last 2 weeks",
        "contest",
        Contest(SPOTIFY, STEAM, last_days(14)),
    ),
]

THRESHOLD = [
    Q("昨天屏幕时间超过8小时了吗", "threshold", Threshold(SCREEN, day(1), 8)),
    Q("上周b站看了超过3个小时没", "threshold", Threshold(BILIBILI, week(1), 3)),
    Q("这周工作时间有没有超20小时", "threshold", Threshold(WORK, week(0), 20)),
    Q("前天刷抖音少于1小时吗", "threshold", Threshold(DOUYIN, day(2), 1, over=False)),
    Q("最近7天学习超过5个钟头了没？", "threshold", Threshold(STUDY, last_days(7), 5)),
    Q("这个月vx用了不到10小时吧", "threshold", Threshold(WECHAT, month(0), 10, over=False)),
    Q("上周steam玩超过5小时了吗", "threshold", Threshold(STEAM, week(1), 5)),
    Q("was i on youtbe more than 1 hr yesterday", "threshold", Threshold(YOUTUBE, day(1), 1)),
    Q("did i work over 40 hours last week", "threshold", Threshold(WORK, week(1), 40)),
    Q("less than 2h of social yesterday?", "threshold", Threshold(SOCIAL, day(1), 2, over=False)),
    Q("did screen time go above 50 hrs this week", "threshold", Threshold(SCREEN, week(0), 50)),
    Q(
        "have i spent more than 10 hours in vscode in the past 7 days",
        "threshold",
        Threshold(CODE, last_days(7), 10),
    ),
    Q(
        "was my entertainment under 5 hours last week",
        "threshold",
        Threshold(FUN, week(1), 5, over=False),
    ),
    Q("more than 30 min on xhs this week?", "threshold", Threshold(XHS, week(0), 0.5)),
]

LAST_FIRST = [
    Q("周五最后一次用vsc是几点", "last_first", LastFirst(CODE, weekday(4))),
    Q("前天最早几点开始用电脑的", "last_first", LastFirst(SCREEN, day(2), last=False)),
    Q("上次玩steam是什么时候", "last_first", LastFirst(STEAM, ALL)),
    Q("最近一次开zoom会是哪天几点？", "last_first", LastFirst(ZOOM, ALL)),
    Q("昨晚最后刷抖音是几点", "last_first", LastFirst(DOUYIN, day(1))),
    Q("这周第一次打开anki是啥时候", "last_first", LastFirst(ANKI, week(0), last=False)),
    Q("{d3:zh}第一次看b站是几点", "last_first", LastFirst(BILIBILI, day(3), last=False)),
    Q("when did i last open coursera", "last_first", LastFirst(COURSERA, ALL)),
    Q("what time did i stop working on thursday", "last_first", LastFirst(WORK, weekday(3))),
    Q("first time i opened slack yesterday?", "last_first", LastFirst(SLACK, day(1), last=False)),
    Q("last time on xhs", "last_first", LastFirst(XHS, ALL)),
    Q(
        "when did i first use the terminal on {d2:en}",
        "last_first",
        LastFirst(ITERM, day(2), last=False),
    ),
    Q("when was the last time i read on weread", "last_first", LastFirst(WEREAD, ALL)),
    Q("last time i used spotify?", "last_first", LastFirst(SPOTIFY, ALL)),
]

WINDOW = [
    Q("昨天下午两点到五点在干嘛", "window", Window(day(1), "14:00", "17:00")),
    Q("前天晚上8点到10点我都在做啥", "window", Window(day(2), "20:00", "22:00")),
    Q("{d3:zh}上午9点到12点主要在忙什么", "window", Window(day(3), "09:00", "12:00")),
    Q("昨晚十点到十一点用的啥", "window", Window(day(1), "22:00", "23:00")),
    Q("上周六下午2点到5点干了啥", "window", Window(weekday(5, weeks_back=1), "14:00", "17:00")),
    Q("前天中午12点到下午1点再干嘛？", "window", Window(day(2), "12:00", "13:00")),
    Q("昨天晚上11点到凌晨1点在干什么", "window", Window(day(1), "23:00", "01:00")),
    Q("what was i doing yesterday between 3pm and 4pm", "window", Window(day(1), "15:00", "16:00")),
    Q("what did i do on {d2:en} from 9 to 11am", "window", Window(day(2), "09:00", "11:00")),
    Q("yesterday evening 8-9pm what was i up to", "window", Window(day(1), "20:00", "21:00")),
    Q("what was i doing 10:30-11:30 on {d4:en}", "window", Window(day(4), "10:30", "11:30")),
    Q(
        "whats on my screen last friday 2pm to 4pm",
        "window",
        Window(weekday(4, loose=True), "14:00", "16:00"),
    ),
    Q("{d5:md} between 1pm and 2pm, what was i doing?", "window", Window(day(5), "13:00", "14:00")),
    Q(
        "what did i do the night before last, 10pm-midnight",
        "window",
        Window(day(2), "22:00", "00:00"),
    ),
]

HABITS = [
    Q("上周哪几天熬夜了", "habits", Signals(("late_night",), week(1))),
    Q("这个月有几天熬夜？", "habits", Signals(("late_night",), month(0), mode="count")),
    Q("过去7天有没有熬夜", "habits", Signals(("late_night",), last_days(7), mode="yesno")),
    Q("上周有几天返工了", "habits", Signals(("rework",), week(1), mode="count")),
    Q(
        "这周有没有强制回滚过 git reset 之类的",
        "habits",
        Signals(("forced_rollback",), week(0), mode="yesno"),
    ),
    Q("最近两周哪几天返工了", "habits", Signals(("rework",), last_days(14))),
    Q("上周上班时分心的有几天", "habits", Signals(("distraction",), week(1), mode="count")),
    Q("did i stay up late last week", "habits", Signals(("late_night",), week(1), mode="yesno")),
    Q(
        "how many late nights this month",
        "habits",
        Signals(("late_night",), month(0), mode="count"),
    ),
    Q("which days last week did i have rework", "habits", Signals(("rework",), week(1))),
    Q(
        "any forced rollbacks in the past 14 days? which days",
        "habits",
        Signals(("forced_rollback",), last_days(14)),
    ),
    Q(
        "how many days with context switch storms last week",
        "habits",
        Signals(("context_switch_storm",), week(1), mode="count"),
    ),
    Q(
        "was i distracted while working yesterday?",
        "habits",
        Signals(("distraction",), day(1), mode="yesno"),
    ),
    Q(
        "how many days did i get a solid focus block in this week",
        "habits",
        Signals(("focus_block",), week(0), mode="count"),
    ),
]

SEARCH = [
    Q("segmenter.py 周四改了多久", "search", Amount(SEGMENTER, weekday(3))),
    Q("上周写周报花了多长时间", "search", Amount(WEEKLY_REPORT, week(1))),
    Q("最近一次看《深入理解计算机系统》是什么时候", "search", LastFirst(CSAPP, ALL)),
    Q("这个月听晴天听了多久", "search", Amount(SUNNY_DAY, month(0))),
    Q("这周哪几天复习了日语N2", "search", Days(JAPANESE, week(0))),
    Q("迁移说明.md 上周写了多久", "search", Amount(MIGRATION_NOTE, week(1))),
    Q("上周在项目群里聊了多久", "search", Amount(PROJECT_GROUP, week(1))),
    Q("how long did i spend on the EM-LLM paper this month", "search", Amount(EM_LLM, month(0))),
    Q("time spent on hades last week", "search", Amount(HADES, week(1))),
    Q("when did i last look at an invoice pdf", "search", LastFirst(INVOICE, ALL)),
    Q(
        "how long was i on that unnest arrays stackoverflow question this week",
        "search",
        Amount(UNNEST, week(0)),
    ),
    Q("which days this week did i put on lofi hip hop", "search", Days(LOFI, week(0))),
    Q("how much time in ingest.py on {d4:en}", "search", Amount(INGEST_PY, day(4))),
    Q("how long did i chat with Lin on slack last week", "search", Amount(LIN_DM, week(1))),
]

FOLLOWUP = [
    Q("那前天呢", "followup", Amount(BILIBILI, day(2)), before=("昨天b站看了多久",)),
    Q("这周呢？", "followup", Amount(WORK, week(0)), before=("上周工作了多少小时",)),
    Q("小红书呢", "followup", Amount(XHS, month(0)), before=("这个月抖音用了多久",)),
    Q("那前天的前三呢", "followup", Top("apps", day(2), 3), before=("昨天用得最多的app是哪个",)),
    Q("那油管呢", "followup", Days(YOUTUBE, week(1)), before=("上周哪几天玩了steam",)),
    Q("平均每天呢", "followup", Average(WECHAT, last_days(7)), before=("最近7天微信用了多久",)),
    Q(
        "两个加起来呢",
        "followup",
        Amount(anyof("VS Code + iTerm2", CODE, ITERM), weekday(4)),
        before=("周五vsc用了多久", "iterm呢"),
    ),
    Q("and this week?", "followup", Amount(YOUTUBE, week(0)), before=("how long on yt last week",)),
    Q(
        "what about zoom",
        "followup",
        Amount(ZOOM, weekday(4, loose=True)),
        before=("how much time in slack last friday",),
    ),
    Q("and this month?", "followup", Top("apps", month(0), 3), before=("top 3 apps last week",)),
    Q(
        "what % is that of all my time",
        "followup",
        Share(STUDY, month(0)),
        before=("how many hours of study this month",),
    ),
    Q(
        "ok when was the last time i played it",
        "followup",
        LastFirst(STEAM, ALL),
        before=("did i play steam yesterday",),
    ),
    Q("and the day after", "followup", Amount(WORK, day(2)), before=("work hours on {d3:en}?",)),
    Q(
        "vs stack overflow, which is more",
        "followup",
        Contest(GITHUB, STACKOVERFLOW, week(0)),
        before=("how long on github this week",),
    ),
]

NO_PERIOD = [
    Q("我b站看了多久", "no_period", NoPeriod(BILIBILI)),
    Q("抖音刷了多长时间了", "no_period", NoPeriod(DOUYIN)),
    Q("vsc用了几个小时", "no_period", NoPeriod(CODE)),
    Q("学习时间有多少？", "no_period", NoPeriod(STUDY)),
    Q("微信聊了多久", "no_period", NoPeriod(WECHAT)),
    Q("steam打了多久游戏", "no_period", NoPeriod(STEAM)),
    Q("飞书用了多久", "no_period", NoPeriod(FEISHU)),
    Q("how much youtube have i watched", "no_period", NoPeriod(YOUTUBE)),
    Q("time in zoom?", "no_period", NoPeriod(ZOOM)),
    Q("how much terminal time do i have", "no_period", NoPeriod(ITERM)),
    Q("hours on gh", "no_period", NoPeriod(GITHUB)),
    Q("how much time on social stuff", "no_period", NoPeriod(SOCIAL)),
    Q("mail app usage?", "no_period", NoPeriod(MAIL)),
    Q("total entertainment time", "no_period", NoPeriod(FUN)),
]

UNKNOWN = [
    Q("昨天玩了多久王者荣耀", "unknown", Unknown("王者荣耀")),
    Q("这周刷了多少知乎", "unknown", Unknown("知乎")),
    Q("上周淘宝逛了多久", "unknown", Unknown("淘宝")),
    Q("网易云音乐这个月听了多久", "unknown", Unknown("网易云音乐")),
    Q("爱奇艺昨天看了多长时间", "unknown", Unknown("爱奇艺")),
    Q("钉钉最近一周用了多久？", "unknown", Unknown("钉钉")),
    Q("photoshop上周用了几个小时", "unknown", Unknown("Photoshop")),
    Q("how long on netflix yesterday", "unknown", Unknown("Netflix")),
    Q("how much time did i spend in figma this week", "unknown", Unknown("Figma")),
    Q("discord usage last week", "unknown", Unknown("Discord")),
    Q("hours in excel this month?", "unknown", Unknown("Excel")),
    Q("how long was i on reddit yesterday", "unknown", Unknown("Reddit")),
    Q("time in pycharm last 7 days", "unknown", Unknown("PyCharm")),
    Q("how much twitch did i watch last weekend", "unknown", Unknown("Twitch")),
]

QUESTIONS = [
    *AMOUNT,
    *SHARE,
    *AVERAGE,
    *TOP,
    *DAYS_WITH,
    *DAYS_WITHOUT,
    *CONTEST,
    *THRESHOLD,
    *LAST_FIRST,
    *WINDOW,
    *HABITS,
    *SEARCH,
    *FOLLOWUP,
    *NO_PERIOD,
    *UNKNOWN,
]
