"""The day timeline for any window of a logical day: one lane per device with blocks
placed true to time, the axis ticks, and how fine the blocks are — episodes, or runs
of records once the window is an hour or less. The day page draws it; the JSON door
(`GET /day/{day}/timeline`) serves the same geometry to the script that zooms and pans.

    window = day_window(day, user=user, start="10:00", end="10:30")
    tl = timeline(ctx, store, day=day, window=window, t=t, selected=None)
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, fields
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Literal, Protocol
from zoneinfo import ZoneInfo

from app.store.accounts import AccountStore, DeviceRow, UserContext
from app.store.episodes import EpisodeLine
from app.store.tools import ToolStore
from app.store.web import WebStore, WindowRecord
from app.timeutil import day_bounds, zone
from app.tools import ToolContext
from app.web.i18n import Translator

Level = Literal["episodes", "records"]

# The spans the zoom steps through, narrowest first; past the widest, the whole day.
ZOOM_SPANS_S = (300, 900, 1800, 3600, 7200, 14400, 28800, 43200)
RECORDS_AT_S = 3600  # at an hour or less, runs of records replace episodes
MIN_WINDOW_S = 300  # the narrowest window: five minutes
MAX_RECORDS = 6_000  # records read for one window, per device
MIN_BLOCK_PCT = 0.12  # a block stays at least about a pixel wide, whatever its length
# Tick steps in seconds; the smallest that gives at most MAX_TICKS intervals is used.
_TICK_STEPS_S = (60, 300, 600, 900, 1800, 3600, 7200, 10800, 21600)
MAX_TICKS = 8


class TimelineStore(AccountStore, ToolStore, WebStore, Protocol):
    """Devices and episodes as the tools read them, and a window's records."""


@dataclass(frozen=True, slots=True)
class Window:
    """[lo, hi) of a logical day, in UTC; `whole` when it is the day's own activity span."""

    day: date
    lo: datetime
    hi: datetime
    day_lo: datetime
    day_hi: datetime
    whole: bool

    @property
    def seconds(self) -> float:
        return (self.hi - self.lo).total_seconds()

    @property
    def level(self) -> Level:
        return "records" if self.seconds <= RECORDS_AT_S else "episodes"


@dataclass(frozen=True, slots=True)
class Block:
    key: str  # ep-<id>, or rec-<id> of a run's first record
    episode_id: int | None  # where a click goes (a run's episode, when built)
    category: str
    title: str
    tip: str  # what a tooltip and a screen reader say
    x: float  # percent of the lane
    width: float
    start: str  # HH:MM, local
    end: str
    minutes: int  # active, as get_episodes counts them
    idle_minutes: int
    selected: bool


_BLOCK_FIELDS = tuple(f.name for f in fields(Block))


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
class Timeline:
    window: Window
    level: Level
    lanes: list[Lane]
    ticks: list[Tick]
    episode_count: int  # episodes of the whole day
    start_local: str  # HH:MM
    end_local: str

    def as_json(self) -> dict[str, Any]:
        """What the script draws: the window (instants and local clock), the ticks, the
        lanes and their blocks."""
        w = self.window
        return {
            "day": w.day.isoformat(),
            "from": w.lo.isoformat(),
            "to": w.hi.isoformat(),
            "day_from": w.day_lo.isoformat(),
            "day_to": w.day_hi.isoformat(),
            "from_local": self.start_local,
            "to_local": self.end_local,
            "whole": w.whole,
            "level": self.level,
            "ticks": [{"x": t.x, "label": t.label} for t in self.ticks],
            "lanes": [
                {
                    "device_id": lane.device_id,
                    "name": lane.name,
                    # By hand: dataclasses.asdict deep-copies, the slow part of a wide window.
                    "blocks": [{f: getattr(b, f) for f in _BLOCK_FIELDS} for b in lane.blocks],
                }
                for lane in self.lanes
            ],
        }


def zoom(window: Window, whole: Window, *, steps: int, tz: ZoneInfo) -> str:
    """The address query (from=HH:MM&to=HH:MM, or "" for the whole day) of the window
    `steps` zoom steps in (> 0) or out (< 0) around this one's middle; a minute grid."""
    span = window.seconds
    if steps > 0:
        narrower = [s for s in ZOOM_SPANS_S if s < span - 1]
        span = narrower[-1] if narrower else ZOOM_SPANS_S[0]
    else:
        wider = [s for s in ZOOM_SPANS_S if s > span + 1]
        if not wider or wider[0] >= whole.seconds:
            return ""
        span = wider[0]
    middle = window.lo + (window.hi - window.lo) / 2
    lo = middle - timedelta(seconds=span / 2)
    lo = min(max(lo, window.day_lo), window.day_hi - timedelta(seconds=span))
    lo = lo.replace(second=0, microsecond=0)
    hi = lo + timedelta(seconds=span)
    return f"from={local_clock(lo, tz)}&to={local_clock(hi, tz)}"


def local_clock(moment: datetime, tz: ZoneInfo) -> str:
    local = moment.astimezone(tz)
    return f"{local.hour:02d}:{local.minute:02d}"  # strftime is several times slower


def _whole_hour(ts: datetime, tz: ZoneInfo, *, up: bool) -> datetime:
    """The local whole hour at or before (or after) `ts`, as an instant in UTC."""
    local = ts.astimezone(tz)
    floor = local.replace(minute=0, second=0, microsecond=0)
    if up and floor < local:
        floor += timedelta(hours=1)
    return floor.astimezone(UTC)


def activity_span(
    episodes: list[EpisodeLine], lo: datetime, hi: datetime, tz: ZoneInfo
) -> tuple[datetime, datetime]:
    """The local whole hours that hold the day's activity (the whole day without any)."""
    if not episodes:
        return lo, hi
    first = _whole_hour(min(e.ts_start for e in episodes), tz, up=False)
    last = _whole_hour(max(e.ts_end for e in episodes), tz, up=True)
    return max(first, lo), min(last, hi)


def _clock(text: str | None) -> time | None:
    if not text or len(text) != 5 or text[2] != ":":
        return None
    try:
        return time.fromisoformat(text)
    except ValueError:
        return None


def _on_day(day: date, clock: time, *, tz: ZoneInfo, cut_hour: int, end: bool) -> datetime:
    """A local clock time inside the logical day: before the cut hour means the next
    date; as an end, the cut hour itself is the day's end."""
    after_cut = clock.hour > cut_hour or (clock.hour == cut_hour and (clock.minute or not end))
    when = day if after_cut else day + timedelta(days=1)
    return datetime.combine(when, clock, tzinfo=tz).astimezone(UTC)


def _moment(
    day: date, text: str | None, *, tz: ZoneInfo, cut_hour: int, end: bool
) -> datetime | None:
    """A local HH:MM inside the day (the address), or an ISO instant with its offset
    (the script's requests)."""
    clock = _clock(text)
    if clock is not None:
        return _on_day(day, clock, tz=tz, cut_hour=cut_hour, end=end)
    if not text or len(text) > 40:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment.astimezone(UTC) if moment.tzinfo else None


def day_window(
    day: date,
    *,
    user: UserContext,
    start: str | None,
    end: str | None,
    episodes: list[EpisodeLine] | None = None,
) -> Window:
    """The window the address asks for (local HH:MM to HH:MM inside the day, at least
    five minutes), else the whole day's activity span (`episodes` gives it)."""
    tz = zone(user.time_zone)
    day_lo, day_hi = (t.astimezone(UTC) for t in day_bounds(day, tz=tz, cut_hour=user.day_cut_hour))
    lo = _moment(day, start, tz=tz, cut_hour=user.day_cut_hour, end=False)
    hi = _moment(day, end, tz=tz, cut_hour=user.day_cut_hour, end=True)
    if lo is not None and hi is not None:
        lo, hi = max(lo, day_lo), min(hi, day_hi)
        if (hi - lo).total_seconds() >= MIN_WINDOW_S:
            return Window(day=day, lo=lo, hi=hi, day_lo=day_lo, day_hi=day_hi, whole=False)
    lo, hi = activity_span(episodes or [], day_lo, day_hi, tz)
    return Window(day=day, lo=lo, hi=hi, day_lo=day_lo, day_hi=day_hi, whole=True)


def axis_ticks(lo: datetime, hi: datetime, *, tz: ZoneInfo) -> list[Tick]:
    """Ticks on [lo, hi] at local whole steps (an hour or two for a day, minutes when
    zoomed in): where (percent) and the local time. Steps of an hour or more are real
    hours from a whole hour, so a clock change shows as a skipped or repeated label."""
    span = (hi - lo).total_seconds()
    step_s = next((s for s in _TICK_STEPS_S if span / s <= MAX_TICKS), _TICK_STEPS_S[-1])
    local = lo.astimezone(tz)
    if step_s >= 3600:
        first = _whole_hour(lo, tz, up=True)
    else:
        minutes = step_s // 60
        floor = local.replace(minute=local.minute - local.minute % minutes, second=0, microsecond=0)
        first = floor.astimezone(UTC)
        if first < lo:
            first += timedelta(seconds=step_s)
    ticks = []
    moment = first
    while moment <= hi:
        x = (moment - lo).total_seconds() / span * 100
        ticks.append(Tick(x=round(x, 3), label=local_clock(moment, tz)))
        moment += timedelta(seconds=step_s)
    return ticks


def block_title(title: str, category: str, t: Translator) -> str:
    """An idle sitting's title in the page's language (the pyramid writes it bilingual)."""
    return t.episode_title(title, category)


def _tip(
    t: Translator,
    *,
    start: str,
    end: str,
    category: str,
    title: str,
    minutes: int,
    idle_minutes: int,
) -> str:
    idle = f" ({t('idle_minutes_n', n=idle_minutes)})" if idle_minutes else ""
    return f"{start}–{end} · {t.category(category)} · {t('minutes_n', n=minutes)}{idle} · {title}"


def _place(lo: datetime, hi: datetime, start: datetime, end: datetime) -> tuple[float, float]:
    span = (hi - lo).total_seconds()
    start, end = max(start, lo), min(end, hi)
    x = (start - lo).total_seconds() / span * 100
    width = max((end - start).total_seconds() / span * 100, MIN_BLOCK_PCT)
    return round(x, 4), round(min(width, 100 - x), 4)


def _episode_blocks(
    episodes: list[EpisodeLine], window: Window, tz: ZoneInfo, t: Translator, selected: int | None
) -> dict[str, list[Block]]:
    by_device: dict[str, list[Block]] = {}
    for e in sorted(episodes, key=lambda e: (e.ts_start, e.episode_id)):
        if e.ts_end <= window.lo or e.ts_start >= window.hi:
            continue
        x, width = _place(window.lo, window.hi, e.ts_start, e.ts_end)
        start, end = local_clock(e.ts_start, tz), local_clock(e.ts_end, tz)
        title = block_title(e.title, e.category, t)
        minutes = round(e.active_s / 60)
        idle_minutes = round((e.duration_s - e.active_s) / 60)
        by_device.setdefault(e.device_id, []).append(
            Block(
                key=f"ep-{e.episode_id}",
                episode_id=e.episode_id,
                category=e.category,
                title=title,
                tip=_tip(
                    t,
                    start=start,
                    end=end,
                    category=e.category,
                    title=title,
                    minutes=minutes,
                    idle_minutes=idle_minutes,
                ),
                x=x,
                width=width,
                start=start,
                end=end,
                minutes=minutes,
                idle_minutes=idle_minutes,
                selected=e.episode_id == selected,
            )
        )
    return by_device


def _episode_of(records: list[WindowRecord], episodes: list[EpisodeLine]) -> dict[int, int | None]:
    """Each record's episode: on its device, the last one starting at or before it,
    while the record starts inside its span (None: not built yet)."""
    spans: dict[str, list[EpisodeLine]] = {}
    for e in sorted(episodes, key=lambda e: (e.ts_start, e.episode_id)):
        spans.setdefault(e.device_id, []).append(e)
    starts = {d: [e.ts_start for e in es] for d, es in spans.items()}
    out: dict[int, int | None] = {}
    for r in records:
        found = None
        if r.device_id in spans:
            i = bisect_right(starts[r.device_id], r.ts_start) - 1
            if i >= 0 and r.ts_start <= spans[r.device_id][i].ts_end:
                found = spans[r.device_id][i].episode_id
        out[r.record_id] = found
    return out


def _record_blocks(
    records: list[WindowRecord],
    window: Window,
    tz: ZoneInfo,
    t: Translator,
    *,
    episodes: list[EpisodeLine],
    idle_gap_s: int,
    selected: int | None,
) -> dict[str, list[Block]]:
    """Runs of a device's consecutive records with the same app, title, category and
    episode, each ending where the duration rule ends its last record."""
    episode_of = _episode_of(records, episodes)
    by_device: dict[str, list[WindowRecord]] = {}
    for r in sorted(records, key=lambda r: (r.device_id, r.ts_start, r.record_id)):
        by_device.setdefault(r.device_id, []).append(r)
    out: dict[str, list[Block]] = {}
    gap = timedelta(seconds=idle_gap_s)
    for device, rows in by_device.items():
        runs: list[tuple[WindowRecord, datetime]] = []  # (first record, end)
        for i, r in enumerate(rows):
            cap = r.ts_start + gap
            nxt = rows[i + 1].ts_start if i + 1 < len(rows) else window.hi
            end = min(r.ts_end or cap, nxt, cap)
            if end <= r.ts_start:
                continue
            if runs:
                first, last_end = runs[-1]
                same = (first.app, first.window_title, first.category, first.is_idle) == (
                    r.app,
                    r.window_title,
                    r.category,
                    r.is_idle,
                )
                one = episode_of[first.record_id] == episode_of[r.record_id]
                if same and one and last_end >= r.ts_start:
                    runs[-1] = (first, end)
                    continue
            runs.append((r, end))
        blocks = []
        for first, end in runs:
            if end <= window.lo:
                continue
            episode_id = episode_of[first.record_id]
            category = "system" if first.is_idle else first.category
            title = (
                t("idle_title")
                if first.is_idle
                else " · ".join(p for p in (first.app, first.window_title) if p)
            )
            seconds = (end - first.ts_start).total_seconds()
            start_s, end_s = local_clock(first.ts_start, tz), local_clock(end, tz)
            minutes = 0 if first.is_idle else round(seconds / 60)
            idle_minutes = round(seconds / 60) if first.is_idle else 0
            x, width = _place(window.lo, window.hi, first.ts_start, end)
            blocks.append(
                Block(
                    key=f"rec-{first.record_id}",
                    episode_id=episode_id,
                    category=category,
                    title=title,
                    tip=_tip(
                        t,
                        start=start_s,
                        end=end_s,
                        category=category,
                        title=title,
                        minutes=minutes,
                        idle_minutes=idle_minutes,
                    ),
                    x=x,
                    width=width,
                    start=start_s,
                    end=end_s,
                    minutes=minutes,
                    idle_minutes=idle_minutes,
                    selected=selected is not None and episode_id == selected,
                )
            )
        out[device] = blocks
    return out


def device_names(devices: list[DeviceRow]) -> dict[str, str]:
    """A device's display name everywhere: its name, else its id."""
    return {d.device_id: d.name or d.device_id for d in devices}


def day_episodes(store: TimelineStore, user: UserContext, window: Window) -> list[EpisodeLine]:
    """The day's episodes: an episode belongs to the day it starts in."""
    return [
        e
        for e in store.list_episodes(
            user_id=user.user_id,
            ts_from=window.day_lo,
            ts_to=window.day_hi,
            category=None,
            limit=5_000,
        )
        if window.day_lo <= e.ts_start < window.day_hi
    ]


def timeline(
    ctx: ToolContext,
    store: TimelineStore,
    *,
    window: Window,
    episodes: list[EpisodeLine],
    t: Translator,
    selected: int | None,
) -> Timeline:
    """The lanes of the window, at the level its width calls for."""
    user = ctx.user
    tz = zone(user.time_zone)
    if window.level == "records":
        # Reads from an idle gap before the window: a record starting there may reach in.
        since = window.lo - timedelta(seconds=ctx.settings.idle_gap_s)
        rows = store.window_records(
            user_id=user.user_id, ts_from=since, ts_to=window.hi, limit=MAX_RECORDS
        )
        near = store.list_episodes(
            user_id=user.user_id, ts_from=since, ts_to=window.hi, category=None, limit=5_000
        )
        blocks = _record_blocks(
            rows,
            window,
            tz,
            t,
            episodes=near,
            idle_gap_s=ctx.settings.idle_gap_s,
            selected=selected,
        )
    else:
        blocks = _episode_blocks(episodes, window, tz, t, selected)
    devices = store.list_devices(user_id=user.user_id)
    names = device_names(devices)
    lanes = [Lane(device_id=d, name=names[d], blocks=blocks.pop(d, [])) for d in names]
    # A device removed since keeps its lane for the days it recorded.
    lanes += [Lane(device_id=d, name=d, blocks=b) for d, b in sorted(blocks.items())]
    return Timeline(
        window=window,
        level=window.level,
        lanes=lanes,
        ticks=axis_ticks(window.lo, window.hi, tz=tz),
        episode_count=len(episodes),
        start_local=local_clock(window.lo, tz),
        end_local=local_clock(window.hi, tz),
    )
