"""What a blind question set declares: questions, the things they ask about, the
periods they name and the fact each one asks for. Nothing here knows numbers: the
harness computes every truth by SQL over the records layer at run time.

    Q("yt 昨天看了多久", "amount", Amount(YOUTUBE, day(1)))
    Q("and the day before?", "followup", Amount(YOUTUBE, day(2)), before=("yt yesterday?",))
"""

from __future__ import annotations

import calendar
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta

Span = tuple[date, date]


@dataclass(frozen=True, slots=True)
class Thing:
    """A set of records (a SQL condition over v_record_durations) and the names that
    an answer may call it by."""

    label: str
    where: str
    params: tuple[object, ...]
    names: tuple[str, ...]


def app(raw: str, *names: str) -> Thing:
    return Thing(raw, "app = %s", (raw,), (raw, *names))


def site(label: str, domain: str, title_mark: str, *names: str) -> Thing:
    """A site by its domain, or by its title where the browser sent no URL."""
    return Thing(
        label,
        "(domain = %s OR window_title ILIKE %s)",
        (domain, f"%{title_mark}%"),
        (label, domain, *names),
    )


def category(name: str, *names: str) -> Thing:
    return Thing(name, "category = %s", (name,), (name, *names))


def title(text: str, *names: str) -> Thing:
    return Thing(text, "window_title ILIKE %s", (f"%{text}%",), (text, *names))


def anyof(label: str, *things: Thing) -> Thing:
    """Two or more things together ("both together")."""
    where = " OR ".join(f"({t.where})" for t in things)
    params = tuple(p for t in things for p in t.params)
    return Thing(label, f"({where})", params, tuple(n for t in things for n in t.names))


SCREEN = Thing("screen time", "TRUE", (), ("screen time", "屏幕时间", "total"))
CODE = app("Visual Studio Code", "VS Code", "VSCode", "vsc", "Code")
ITERM = app("iTerm2", "iTerm", "terminal", "终端")
CHROME = app("Google Chrome", "Chrome", "谷歌浏览器")
FIREFOX = app("Firefox", "火狐")
ZOOM = app("Zoom")
SLACK = app("Slack")
DOUYIN = app("抖音", "Douyin", "TikTok")
STEAM = app("Steam")
WECHAT = app("微信", "WeChat", "vx")
XHS = app("小红书", "Xiaohongshu", "xhs", "RedNote")
FEISHU = app("飞书", "Feishu", "Lark")
NOTION = app("Notion")
SPOTIFY = app("Spotify")
MAIL = app("Mail", "邮件", "Apple Mail")
FINDER = app("Finder")
WEREAD = app("微信读书", "WeRead")
ANKI = app("Anki")
PREVIEW = app("Preview", "预览")
ONEPASSWORD = app("1Password")
APPS = (CODE, ITERM, CHROME, FIREFOX, ZOOM, SLACK, DOUYIN, STEAM, WECHAT, XHS, FEISHU,
        NOTION, SPOTIFY, MAIL, FINDER, WEREAD, ANKI, PREVIEW, ONEPASSWORD)  # fmt: skip

YOUTUBE = site("YouTube", "youtube.com", "- YouTube", "油管", "yt")
BILIBILI = site("bilibili", "bilibili.com", "_bilibili", "哔哩哔哩", "B站", "b站")
GITHUB = site("GitHub", "github.com", "acme/timetrace", "gh")
STACKOVERFLOW = site("Stack Overflow", "stackoverflow.com", "Stack Overflow", "StackOverflow", "SO")
ARXIV = site("arXiv", "arxiv.org", "arXiv", "EM-LLM")
COURSERA = site("Coursera", "coursera.org", "Coursera")
SITES = (YOUTUBE, BILIBILI, GITHUB, STACKOVERFLOW, ARXIV, COURSERA)

WORK = category("work", "工作")
STUDY = category("study", "学习")
SOCIAL = category("social", "社交")
FUN = category("entertainment", "娱乐")
SYSTEM = category("system", "系统")
CATEGORIES = (WORK, STUDY, SOCIAL, FUN, SYSTEM)


@dataclass(frozen=True, slots=True)
class Period:
    """A named period: its span relative to the run's day, and alternates an answer may
    fairly take ("the last 7 days" with or without today)."""

    words: str
    spans: Callable[[date], list[Span]]

    def first(self, today: date) -> Span:
        return self.spans(today)[0]


def _monday(today: date) -> date:
    return today - timedelta(days=today.weekday())


def day(back: int) -> Period:
    return Period(f"day -{back}", lambda t: [(t - timedelta(back), t - timedelta(back))])


def last_days(n: int) -> Period:
    return Period(
        f"last {n} days",
        lambda t: [(t - timedelta(n - 1), t), (t - timedelta(n), t - timedelta(1))],
    )


def week(back: int) -> Period:
    """back=0: this week (Monday to today); 1: last week; 2: the week before."""

    def spans(t: date) -> list[Span]:
        monday = _monday(t) - timedelta(weeks=back)
        return [(monday, t if back == 0 else monday + timedelta(6))]

    return Period(f"week -{back}", spans)


def month(back: int) -> Period:
    def spans(t: date) -> list[Span]:
        year, mon = t.year, t.month - back
        while mon < 1:
            year, mon = year - 1, mon + 12
        first = date(year, mon, 1)
        last = date(year, mon, calendar.monthrange(year, mon)[1])
        return [(first, min(last, t))]

    return Period(f"month -{back}", spans)


def weekday(wd: int, *, weeks_back: int = 0, loose: bool = False) -> Period:
    """Weekday `wd` (0 = Monday) of this week (weeks_back=0) or an earlier one; `loose`:
    "last tuesday" in English, which may mean the latest Tuesday or last week's."""

    def spans(t: date) -> list[Span]:
        d = _monday(t) - timedelta(weeks=weeks_back) + timedelta(wd)
        if d >= t:
            d -= timedelta(7)
        out = [(d, d)]
        if loose:
            out.append((d - timedelta(7), d - timedelta(7)))
        return out

    return Period(f"weekday {wd} -{weeks_back}w", spans)


def days_ago_range(first_back: int, last_back: int) -> Period:
    return Period(
        f"days -{first_back}..-{last_back}",
        lambda t: [(t - timedelta(first_back), t - timedelta(last_back))],
    )


ALL = days_ago_range(60, 0)


@dataclass(frozen=True, slots=True)
class Amount:
    thing: Thing
    period: Period
    minutes: bool = False  # the question asks for minutes


@dataclass(frozen=True, slots=True)
class Share:
    thing: Thing
    period: Period
    whole: Thing = SCREEN


@dataclass(frozen=True, slots=True)
class Average:
    thing: Thing
    period: Period


@dataclass(frozen=True, slots=True)
class Top:
    group: str  # "apps" | "sites" | "categories"
    period: Period
    n: int


@dataclass(frozen=True, slots=True)
class Days:
    thing: Thing
    period: Period
    present: bool = True  # False: the days without it
    count: bool = False  # how many (else which)
    min_minutes: float = 0.0


@dataclass(frozen=True, slots=True)
class Contest:
    a: Thing
    b: Thing
    period: Period


@dataclass(frozen=True, slots=True)
class Threshold:
    thing: Thing
    period: Period
    hours: float
    over: bool = True  # the question asks "over" (else "under")


@dataclass(frozen=True, slots=True)
class LastFirst:
    thing: Thing
    period: Period
    last: bool = True


@dataclass(frozen=True, slots=True)
class Window:
    day: Period  # a single day
    start: str  # "HH:MM" local clock
    end: str  # "HH:MM"; before start: across midnight


@dataclass(frozen=True, slots=True)
class Signals:
    kinds: tuple[str, ...]
    period: Period
    mode: str = "days"  # "days" | "count" | "yesno"


@dataclass(frozen=True, slots=True)
class Unknown:
    name: str


@dataclass(frozen=True, slots=True)
class NoPeriod:
    """No period in the question: the answer must state one; truth over that one."""

    thing: Thing


Truth = (Amount | Share | Average | Top | Days | Contest | Threshold | LastFirst | Window
         | Signals | Unknown | NoPeriod)  # fmt: skip

KINDS = ("amount", "share", "average", "top", "days_with", "days_without", "contest",
         "threshold", "last_first", "window", "habits", "search", "followup", "no_period",
         "unknown")  # fmt: skip


@dataclass(frozen=True, slots=True)
class Q:
    """One question: `text` may hold {d1}…{d40} (that many days before the run's day),
    formatted with :iso, :en, :zh or :md; `before`: the conversation's earlier turns."""

    text: str
    kind: str
    truth: Truth
    before: tuple[str, ...] = field(default=())

    @property
    def zh(self) -> bool:
        return any("\u4e00" <= ch <= "\u9fff" for ch in self.text)
