"""A scripted day of ActivityWatch heartbeats: what aw-watcher-window, aw-watcher-afk and
the aw-watcher-web extensions of a Windows desktop would send, deterministic, small
enough to send through `aw-client` in seconds (a few hundred heartbeats, most carrying
a duration instead of one beat per poll).

    day = scripted_day(seed=7, hours=6)
    day.buckets, day.beats  # to create, then to send in order (tests/aw_real.py `send`)

What it holds, on purpose: Windows executables as apps (`Code.exe`, `firefox.exe`,
`chrome.exe`); browser titles with the browser's suffix and Firefox's private window;
Chinese titles; gaps between window events of 0, under 0.1 s of overlap, ≤ 5 s (the
flood's pulsetime, both at and under it) and more; overlaps with differing and with
equal data; equal-data neighbours; afk and not-afk stretches with their own gaps; tab
events (url, title, audible, incognito, tabCount) that start late, end early and go on
while another app is focused; an audible tab while the user is away, with the browser
focused and with it behind another app; an incognito tab.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from aw_core.models import Event

HOST = "DESKTOP-7Q2K"
WINDOW_BUCKET = f"aw-watcher-window_{HOST}"
AFK_BUCKET = f"aw-watcher-afk_{HOST}"
FIREFOX_BUCKET = "aw-watcher-web-firefox"
CHROME_BUCKET = "aw-watcher-web-chrome"
DAY_START = datetime(2026, 11, 24, 1, 0, tzinfo=UTC)  # 09:00 in Shanghai

# The watchers' own pulsetimes: poll interval + 1 s.
WINDOW_PULSE, AFK_PULSE, WEB_PULSE = 2.0, 6.0, 61.0


@dataclass(frozen=True, slots=True)
class BucketSpec:
    id: str
    type: str
    hostname: str


@dataclass(frozen=True, slots=True)
class Beat:
    """One heartbeat as a watcher sends it."""

    bucket: str
    event: Event
    pulsetime: float


@dataclass(frozen=True, slots=True)
class Tab:
    url: str
    title: str
    audible: bool = False
    incognito: bool = False


_PLAIN_APPS = (
    (
        "Code.exe",
        ("timeline.py - timetrace - Visual Studio Code", "笔记.md - notes - Visual Studio Code"),
    ),
    ("powershell.exe", ("Windows PowerShell", "管理员: Windows PowerShell")),
    ("explorer.exe", ("File Explorer", "下载")),
    ("WeChat.exe", ("微信",)),
    ("WINWORD.EXE", ("季度报告.docx - Word",)),
)
_FIREFOX_TABS = (
    Tab("https://github.com/ActivityWatch/aw-core/pull/73", "flood: midpoint · aw-core"),
    Tab("https://www.zhihu.com/question/20", "如何高效记录时间？ - 知乎"),
    Tab("https://www.youtube.com/watch?v=jfKfPfyJRdk", "lofi hip hop radio - YouTube", True),
    Tab("https://stackoverflow.com/questions/1", "python - sorted by key - Stack Overflow"),
)
_CHROME_TABS = (
    Tab("https://www.bilibili.com/video/BV1xx", "【中字】时间管理 - 哔哩哔哩", True),
    Tab("https://mail.google.com/mail/u/0/", "Inbox (3) - Gmail"),
)
_PRIVATE_TAB = Tab("https://example.org/private", "a private page", incognito=True)
# Gaps before a window event (s): cycled, so each kind occurs several times a day.
# Negative: the event starts before the previous one ends (a late or repeated beat).
_WINDOW_GAPS = (0.0, 0.0, 1.0, 0.0, 2.5, 5.0, 0.0, 7.0, 0.0, -1.5, -0.04, 0.0, 4.99, 30.0)
_AFK_GAPS = (0.0, 3.0, 0.0, 8.0, 0.0, -0.05, 5.0, 0.0)


@dataclass(slots=True)
class ScriptedDay:
    start: datetime
    end: datetime
    buckets: list[BucketSpec]
    beats: list[Beat] = field(default_factory=list)
    music: datetime = DAY_START  # when `_away_with_music` begins, after the rest
    window_bucket: str = WINDOW_BUCKET
    afk_bucket: str = AFK_BUCKET
    browser_buckets: tuple[str, ...] = (FIREFOX_BUCKET, CHROME_BUCKET)


def _event(at: float, duration: float, data: dict[str, Any]) -> Event:
    return Event(
        timestamp=DAY_START + timedelta(seconds=at), duration=timedelta(seconds=duration), data=data
    )


class _Script:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        # (start s, duration s, bucket, data, pulsetime), sorted and made beats at the end
        self.events: list[tuple[float, float, str, dict[str, Any], float]] = []
        self.gap = 0

    def window(self, at: float, duration: float, app: str, title: str) -> None:
        self.events.append(
            (at, duration, WINDOW_BUCKET, {"app": app, "title": title}, WINDOW_PULSE)
        )

    def tab(self, bucket: str, at: float, duration: float, tab: Tab, tabs: int) -> None:
        data = {
            "url": tab.url,
            "title": tab.title,
            "audible": tab.audible,
            "incognito": tab.incognito,
            "tabCount": tabs,
        }
        self.events.append((at, duration, bucket, data, WEB_PULSE))

    def afk(self, at: float, duration: float, *, away: bool) -> None:
        status = "afk" if away else "not-afk"
        self.events.append((at, duration, AFK_BUCKET, {"status": status}, AFK_PULSE))

    def next_gap(self) -> float:
        gap = _WINDOW_GAPS[self.gap % len(_WINDOW_GAPS)]
        self.gap += 1
        return gap

    def beats(self) -> list[Beat]:
        """Each event as one heartbeat, or as two that aw-server merges (the second within
        the pulsetime of the first's end, with the same data): in time order."""
        beats: list[tuple[float, int, Beat]] = []
        for order, (at, duration, bucket, data, pulse) in enumerate(
            sorted(self.events, key=_by_start)
        ):
            if duration > 20 and self.rng.random() < 0.5:
                first = round(duration * self.rng.uniform(0.3, 0.7), 3)
                lag = round(min(pulse, duration - first) * self.rng.uniform(0, 0.9), 3)
                rest = round(duration - first - lag, 3)
                beats.append((at, order, Beat(bucket, _event(at, first, data), pulse)))
                later = at + first + lag
                beats.append((later, order, Beat(bucket, _event(later, rest, data), pulse)))
            else:
                beats.append((at, order, Beat(bucket, _event(at, duration, data), pulse)))
        beats.sort(key=lambda b: (b[0], b[1]))
        return [b for _, _, b in beats]


def _by_start(event: tuple[float, float, str, dict[str, Any], float]) -> tuple[float, str]:
    return event[0], event[2]


def _browser_title(tab: Tab, chrome: bool) -> str:
    if chrome:
        return f"{tab.title} - Google Chrome"
    if tab.incognito:
        return "Mozilla Firefox Private Browsing"
    return f"{tab.title} — Mozilla Firefox"


def scripted_day(*, seed: int = 7, hours: float = 6.0) -> ScriptedDay:
    """The day's buckets and heartbeats (see the module's docstring)."""
    rng = random.Random(seed)
    script = _Script(rng)
    length = hours * 3600
    t = 0.0
    last: tuple[str, str] | None = None
    scene = browsed = 0
    while t < length:
        gap = script.next_gap()
        start = round(max(0.0, t + gap), 3)
        kind = scene % 9
        scene += 1
        if kind in (1, 5):
            browsed += 1
            t = _firefox(script, start, rng, private=browsed % 3 == 2)
            last = None
        elif kind == 7:
            t = _chrome(script, start, rng)
            last = None
        else:
            app, titles = rng.choice(_PLAIN_APPS)
            title = rng.choice(titles)
            if last is not None and rng.random() < 0.25:
                app, title = last  # the same window again: equal-data neighbours
            duration = round(rng.choice((3.0, 12.0, 45.0, 140.0, 420.0)) * rng.uniform(0.8, 1.2), 3)
            script.window(start, duration, app, title)
            last, t = (app, title), start + duration
        # Tabs of a browser go on while another app is in front (the extension reports
        # the browser's active tab whether or not its window is focused).
        if kind == 3:
            tab = _FIREFOX_TABS[2]  # music playing behind the editor: audible, not focused
            script.tab(FIREFOX_BUCKET, start, t - start, tab, 7)
    music = max(t, _afk_stretches(script, t)) + 60
    _away_with_music(script, music)
    return ScriptedDay(
        start=DAY_START - timedelta(hours=1),
        end=_end(script),
        buckets=[
            BucketSpec(WINDOW_BUCKET, "currentwindow", HOST),
            BucketSpec(AFK_BUCKET, "afkstatus", HOST),
            BucketSpec(FIREFOX_BUCKET, "web.tab.current", "unknown"),
            BucketSpec(CHROME_BUCKET, "web.tab.current", "unknown"),
        ],
        beats=script.beats(),
        music=DAY_START + timedelta(seconds=music),
    )


def _end(script: _Script) -> datetime:
    last = max(at + duration for at, duration, *_ in script.events)
    return DAY_START + timedelta(seconds=last + 3600)


def _firefox(script: _Script, start: float, rng: random.Random, *, private: bool) -> float:
    """A focused Firefox window, its tab events late by up to a second and split where
    the user switches tabs (the window's title changes with the tab)."""
    t = start
    for _ in range(rng.randint(1, 3)):
        tab = _PRIVATE_TAB if private else rng.choice(_FIREFOX_TABS)
        duration = round(rng.uniform(8, 300), 3)
        script.window(t, duration, "firefox.exe", _browser_title(tab, chrome=False))
        late = round(rng.uniform(0, 1.2), 3)
        early = round(rng.choice((0.0, 0.0, 0.7, 3.0)), 3)
        script.tab(
            FIREFOX_BUCKET, t + late, max(0.5, duration - late - early), tab, rng.randint(2, 9)
        )
        t = round(t + duration + rng.choice((0.0, 0.0, 0.3, 2.0)), 3)
    return t


def _chrome(script: _Script, start: float, rng: random.Random) -> float:
    tab = rng.choice(_CHROME_TABS)
    duration = round(rng.uniform(20, 400), 3)
    script.window(start, duration, "chrome.exe", _browser_title(tab, chrome=True))
    script.tab(CHROME_BUCKET, start + 0.4, duration - 0.4, tab, 4)
    return start + duration


def _afk_stretches(script: _Script, length: float) -> float:
    """Not-afk and afk stretches over the day, with the gaps of `_AFK_GAPS` between them;
    where the last ends."""
    t, away, i = 0.0, False, 0
    while t < length:
        duration = round(
            script.rng.uniform(120, 1500) if not away else script.rng.uniform(30, 600), 3
        )
        script.afk(t, duration, away=away)
        gap = _AFK_GAPS[i % len(_AFK_GAPS)]
        i += 1
        t = round(t + duration + gap, 3)
        away = not away
    return t


def _away_with_music(script: _Script, at: float) -> None:
    """After the day: YouTube playing in a focused Firefox window while the user is away
    (aw-webui counts it as active), then behind the editor while away (it does not)."""
    video = _FIREFOX_TABS[2]
    script.afk(at, 60, away=False)
    script.afk(at + 60, 900, away=True)
    script.window(at, 600, "firefox.exe", _browser_title(video, chrome=False))
    script.tab(FIREFOX_BUCKET, at + 0.5, 599.5, video, 3)
    script.window(at + 600, 300, "Code.exe", _PLAIN_APPS[0][1][0])
    script.tab(FIREFOX_BUCKET, at + 600, 300, video, 3)
    script.afk(at + 960, 120, away=False)
