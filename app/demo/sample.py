"""Realistic sample activity with exact ground truth.

    data = generate_sample(start=date(2026, 6, 1), days=30)
    data.records                    # what capture clients would send, per device
    data.seconds[(day, "work")]     # the exact answer, to the second

Three devices: a laptop (a Mac) and a desktop (a Windows PC) that report
window-focus intervals with an explicit end (like ActivityWatch), and an Android
phone that reports point events (no end), whose durations follow the duration
rule (docs/architecture.md). A share of the intervals end after the next one
starts, as real capture tools send them (merged heartbeats, a window and a
browser event for one moment): one device is one timeline, so those count only
until the next one starts. Each names apps and titles the way its platform's
capture tools do (`app/demo/platforms.py`, names from the real-format corpus).
Titles and apps are Chinese and English; coding sittings contain planted rework (git reset --hard,
reverts, undo storms, error→retry loops); some days run late into the night;
short entertainment breaks interrupt work; lunch is a locked screen.

The ground truth is computed here from the plan, independently of the
database: category of each activity, its exact span and the logical day it was
planned on. Overlaps are planted after planning, so the truth (the planned,
non-overlapping spans) is what the duration rule must give back.
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from app.demo.platforms import render_record
from app.rules.categories import Category

DEFAULT_TZ = "Asia/Shanghai"
DEFAULT_CUT_HOUR = 4
POINT_EVENT_CAP_S = 300  # the idle gap that caps a record with no end
OVERLAP_SHARE = 0.05  # of the intervals followed at once by the next one on their device


@dataclass(frozen=True, slots=True)
class Activity:
    app: str
    titles: tuple[str, ...]
    category: Category
    url: str | None = None  # may hold {n}
    incognito: bool = False


def _a(
    app: str, category: Category, *titles: str, url: str | None = None, incognito: bool = False
) -> Activity:
    return Activity(app=app, titles=titles, category=category, url=url, incognito=incognito)


CODE = _a(
    "Code",
    "work",
    "ingest.py — timetrace",
    "segmenter.py — timetrace",
    "迁移说明.md — timetrace",
    "api.py — timetrace",
    "● models.py — timetrace",
)
TERMINAL = _a(
    "iTerm2",
    "work",
    "zsh — pytest -q",
    "zsh — git status",
    "zsh — git diff",
    "zsh — make test",
    "zsh — python -m app.cli serve",
)
GITHUB = _a(
    "Google Chrome",
    "work",
    "Fix flaky ingest test · Pull Request #{n} · acme/timetrace",
    "Issues · acme/timetrace",
    url="https://github.com/acme/timetrace/pull/{n}",
)
STACKOVERFLOW = _a(
    "Google Chrome",
    "work",
    "python - How to unnest several arrays in PostgreSQL - Stack Overflow",
    url="https://stackoverflow.com/questions/{n}",
)
NOTION = _a("Notion", "work", "周报 · 项目计划", "Roadmap 2026")
ARXIV = _a(
    "Google Chrome",
    "study",
    "Attention Is All You Need - arXiv",
    "[2309.{n:05d}] EM-LLM: Human-like Episodic Memory",
    url="https://arxiv.org/abs/2309.{n}",
)
COURSERA = _a(
    "Google Chrome",
    "study",
    "机器学习 - 第3周 | Coursera",
    url="https://www.coursera.org/learn/machine-learning/lecture/{n}",
)
ANKI = _a("Anki", "study", "复习 · 日语 N2", "Browse (1 of 2,400 cards)")
WEREAD = _a("微信读书", "study", "《深入理解计算机系统》第 {n} 章")
SLACK = _a("Slack", "social", "#dev-timetrace - Acme", "Direct message with Lin")
WECHAT = _a("微信", "social", "微信", "项目群（12）")
FEISHU = _a("飞书", "social", "项目群 - 飞书", "日程 - 飞书")
ZOOM = _a("Zoom", "social", "Zoom Meeting", "每周同步会")
MAIL = _a("Mail", "social", "Inbox — 收件箱 ({n} messages)")
BILIBILI = _a(
    "Google Chrome",
    "entertainment",
    "【4K】城市夜景漫步_哔哩哔哩_bilibili",
    "原神 新版本 PV_哔哩哔哩_bilibili",
    url="https://www.bilibili.com/video/BV1x{n}",
)
YOUTUBE = _a(
    "Google Chrome",
    "entertainment",
    "lofi hip hop radio - YouTube",
    url="https://www.youtube.com/watch?v=jf{n}",
)
SPOTIFY = _a("Spotify", "entertainment", "Spotify Premium", "周杰伦 - 晴天")
STEAM = _a("Steam", "entertainment", "Steam", "Hades II")
DOUYIN = _a("抖音", "entertainment", "抖音", "推荐")
XHS = _a("小红书", "entertainment", "小红书", "发现")
PHONE_WECHAT = _a("微信", "social", "微信", "朋友圈")
FINDER = _a("Finder", "system", "Downloads", "下载")
PREVIEW = _a("Preview", "uncategorized", "invoice_2026_{n}.pdf")
PASSWORDS = _a("1Password", "uncategorized", "Personal — GitHub login")  # redacted at ingest
PRIVATE = _a(
    "Google Chrome",
    "uncategorized",
    "New Incognito Tab",
    url="https://www.youtube.com/watch?v=pv{n}",
    incognito=True,
)  # redacted at ingest: categorised from the app alone

LOCK = {
    "laptop": ("loginwindow", ""),
    "desktop": ("LockApp", "Windows 默认锁屏界面"),
    "phone": ("锁屏", ""),
}

WORK_MIX = (
    (CODE, 40),
    (TERMINAL, 25),
    (GITHUB, 12),
    (STACKOVERFLOW, 8),
    (NOTION, 4),
    (SLACK, 6),
    (FINDER, 3),
    (PREVIEW, 1),
    (PASSWORDS, 1),
)
STUDY_MIX = ((ARXIV, 4), (COURSERA, 4), (ANKI, 2), (WEREAD, 2))
SOCIAL_MIX = ((SLACK, 4), (WECHAT, 3), (FEISHU, 3), (MAIL, 3))
MEETING_MIX = ((ZOOM, 10), (FEISHU, 1))
FUN_MIX = ((BILIBILI, 5), (YOUTUBE, 3), (SPOTIFY, 1), (STEAM, 2), (PRIVATE, 1))
PHONE_MIX = ((DOUYIN, 5), (XHS, 3), (PHONE_WECHAT, 3))

# Rework that a coding sitting can contain: (kind, terminal or editor titles in order).
REWORK_PATTERNS: tuple[tuple[str, tuple[tuple[Activity, str], ...]], ...] = (
    ("forced_rollback", ((TERMINAL, "zsh — git reset --hard HEAD~1"),)),
    ("forced_rollback", ((TERMINAL, "zsh — git revert 3f2a1c9"),)),
    ("undo_storm", ((CODE, "● ingest.py — timetrace (Undo ×14)"),)),
    (
        "error_retry",
        (
            (TERMINAL, "zsh — pytest -q — 3 failed"),
            (CODE, "segmenter.py — timetrace"),
            (TERMINAL, "zsh — pytest -q — 1 failed"),
            (CODE, "segmenter.py — timetrace"),
            (TERMINAL, "zsh — pytest -q — 2 failed"),
        ),
    ),
)


@dataclass(frozen=True, slots=True)
class SampleRecord:
    device_id: str
    client_record_id: str
    ts_start: datetime
    ts_end: datetime | None
    app: str
    window_title: str
    url: str | None
    is_idle: bool
    incognito: bool
    category: Category  # the truth, from the plan

    def payload(self) -> dict[str, Any]:
        """The JSON a capture client sends for this record."""
        out: dict[str, Any] = {
            "client_record_id": self.client_record_id,
            "ts_start": self.ts_start.isoformat(),
            "app": self.app,
            "window_title": self.window_title,
        }
        if self.ts_end is not None:
            out["ts_end"] = self.ts_end.isoformat()
        if self.url:
            out["url"] = self.url
        if self.is_idle:
            out["is_idle"] = True
        if self.incognito:
            out["incognito"] = True
        return out


@dataclass(frozen=True, slots=True)
class Sitting:
    """A planted episode: one coherent stretch on one device."""

    device_id: str
    day: date
    start: datetime
    end: datetime
    kind: str  # "work", "study", "social", "entertainment", "idle", "phone"


@dataclass(frozen=True, slots=True)
class PlantedRework:
    device_id: str
    day: date
    ts: datetime
    kind: str
    title: str


@dataclass(slots=True)
class SampleData:
    time_zone: str
    cut_hour: int
    devices: list[tuple[str, str, str]]  # (device_id, kind, name)
    records: list[SampleRecord] = field(default_factory=list)
    seconds: dict[tuple[date, Category], int] = field(default_factory=dict)
    sittings: list[Sitting] = field(default_factory=list)
    rework: list[PlantedRework] = field(default_factory=list)
    late_nights: list[date] = field(default_factory=list)
    interruptions: list[tuple[date, datetime, int]] = field(default_factory=list)
    # client_record_id -> seconds its end reaches past the next record's start
    overlaps: dict[str, int] = field(default_factory=dict)

    @property
    def days(self) -> list[date]:
        return sorted({day for day, _ in self.seconds})

    def by_device(self) -> dict[str, list[SampleRecord]]:
        out: dict[str, list[SampleRecord]] = defaultdict(list)
        for rec in self.records:
            out[rec.device_id].append(rec)
        return out

    def batches(self, *, size: int = 5_000) -> Iterator[dict[str, Any]]:
        """Ingest request bodies, in time order per device."""
        for device_id, records in self.by_device().items():
            for i in range(0, len(records), size):
                chunk = records[i : i + size]
                yield {"device_id": device_id, "records": [r.payload() for r in chunk]}


class _Planner:
    def __init__(
        self, *, rng: random.Random, tz: ZoneInfo, data: SampleData, mean_record_s: int
    ) -> None:
        self.rng = rng
        self.tz = tz
        self.data = data
        self.mean = mean_record_s
        self.seq: dict[str, int] = defaultdict(int)
        self.truth: dict[tuple[date, Category], int] = defaultdict(int)

    def at(self, day: date, hhmm: str, *, next_day: bool = False) -> datetime:
        hour, minute = (int(p) for p in hhmm.split(":"))
        local = datetime.combine(day + timedelta(days=int(next_day)), time(hour, minute), self.tz)
        return local.astimezone(UTC)

    def _emit(
        self,
        device: str,
        day: date,
        start: datetime,
        end: datetime | None,
        activity: Activity,
        title: str,
        *,
        idle: bool = False,
    ) -> None:
        self.seq[device] += 1
        n = self.seq[device]
        url = activity.url.format(n=n % 9000 + 1000) if activity.url else None
        app, window_title, url, incognito = render_record(
            device,
            app=LOCK[device][0] if idle else activity.app,
            title=title.format(n=n % 12 + 1),
            url=url,
            incognito=activity.incognito,
            n=n,
        )
        self.data.records.append(
            SampleRecord(
                device_id=device,
                client_record_id=f"{device}-{n:07d}",
                ts_start=start,
                ts_end=end,
                app=app,
                window_title=window_title,
                url=url,
                is_idle=idle,
                incognito=incognito,
                category="system" if idle else activity.category,
            )
        )
        if end is not None:
            self.truth[(day, "system" if idle else activity.category)] += int(
                (end - start).total_seconds()
            )

    def _pick(self, mix: tuple[tuple[Activity, int], ...]) -> Activity:
        return self.rng.choices([a for a, _ in mix], weights=[w for _, w in mix])[0]

    def _length(self) -> int:
        return max(3, min(int(self.rng.expovariate(1 / self.mean)) + 3, 8 * self.mean))

    def sitting(
        self,
        device: str,
        day: date,
        start: datetime,
        end: datetime,
        kind: str,
        mix: tuple[tuple[Activity, int], ...],
        *,
        interrupt: bool = False,
        rework: bool = False,
    ) -> None:
        """Consecutive focus intervals with explicit ends filling [start, end)."""
        self.data.sittings.append(Sitting(device, day, start, end, kind))
        total = int((end - start).total_seconds())
        breaks: set[int] = set()
        if interrupt and total > 1800:
            breaks = {self.rng.randrange(600, total - 600) for _ in range(self.rng.randint(1, 2))}
        plant_at = self.rng.randrange(300, total - 300) if rework and total > 900 else None
        # A coding sitting works on one or two files, not on every file of the project.
        files = self.rng.sample(CODE.titles, 2)
        t = start
        elapsed = 0
        while t < end:
            if plant_at is not None and elapsed >= plant_at:
                kind_name, steps = self.rng.choice(REWORK_PATTERNS)
                for activity, title in steps:
                    step_end = min(t + timedelta(seconds=self.rng.randint(20, 90)), end)
                    self.data.rework.append(PlantedRework(device, day, t, kind_name, title))
                    self._emit(device, day, t, step_end, activity, title)
                    t = step_end
                plant_at = None
                elapsed = int((t - start).total_seconds())
                continue
            if any(elapsed >= b for b in breaks):
                breaks = {b for b in breaks if elapsed < b}
                length = self.rng.randint(60, 240)  # a short distraction, < 5 min
                fun_end = min(t + timedelta(seconds=length), end)
                self.data.interruptions.append((day, t, int((fun_end - t).total_seconds())))
                activity = self._pick(((BILIBILI, 3), (YOUTUBE, 1)))
                self._emit(device, day, t, fun_end, activity, self.rng.choice(activity.titles))
                t = fun_end
            else:
                activity = self._pick(mix)
                piece_end = min(t + timedelta(seconds=self._length()), end)
                titles = files if activity is CODE else activity.titles
                self._emit(device, day, t, piece_end, activity, self.rng.choice(titles))
                t = piece_end
            elapsed = int((t - start).total_seconds())

    def locked(self, device: str, day: date, start: datetime, end: datetime) -> None:
        self.data.sittings.append(Sitting(device, day, start, end, "idle"))
        self._emit(device, day, start, end, FINDER, LOCK[device][1], idle=True)

    def phone(self, day: date, start: datetime, minutes: int) -> None:
        """Point events (no end) every 15-90 s, closed by a lock-screen event."""
        end = start + timedelta(minutes=minutes)
        self.data.sittings.append(Sitting("phone", day, start, end, "phone"))
        t = start
        activity = self._pick(PHONE_MIX)
        while t < end:
            if self.rng.random() < 0.15:
                activity = self._pick(PHONE_MIX)
            self._emit("phone", day, t, None, activity, self.rng.choice(activity.titles))
            t += timedelta(seconds=self.rng.randint(15, 90))
        self._emit("phone", day, min(t, end), None, FINDER, "", idle=True)


def _phone_truth(
    records: list[SampleRecord], truth: dict[tuple[date, Category], int], day_of: dict[str, date]
) -> None:
    # The duration rule: no end -> until the next record of the same device, capped at the idle gap.
    phone = sorted((r for r in records if r.ts_end is None), key=lambda r: r.ts_start)
    for rec, nxt in zip(phone, [*phone[1:], None], strict=True):
        gap = int((nxt.ts_start - rec.ts_start).total_seconds()) if nxt else POINT_EVENT_CAP_S
        truth[(day_of[rec.client_record_id], rec.category)] += min(gap, POINT_EVENT_CAP_S)


def generate_sample(
    *,
    start: date,
    days: int,
    seed: int = 7,
    time_zone: str = DEFAULT_TZ,
    cut_hour: int = DEFAULT_CUT_HOUR,
    mean_record_s: int = 45,
) -> SampleData:
    """A deterministic stretch of activity from `start` for `days` days, with its truth."""
    if cut_hour != DEFAULT_CUT_HOUR:
        raise ValueError("the sample plans its nights around a 04:00 cut hour")
    rng = random.Random(seed)
    data = SampleData(
        time_zone=time_zone,
        cut_hour=cut_hour,
        devices=[
            ("laptop", "laptop", "MacBook Pro"),
            ("desktop", "desktop", "家里的台式机"),
            ("phone", "phone", "Android 手机"),
        ],
    )
    p = _Planner(rng=rng, tz=ZoneInfo(time_zone), data=data, mean_record_s=mean_record_s)
    day_of: dict[str, date] = {}
    for offset in range(days):
        day = start + timedelta(days=offset)
        before = len(data.records)
        if day.weekday() < 5:
            _weekday(p, day)
        else:
            _weekend(p, day)
        for rec in data.records[before:]:
            day_of[rec.client_record_id] = day
    _phone_truth(data.records, p.truth, day_of)
    data.records.sort(key=lambda r: (r.device_id, r.ts_start))
    data.seconds = dict(p.truth)
    data.overlaps = _plant_overlaps(data.records, rng=random.Random(f"overlaps-{seed}"))
    return data


def _plant_overlaps(records: list[SampleRecord], *, rng: random.Random) -> dict[str, int]:
    """Stretch the end of a share of intervals 5-120 s past the start of the next record
    of their device (records in device and time order). The truth does not change: by
    the duration rule a record counts only until the next one starts. Its own generator,
    so the plan draws the same numbers with or without it."""
    planted: dict[str, int] = {}
    for i, (rec, nxt) in enumerate(itertools.pairwise(records)):
        if (
            rec.ts_end is not None
            and not rec.is_idle
            and nxt.device_id == rec.device_id
            and nxt.ts_start == rec.ts_end
            and rng.random() < OVERLAP_SHARE
        ):
            past = rng.randint(5, 120)
            records[i] = replace(rec, ts_end=rec.ts_end + timedelta(seconds=past))
            planted[rec.client_record_id] = past
    return planted


def _weekday(p: _Planner, day: date) -> None:
    rng = p.rng
    at = p.at
    chat_end = at(day, f"09:{rng.randint(20, 35)}")
    p.sitting("laptop", day, at(day, "09:00"), chat_end, "social", SOCIAL_MIX)
    p.sitting(
        "laptop",
        day,
        chat_end,
        at(day, "12:00"),
        "work",
        WORK_MIX,
        interrupt=True,
        rework=rng.random() < 0.6,
    )
    p.locked("laptop", day, at(day, "12:00"), at(day, "13:10"))
    p.phone(day, at(day, "12:20"), rng.randint(10, 25))
    p.sitting("laptop", day, at(day, "13:10"), at(day, "14:00"), "social", MEETING_MIX)
    p.sitting(
        "laptop",
        day,
        at(day, "14:00"),
        at(day, "17:30"),
        "work",
        WORK_MIX,
        interrupt=True,
        rework=rng.random() < 0.4,
    )
    if rng.random() < 0.5:
        p.sitting("laptop", day, at(day, "17:30"), at(day, "18:20"), "study", STUDY_MIX)
    p.sitting(
        "desktop",
        day,
        at(day, "20:00"),
        at(day, f"21:{rng.randint(10, 50)}"),
        "entertainment",
        FUN_MIX,
    )
    p.phone(day, at(day, "22:00"), rng.randint(15, 40))
    if rng.random() < 0.3:  # a late night: the logical day runs on past midnight
        p.data.late_nights.append(day)
        p.sitting(
            "laptop",
            day,
            at(day, "23:20"),
            at(day, "01:40", next_day=True),
            "work",
            WORK_MIX,
            rework=True,
        )


def _weekend(p: _Planner, day: date) -> None:
    rng = p.rng
    at = p.at
    p.sitting("desktop", day, at(day, "10:30"), at(day, "12:00"), "study", STUDY_MIX)
    p.phone(day, at(day, "12:30"), rng.randint(20, 45))
    p.sitting("desktop", day, at(day, "14:00"), at(day, "17:00"), "entertainment", FUN_MIX)
    p.locked("desktop", day, at(day, "17:00"), at(day, "17:40"))
    p.sitting("laptop", day, at(day, "20:00"), at(day, "21:00"), "social", SOCIAL_MIX)
    p.phone(day, at(day, "22:30"), rng.randint(20, 60))
