"""The seventh blind set: written blind, then scored once against the answerer with
branch asking5 merged: 196/210 (93.3 %), run day 2026-12-06, a Sunday in the sample's
zone; the JSON line is seventh.score.json, every miss is in seventh.misses.md. Not
edited after scoring.

Written without reading the offline answerer, its docs on how questions are read, or
any other question set; worded the way people type to a chatbot (short forms, typos,
Chinese, English and both mixed). Every truth is computed by SQL at run time.

    python bench/agent_blind.py --set seventh --truth-only
"""

from __future__ import annotations

from bench.blind.spec import (
    ANKI,
    ARXIV,
    BILIBILI,
    CHROME,
    CODE,
    COURSERA,
    DOUYIN,
    FEISHU,
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
    SYSTEM,
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
)

# The sample's files and pages, by a piece of their window titles.
SEGMENTER = title("segmenter.py")
INGEST_PY = title("ingest.py")
MIGRATION_MD = title("迁移说明.md", "迁移说明")
HADES = title("Hades II", "Hades", "哈迪斯")
QINGTIAN = title("晴天", "周杰伦")
CSAPP = title("深入理解计算机系统", "CSAPP")
JAPANESE = title("日语 N2", "日语", "N2")
ML_COURSE = title("机器学习", "machine learning", "Coursera")
PYTEST = title("pytest")
WEEKLY = title("周报")
LOFI = title("lofi")
GENSHIN = title("原神", "Genshin")
LIN = title("Direct message with Lin", "Lin")
INVOICE = title("invoice", "发票")
PHONE_FUN = anyof("抖音+小红书", DOUYIN, XHS)
VIDEO = anyof("B站+油管", BILIBILI, YOUTUBE)

AMOUNT = [
    Q("vsc前天开了多久", "amount", Amount(CODE, day(2))),
    Q("how long was i on yt yesterdy", "amount", Amount(YOUTUBE, day(1))),
    Q("前天刷抖音刷了多久啊", "amount", Amount(DOUYIN, day(2))),
    Q("total screen time last week?", "amount", Amount(SCREEN, week(1))),
    Q("上周B站看了几个小时", "amount", Amount(BILIBILI, week(1))),
    Q("how much time in slack this wk", "amount", Amount(SLACK, week(0))),
    Q("{d3:zh} vx用了多久", "amount", Amount(WECHAT, day(3))),
    Q("gh time on {d4:en}?", "amount", Amount(GITHUB, day(4))),
    Q("这个月学习花了多少时间", "amount", Amount(STUDY, month(0))),
    Q(
        "how many mins did i spend in zoom calls lastweek",
        "amount",
        Amount(ZOOM, week(1), minutes=True),
    ),
    Q("过去7天终端用了多少分钟", "amount", Amount(ITERM, last_days(7), minutes=True)),
    Q("steam playtime past 2 weeks", "amount", Amount(STEAM, last_days(14))),
    Q("上上周娱乐一共多久", "amount", Amount(FUN, week(2))),
    Q("notion time {d5:md}", "amount", Amount(NOTION, day(5))),
]

SHARE = [
    Q("前天工作占了多少比例", "share", Share(WORK, day(2))),
    Q("wat % of my screentime last week was entertainment", "share", Share(FUN, week(1))),
    Q("上周社交占屏幕时间百分之几", "share", Share(SOCIAL, week(1))),
    Q("how much of {d3:en} was vscode, percentage wise", "share", Share(CODE, day(3))),
    Q("这周学习占比多少？", "share", Share(STUDY, week(0))),
    Q("share of chrome in the last 7 days?", "share", Share(CHROME, last_days(7))),
    Q("b站占我娱乐时间的几成，上周", "share", Share(BILIBILI, week(1), whole=FUN)),
    Q(
        "what fraction of my work time last wk was github",
        "share",
        Share(GITHUB, week(1), whole=WORK),
    ),
    Q("{d2:zh}娱乐占比", "share", Share(FUN, day(2))),
    Q("percent of time on wechat this mnoth", "share", Share(WECHAT, month(0))),
    Q("本月工作时间占总时长百分比是多少", "share", Share(WORK, month(0))),
    Q("terminal % of work time on {d2:md}", "share", Share(ITERM, day(2), whole=WORK)),
    Q("上个月娱乐占多少%", "share", Share(FUN, month(1))),
    Q("system stuff (finder etc) share last 14 days", "share", Share(SYSTEM, last_days(14))),
]

AVERAGE = [
    Q("上周平均每天屏幕时间多少", "average", Average(SCREEN, week(1))),
    Q("avg daily vsc time last 2 weeks?", "average", Average(CODE, last_days(14))),
    Q("最近一周每天平均刷多久抖音", "average", Average(DOUYIN, last_days(7))),
    Q(
        "on average how long do i watch youtube per day this month",
        "average",
        Average(YOUTUBE, month(0)),
    ),
    Q("这个月平均每天学习多长时间", "average", Average(STUDY, month(0))),
    Q("daily avg for slak last week", "average", Average(SLACK, week(1))),
    Q("上周日均工作时长", "average", Average(WORK, week(1))),
    Q("how much entertainment per day on avg, past 7 days", "average", Average(FUN, last_days(7))),
    Q("过去两周微信平均一天用多久", "average", Average(WECHAT, last_days(14))),
    Q("mean daily time in iterm this week", "average", Average(ITERM, week(0))),
    Q("上个月b站日均多少", "average", Average(BILIBILI, month(1))),
    Q("average zoom time a day last wk", "average", Average(ZOOM, week(1))),
    Q("近30天平均每天社交多久", "average", Average(SOCIAL, last_days(30))),
    Q("whats my avg daily gh time past 10 days", "average", Average(GITHUB, last_days(10))),
]

TOP = [
    Q("昨天用得最多的app是哪个", "top", Top("apps", day(1), 1)),
    Q("top 3 apps last week", "top", Top("apps", week(1), 3)),
    Q("上周最常去的网站前三", "top", Top("sites", week(1), 3)),
    Q("which site did i spend the most time on yesterday", "top", Top("sites", day(1), 1)),
    Q("这周时间主要花在哪几类上？排个序", "top", Top("categories", week(0), 3)),
    Q("most used category this month?", "top", Top("categories", month(0), 1)),
    Q("过去7天用的最多的5个软件", "top", Top("apps", last_days(7), 5)),
    Q("top 2 sites {d3:en}", "top", Top("sites", day(3), 2)),
    Q("{d2:zh}哪个应用用的最久", "top", Top("apps", day(2), 1)),
    Q("what were my biggest time sinks last month, top 3 apps", "top", Top("apps", month(1), 3)),
    Q("上个月网站排行前2", "top", Top("sites", month(1), 2)),
    Q("rank my categories for last week", "top", Top("categories", week(1), 3)),
    Q("这周哪个网站看的最多", "top", Top("sites", week(0), 1)),
    Q("fav app past 2 wks?", "top", Top("apps", last_days(14), 1)),
]

DAYS_WITH = [
    Q("上周哪几天玩了steam", "days_with", Days(STEAM, week(1))),
    Q("which days last week did i open zoom", "days_with", Days(ZOOM, week(1))),
    Q("这周哪天刷了b站", "days_with", Days(BILIBILI, week(0))),
    Q(
        "how many days this month did i watch youtube",
        "days_with",
        Days(YOUTUBE, month(0), count=True),
    ),
    Q("过去两周有几天用了anki", "days_with", Days(ANKI, last_days(14), count=True)),
    Q("what days last wk did i use notion", "days_with", Days(NOTION, week(1))),
    Q("上周有哪些天打开过微信读书", "days_with", Days(WEREAD, week(1))),
    Q("days i was on coursera this week?", "days_with", Days(COURSERA, week(0))),
    Q("上个月玩steam的天数", "days_with", Days(STEAM, month(1), count=True)),
    Q(
        "how many days in the last 30 did i use feishu",
        "days_with",
        Days(FEISHU, last_days(30), count=True),
    ),
    Q("上周哪几天写代码超过2小时", "days_with", Days(CODE, week(1), min_minutes=120)),
    Q(
        "which days last week had more than an hour of entertainment",
        "days_with",
        Days(FUN, week(1), min_minutes=60),
    ),
    Q("这周哪些天看了arxiv论文", "days_with", Days(ARXIV, week(0))),
    Q(
        "number of days w/ spotify past 2 weeks",
        "days_with",
        Days(SPOTIFY, last_days(14), count=True),
    ),
]

DAYS_WITHOUT = [
    Q("上周哪几天没碰vscode", "days_without", Days(CODE, week(1), present=False)),
    Q(
        "which days last week did i NOT play steam",
        "days_without",
        Days(STEAM, week(1), present=False),
    ),
    Q("这周有哪天没刷抖音吗", "days_without", Days(DOUYIN, week(0), present=False)),
    Q(
        "how many days this month without youtube",
        "days_without",
        Days(YOUTUBE, month(0), present=False, count=True),
    ),
    Q(
        "过去两周有几天没学习",
        "days_without",
        Days(STUDY, last_days(14), present=False, count=True),
    ),
    Q("days without zoom last wk?", "days_without", Days(ZOOM, week(1), present=False)),
    Q("上周哪天没开b站", "days_without", Days(BILIBILI, week(1), present=False)),
    Q("any days this week i skipped anki", "days_without", Days(ANKI, week(0), present=False)),
    Q("上个月有几天一点娱乐都没有", "days_without", Days(FUN, month(1), present=False, count=True)),
    Q(
        "which days last week no github at all",
        "days_without",
        Days(GITHUB, week(1), present=False),
    ),
    Q("这周哪几天没用小红书", "days_without", Days(XHS, week(0), present=False)),
    Q(
        "how many days in the past 30 did i not touch notion",
        "days_without",
        Days(NOTION, last_days(30), present=False, count=True),
    ),
    Q("上周没看coursera的是哪几天", "days_without", Days(COURSERA, week(1), present=False)),
    Q("days with no spotify this wk", "days_without", Days(SPOTIFY, week(0), present=False)),
]

CONTEST = [
    Q("昨天b站和油管哪个看得多", "contest", Contest(BILIBILI, YOUTUBE, day(1))),
    Q("vsc or iterm, which did i use more last week", "contest", Contest(CODE, ITERM, week(1))),
    Q("上周工作和娱乐谁多", "contest", Contest(WORK, FUN, week(1))),
    Q("more time on slack or wechat this week?", "contest", Contest(SLACK, WECHAT, week(0))),
    Q("抖音 vs 小红书 这个月", "contest", Contest(DOUYIN, XHS, month(0))),
    Q(
        "github vs stackoverflow {d2:en} - which one more",
        "contest",
        Contest(GITHUB, STACKOVERFLOW, day(2)),
    ),
    Q("过去7天飞书和zoom比哪个时间长", "contest", Contest(FEISHU, ZOOM, last_days(7))),
    Q("did i study more than i played last wk", "contest", Contest(STUDY, FUN, week(1))),
    Q("{d2:zh} 社交跟学习哪个多", "contest", Contest(SOCIAL, STUDY, day(2))),
    Q("anki or weread more this month?", "contest", Contest(ANKI, WEREAD, month(0))),
    Q("上个月steam和b站比谁花的时间多", "contest", Contest(STEAM, BILIBILI, month(1))),
    Q("arxiv vs coursera past 2 weeks", "contest", Contest(ARXIV, COURSERA, last_days(14))),
    Q("这周notion和飞书哪个用的多点", "contest", Contest(NOTION, FEISHU, week(0))),
    Q("mail or slack more on {d3:en}", "contest", Contest(MAIL, SLACK, day(3))),
]

THRESHOLD = [
    Q("昨天屏幕时间超过8小时了吗", "threshold", Threshold(SCREEN, day(1), 8)),
    Q("did i spend over 2h on bilibili last week", "threshold", Threshold(BILIBILI, week(1), 2)),
    Q("这周抖音有没有超过3个小时", "threshold", Threshold(DOUYIN, week(0), 3)),
    Q(
        "was my coding under 4 hours the day before yesterday?",
        "threshold",
        Threshold(CODE, day(2), 4, over=False),
    ),
    Q("上周学习少于5小时吗", "threshold", Threshold(STUDY, week(1), 5, over=False)),
    Q("more than 1 hr of youtube this week?", "threshold", Threshold(YOUTUBE, week(0), 1)),
    Q("前天工作满6小时没", "threshold", Threshold(WORK, day(2), 6)),
    Q("did zoom take more than 3 hours last wk", "threshold", Threshold(ZOOM, week(1), 3)),
    Q("这个月steam玩了超过10小时吗", "threshold", Threshold(STEAM, month(0), 10)),
    Q("was wechat less than 1h yesterday", "threshold", Threshold(WECHAT, day(1), 1, over=False)),
    Q("过去7天娱乐超过10个小时了没", "threshold", Threshold(FUN, last_days(7), 10)),
    Q("did i go over 40 hrs screen time last week", "threshold", Threshold(SCREEN, week(1), 40)),
    Q("上周社交不到3小时吧？", "threshold", Threshold(SOCIAL, week(1), 3, over=False)),
    Q("over 30 min of anki on {d2:en}?", "threshold", Threshold(ANKI, day(2), 0.5)),
]

LAST_FIRST = [
    Q("前天最后一次用vsc是几点", "last_first", LastFirst(CODE, day(2))),
    Q("when did i last open steam", "last_first", LastFirst(STEAM, last_days(30))),
    Q("{d3:zh}几点开始上班的（第一次开iterm）", "last_first", LastFirst(ITERM, day(3), last=False)),
    Q(
        "what time did i first check slack yesterday",
        "last_first",
        LastFirst(SLACK, day(1), last=False),
    ),
    Q("上次看b站是什么时候", "last_first", LastFirst(BILIBILI, last_days(30))),
    Q("last time on youtube?", "last_first", LastFirst(YOUTUBE, last_days(30))),
    Q("前天最早打开微信是几点", "last_first", LastFirst(WECHAT, day(2), last=False)),
    Q("when did zoom end on {d3:en}", "last_first", LastFirst(ZOOM, day(3))),
    Q("最近一次用anki是啥时候", "last_first", LastFirst(ANKI, last_days(30))),
    Q("first time i opened github on {d3:en}", "last_first", LastFirst(GITHUB, day(3), last=False)),
    Q("{d2:zh}抖音最后刷到几点", "last_first", LastFirst(DOUYIN, day(2))),
    Q("when was the last time i used notion", "last_first", LastFirst(NOTION, last_days(30))),
    Q("上回打开coursera是哪天几点", "last_first", LastFirst(COURSERA, last_days(30))),
    Q("when did i stop working {d4:en} (last vscode)", "last_first", LastFirst(CODE, day(4))),
]

WINDOW = [
    Q("昨天下午2点到4点我在干嘛", "window", Window(day(1), "14:00", "16:00")),
    Q("what was i doing yesterday 10-11am", "window", Window(day(1), "10:00", "11:00")),
    Q("前天晚上8点到10点在做什么", "window", Window(day(2), "20:00", "22:00")),
    Q("what did i do {d3:en} between 9 and 12", "window", Window(day(3), "09:00", "12:00")),
    Q("昨晚11点到1点都在干啥", "window", Window(day(1), "23:00", "01:00")),
    Q("yesterday lunchtime 12-1 what was on screen", "window", Window(day(1), "12:00", "13:00")),
    Q("{d4:zh}上午9点到11点用的什么", "window", Window(day(4), "09:00", "11:00")),
    Q("what was i up to at 3-5pm on {d2:en}", "window", Window(day(2), "15:00", "17:00")),
    Q("昨天早上8点到9点在做什么", "window", Window(day(1), "08:00", "09:00")),
    Q("{d5:md} 7pm to 9pm activity?", "window", Window(day(5), "19:00", "21:00")),
    Q("前天14:30-15:30 干了啥", "window", Window(day(2), "14:30", "15:30")),
    Q("what was i doing last night 9 to 11", "window", Window(day(1), "21:00", "23:00")),
    Q("{d3:zh}下午1点到3点", "window", Window(day(3), "13:00", "15:00")),
    Q("yday 16:00-18:00 what was i on", "window", Window(day(1), "16:00", "18:00")),
]

HABITS = [
    Q("上周哪几天熬夜了", "habits", Signals(("late_night",), week(1))),
    Q("did i stay up late yesterday?", "habits", Signals(("late_night",), day(1), "yesno")),
    Q("这周有几天分心了", "habits", Signals(("distraction",), week(0), "count")),
    Q(
        "how many days last week did i have a good focus block",
        "habits",
        Signals(("focus_block",), week(1), "count"),
    ),
    Q("最近两周有没有git回滚过", "habits", Signals(("forced_rollback",), last_days(14), "yesno")),
    Q(
        "which days last wk did i keep redoing the same code",
        "habits",
        Signals(("rework",), week(1)),
    ),
    Q("上周切换窗口太频繁的是哪几天", "habits", Signals(("context_switch_storm",), week(1))),
    Q("was i distracted on {d2:en}", "habits", Signals(("distraction",), day(2), "yesno")),
    Q("这个月熬夜几次了", "habits", Signals(("late_night",), month(0), "count")),
    Q("days with deep focus this week?", "habits", Signals(("focus_block",), week(0))),
    Q("昨天有专注时段吗", "habits", Signals(("focus_block",), day(1), "yesno")),
    Q(
        "how many days past 2 weeks did i rework stuff",
        "habits",
        Signals(("rework",), last_days(14), "count"),
    ),
    Q("前天有没有很长一段时间没动电脑", "habits", Signals(("idle_gap",), day(2), "yesno")),
    Q(
        "any late nights in the last 7 days",
        "habits",
        Signals(("late_night",), last_days(7), "yesno"),
    ),
]

SEARCH = [
    Q("segmenter.py 前天改了多久", "search", Amount(SEGMENTER, day(2))),
    Q("how long did i play hades last week", "search", Amount(HADES, week(1))),
    Q("上周听了多久周杰伦的晴天", "search", Amount(QINGTIAN, week(1))),
    Q("time spent reading CSAPP this month", "search", Amount(CSAPP, month(0))),
    Q("这周背日语单词背了多久", "search", Amount(JAPANESE, week(0))),
    Q(
        "which days last week did i watch the machine learning course",
        "search",
        Days(ML_COURSE, week(1)),
    ),
    Q("上周写周报花了多少时间", "search", Amount(WEEKLY, week(1))),
    Q("how long was pytest running in my terminal on {d3:en}", "search", Amount(PYTEST, day(3))),
    Q("原神那个PV我什么时候看的，最近一次", "search", LastFirst(GENSHIN, last_days(30))),
    Q("lofi radio time past 7 days", "search", Amount(LOFI, last_days(7))),
    Q("上周和Lin私聊了多久", "search", Amount(LIN, week(1))),
    Q("when did i last edit ingest.py", "search", LastFirst(INGEST_PY, last_days(14))),
    Q("迁移说明.md 这周看了几天", "search", Days(MIGRATION_MD, week(0), count=True)),
    Q("how long did i look at invoices (pdf) this month", "search", Amount(INVOICE, month(0))),
]

FOLLOWUP = [
    Q("那前天呢", "followup", Amount(BILIBILI, day(2)), before=("昨天b站看了多久",)),
    Q(
        "and the week before?",
        "followup",
        Amount(CODE, week(2)),
        before=("how much vscode last week",),
    ),
    Q("油管呢", "followup", Amount(YOUTUBE, day(1)), before=("昨天b站看了多久",)),
    Q(
        "what about slack",
        "followup",
        Amount(SLACK, week(1)),
        before=("how long on wechat last week",),
    ),
    Q("上周呢？", "followup", Amount(DOUYIN, week(1)), before=("这周抖音刷了多久",)),
    Q(
        "and the day before that?",
        "followup",
        Share(WORK, day(3)),
        before=("what % of my time was work on {d2:en}",),
    ),
    Q("那日均呢", "followup", Average(STUDY, week(1)), before=("上周学习一共多久",)),
    Q(
        "how about zoom",
        "followup",
        Days(ZOOM, week(1)),
        before=("which days last week did i use notion",),
    ),
    Q(
        "那和iterm比呢，哪个多",
        "followup",
        Contest(CODE, ITERM, day(2)),
        before=("前天vscode用了多久",),
    ),
    Q(
        "and last month?",
        "followup",
        Top("apps", month(1), 1),
        before=("what app did i use most this month",),
    ),
    Q("换成小红书呢", "followup", Amount(XHS, last_days(7)), before=("最近7天抖音刷了多久",)),
    Q(
        "what about the day before",
        "followup",
        Amount(STEAM, day(2)),
        before=("steam time yesterday?",),
    ),
    Q("那社交呢", "followup", Share(SOCIAL, week(1)), before=("上周娱乐占比多少",)),
    Q(
        "ok and github?",
        "followup",
        Amount(GITHUB, week(0)),
        before=("how much stack overflow this week",),
    ),
]

NO_PERIOD = [
    Q("vsc用了多久", "no_period", NoPeriod(CODE)),
    Q("how much youtube have i watched", "no_period", NoPeriod(YOUTUBE)),
    Q("抖音刷了多少", "no_period", NoPeriod(DOUYIN)),
    Q("screen time?", "no_period", NoPeriod(SCREEN)),
    Q("b站看了多长时间", "no_period", NoPeriod(BILIBILI)),
    Q("how long in slack", "no_period", NoPeriod(SLACK)),
    Q("微信用了多久了", "no_period", NoPeriod(WECHAT)),
    Q("time on github", "no_period", NoPeriod(GITHUB)),
    Q("学习时间多少", "no_period", NoPeriod(STUDY)),
    Q("how much gaming on steam", "no_period", NoPeriod(STEAM)),
    Q("娱乐时长", "no_period", NoPeriod(FUN)),
    Q("zoom meetings total?", "no_period", NoPeriod(ZOOM)),
    Q("终端开了多久", "no_period", NoPeriod(ITERM)),
    Q("how much notion", "no_period", NoPeriod(NOTION)),
]

UNKNOWN = [
    Q("昨天玩了多久王者荣耀", "unknown", Unknown("王者荣耀")),
    Q("how long on netflix last week", "unknown", Unknown("Netflix")),
    Q("上周刷了多久知乎", "unknown", Unknown("知乎")),
    Q("figma time yesterday?", "unknown", Unknown("Figma")),
    Q("这周淘宝逛了多久", "unknown", Unknown("淘宝")),
    Q("how much reddit this week", "unknown", Unknown("Reddit")),
    Q("微博昨天看了多久", "unknown", Unknown("微博")),
    Q("time in photoshop last month", "unknown", Unknown("Photoshop")),
    Q("网易云音乐这周听了多久", "unknown", Unknown("网易云音乐")),
    Q("discord usage past 7 days", "unknown", Unknown("Discord")),
    Q("上周用了多久钉钉", "unknown", Unknown("钉钉")),
    Q("how long did i play league of legends yesterday", "unknown", Unknown("League of Legends")),
    Q("这个月excel用了多久", "unknown", Unknown("Excel")),
    Q("twitter time this wk?", "unknown", Unknown("Twitter")),
]

QUESTIONS = [
    *AMOUNT, *SHARE, *AVERAGE, *TOP, *DAYS_WITH, *DAYS_WITHOUT, *CONTEST, *THRESHOLD,
    *LAST_FIRST, *WINDOW, *HABITS, *SEARCH, *FOLLOWUP, *NO_PERIOD, *UNKNOWN,
]  # fmt: skip
