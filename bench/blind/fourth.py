"""The fourth blind set: written blind, then scored once against the answerer of
branch asking3 (rankings, thresholds, windows on named dates): 196/220 (89.1 %),
run day 2026-12-06, a Sunday in the sample's zone; the JSON line is
fourth.score.json, every miss is in fourth.misses.md. Not edited after scoring.

Written without reading the offline answerer, its docs on asking or any other
question set: only the sample generator, the SQL views and the harness
(`bench/agent_blind.py`, `bench/blind/spec.py`, `judge.py`, `parse.py`) were read.
Questions are worded the way people type to a chatbot: short forms (vx, yt, gh, vsc,
B站, 油管), typos, mixed Chinese and English, with or without a full stop; half are in
Chinese. Every truth is computed by SQL at run time, relative to the run's day.

    python bench/agent_blind.py --set fourth --truth-only
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
    category,
    day,
    last_days,
    month,
    title,
    week,
    weekday,
)

LATE = ("late_night",)
REWORK = ("rework", "forced_rollback")
ROLLBACK = ("forced_rollback",)
DISTRACTION = ("distraction",)
FOCUS = ("focus_block",)

SEGMENTER = title("segmenter.py", "segmenter")
MIGRATION_NOTES = title("迁移说明", "迁移说明.md")
MODELS_PY = title("models.py")
FLAKY_PR = title("Fix flaky ingest test", "flaky ingest test", "PR")
UNNEST = title("unnest several arrays", "unnest")
ATTENTION = title("Attention Is All You Need", "attention paper")
EM_LLM = title("EM-LLM", "Episodic Memory")
JAPANESE = title("日语 N2", "N2", "Japanese")
CSAPP = title("深入理解计算机系统", "CSAPP")
WEEKLY = title("周报", "weekly report")
LOFI = title("lofi hip hop", "lofi")
NIGHT_WALK = title("城市夜景漫步", "night walk")
GENSHIN = title("原神", "Genshin")
QINGTIAN = title("晴天", "周杰伦")
HADES = title("Hades II", "Hades")
GIT_RESET = title("git reset --hard", "git reset")
PYTEST_FAILED = title("failed", "pytest failures")
INVOICE = title("invoice_2026", "invoice")
SYNC_MEETING = title("每周同步会", "weekly sync")

LONG_VIDEO = anyof("bilibili + YouTube", BILIBILI, YOUTUBE)
SHORT_VIDEO = anyof("抖音 + 小红书", DOUYIN, XHS)
CHAT = anyof("微信 + 飞书", WECHAT, FEISHU)
FUN_WORDS = category("entertainment", "娱乐", "fun")

AMOUNT = [
    Q("yt 昨天看了多久", "amount", Amount(YOUTUBE, day(1))),
    Q("how long was i on bilibili yesterday", "amount", Amount(BILIBILI, day(1))),
    Q("上周刷抖音一共刷了几个小时？", "amount", Amount(DOUYIN, week(1))),
    Q("total hrs in vsc last week?", "amount", Amount(CODE, week(1))),
    Q("前天用vx聊了多少分钟", "amount", Amount(WECHAT, day(2), minutes=True)),
    Q("how many minutes on slack {d3:en}", "amount", Amount(SLACK, day(3), minutes=True)),
    Q("{d4:zh}学习花了多长时间", "amount", Amount(STUDY, day(4))),
    Q("screen time on {d5:iso}?", "amount", Amount(SCREEN, day(5))),
    Q("这周娱乐时间多少", "amount", Amount(FUN, week(0))),
    Q("hw much time in zoom calls this month", "amount", Amount(ZOOM, month(0))),
    Q("上个月打游戏(steam)花了多久啊", "amount", Amount(STEAM, month(1))),
    Q("gh last 7 days, how long", "amount", Amount(GITHUB, last_days(7))),
    Q("最近3天在终端里待了多久", "amount", Amount(ITERM, last_days(3))),
    Q("how much firefox did i use last week", "amount", Amount(FIREFOX, week(1))),
    Q("小红书 上周 多久", "amount", Amount(XHS, week(1))),
    Q("time spent on social stuff yesterday", "amount", Amount(SOCIAL, day(1))),
    Q("vx和飞书加起来上周用了多久", "amount", Amount(CHAT, week(1))),
    Q("how long was finder open this week lol", "amount", Amount(FINDER, week(0))),
]

SHARE = [
    Q("昨天娱乐占了屏幕时间的百分之多少", "share", Share(FUN, day(1))),
    Q("what % of my screen time last week was work", "share", Share(WORK, week(1))),
    Q("上周学习时间占比多少？", "share", Share(STUDY, week(1))),
    Q("how much of last month was social, as a percent", "share", Share(SOCIAL, month(1))),
    Q("vsc占上周工作时间的比例", "share", Share(CODE, week(1), whole=WORK)),
    Q(
        "what share of yesterday's entertainment was bilibili",
        "share",
        Share(BILIBILI, day(1), whole=FUN),
    ),
    Q("{d3:zh}工作占比", "share", Share(WORK, day(3))),
    Q(
        "percent of time on yt vs all screen time, past 7 days",
        "share",
        Share(YOUTUBE, last_days(7)),
    ),
    Q("这个月抖音占娱乐多少比例啊", "share", Share(DOUYIN, month(0), whole=FUN)),
    Q("what fraction of my day {d2:en} went to chrome?", "share", Share(CHROME, day(2))),
    Q("上个月社交里微信占几成 给个百分比", "share", Share(WECHAT, month(1), whole=SOCIAL)),
    Q("pct of screen time in meetings (zoom) last wk", "share", Share(ZOOM, week(1))),
    Q("最近两周 娱乐占比?", "share", Share(FUN, last_days(14))),
    Q(
        "stack overflow as a % of work time this month",
        "share",
        Share(STACKOVERFLOW, month(0), whole=WORK),
    ),
]

AVERAGE = [
    Q("上周平均每天工作几个小时", "average", Average(WORK, week(1))),
    Q("avg daily screen time last week", "average", Average(SCREEN, week(1))),
    Q("最近7天日均刷抖音多久", "average", Average(DOUYIN, last_days(7))),
    Q(
        "on average how long do i spend in vscode per day, last 2 weeks",
        "average",
        Average(CODE, last_days(14)),
    ),
    Q("上个月平均每天娱乐多长时间？", "average", Average(FUN, month(1))),
    Q("daily avg for youtube this month", "average", Average(YOUTUBE, month(0))),
    Q("这周每天平均学习多久", "average", Average(STUDY, week(0))),
    Q("whats my avg per day on wechat last week", "average", Average(WECHAT, week(1))),
    Q("上上周平均一天开多久会（zoom）", "average", Average(ZOOM, week(2))),
    Q(
        "mean time per day on social apps over the last 30 days",
        "average",
        Average(SOCIAL, last_days(30)),
    ),
    Q("过去五天 b站 平均每天看多久", "average", Average(BILIBILI, last_days(5))),
    Q("average steam time a day last month?", "average", Average(STEAM, month(1))),
    Q("小红书日均使用时长 最近一周", "average", Average(XHS, last_days(7))),
    Q("per-day average in iterm for the past 10 days", "average", Average(ITERM, last_days(10))),
]

TOP = [
    Q("昨天用得最多的app是哪个", "top", Top("apps", day(1), 1)),
    Q("top 3 apps last week", "top", Top("apps", week(1), 3)),
    Q("上周哪个网站上花时间最多", "top", Top("sites", week(1), 1)),
    Q("which site ate most of my time yesterday?", "top", Top("sites", day(1), 1)),
    Q("这个月时间花在哪几类上最多 前三", "top", Top("categories", month(0), 3)),
    Q("biggest category last month", "top", Top("categories", month(1), 1)),
    Q("{d2:zh}用得最多的三个软件", "top", Top("apps", day(2), 3)),
    Q("what were my top 2 websites over the last 7 days", "top", Top("sites", last_days(7), 2)),
    Q("最近两周最常用的5个应用，按时间排", "top", Top("apps", last_days(14), 5)),
    Q("most used app on {d6:md}", "top", Top("apps", day(6), 1)),
    Q("上周六我主要在干嘛 哪类最多", "top", Top("categories", weekday(5, weeks_back=1), 1)),
    Q("rank my categories for this week, top 2", "top", Top("categories", week(0), 2)),
    Q("上个月排名前三的网站", "top", Top("sites", month(1), 3)),
    Q("whcih app did i use the most this month", "top", Top("apps", month(0), 1)),
]

DAYS_WITH = [
    Q("上周哪几天玩了steam", "days_with", Days(STEAM, week(1))),
    Q("which days last week did i open coursera", "days_with", Days(COURSERA, week(1))),
    Q("最近7天有几天刷了b站", "days_with", Days(BILIBILI, last_days(7), count=True)),
    Q("how many days this month did i use anki", "days_with", Days(ANKI, month(0), count=True)),
    Q("上周哪天看了arxiv论文", "days_with", Days(ARXIV, week(1))),
    Q("days i used notion last wk?", "days_with", Days(NOTION, week(1))),
    Q("这个月有几天用了微信读书", "days_with", Days(WEREAD, month(0), count=True)),
    Q(
        "how many days in the last 2 weeks did i play steam for over an hour",
        "days_with",
        Days(STEAM, last_days(14), count=True, min_minutes=60),
    ),
    Q(
        "上个月有多少天学习超过半小时",
        "days_with",
        Days(STUDY, month(1), count=True, min_minutes=30),
    ),
    Q("which days this week did I watch yt", "days_with", Days(YOUTUBE, week(0))),
    Q("上周哪些天用了zoom开会", "days_with", Days(ZOOM, week(1))),
    Q(
        "number of days with spotify in the past 10 days",
        "days_with",
        Days(SPOTIFY, last_days(10), count=True),
    ),
    Q("最近五天哪几天上了stackoverflow", "days_with", Days(STACKOVERFLOW, last_days(5))),
    Q(
        "on which days last week did i do more than 5h of work",
        "days_with",
        Days(WORK, week(1), min_minutes=300),
    ),
]

DAYS_WITHOUT = [
    Q("上周哪几天没写代码", "days_without", Days(CODE, week(1), present=False)),
    Q("which days last week had no gaming", "days_without", Days(STEAM, week(1), present=False)),
    Q(
        "最近7天有几天没碰b站",
        "days_without",
        Days(BILIBILI, last_days(7), present=False, count=True),
    ),
    Q(
        "how many days this month without any zoom",
        "days_without",
        Days(ZOOM, month(0), present=False, count=True),
    ),
    Q("上周有哪天一点都没学习吗", "days_without", Days(STUDY, week(1), present=False)),
    Q("days last week i didnt open slack", "days_without", Days(SLACK, week(1), present=False)),
    Q("这个月哪些天没刷抖音", "days_without", Days(DOUYIN, month(0), present=False)),
    Q(
        "how many days in the past two weeks did i skip anki",
        "days_without",
        Days(ANKI, last_days(14), present=False, count=True),
    ),
    Q(
        "上个月有几天没打开github",
        "days_without",
        Days(GITHUB, month(1), present=False, count=True),
    ),
    Q("which days this week no coursera?", "days_without", Days(COURSERA, week(0), present=False)),
    Q("最近10天哪几天没用iterm", "days_without", Days(ITERM, last_days(10), present=False)),
    Q("no-notion days last week", "days_without", Days(NOTION, week(1), present=False)),
    Q("上上周哪天没看油管", "days_without", Days(YOUTUBE, week(2), present=False)),
    Q(
        "days without arxiv in the last 5 days?",
        "days_without",
        Days(ARXIV, last_days(5), present=False),
    ),
]

CONTEST = [
    Q("上周b站和油管哪个看得多", "contest", Contest(BILIBILI, YOUTUBE, week(1))),
    Q("yesterday: more douyin or xiaohongshu?", "contest", Contest(DOUYIN, XHS, day(1))),
    Q("这个月微信和飞书哪个用得更久", "contest", Contest(WECHAT, FEISHU, month(0))),
    Q(
        "chrome vs firefox last month, which one more",
        "contest",
        Contest(CHROME, FIREFOX, month(1)),
    ),
    Q("上周 vsc 跟 iterm 谁时间长", "contest", Contest(CODE, ITERM, week(1))),
    Q("did i spend more time on work or fun {d2:en}", "contest", Contest(WORK, FUN_WORDS, day(2))),
    Q("最近7天学习和娱乐哪个多", "contest", Contest(STUDY, FUN, last_days(7))),
    Q(
        "github or stackoverflow - which got more of my time this week",
        "contest",
        Contest(GITHUB, STACKOVERFLOW, week(0)),
    ),
    Q("上个月 slack 和 zoom 比一下 哪个多", "contest", Contest(SLACK, ZOOM, month(1))),
    Q("steam or spotify more last wk", "contest", Contest(STEAM, SPOTIFY, week(1))),
    Q("{d4:zh} 社交和学习谁花的时间多", "contest", Contest(SOCIAL, STUDY, day(4))),
    Q(
        "arxiv vs coursera over the past 2 weeks?",
        "contest",
        Contest(ARXIV, COURSERA, last_days(14)),
    ),
    Q("上周 anki 和微信读书哪个用得多", "contest", Contest(ANKI, WEREAD, week(1))),
    Q(
        "上周长视频(b站+油管)和短视频(抖音+小红书)哪个刷得多",
        "contest",
        Contest(LONG_VIDEO, SHORT_VIDEO, week(1)),
    ),
    Q(
        "notion or mail, which did i use longer this month",
        "contest",
        Contest(NOTION, MAIL, month(0)),
    ),
]

THRESHOLD = [
    Q("昨天刷抖音超过一小时了吗", "threshold", Threshold(DOUYIN, day(1), 1)),
    Q("did i work more than 8 hours yesterday?", "threshold", Threshold(WORK, day(1), 8)),
    Q("上周打游戏超过5小时没", "threshold", Threshold(STEAM, week(1), 5)),
    Q(
        "was my screen time under 10h on {d3:en}",
        "threshold",
        Threshold(SCREEN, day(3), 10, over=False),
    ),
    Q("这周学习有没有超过3个小时", "threshold", Threshold(STUDY, week(0), 3)),
    Q("more than 2 hrs of bilibili last week?", "threshold", Threshold(BILIBILI, week(1), 2)),
    Q("上个月 zoom 开会少于20小时吗", "threshold", Threshold(ZOOM, month(1), 20, over=False)),
    Q("did i spend over 30 hours in vsc last month", "threshold", Threshold(CODE, month(1), 30)),
    Q("前天娱乐有没有超过2小时", "threshold", Threshold(FUN, day(2), 2)),
    Q(
        "was youtube less than an hour in the last 3 days",
        "threshold",
        Threshold(YOUTUBE, last_days(3), 1, over=False),
    ),
    Q("最近7天微信用了超过3小时吗？", "threshold", Threshold(WECHAT, last_days(7), 3)),
    Q("did slack go over 4h last week", "threshold", Threshold(SLACK, week(1), 4)),
    Q("{d5:zh}屏幕时间不到7个小时吧", "threshold", Threshold(SCREEN, day(5), 7, over=False)),
    Q("social > 10 hours this month?", "threshold", Threshold(SOCIAL, month(0), 10)),
    Q("上周 b站+油管 加起来超过6小时没", "threshold", Threshold(LONG_VIDEO, week(1), 6)),
]

LAST_FIRST = [
    Q("昨天最后一次刷抖音是几点", "last_first", LastFirst(DOUYIN, day(1))),
    Q(
        "what time did i first open vscode yesterday",
        "last_first",
        LastFirst(CODE, day(1), last=False),
    ),
    Q("上次玩steam是什么时候", "last_first", LastFirst(STEAM, ALL)),
    Q("when was the last time i was on coursera", "last_first", LastFirst(COURSERA, ALL)),
    Q("{d2:zh}第一次打开微信是几点", "last_first", LastFirst(WECHAT, day(2), last=False)),
    Q("last time i watched yt?", "last_first", LastFirst(YOUTUBE, ALL)),
    Q("昨天b站最后看到几点", "last_first", LastFirst(BILIBILI, day(1))),
    Q("when did i start work on {d3:en}", "last_first", LastFirst(WORK, day(3), last=False)),
    Q("最近一次用anki复习是哪天几点", "last_first", LastFirst(ANKI, ALL)),
    Q(
        "what time did i stop using the laptop terminal yesterday",
        "last_first",
        LastFirst(ITERM, day(1)),
    ),
    Q(
        "上周五最早几点开的zoom",
        "last_first",
        LastFirst(ZOOM, weekday(4, weeks_back=1), last=False),
    ),
    Q("when did i last read on weread", "last_first", LastFirst(WEREAD, ALL)),
    Q("前天最后一次用 slack 几点", "last_first", LastFirst(SLACK, day(2))),
    Q(
        "first time i opened notion yesterday??",
        "last_first",
        LastFirst(NOTION, day(1), last=False),
    ),
]

WINDOW = [
    Q("昨晚8点到10点我在干嘛", "window", Window(day(1), "20:00", "22:00")),
    Q("what was i doing yesterday between 2 and 4pm", "window", Window(day(1), "14:00", "16:00")),
    Q("{d2:zh}上午9点半到11点在忙啥", "window", Window(day(2), "09:30", "11:00")),
    Q("what did i do {d3:en} from 13:10 to 14:00", "window", Window(day(3), "13:10", "14:00")),
    Q("前天晚上十点到十一点在用什么", "window", Window(day(2), "22:00", "23:00")),
    Q("yesterday 10am-12pm what was i up to", "window", Window(day(1), "10:00", "12:00")),
    Q("{d4:md} 下午三点到五点 在做什么", "window", Window(day(4), "15:00", "17:00")),
    Q("what was i on around 9:00-9:20 on {d5:en}", "window", Window(day(5), "09:00", "09:20")),
    Q("昨天12点半到1点在干什么呀", "window", Window(day(1), "12:30", "13:00")),
    Q("what was i doing {d6:iso} from 8pm to 9pm?", "window", Window(day(6), "20:00", "21:00")),
    Q("{d3:zh}晚上11点半到凌晨1点在干嘛", "window", Window(day(3), "23:30", "01:00")),
    Q("what was i up to late {d4:en}, 11pm to 1am", "window", Window(day(4), "23:00", "01:00")),
    Q("上周六下午2点到5点干嘛了", "window", Window(weekday(5, weeks_back=1), "14:00", "17:00")),
    Q(
        "last sunday 10:30 to noon, what was i doing",
        "window",
        Window(weekday(6, loose=True), "10:30", "12:00"),
    ),
]

HABITS = [
    Q("上周熬夜了几天", "habits", Signals(LATE, week(1), "count")),
    Q("which nights did i stay up late last week", "habits", Signals(LATE, week(1))),
    Q("最近7天有没有git reset回滚过代码", "habits", Signals(ROLLBACK, last_days(7), "yesno")),
    Q(
        "how many days this month did i have rework while coding",
        "habits",
        Signals(REWORK, month(0), "count"),
    ),
    Q("上周哪几天写代码返工了", "habits", Signals(REWORK, week(1))),
    Q("did i get distracted yesterday?", "habits", Signals(DISTRACTION, day(1), "yesno")),
    Q("这周哪天摸鱼分心了", "habits", Signals(DISTRACTION, week(0))),
    Q("days with a proper focus block last week", "habits", Signals(FOCUS, week(1))),
    Q("上个月熬夜的天数", "habits", Signals(LATE, month(1), "count")),
    Q("any forced rollbacks {d2:en}", "habits", Signals(ROLLBACK, day(2), "yesno")),
    Q("最近两周有几天分心刷手机/视频", "habits", Signals(DISTRACTION, last_days(14), "count")),
    Q(
        "did i pull any late nighters in the last 3 days",
        "habits",
        Signals(LATE, last_days(3), "yesno"),
    ),
    Q("前天有没有返工（回滚/反复改）", "habits", Signals(REWORK, day(2), "yesno")),
    Q(
        "how many days last week did i revert or reset code",
        "habits",
        Signals(ROLLBACK, week(1), "count"),
    ),
]

SEARCH = [
    Q("segmenter.py 上周一共改了多久", "search", Amount(SEGMENTER, week(1))),
    Q(
        "how long did i spend on the flaky ingest test PR last week",
        "search",
        Amount(FLAKY_PR, week(1)),
    ),
    Q("上次看那个postgres unnest的SO问题是什么时候", "search", LastFirst(UNNEST, ALL)),
    Q(
        "when did i last read the attention is all you need paper",
        "search",
        LastFirst(ATTENTION, ALL),
    ),
    Q("上个月看原神PV看了多久", "search", Amount(GENSHIN, month(1))),
    Q("how much lofi hip hop did i listen to this week", "search", Amount(LOFI, week(0))),
    Q("最近7天哪几天写了周报", "search", Days(WEEKLY, last_days(7))),
    Q("hours on hades 2 last month", "search", Amount(HADES, month(1))),
    Q("上周背日语N2单词花了多久", "search", Amount(JAPANESE, week(1))),
    Q("which days this month did i have pytest failures", "search", Days(PYTEST_FAILED, month(0))),
    Q("迁移说明.md 这个月写了多久", "search", Amount(MIGRATION_NOTES, month(0))),
    Q("last time i ran git reset --hard?", "search", LastFirst(GIT_RESET, ALL)),
    Q("上周听周杰伦晴天听了多少分钟", "search", Amount(QINGTIAN, week(1), minutes=True)),
    Q(
        "昨天开每周同步会开了多久",
        "search",
        Amount(SYNC_MEETING, day(1)),
    ),
    Q("CSAPP这周读了多久", "search", Amount(CSAPP, week(0))),
    Q("how long was models.py open yesterday", "search", Amount(MODELS_PY, day(1))),
    Q("when did i last look at an invoice pdf", "search", LastFirst(INVOICE, ALL)),
    Q("最近两周看EM-LLM那篇论文几天", "search", Days(EM_LLM, last_days(14), count=True)),
]

FOLLOWUP = [
    Q("那前天呢", "followup", Amount(YOUTUBE, day(2)), before=("油管昨天看了多久",)),
    Q(
        "and the week before that?",
        "followup",
        Amount(CODE, week(2)),
        before=("how many hours in vscode last week",),
    ),
    Q("那抖音呢？", "followup", Amount(DOUYIN, day(1)), before=("昨天小红书刷了多久",)),
    Q("what about slack", "followup", Amount(SLACK, week(1)), before=("how much zoom last week?",)),
    Q("上个月呢", "followup", Share(FUN, month(1)), before=("这个月娱乐占比多少",)),
    Q("and yesterday?", "followup", Top("apps", day(1), 1), before=("most used app on {d2:en}?",)),
    Q("换成学习呢", "followup", Average(STUDY, week(1)), before=("上周平均每天工作多久",)),
    Q(
        "ok and firefox?",
        "followup",
        Amount(FIREFOX, day(1)),
        before=("how long was chrome open yesterday",),
    ),
    Q(
        "那没玩的是哪几天",
        "followup",
        Days(STEAM, week(1), present=False),
        before=("上周哪几天玩了steam",),
    ),
    Q(
        "how about the last 14 days",
        "followup",
        Days(ANKI, last_days(14), count=True),
        before=("how many days did i use anki in the past 7 days",),
    ),
    Q(
        "那飞书和微信比呢",
        "followup",
        Contest(FEISHU, WECHAT, week(1)),
        before=("上周slack和zoom哪个用得多",),
    ),
    Q(
        "and what time did i first open it?",
        "followup",
        LastFirst(STEAM, day(1), last=False),
        before=("what time did i last play steam yesterday",),
    ),
    Q("再往前一天呢", "followup", Amount(SCREEN, day(4)), before=("{d3:zh}屏幕时间多少",)),
    Q(
        "same for entertainment",
        "followup",
        Amount(FUN, week(1)),
        before=("total work hours last week?",),
    ),
]

NO_PERIOD = [
    Q("我刷了多少抖音", "no_period", NoPeriod(DOUYIN)),
    Q("how much youtube have i watched", "no_period", NoPeriod(YOUTUBE)),
    Q("b站看了多久", "no_period", NoPeriod(BILIBILI)),
    Q("how long have i been coding in vsc", "no_period", NoPeriod(CODE)),
    Q("微信用了多长时间？", "no_period", NoPeriod(WECHAT)),
    Q("time on steam?", "no_period", NoPeriod(STEAM)),
    Q("学习时长多少", "no_period", NoPeriod(STUDY)),
    Q("how much have i been on slack", "no_period", NoPeriod(SLACK)),
    Q("娱乐花了几个小时", "no_period", NoPeriod(FUN)),
    Q("hrs in zoom meetings", "no_period", NoPeriod(ZOOM)),
    Q("小红书刷了多久了", "no_period", NoPeriod(XHS)),
    Q("how much time do i spend on github", "no_period", NoPeriod(GITHUB)),
    Q("终端用了多久", "no_period", NoPeriod(ITERM)),
    Q("total screen time?", "no_period", NoPeriod(SCREEN)),
]

UNKNOWN = [
    Q("昨天玩了多久王者荣耀", "unknown", Unknown("王者荣耀")),
    Q("how long was i on netflix last week", "unknown", Unknown("Netflix")),
    Q("上周用photoshop多久", "unknown", Unknown("Photoshop")),
    Q("how much time in figma yesterday?", "unknown", Unknown("Figma")),
    Q("这个月逛淘宝花了多少时间", "unknown", Unknown("淘宝")),
    Q("hours in excel this month", "unknown", Unknown("Excel")),
    Q("昨天知乎刷了多久", "unknown", Unknown("知乎")),
    Q("how long did i spend on twitter yesterday", "unknown", Unknown("Twitter")),
    Q("上周在拼多多上花了多久", "unknown", Unknown("拼多多")),
    Q("time on discord last 7 days", "unknown", Unknown("Discord")),
    Q("最近7天 QQ音乐 听了多久", "unknown", Unknown("QQ音乐")),
    Q("how much league of legends did i play this week", "unknown", Unknown("League of Legends")),
    Q("上个月用钉钉开会多久", "unknown", Unknown("钉钉")),
    Q("pycharm hours last week?", "unknown", Unknown("PyCharm")),
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
