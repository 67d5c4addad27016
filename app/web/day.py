"""The day view: one swimlane per device with the day's episodes as blocks placed
true to time, the day's totals and top apps from query_stats (as the agent sees
them), and the panel of one episode.

    view = day_view(ctx, store, day=date(2026, 6, 2), episode_id=None)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from app.store import (
    AccountStore,
    EpisodeDetail,
    EpisodeLine,
    RecordLine,
    ToolStore,
    WebStore,
)
from app.timeutil import day_bounds, zone
from app.tools import ToolContext
from app.tools.periods import today_of
from app.tools.reads import DigestResult
from app.tools.stats import AppTime, CategoryTime, StatsResult
from app.web.calls import call_tool


class DayStore(AccountStore, ToolStore, WebStore, Protocol):
    """The day view reads devices, episodes and signals as the tools do, and an
    episode's panel."""


PANEL_RECORDS = 300
MIN_BLOCK_PCT = 0.12  # a block stays at least about a pixel wide, whatever its length


@dataclass(frozen=True, slots=True)
class Block:
    episode_id: int
    category: str
    title: str
    x: float  # percent of the lane
    width: float
    start: str  # HH:MM, local
    end: str
    minutes: int  # active, as get_episodes counts them
    idle_minutes: int
    selected: bool


@dataclass(frozen=True, slots=True)
class Lane:
    device_id: str
    name: str
    blocks: list[Block]


@dataclass(frozen=True, slots=True)
class Tick:
    x: float
    label: str


@dataclass(frozen=True, slots=True)
class Amount:
    name: str  # a category or an app
    seconds: int
    hours: float
    share: float  # of the largest, for the bar beside it


@dataclass(frozen=True, slots=True)
class PanelSignal:
    name: str  # kind, or kind:pattern
    severity: float
    cues: list[str]


@dataclass(frozen=True, slots=True)
class EpisodePanel:
    episode: EpisodeDetail
    records: list[RecordLine]
    more_records: int
    signals: list[PanelSignal]
    time_zone: str

    def local(self, ts: datetime | str, fmt: str = "%H:%M") -> str:
        moment = datetime.fromisoformat(ts) if isinstance(ts, str) else ts
        return moment.astimezone(zone(self.time_zone)).strftime(fmt)


@dataclass(frozen=True, slots=True)
class DayView:
    day: date
    today: date
    lanes: list[Lane]
    ticks: list[Tick]
    totals: list[Amount]
    total_seconds: int
    apps: list[Amount]
    episode_count: int
    digest: DigestResult
    panel: EpisodePanel | None
    panel_missing: bool

    @property
    def prev(self) -> date:
        return self.day - timedelta(days=1)

    @property
    def next(self) -> date:
        return self.day + timedelta(days=1)


def _amounts(result: StatsResult) -> list[Amount]:
    """The items of query_stats by category or by app, with each one's share of the largest."""
    items = [i for i in result.items or [] if isinstance(i, CategoryTime | AppTime)]
    largest = max((i.seconds for i in items), default=0) or 1
    return [
        Amount(
            name=i.category if isinstance(i, CategoryTime) else i.app,
            seconds=i.seconds,
            hours=i.hours,
            share=i.seconds / largest,
        )
        for i in items
    ]


def _whole_hour(ts: datetime, tz: ZoneInfo, *, up: bool) -> datetime:
    """The local whole hour at or before (or after) `ts`, as an instant in UTC."""
    local = ts.astimezone(tz)
    floor = local.replace(minute=0, second=0, microsecond=0)
    if up and floor < local:
        floor += timedelta(hours=1)
    return floor.astimezone(UTC)


def _window(
    episodes: list[EpisodeLine], start: datetime, end: datetime, tz: ZoneInfo
) -> tuple[datetime, datetime]:
    """The local whole hours that hold the day's activity (the whole day without any)."""
    if not episodes:
        return start, end
    first = _whole_hour(min(e.ts_start for e in episodes), tz, up=False)
    last = _whole_hour(max(e.ts_end for e in episodes), tz, up=True)
    return max(first, start), min(last, end)


def hour_ticks(lo: datetime, hi: datetime, *, tz: ZoneInfo) -> list[Tick]:
    """Ticks an hour (or two) apart on [lo, hi]: where (percent) and the local time. The
    steps are real hours, so a clock change shows as a skipped or repeated label."""
    span = (hi - lo).total_seconds()
    step = timedelta(hours=1 if span <= 12 * 3600 else 2)
    ticks = []
    moment = lo
    while moment <= hi:
        x = (moment - lo).total_seconds() / span * 100
        ticks.append(Tick(x=round(x, 3), label=moment.astimezone(tz).strftime("%H:%M")))
        moment += step
    return ticks


def _lanes(
    store: DayStore,
    ctx: ToolContext,
    episodes: list[EpisodeLine],
    lo: datetime,
    hi: datetime,
    selected: int | None,
) -> list[Lane]:
    tz = zone(ctx.user.time_zone)
    span = (hi - lo).total_seconds()
    by_device: dict[str, list[Block]] = {}
    for e in sorted(episodes, key=lambda e: (e.ts_start, e.episode_id)):
        start = max(e.ts_start, lo)
        end = min(e.ts_end, hi)
        x = (start - lo).total_seconds() / span * 100
        width = max((end - start).total_seconds() / span * 100, MIN_BLOCK_PCT)
        by_device.setdefault(e.device_id, []).append(
            Block(
                episode_id=e.episode_id,
                category=e.category,
                title=e.title,
                x=round(x, 4),
                width=round(min(width, 100 - x), 4),
                start=e.ts_start.astimezone(tz).strftime("%H:%M"),
                end=e.ts_end.astimezone(tz).strftime("%H:%M"),
                minutes=round(e.active_s / 60),
                idle_minutes=round((e.duration_s - e.active_s) / 60),
                selected=e.episode_id == selected,
            )
        )
    devices = store.list_devices(user_id=ctx.user.user_id)
    lanes = [
        Lane(
            device_id=d.device_id, name=d.name or d.device_id, blocks=by_device.pop(d.device_id, [])
        )
        for d in devices
    ]
    # A device removed since keeps its lane for the days it recorded.
    lanes += [
        Lane(device_id=device, name=device, blocks=blocks)
        for device, blocks in sorted(by_device.items())
    ]
    return lanes


def episode_panel(store: DayStore, ctx: ToolContext, *, episode_id: int) -> EpisodePanel | None:
    user_id = ctx.user.user_id
    episode = store.episode_detail(user_id=user_id, episode_id=episode_id)
    if episode is None:
        return None
    records = store.episode_records(user_id=user_id, episode_id=episode_id, limit=PANEL_RECORDS + 1)
    signals = [
        PanelSignal(
            name=s.kind + (f":{s.metrics['pattern']}" if "pattern" in s.metrics else ""),
            severity=s.severity,
            cues=list(s.evidence.get("cues", [])),
        )
        for s in store.list_signals(
            user_id=user_id, day_from=episode.day_local, day_to=episode.day_local
        )
        if episode_id in s.evidence.get("episode_ids", [])
    ]
    return EpisodePanel(
        episode=episode,
        records=records[:PANEL_RECORDS],
        more_records=max(0, len(records) - PANEL_RECORDS),
        signals=signals,
        time_zone=ctx.user.time_zone,
    )


def day_view(ctx: ToolContext, store: DayStore, *, day: date, episode_id: int | None) -> DayView:
    """The blocks come from the store's episodes of the day; every number beside them
    from the tools (query_stats, get_digest), exactly as the agent would read it."""
    user = ctx.user
    start, end = day_bounds(day, tz=zone(user.time_zone), cut_hour=user.day_cut_hour)
    # An episode belongs to the day it starts in; one running past the cut is clipped.
    episodes = [
        e
        for e in store.list_episodes(
            user_id=user.user_id, ts_from=start, ts_to=end, category=None, limit=5_000
        )
        if start <= e.ts_start < end
    ]
    tz = zone(user.time_zone)
    lo, hi = _window(episodes, start.astimezone(UTC), end.astimezone(UTC), tz)
    period = {"period": "custom", "date_from": day.isoformat(), "date_to": day.isoformat()}
    totals = call_tool(ctx, "query_stats", StatsResult, metric="seconds_by_category", **period)
    apps = call_tool(ctx, "query_stats", StatsResult, metric="seconds_by_app", top_n=8, **period)
    digest = call_tool(ctx, "get_digest", DigestResult, grain="day", date=day.isoformat())
    panel = episode_panel(store, ctx, episode_id=episode_id) if episode_id else None
    return DayView(
        day=day,
        today=today_of(ctx.user, ctx.now),
        lanes=_lanes(store, ctx, episodes, lo, hi, episode_id),
        ticks=hour_ticks(lo, hi, tz=tz),
        totals=_amounts(totals),
        total_seconds=totals.total_seconds or 0,
        apps=_amounts(apps),
        episode_count=len(episodes),
        digest=digest,
        panel=panel,
        panel_missing=episode_id is not None and panel is None,
    )
