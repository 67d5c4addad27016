"""The 'after' blind set: written blind, then scored once against the parser of
issue 36 (parts, lexicon, planner): 154/226 (68.1 %), run day 2026-12-05, Saturday;
the JSON line is after.score.json. Not edited after scoring.

Written without reading the offline answerer, its parser, its docs or the 'before'
set: questions worded the way people type them to a chatbot (short forms, typos,
mixed Chinese and English, with or without a question mark), about the sample's real
apps, sites, categories, files and days. Every truth is computed by SQL at run time
(`bench/blind/judge.py`); nothing here knows a number.

    python bench/agent_blind.py --set after --truth-only
"""

from __future__ import annotations

from datetime import date, timedelta

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
    FIREFOX,
    FUN,
    GITHUB,
    ITERM,
    MAIL,
    NOTION,
    ONEPASSWORD,
    PREVIEW,
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
    Period,
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

# Files, pages and titles the sample shows (window titles, matched by SQL ILIKE).
MIGRATION_MD = title("迁移说明", "迁移说明.md")
SEGMENTER_PY = title("segmenter.py")
MODELS_PY = title("models.py")
INGEST_PY = title("ingest.py")
UNNEST = title("unnest several arrays", "unnest", "Stack Overflow")
ATTENTION = title("Attention Is All You Need", "Attention", "arXiv")
EM_LLM = title("EM-LLM", "Episodic Memory")
CSAPP = title("深入理解计算机系统", "CSAPP")
HADES = title("Hades II", "Hades", "Steam")
QINGTIAN = title("晴天", "周杰伦")
LOFI = title("lofi", "lofi hip hop")
GENSHIN = title("原神", "Genshin")
NIGHT_WALK = title("城市夜景", "夜景")
JAPANESE = title("日语 N2", "日语", "N2", "Anki")
WEEKLY_SYNC = title("每周同步会", "同步会")
ROADMAP = title("Roadmap 2026", "Roadmap")
WEEKLY_REPORT = title("周报")
LIN = title("Direct message with Lin", "Lin")
FLAKY_PR = title("Fix flaky ingest test", "flaky", "Pull Request", "PR")
PYTEST = title("pytest")
MAKE_TEST = title("make test")
MOMENTS = title("朋友圈", "Moments")
ML_COURSE = title("机器学习", "machine learning", "Coursera")
REVERT = title("git revert", "revert")
RESET_HARD = title("git reset --hard", "reset --hard")
INVOICE = title("invoice", "Preview")

VIDEO = anyof("YouTube and bilibili", YOUTUBE, BILIBILI)
PHONE_FUN = anyof("抖音 and 小红书", DOUYIN, XHS)
BROWSERS = anyof("Chrome and Firefox", CHROME, FIREFOX)


def last_workweek() -> Period:
    """Monday to Friday of last week ("上周一到周五")."""

    def spans(today: date) -> list[tuple[date, date]]:
        monday = today - timedelta(days=today.weekday() + 7)
        return [(monday, monday + timedelta(days=4))]

    return Period("last week Mon-Fri", spans)


ROLLBACK = ("forced_rollback",)
REWORK = ("rework",)
LATE = ("late_night",)
FOCUS = ("focus_block",)
DISTRACT = ("distraction",)
IDLE = ("idle_gap",)
STORM = ("context_switch_storm",)

AMOUNT = [
    Q("昨天vsc用了多久", "amount", Amount(CODE, day(1))),
    Q("how long was i on yt yesterady", "amount", Amount(YOUTUBE, day(1))),
    Q("前天刷抖音刷了多少分钟？", "amount", Amount(DOUYIN, day(2), minutes=True)),
    Q("hw much time in slack last wk?", "amount", Amount(SLACK, week(1))),
    Q("上周b站看了几个钟头", "amount", Amount(BILIBILI, week(1))),
    Q("total screen time {d3:en}?", "amount", Amount(SCREEN, day(3))),
    Q("{d4:zh}在终端里待了多久", "amount", Amount(ITERM, day(4))),
    Q("how many mins of zoom calls on {d2:md}", "amount", Amount(ZOOM, day(2), minutes=True)),
    Q("这周 gh 上花了多少时间", "amount", Amount(GITHUB, week(0))),
    Q("hours of studyign this month.", "amount", Amount(STUDY, month(0))),
    Q("上个月一共工做了多少小时", "amount", Amount(WORK, month(1))),
    Q("how much steam did i play lsat week", "amount", Amount(STEAM, week(1))),
    Q("最近7天微信聊了多久", "amount", Amount(WECHAT, last_days(7))),
    Q("yesterdays notion time", "amount", Amount(NOTION, day(1))),
    Q("{d5:iso} 那天 xhs 刷了多久", "amount", Amount(XHS, day(5))),
    Q("spotify past 3 days, how long", "amount", Amount(SPOTIFY, last_days(3))),
    Q("今天抖音多久了", "amount", Amount(DOUYIN, day(0))),
    Q("上周看视频一共多久 yt+B站加起来", "amount", Amount(VIDEO, week(1))),
    Q("douyin + xhs combined yesterday, how long", "amount", Amount(PHONE_FUN, day(1))),
    Q("chrome + firefox together yesterday, how long", "amount", Amount(BROWSERS, day(1))),
    Q("how long was preview open on {d2:en}", "amount", Amount(PREVIEW, day(2))),
]

SHARE = [
    Q("上周娱乐占了多少比例", "share", Share(FUN, week(1))),
    Q("what % of yesterday was work", "share", Share(WORK, day(1))),
    Q("昨天社交时间占比？", "share", Share(SOCIAL, day(1))),
    Q("percent of my screen time on bilibili last week", "share", Share(BILIBILI, week(1))),
    Q("这个月学习时间占百分之几", "share", Share(STUDY, month(0))),
    Q(
        "how much of my work time last wk was on github, in %",
        "share",
        Share(GITHUB, week(1), whole=WORK),
    ),
    Q("上个月 vscode 占总时长的百分比", "share", Share(CODE, month(1))),
    Q("share of entertainment on {d7:en}", "share", Share(FUN, day(7))),
    Q("前天开会(zoom)占了百分之多少", "share", Share(ZOOM, day(2))),
    Q(
        "what fraction of the last 7 days went to chrome? percent pls",
        "share",
        Share(CHROME, last_days(7)),
    ),
    Q("娱乐里面抖音占几成？上周的，给个百分比", "share", Share(DOUYIN, week(1), whole=FUN)),
    Q("yt share of total screen time this month", "share", Share(YOUTUBE, month(0))),
    Q("最近两周工作占比多少%", "share", Share(WORK, last_days(14))),
]

AVERAGE = [
    Q("上周平均每天写多少代码（vsc）", "average", Average(CODE, week(1))),
    Q("avg daily screen tiem last week?", "average", Average(SCREEN, week(1))),
    Q("这个月平均一天刷多久抖音", "average", Average(DOUYIN, month(0))),
    Q(
        "on average how long do i spend on bilibili per day, past 2 weeks",
        "average",
        Average(BILIBILI, last_days(14)),
    ),
    Q("上个月日均学习时长", "average", Average(STUDY, month(1))),
    Q("average hrs of work per day last month", "average", Average(WORK, month(1))),
    Q("最近一周每天平均微信多长时间", "average", Average(WECHAT, last_days(7))),
    Q("daily avg for youtube this wk", "average", Average(YOUTUBE, week(0))),
    Q("平均下来每天开多久会啊 上周", "average", Average(ZOOM, week(1))),
    Q(
        "whats my average per day on steam over the last 10 days",
        "average",
        Average(STEAM, last_days(10)),
    ),
    Q("上周一到周五平均每天在终端多久", "average", Average(ITERM, last_workweek())),
    Q("mean daily social time last week", "average", Average(SOCIAL, week(1))),
    Q("近30天 xhs 日均多少", "average", Average(XHS, last_days(30))),
]

TOP = [
    Q("昨天用得最多的app是啥", "top", Top("apps", day(1), 1)),
    Q("top 3 apps last weeek", "top", Top("apps", week(1), 3)),
    Q("上周用最多的前五个应用", "top", Top("apps", week(1), 5)),
    Q("which website did i spend the most time on this month", "top", Top("sites", month(0), 1)),
    Q("上个月最常上的3个网站", "top", Top("sites", month(1), 3)),
    Q("Biggest category yesterday.", "top", Top("categories", day(1), 1)),
    Q("{d6:zh}时间主要花在哪个类别上", "top", Top("categories", day(6), 1)),
    Q("what did i use most on {d7:en}", "top", Top("apps", day(7), 1)),
    Q("上周排名前两位的网站", "top", Top("sites", week(1), 2)),
    Q("rank my categories last week, top 3", "top", Top("categories", week(1), 3)),
    Q("上周六用得最多的是哪个软件", "top", Top("apps", weekday(5, weeks_back=1), 1)),
    Q("most used app on sunday", "top", Top("apps", weekday(6, loose=True), 1)),
    Q("这个月 top3 app", "top", Top("apps", month(0), 3)),
    Q("top site yesterday", "top", Top("sites", day(1), 1)),
]

DAYS_WITH = [
    Q("上周哪几天打开过 zoom", "days_with", Days(ZOOM, week(1))),
    Q("which days last week did i study", "days_with", Days(STUDY, week(1))),
    Q("这周哪天看了arxvi", "days_with", Days(ARXIV, week(0))),
    Q("how many days this month did i use anki", "days_with", Days(ANKI, month(0), count=True)),
    Q("上个月有几天用过微信读书", "days_with", Days(WEREAD, month(1), count=True)),
    Q("days i went on coursera in the past 2 weeks?", "days_with", Days(COURSERA, last_days(14))),
    Q(
        "最近两周有几天在 gh 上超过一个小时",
        "days_with",
        Days(GITHUB, last_days(14), count=True, min_minutes=60),
    ),
    Q(
        "which days last wk did i watch yt for more than 30 min",
        "days_with",
        Days(YOUTUBE, week(1), min_minutes=30),
    ),
    Q("上周写代码的是哪几天", "days_with", Days(CODE, week(1))),
    Q(
        "how many days did i open notion last month",
        "days_with",
        Days(NOTION, month(1), count=True),
    ),
    Q("这周哪几天玩了steam超过半小时", "days_with", Days(STEAM, week(0), min_minutes=30)),
    Q("on which days this week did i use finder", "days_with", Days(FINDER, week(0))),
    Q("上个月小红书刷了几天", "days_with", Days(XHS, month(1), count=True)),
    Q(
        "which days in the last 10 did i spend over 3 hours in vscode",
        "days_with",
        Days(CODE, last_days(10), min_minutes=180),
    ),
]

DAYS_WITHOUT = [
    Q("上周哪天没写代码", "days_without", Days(CODE, week(1), present=False)),
    Q(
        "which days last week didnt i open slack",
        "days_without",
        Days(SLACK, week(1), present=False),
    ),
    Q("这周有没有哪天没学习？是哪几天", "days_without", Days(STUDY, week(0), present=False)),
    Q(
        "how many days this month with no zoom at all",
        "days_without",
        Days(ZOOM, month(0), present=False, count=True),
    ),
    Q(
        "上个月有几天完全没碰vscode",
        "days_without",
        Days(CODE, month(1), present=False, count=True),
    ),
    Q(
        "days without any coursera in the last 2 weeks?",
        "days_without",
        Days(COURSERA, last_days(14), present=False),
    ),
    Q("最近一周哪些天没打开 anki", "days_without", Days(ANKI, last_days(7), present=False)),
    Q(
        "were there days last wk i didnt open weread",
        "days_without",
        Days(WEREAD, week(1), present=False),
    ),
    Q("上周哪几天没开会", "days_without", Days(ZOOM, week(1), present=False)),
    Q("which days this week had no github", "days_without", Days(GITHUB, week(0), present=False)),
    Q("这个月有几天没看arXiv", "days_without", Days(ARXIV, month(0), present=False, count=True)),
    Q("days with zero notion last week", "days_without", Days(NOTION, week(1), present=False)),
    Q("最近10天哪几天没打开微信读书", "days_without", Days(WEREAD, last_days(10), present=False)),
    Q(
        "how many days last month did i skip studying",
        "days_without",
        Days(STUDY, month(1), present=False, count=True),
    ),
]

CONTEST = [
    Q("上周 B站 和 油管 哪个看得多", "contest", Contest(BILIBILI, YOUTUBE, week(1))),
    Q("yt or bilibili more yesterday?", "contest", Contest(YOUTUBE, BILIBILI, day(1))),
    Q("抖音和小红书昨天哪个刷得久", "contest", Contest(DOUYIN, XHS, day(1))),
    Q(
        "did i spend more time in vscdoe or iterm last week",
        "contest",
        Contest(CODE, ITERM, week(1)),
    ),
    Q("这个月微信多还是飞书多", "contest", Contest(WECHAT, FEISHU, month(0))),
    Q("slack vs zoom this week, which one wins", "contest", Contest(SLACK, ZOOM, week(0))),
    Q("学习和娱乐上周哪个时间更长", "contest", Contest(STUDY, FUN, week(1))),
    Q(
        "more github or stackoverflow in the past 7 days",
        "contest",
        Contest(GITHUB, STACKOVERFLOW, last_days(7)),
    ),
    Q("上个月 steam 跟 spotify 谁用得多", "contest", Contest(STEAM, SPOTIFY, month(1))),
    Q(
        "arxiv or coursera, which did i study more last month",
        "contest",
        Contest(ARXIV, COURSERA, month(1)),
    ),
    Q("{d3:zh} chrome 和 firefox 哪个用得多", "contest", Contest(CHROME, FIREFOX, day(3))),
    Q("anki vs weread last week?", "contest", Contest(ANKI, WEREAD, week(1))),
    Q("前天工作时间和社交时间比 哪个多", "contest", Contest(WORK, SOCIAL, day(2))),
    Q("notion or mail more this month", "contest", Contest(NOTION, MAIL, month(0))),
]

THRESHOLD = [
    Q("上周工作超过40小时了吗", "threshold", Threshold(WORK, week(1), 40)),
    Q(
        "did i watch more than 2h of bilibili last week",
        "threshold",
        Threshold(BILIBILI, week(1), 2),
    ),
    Q("昨天屏幕时间有没有超过10个小时", "threshold", Threshold(SCREEN, day(1), 10)),
    Q(
        "was i under 1 hour on douyin yesterday?",
        "threshold",
        Threshold(DOUYIN, day(1), 1, over=False),
    ),
    Q("这周 vsc 用满20小时没", "threshold", Threshold(CODE, week(0), 20)),
    Q("did my screen time go over 12 hrs on {d2:en}", "threshold", Threshold(SCREEN, day(2), 12)),
    Q("上个月学习少于20小时吗", "threshold", Threshold(STUDY, month(1), 20, over=False)),
    Q("more then 5 hours of meetings last week?", "threshold", Threshold(ZOOM, week(1), 5)),
    Q("前天游戏(steam)玩了超过1小时吗", "threshold", Threshold(STEAM, day(2), 1)),
    Q(
        "is my entertainment this month below 15h",
        "threshold",
        Threshold(FUN, month(0), 15, over=False),
    ),
    Q("昨天微信聊天超过半小时没有", "threshold", Threshold(WECHAT, day(1), 0.5)),
    Q(
        "did yt go past 3 hours last week",
        "threshold",
        Threshold(YOUTUBE, week(1), 3),
    ),
    Q("上周小红书有没有少于2小时", "threshold", Threshold(XHS, week(1), 2, over=False)),
    Q("over 8h of work on {d4:md}?", "threshold", Threshold(WORK, day(4), 8)),
]

LAST_FIRST = [
    Q("最后一次开steam是啥时候。", "last_first", LastFirst(STEAM, ALL)),
    Q("when did i last use coursra", "last_first", LastFirst(COURSERA, ALL)),
    Q("昨天几点开始工作的", "last_first", LastFirst(WORK, day(1), last=False)),
    Q("what time did i stop using the computer yesterday", "last_first", LastFirst(SCREEN, day(1))),
    Q("前天最后一次用 vsc 是几点", "last_first", LastFirst(CODE, day(2))),
    Q("when was my first zoom call on {d3:en}", "last_first", LastFirst(ZOOM, day(3), last=False)),
    Q("上次看arxiv是哪天几点", "last_first", LastFirst(ARXIV, ALL)),
    Q("last time i opened anki?", "last_first", LastFirst(ANKI, ALL)),
    Q(
        "first douyin of the day on {d2:en}? what time",
        "last_first",
        LastFirst(DOUYIN, day(2), last=False),
    ),
    Q(
        "what time did i start on yt yesterday",
        "last_first",
        LastFirst(YOUTUBE, day(1), last=False),
    ),
    Q("昨天几点下班的（最后一次工作）", "last_first", LastFirst(WORK, day(1))),
    Q("when did i last read on weread", "last_first", LastFirst(WEREAD, ALL)),
    Q("上一次用1password是啥时候", "last_first", LastFirst(ONEPASSWORD, ALL)),
    Q(
        "first thing i did on the computer {d4:en}, what time",
        "last_first",
        LastFirst(SCREEN, day(4), last=False),
    ),
]

WINDOW = [
    Q("昨天下午两点到五点我在干嘛", "window", Window(day(1), "14:00", "17:00")),
    Q("what was i doing yday between 8 and 10pm", "window", Window(day(1), "20:00", "22:00")),
    Q("前天上午9点半到11点在忙啥", "window", Window(day(2), "09:30", "11:00")),
    Q("what did i do {d3:en} from 1pm to 2pm", "window", Window(day(3), "13:00", "14:00")),
    Q("{d6:zh}晚上十点以后干了啥", "window", Window(day(6), "22:00", "23:59")),
    Q("yesterday 10-11am, what was i on", "window", Window(day(1), "10:00", "11:00")),
    Q("上周六下午在电脑上干了什么", "window", Window(weekday(5, weeks_back=1), "14:00", "17:00")),
    Q("what was on my screen {d2:md} 3pm-4pm", "window", Window(day(2), "15:00", "16:00")),
    Q("昨晚11点半到凌晨一点在干嘛", "window", Window(day(1), "23:30", "01:00")),
    Q(
        "sunday morning 10:30 to noon, what did i do",
        "window",
        Window(weekday(6, loose=True), "10:30", "12:00"),
    ),
    Q("{d5:zh}中午12点到1点在干嘛", "window", Window(day(5), "12:00", "13:00")),
    Q("what was i up to on {d4:en} evening 8-9", "window", Window(day(4), "20:00", "21:00")),
    Q("前天下午4点到5点半 在做什么", "window", Window(day(2), "16:00", "17:30")),
]

HABITS = [
    Q("上周熬夜了几天", "habits", Signals(LATE, week(1), "count")),
    Q(
        "did i git reset --hard or revert anything yesterday",
        "habits",
        Signals(ROLLBACK, day(1), "yesno"),
    ),
    Q("这周哪几天有返工", "habits", Signals(REWORK, week(0), "days")),
    Q("which nights this week did i stay up late", "habits", Signals(LATE, week(0), "days")),
    Q("上个月强制回滚了几天", "habits", Signals(ROLLBACK, month(1), "count")),
    Q(
        "how many days last week did i get distracted while working",
        "habits",
        Signals(DISTRACT, week(1), "count"),
    ),
    Q("最近有没有频繁切换窗口的情况？这周", "habits", Signals(STORM, week(0), "yesno")),
    Q("any rework on {d2:en}?", "habits", Signals(REWORK, day(2), "yesno")),
    Q("上周哪几天有强制回滚", "habits", Signals(ROLLBACK, week(1), "days")),
    Q(
        "how many focus blocks days did i have last week",
        "habits",
        Signals(FOCUS, week(1), "count"),
    ),
    Q("前天晚上熬夜了吗", "habits", Signals(LATE, day(2), "yesno")),
    Q("did i stay up late on {d8:en}", "habits", Signals(LATE, day(8), "yesno")),
    Q("上个月有几天摸鱼（工作时分心）", "habits", Signals(DISTRACT, month(1), "count")),
    Q(
        "last month, how many days had rework (undo storms, retry loops etc)",
        "habits",
        Signals(REWORK, month(1), "count"),
    ),
    Q("昨天有长时间离开电脑吗", "habits", Signals(IDLE, day(1), "yesno")),
]

SEARCH = [
    Q("迁移说明.md 昨天改了多久", "search", Amount(MIGRATION_MD, day(1))),
    Q("how long did i work on segmenter.py last week", "search", Amount(SEGMENTER_PY, week(1))),
    Q("上次看 attention is all you need 是哪天", "search", LastFirst(ATTENTION, ALL)),
    Q("when did i last look at that EM-LLM paper", "search", LastFirst(EM_LLM, ALL)),
    Q("这周哪几天看了深入理解计算机系统", "search", Days(CSAPP, week(0))),
    Q("how much hades did i play last week", "search", Amount(HADES, week(1))),
    Q("上周听了多久晴天", "search", Amount(QINGTIAN, week(1))),
    Q(
        "the postgres unnest arrays stackoverflow question, how long total last month",
        "search",
        Amount(UNNEST, month(1)),
    ),
    Q("原神PV前天看了多久", "search", Amount(GENSHIN, day(2))),
    Q("lofi hip hop yesterday how long did it play", "search", Amount(LOFI, day(1))),
    Q("日语N2 上周复习了几天", "search", Days(JAPANESE, week(1), count=True)),
    Q("when was the last weekly sync call", "search", LastFirst(WEEKLY_SYNC, ALL)),
    Q("roadmap 2026 那个notion页面这周看了多久", "search", Amount(ROADMAP, week(0))),
    Q(
        "how long did i spend on the flaky ingest test PR last week",
        "search",
        Amount(FLAKY_PR, week(1)),
    ),
    Q("上周跑 pytest 花了多久", "search", Amount(PYTEST, week(1))),
    Q("last time i ran git revert?", "search", LastFirst(REVERT, ALL)),
    Q("哪天 git reset --hard 过，最近一次是什么时候", "search", LastFirst(RESET_HARD, ALL)),
    Q("how much time chatting with Lin on slack this week", "search", Amount(LIN, week(0))),
    Q("models.py yesterday how long", "search", Amount(MODELS_PY, day(1))),
    Q("上周哪几天改过 ingest.py", "search", Days(INGEST_PY, week(1))),
    Q("城市夜景那个视频上周看了多久", "search", Amount(NIGHT_WALK, week(1))),
    Q("周报最后一次写是什么时候", "search", LastFirst(WEEKLY_REPORT, ALL)),
    Q("昨天刷朋友圈刷了多久", "search", Amount(MOMENTS, day(1))),
    Q(
        "the machine learning course on coursera, hours last month",
        "search",
        Amount(ML_COURSE, month(1)),
    ),
    Q("how long did make test run yesterday", "search", Amount(MAKE_TEST, day(1))),
    Q(
        "how many days last week did i open an invoice pdf",
        "search",
        Days(INVOICE, week(1), count=True),
    ),
]

FOLLOWUP = [
    Q("那前天呢", "followup", Amount(YOUTUBE, day(2)), before=("yt 昨天看了多久",)),
    Q(
        "and bilibili?",
        "followup",
        Amount(BILIBILI, day(1)),
        before=("how long on youtube yesterday",),
    ),
    Q("那上上周呢", "followup", Amount(WORK, week(2)), before=("上周工作了多少小时",)),
    Q(
        "what about last month",
        "followup",
        Amount(STUDY, month(1)),
        before=("how much did i study this month",),
    ),
    Q("换成小红书呢", "followup", Amount(XHS, week(1)), before=("上周抖音刷了多久",)),
    Q(
        "and the week before that?",
        "followup",
        Share(FUN, week(2)),
        before=("what % of my time was entertainment last week",),
    ),
    Q("那微信呢", "followup", Amount(WECHAT, day(1)), before=("昨天 slack 用了多久",)),
    Q("ok and iterm", "followup", Amount(ITERM, week(1)), before=("vscode hours last week?",)),
    Q("{d3:zh}呢？", "followup", Amount(STEAM, day(3)), before=("昨天steam玩了多久",)),
    Q("same for firefox", "followup", Amount(FIREFOX, day(1)), before=("chrome time yesterday",)),
    Q(
        "那第二名呢？前三名都说一下",
        "followup",
        Top("apps", week(1), 3),
        before=("上周用得最多的app是哪个",),
    ),
    Q(
        "what about {d2:en}",
        "followup",
        LastFirst(WORK, day(2), last=False),
        before=("what time did i start working yesterday",),
    ),
    Q("上周呢", "followup", Days(ZOOM, week(1)), before=("这周哪几天开了zoom",)),
    Q(
        "and in minutes?",
        "followup",
        Amount(NOTION, last_days(7), minutes=True),
        before=("how long was i in notion over the past 7 days",),
    ),
]

NO_PERIOD = [
    Q("我刷抖音多久了", "no_period", NoPeriod(DOUYIN)),
    Q("how much youtube do i watch", "no_period", NoPeriod(YOUTUBE)),
    Q("vsc 用了多长时间", "no_period", NoPeriod(CODE)),
    Q("how long have i been on slack", "no_period", NoPeriod(SLACK)),
    Q("B站看了多久啊", "no_period", NoPeriod(BILIBILI)),
    Q("time spent gaming on steam?", "no_period", NoPeriod(STEAM)),
    Q("微信用了多少时间", "no_period", NoPeriod(WECHAT)),
    Q("how much have i studied", "no_period", NoPeriod(STUDY)),
    Q("工作时长多少", "no_period", NoPeriod(WORK)),
    Q("gh time", "no_period", NoPeriod(GITHUB)),
    Q("小红书刷了多少", "no_period", NoPeriod(XHS)),
    Q("zoom meetings how long total", "no_period", NoPeriod(ZOOM)),
    Q("娱乐时间有多少", "no_period", NoPeriod(FUN)),
]

UNKNOWN = [
    Q("昨天刷了多久知乎", "unknown", Unknown("知乎")),
    Q("how long on twitter yesterday", "unknown", Unknown("Twitter")),
    Q("上周王者荣耀玩了几个小时", "unknown", Unknown("王者荣耀")),
    Q("how much figma did i use this week", "unknown", Unknown("Figma")),
    Q("这个月淘宝逛了多久", "unknown", Unknown("淘宝")),
    Q("netflix time last week?", "unknown", Unknown("Netflix")),
    Q("昨天网易云听了多久", "unknown", Unknown("网易云音乐")),
    Q("hours in pycharm last month", "unknown", Unknown("PyCharm")),
    Q("前天在 discord 上聊了多久", "unknown", Unknown("Discord")),
    Q("how long did i play league yesterday", "unknown", Unknown("League of Legends")),
    Q("这周爱奇艺看了多久", "unknown", Unknown("爱奇艺")),
    Q("reddit this week, how long", "unknown", Unknown("Reddit")),
    Q("photoshop hours last week", "unknown", Unknown("Photoshop")),
    Q("time on leetcode in the past 7 days", "unknown", Unknown("LeetCode")),
]

QUESTIONS = [
    *AMOUNT, *SHARE, *AVERAGE, *TOP, *DAYS_WITH, *DAYS_WITHOUT, *CONTEST, *THRESHOLD,
    *LAST_FIRST, *WINDOW, *HABITS, *SEARCH, *FOLLOWUP, *NO_PERIOD, *UNKNOWN,
]  # fmt: skip
