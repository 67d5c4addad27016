"""The day view: the timeline of a window of the day (app.web.timeline), the day's
totals and top apps from query_stats (as the agent sees them), and the drawer of one
episode with its records a page at a time.

    view = day_view(ctx, store, day=date(2026, 6, 2), episode_id=None, t=t)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Protocol

from app.store.accounts import AccountStore
from app.store.records import RecordLine
from app.store.tools import ToolStore
from app.store.web import EpisodeDetail, WebStore
from app.timeutil import logical_day, zone
from app.tools import ToolContext
from app.tools.periods import today_of
from app.tools.reads import DigestResult
from app.tools.stats import AppTime, CategoryTime, StatsResult
from app.web.calls import call_tool
from app.web.i18n import Translator
from app.web.timeline import (
    Timeline,
    Window,
    block_title,
    day_episodes,
    day_window,
    device_names,
    local_clock,
    timeline,
    zoom,
)


class DayStore(AccountStore, ToolStore, WebStore, Protocol):
    """The day view reads devices, episodes and signals as the tools do, and an
    episode's drawer."""


RECORDS_PAGE = 50


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
    title: str  # in the page's language
    device: str  # the device's display name, as its lane says
    records: list[RecordLine]
    page: int  # 1-based page of records
    more_records: bool
    signals: list[PanelSignal]
    time_zone: str

    def local(self, ts: datetime | str, fmt: str = "%H:%M") -> str:
        moment = datetime.fromisoformat(ts) if isinstance(ts, str) else ts
        return moment.astimezone(zone(self.time_zone)).strftime(fmt)


@dataclass(frozen=True, slots=True)
class DayView:
    day: date
    today: date
    tl: Timeline
    totals: list[Amount]
    total_seconds: int
    apps: list[Amount]
    episode_count: int
    digest: DigestResult
    panel: EpisodePanel | None
    panel_missing: bool
    latest_day: date | None  # the newest day with records, when this one has none
    time_zone: str
    whole: Window  # the day's own activity span

    @property
    def prev(self) -> date:
        return self.day - timedelta(days=1)

    @property
    def next(self) -> date:
        return self.day + timedelta(days=1)

    def zoomed(self, steps: int) -> str:
        """The address query of the view `steps` zoom steps in (or out)."""
        return zoom(self.tl.window, self.whole, steps=steps, tz=zone(self.time_zone))

    @property
    def view_query(self) -> str:
        """The zoom of the address (?from=HH:MM&to=HH:MM, local), kept by links within
        the day; empty for the whole day."""
        w = self.tl.window
        if w.whole:
            return ""
        tz = zone(self.time_zone)
        return f"from={local_clock(w.lo, tz)}&to={local_clock(w.hi, tz)}"


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


def episode_panel(
    store: DayStore, ctx: ToolContext, *, episode_id: int, page: int, t: Translator
) -> EpisodePanel | None:
    user_id = ctx.user.user_id
    episode = store.episode_detail(user_id=user_id, episode_id=episode_id)
    if episode is None:
        return None
    page = max(1, page)
    # The store reads an episode's first members; a page is the tail of the first N.
    upto = page * RECORDS_PAGE
    records = store.episode_records(user_id=user_id, episode_id=episode_id, limit=upto + 1)
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
    names = device_names(store.list_devices(user_id=user_id))
    return EpisodePanel(
        episode=episode,
        title=block_title(episode.title, episode.category, t),
        device=names.get(episode.device_id, episode.device_id),
        records=records[upto - RECORDS_PAGE : upto],
        page=page,
        more_records=len(records) > upto,
        signals=signals,
        time_zone=ctx.user.time_zone,
    )


def latest_day(store: DayStore, ctx: ToolContext) -> date | None:
    """The logical day of the newest record before now."""
    newest = store.latest_records(user_id=ctx.user.user_id, now=ctx.now, limit=1)
    if not newest:
        return None
    user = ctx.user
    return logical_day(newest[0].ts_start, tz=zone(user.time_zone), cut_hour=user.day_cut_hour)


def day_view(
    ctx: ToolContext,
    store: DayStore,
    *,
    day: date,
    episode_id: int | None,
    t: Translator,
    start: str | None = None,
    end: str | None = None,
    records_page: int = 1,
) -> DayView:
    """The blocks come from the store's episodes (or records, zoomed in) of the day;
    every number beside them from the tools (query_stats, get_digest), exactly as the
    agent would read it."""
    bounds = day_window(day, user=ctx.user, start=None, end=None)
    episodes = day_episodes(store, ctx.user, bounds)
    whole = day_window(day, user=ctx.user, start=None, end=None, episodes=episodes)
    window = day_window(day, user=ctx.user, start=start, end=end, episodes=episodes)
    period = {"period": "custom", "date_from": day.isoformat(), "date_to": day.isoformat()}
    totals = call_tool(ctx, "query_stats", StatsResult, metric="seconds_by_category", **period)
    apps = call_tool(ctx, "query_stats", StatsResult, metric="seconds_by_app", top_n=8, **period)
    digest = call_tool(ctx, "get_digest", DigestResult, grain="day", date=day.isoformat())
    panel = (
        episode_panel(store, ctx, episode_id=episode_id, page=records_page, t=t)
        if episode_id
        else None
    )
    return DayView(
        day=day,
        today=today_of(ctx.user, ctx.now),
        tl=timeline(ctx, store, window=window, episodes=episodes, t=t, selected=episode_id),
        totals=_amounts(totals),
        total_seconds=totals.total_seconds or 0,
        apps=_amounts(apps),
        episode_count=len(episodes),
        digest=digest,
        panel=panel,
        panel_missing=episode_id is not None and panel is None,
        latest_day=None if episodes else latest_day(store, ctx),
        time_zone=ctx.user.time_zone,
        whole=whole,
    )
