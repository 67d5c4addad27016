"""The third blind question set: written blind, then scored once against the
parser with title words, spelling and shares (branch asking2): 186/218 (85.3 %),
run day 2026-12-05, Saturday; the JSON line is third.score.json, every miss is in
third.misses.md. Not edited after scoring.

Written without reading the offline answerer, its docs or any other question set:
questions as people type them to a chatbot (short forms, typos, mixed Chinese and
English, with or without a period), about the sample's real apps, sites, categories,
files and days. Every truth is computed by SQL at run time (bench/blind/judge.py).

    python bench/agent_blind.py --set third --truth-only
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
    FINDER,
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
    day,
    last_days,
    month,
    title,
    week,
    weekday,
)

HADES = title("Hades II", "Hades", "哈迪斯")
SUNNY = title("晴天", "周杰伦")
ATTENTION = title("Attention Is All You Need", "attention paper", "transformer paper")
MODELS_PY = title("models.py")
MIGRATION_DOC = title("迁移说明", "迁移说明.md")
INVOICE = title("invoice", "发票", "invoice pdf")
WEEKLY = title("周报")
JAPANESE = title("日语 N2", "日语", "N2", "Japanese")
CSAPP = title("深入理解计算机系统", "CSAPP")
PR = title("Pull Request", "PR", "pull request")
LOFI = title("lofi", "lofi hip hop")
GENSHIN = title("原神", "Genshin")
INGEST_PY = title("ingest.py")
STANDUP = title("每周同步会", "weekly sync")
ROADMAP = title("Roadmap 2026", "roadmap")

AMOUNT = [
    Q("yt 昨天看了多久", "amount", Amount(YOUTUBE, day(1))),
    Q("昨天刷抖音刷了多长时间啊。", "amount", Amount(DOUYIN, day(1))),
    Q("今天vsc开了多久了", "amount", Amount(CODE, day(0))),
    Q("前天b站看了几分钟", "amount", Amount(BILIBILI, day(2), minutes=True)),
    Q("这周在vx上花了多少时间？", "amount", Amount(WECHAT, week(0))),
    Q("上周打steam一共多久", "amount", Amount(STEAM, week(1))),
    Q("{d4:zh}用飞书多久", "amount", Amount(FEISHU, day(4))),
    Q("how long was i on slack yesterdya", "amount", Amount(SLACK, day(1))),
    Q("hrs in vs code this wk?", "amount", Amount(CODE, week(0))),
    Q("time on github last week", "amount", Amount(GITHUB, week(1))),
    Q("how much zoom did i do on {d3:en}", "amount", Amount(ZOOM, day(3))),
    Q("how many mins of spotify yday", "amount", Amount(SPOTIFY, day(1), minutes=True)),
    Q("total time in iterm last 7 days", "amount", Amount(ITERM, last_days(7))),
    Q(
        "how long did i spend on stackoverflow this month.",
        "amount",
        Amount(STACKOVERFLOW, month(0)),
    ),
    Q("上周看arxiv论文看了多久", "amount", Amount(ARXIV, week(1))),
    Q("time in notion this week", "amount", Amount(NOTION, week(0))),
    Q("screentime yesterday?", "amount", Amount(SCREEN, day(1))),
    Q("昨天一共用电脑多久。", "amount", Amount(SCREEN, day(1))),
]

SHARE = [
    Q("昨天工作占了多少比例", "share", Share(WORK, day(1))),
    Q("这周娱乐时间占比多少", "share", Share(FUN, week(0))),
    Q("上周学习占总时间百分之几？", "share", Share(STUDY, week(1))),
    Q("前天社交占比", "share", Share(SOCIAL, day(2))),
    Q("最近7天 vsc 占了屏幕时间的几成", "share", Share(CODE, last_days(7))),
    Q("昨天b站占娱乐的百分比是多少", "share", Share(BILIBILI, day(1), whole=FUN)),
    Q("本月微信占比多少啊", "share", Share(WECHAT, month(0))),
    Q("what % of my time yesterday was work", "share", Share(WORK, day(1))),
    Q("share of entertainmnet last week?", "share", Share(FUN, week(1))),
    Q("percent of screen time on chrome this week", "share", Share(CHROME, week(0))),
    Q("how much of yesterday was youtube, as a percentage", "share", Share(YOUTUBE, day(1))),
    Q(
        "what fraction of my work time this week was github",
        "share",
        Share(GITHUB, week(0), whole=WORK),
    ),
    Q("study share last 7 days", "share", Share(STUDY, last_days(7))),
    Q("social % on {d5:en}?", "share", Share(SOCIAL, day(5))),
]

AVERAGE = [
    Q("这周平均每天开vscode多久", "average", Average(CODE, week(0))),
    Q("上周日均刷抖音多长时间", "average", Average(DOUYIN, week(1))),
    Q("最近七天平均每天屏幕时间", "average", Average(SCREEN, last_days(7))),
    Q("这个月平均一天学习多久？", "average", Average(STUDY, month(0))),
    Q("近两周平均每天娱乐多少", "average", Average(FUN, last_days(14))),
    Q("上周每天平均在b站多久", "average", Average(BILIBILI, week(1))),
    Q("最近7天 微信 日均", "average", Average(WECHAT, last_days(7))),
    Q("avg daily screen time this week pls", "average", Average(SCREEN, week(0))),
    Q(
        "on average how long do i spend in slack per day lately (last 7 days)",
        "average",
        Average(SLACK, last_days(7)),
    ),
    Q("average youtube per day last week?", "average", Average(YOUTUBE, week(1))),
    Q("whats my daily avg for work this mnth", "average", Average(WORK, month(0))),
    Q("mean time in iterm a day, past 14 days", "average", Average(ITERM, last_days(14))),
    Q("avg per day on steam last 7 days", "average", Average(STEAM, last_days(7))),
    Q("daily average for social stuff last week.", "average", Average(SOCIAL, week(1))),
]

TOP = [
    Q("昨天用得最多的app是啥", "top", Top("apps", day(1), 1)),
    Q("这周用的最多的三个应用", "top", Top("apps", week(0), 3)),
    Q("上周哪个网站逛得最多", "top", Top("sites", week(1), 1)),
    Q("前天时间都花在哪类事情上了？排个前三", "top", Top("categories", day(2), 3)),
    Q("最近7天top5软件。", "top", Top("apps", last_days(7), 5)),
    Q("这个月最常上的网站前3", "top", Top("sites", month(0), 3)),
    Q("{d3:zh}哪个分类时间最长", "top", Top("categories", day(3), 1)),
    Q("top apps yday", "top", Top("apps", day(1), 3)),
    Q("most used app this week?", "top", Top("apps", week(0), 1)),
    Q("which sites did i spend the most time on last week, top 3", "top", Top("sites", week(1), 3)),
    Q("top 5 apps last 7 days", "top", Top("apps", last_days(7), 5)),
    Q("biggest category this month", "top", Top("categories", month(0), 1)),
    Q("what website ate most of my time yesterday", "top", Top("sites", day(1), 1)),
    Q("rank my categories for {d4:en}", "top", Top("categories", day(4), 5)),
]

DAYS_WITH = [
    Q("这周哪几天打了steam", "days_with", Days(STEAM, week(0))),
    Q("上周哪些天上了b站", "days_with", Days(BILIBILI, week(1))),
    Q("最近7天有几天开了zoom", "days_with", Days(ZOOM, last_days(7), count=True)),
    Q("这个月有几天刷了抖音？", "days_with", Days(DOUYIN, month(0), count=True)),
    Q("上周哪天用了anki", "days_with", Days(ANKI, week(1))),
    Q("最近两周有几天看了油管。", "days_with", Days(YOUTUBE, last_days(14), count=True)),
    Q("这周哪几天vsc用了超过2小时", "days_with", Days(CODE, week(0), min_minutes=120)),
    Q("which days this week did i use steam", "days_with", Days(STEAM, week(0))),
    Q(
        "how many days last week did i open spotfy",
        "days_with",
        Days(SPOTIFY, week(1), count=True),
    ),
    Q("这周哪几天开了Mail收邮件", "days_with", Days(MAIL, week(0))),
    Q("days i was on coursera in the last 14 days?", "days_with", Days(COURSERA, last_days(14))),
    Q(
        "how many days this month did i read on weread",
        "days_with",
        Days(WEREAD, month(0), count=True),
    ),
    Q(
        "which days last week had over an hour of youtube",
        "days_with",
        Days(YOUTUBE, week(1), min_minutes=60),
    ),
    Q("on which days in the past 7 days did i use xhs", "days_with", Days(XHS, last_days(7))),
    Q("number of days with zoom calls last week", "days_with", Days(ZOOM, week(1), count=True)),
]

DAYS_WITHOUT = [
    Q("这周哪几天没看arxiv论文", "days_without", Days(ARXIV, week(0), present=False)),
    Q("上周有几天没开zoom开会", "days_without", Days(ZOOM, week(1), present=False, count=True)),
    Q("最近7天哪几天没上b站", "days_without", Days(BILIBILI, last_days(7), present=False)),
    Q(
        "这个月有几天完全没碰coursera？",
        "days_without",
        Days(COURSERA, month(0), present=False, count=True),
    ),
    Q("上周哪些天没开zoom", "days_without", Days(ZOOM, week(1), present=False)),
    Q(
        "最近两周几天没用anki背单词",
        "days_without",
        Days(ANKI, last_days(14), present=False, count=True),
    ),
    Q("上周哪天没在微信读书看书", "days_without", Days(WEREAD, week(1), present=False)),
    Q(
        "which days this week did i not study at all",
        "days_without",
        Days(STUDY, week(0), present=False),
    ),
    Q(
        "how many days last week without any work",
        "days_without",
        Days(WORK, week(1), present=False, count=True),
    ),
    Q(
        "days with no vs code in teh past 7 days?",
        "days_without",
        Days(CODE, last_days(7), present=False),
    ),
    Q(
        "how many days this month did i skip anki",
        "days_without",
        Days(ANKI, month(0), present=False, count=True),
    ),
    Q("which days last week had zero github", "days_without", Days(GITHUB, week(1), present=False)),
    Q(
        "days w/o notion in the last 14 days",
        "days_without",
        Days(NOTION, last_days(14), present=False),
    ),
    Q(
        "any days last week where i didnt open bilibili at all?",
        "days_without",
        Days(BILIBILI, week(1), present=False),
    ),
]

CONTEST = [
    Q("昨天b站和油管哪个看得多", "contest", Contest(BILIBILI, YOUTUBE, day(1))),
    Q("这周vx还是飞书用得多？", "contest", Contest(WECHAT, FEISHU, week(0))),
    Q("上周工作和娱乐哪个时间长", "contest", Contest(WORK, FUN, week(1))),
    Q("最近7天 抖音 vs 小红书", "contest", Contest(DOUYIN, XHS, last_days(7))),
    Q("前天学习多还是社交多", "contest", Contest(STUDY, SOCIAL, day(2))),
    Q("这个月vsc和iterm谁用得久", "contest", Contest(CODE, ITERM, month(0))),
    Q("昨天slack跟zoom哪个多", "contest", Contest(SLACK, ZOOM, day(1))),
    Q("more yt or bilibili last week?", "contest", Contest(YOUTUBE, BILIBILI, week(1))),
    Q(
        "did i spend more time on slack or wechat yesterday",
        "contest",
        Contest(SLACK, WECHAT, day(1)),
    ),
    Q("work vs entertainment this week", "contest", Contest(WORK, FUN, week(0))),
    Q(
        "github or stack overflow, which got more time in the last 7 days",
        "contest",
        Contest(GITHUB, STACKOVERFLOW, last_days(7)),
    ),
    Q("anki or weread more this month?", "contest", Contest(ANKI, WEREAD, month(0))),
    Q("was i in vscode more than in chrome on {d3:en}", "contest", Contest(CODE, CHROME, day(3))),
    Q("steam vs spotify last week, which one wins", "contest", Contest(STEAM, SPOTIFY, week(1))),
]

THRESHOLD = [
    Q("昨天工作超过6小时了吗", "threshold", Threshold(WORK, day(1), 6)),
    Q("这周打steam有没有超过3个小时", "threshold", Threshold(STEAM, week(0), 3)),
    Q("昨天抖音刷了超过1小时没", "threshold", Threshold(DOUYIN, day(1), 1)),
    Q("上周学习时间有10小时吗？", "threshold", Threshold(STUDY, week(1), 10)),
    Q("昨天屏幕时间少于8小时吗", "threshold", Threshold(SCREEN, day(1), 8, over=False)),
    Q("前天娱乐不到2小时吧", "threshold", Threshold(FUN, day(2), 2, over=False)),
    Q("最近7天b站加起来超过5小时了？", "threshold", Threshold(BILIBILI, last_days(7), 5)),
    Q("did i work more than 8 hours yesterday.", "threshold", Threshold(WORK, day(1), 8)),
    Q("was my screen time over 10h yesterday?", "threshold", Threshold(SCREEN, day(1), 10)),
    Q(
        "less than an hour of youtube this week?",
        "threshold",
        Threshold(YOUTUBE, week(0), 1, over=False),
    ),
    Q("did slack go past 2 hrs last weeek", "threshold", Threshold(SLACK, week(1), 2)),
    Q("more than 20 hrs in vscode last week?", "threshold", Threshold(CODE, week(1), 20)),
    Q(
        "under 30 min of douyin on {d3:en}?",
        "threshold",
        Threshold(DOUYIN, day(3), 0.5, over=False),
    ),
    Q(
        "have i studied over 4 hours in the last 7 days",
        "threshold",
        Threshold(STUDY, last_days(7), 4),
    ),
]

LAST_FIRST = [
    Q("昨天最后一次刷抖音是几点", "last_first", LastFirst(DOUYIN, day(1))),
    Q("昨天几点打开vscode的", "last_first", LastFirst(CODE, day(1), last=False)),
    Q("今天第一次开微信是什么时候", "last_first", LastFirst(WECHAT, day(0), last=False)),
    Q("前天最后用vsc是几点？", "last_first", LastFirst(CODE, day(2))),
    Q("上次打steam是啥时候", "last_first", LastFirst(STEAM, ALL)),
    Q("最近一次看b站是哪天几点", "last_first", LastFirst(BILIBILI, ALL)),
    Q("昨天zoom几点开的", "last_first", LastFirst(ZOOM, day(1), last=False)),
    Q("when did i last open spotify", "last_first", LastFirst(SPOTIFY, ALL)),
    Q("what time did i start work yesterday", "last_first", LastFirst(WORK, day(1), last=False)),
    Q("last time on youtbe?", "last_first", LastFirst(YOUTUBE, ALL)),
    Q("when was i last in slack yesterday", "last_first", LastFirst(SLACK, day(1))),
    Q("first time i opened chrome on {d2:md}", "last_first", LastFirst(CHROME, day(2), last=False)),
    Q("when did i last use vs code on {d3:en}", "last_first", LastFirst(CODE, day(3))),
    Q("上次打开Finder是几点", "last_first", LastFirst(FINDER, ALL)),
    Q("when did i last use anki", "last_first", LastFirst(ANKI, ALL)),
]

WINDOW = [
    Q("昨天上午9点到12点在干嘛", "window", Window(day(1), "09:00", "12:00")),
    Q("昨天下午两点到五点我在做什么", "window", Window(day(1), "14:00", "17:00")),
    Q("前天晚上8点到11点干啥了", "window", Window(day(2), "20:00", "23:00")),
    Q("今天早上9点到10点在忙啥", "window", Window(day(0), "09:00", "10:00")),
    Q("{d3:zh}下午3点-4点在干嘛？", "window", Window(day(3), "15:00", "16:00")),
    Q("昨晚11点到凌晨1点在做什么", "window", Window(day(1), "23:00", "01:00")),
    Q("上周五上午10点到12点我在干嘛", "window", Window(weekday(4, weeks_back=1), "10:00", "12:00")),
    Q("wat was i doing yesterday 2-4pm", "window", Window(day(1), "14:00", "16:00")),
    Q("what did i do between 9 and 11am yesterday?", "window", Window(day(1), "09:00", "11:00")),
    Q("yesterday 8pm to 10pm, what was i up to", "window", Window(day(1), "20:00", "22:00")),
    Q("what was i doing on {d4:en} from 10am to noon", "window", Window(day(4), "10:00", "12:00")),
    Q("day before yesterday 3pm-6pm?", "window", Window(day(2), "15:00", "18:00")),
    Q("what was i on last night from 10pm to midnight", "window", Window(day(1), "22:00", "00:00")),
    Q("what did i do on {d5:md} around 4 to 5pm", "window", Window(day(5), "16:00", "17:00")),
]

HABITS = [
    Q("这周哪几天熬夜了", "habits", Signals(("late_night",), week(0))),
    Q("上周熬夜几次", "habits", Signals(("late_night",), week(1), mode="count")),
    Q("最近7天有没有熬夜", "habits", Signals(("late_night",), last_days(7), mode="yesno")),
    Q("这周哪天专注得比较好（有长时间专注）", "habits", Signals(("focus_block",), week(0))),
    Q("上周有几天分心了", "habits", Signals(("distraction",), week(1), mode="count")),
    Q("最近两周哪几天代码返工了", "habits", Signals(("rework",), last_days(14))),
    Q(
        "这个月有没有 git reset --hard 回滚过",
        "habits",
        Signals(("forced_rollback",), month(0), mode="yesno"),
    ),
    Q("昨天切换窗口很频繁吗", "habits", Signals(("context_switch_storm",), day(1), mode="yesno")),
    Q("which nights did i stay up late this week", "habits", Signals(("late_night",), week(0))),
    Q("how many late nights lastweek?", "habits", Signals(("late_night",), week(1), mode="count")),
    Q("did i get distracted yesterday", "habits", Signals(("distraction",), day(1), mode="yesno")),
    Q(
        "days with deep focus blocks in the last 7 days",
        "habits",
        Signals(("focus_block",), last_days(7)),
    ),
    Q(
        "how many days last week did i redo code (rework)",
        "habits",
        Signals(("rework",), week(1), mode="count"),
    ),
    Q(
        "any forced rollbacks this week?",
        "habits",
        Signals(("forced_rollback",), week(0), mode="yesno"),
    ),
    Q(
        "which days this month had context switch storms",
        "habits",
        Signals(("context_switch_storm",), month(0)),
    ),
]

SEARCH = [
    Q("昨天玩了多久哈迪斯2", "search", Amount(HADES, day(1))),
    Q("这周听了多久晴天", "search", Amount(SUNNY, week(0))),
    Q("上次看attention那篇论文是什么时候", "search", LastFirst(ATTENTION, ALL)),
    Q("这周改models.py花了多久", "search", Amount(MODELS_PY, week(0))),
    Q("迁移说明那个文档上周写了多久", "search", Amount(MIGRATION_DOC, week(1))),
    Q("最近7天哪几天看了发票 invoice", "search", Days(INVOICE, last_days(7))),
    Q("周报这周写了多长时间？", "search", Amount(WEEKLY, week(0))),
    Q("日语N2这个月复习了几天", "search", Days(JAPANESE, month(0), count=True)),
    Q("上周读深入理解计算机系统读了多久", "search", Amount(CSAPP, week(1))),
    Q("how long did i look at pull requests this week", "search", Amount(PR, week(0))),
    Q("how much lofi hip hop did i play last week", "search", Amount(LOFI, week(1))),
    Q("when did i last watch genshin stuff", "search", LastFirst(GENSHIN, ALL)),
    Q("time spent editing ingest.py yesterday", "search", Amount(INGEST_PY, day(1))),
    Q("which days last week did i have the weekly sync meeting", "search", Days(STANDUP, week(1))),
    Q("how long was i on the roadmap 2026 page this month", "search", Amount(ROADMAP, month(0))),
]

FOLLOWUP = [
    Q("那前天呢?", "followup", Amount(YOUTUBE, day(2)), before=("yt 昨天看了多久",)),
    Q("上周呢？", "followup", Amount(DOUYIN, week(1)), before=("这周刷抖音多久",)),
    Q("b站呢", "followup", Amount(BILIBILI, day(1)), before=("昨天油管看了多少",)),
    Q("那学习呢", "followup", Share(STUDY, day(1)), before=("昨天工作占比多少",)),
    Q("那飞书呢？", "followup", Amount(FEISHU, week(0)), before=("这周微信用了多久",)),
    Q("前天呢", "followup", LastFirst(CODE, day(2), last=False), before=("昨天几点开始用vsc的",)),
    Q("上周的呢", "followup", Top("apps", week(1), 3), before=("这周用得最多的三个app",)),
    Q(
        "what about the day before",
        "followup",
        Amount(SLACK, day(2)),
        before=("slack time yesterday?",),
    ),
    Q(
        "and last week?",
        "followup",
        Amount(CODE, week(1)),
        before=("how long in vscode this week",),
    ),
    Q("and zoom?", "followup", Amount(ZOOM, day(1)), before=("how long on slack yesterday",)),
    Q(
        "what about entertainment",
        "followup",
        Share(FUN, week(0)),
        before=("work share this week?",),
    ),
    Q(
        "ok and spotify",
        "followup",
        Days(SPOTIFY, week(1)),
        before=("which days last week did i play steam",),
    ),
    Q(
        "same for last week pls",
        "followup",
        Average(SCREEN, week(1)),
        before=("avg daily screen time this week pls",),
    ),
    Q("how about {d3:en}", "followup", Amount(GITHUB, day(3)), before=("github time yesterday",)),
]

NO_PERIOD = [
    Q("b站看了多久", "no_period", NoPeriod(BILIBILI)),
    Q("我刷抖音多长时间了", "no_period", NoPeriod(DOUYIN)),
    Q("vsc用了多久？", "no_period", NoPeriod(CODE)),
    Q("微信花了多少时间", "no_period", NoPeriod(WECHAT)),
    Q("学习了多久", "no_period", NoPeriod(STUDY)),
    Q("打steam打了多久啊", "no_period", NoPeriod(STEAM)),
    Q("油管看了多少", "no_period", NoPeriod(YOUTUBE)),
    Q("how long on youtube", "no_period", NoPeriod(YOUTUBE)),
    Q("slack tiem?", "no_period", NoPeriod(SLACK)),
    Q("how much have i worked", "no_period", NoPeriod(WORK)),
    Q("hours in iterm", "no_period", NoPeriod(ITERM)),
    Q("how long have i been on github", "no_period", NoPeriod(GITHUB)),
    Q("my entertainment time", "no_period", NoPeriod(FUN)),
    Q("zoom usage", "no_period", NoPeriod(ZOOM)),
]

UNKNOWN = [
    Q("昨天用了多久photoshop", "unknown", Unknown("Photoshop")),
    Q("这周刷微博多久", "unknown", Unknown("微博")),
    Q("上周玩王者荣耀多长时间", "unknown", Unknown("王者荣耀")),
    Q("昨天知乎看了多久？", "unknown", Unknown("知乎")),
    Q("这周用了多久 excel", "unknown", Unknown("Excel")),
    Q("昨天淘宝逛了多久", "unknown", Unknown("淘宝")),
    Q("最近7天网易云音乐听了多久", "unknown", Unknown("网易云音乐")),
    Q("how long on twitter yesterday.", "unknown", Unknown("Twitter")),
    Q("netflix time this week?", "unknown", Unknown("Netflix")),
    Q("how much figma did i use last week", "unknown", Unknown("Figma")),
    Q("time in discord yesterday", "unknown", Unknown("Discord")),
    Q("how long was i on reddit this week", "unknown", Unknown("Reddit")),
    Q("hours of minecraft last 7 days", "unknown", Unknown("Minecraft")),
    Q("how long did i use pycharm ytd", "unknown", Unknown("PyCharm")),
]

QUESTIONS: list[Q] = [
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
