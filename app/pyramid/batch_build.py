"""The batch build for history (backfill and imports): each device's unbuilt timeline
is read a month of logical days at a time in one ordered pass, segmented per
device-day in memory, and its episodes written in one transaction per device-month;
then the month's day digests and signals are computed from what was just built (one
read of the month's numbers, one write). The live per-minute job keeps
`build_device`: small transactions, a day at a time.

    result = build_history(store, user=user, device_ids=["laptop"], now=now, settings=s)

Days the batch cannot take whole go through the live functions, so the result is the
same either way: a device-day at or before what is already built (a late record, a
deletion, a re-label) is built by `build_device`, and the digest of a day that other
episodes or records from before this build reach into by `rollup_day`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Protocol

from app.pyramid import batch
from app.pyramid.batch import DeviceChunk, Interval
from app.pyramid.segmenter import SegmentParams
from app.settings import Settings
from app.store.accounts import AccountStore, UserContext
from app.store.batch import BatchRead, BatchStore
from app.store.digests import DigestStore, EpisodeFacts
from app.store.episodes import EpisodeStore
from app.timeutil import day_bounds, read_window, scope_keys, zone

Progress = Callable[[str, int, int], None]
SAVE_ATTEMPTS = 3  # reads of a chunk that a concurrent change voided, before leaving it


class HistoryStore(AccountStore, EpisodeStore, DigestStore, BatchStore, Protocol):
    """What the batch build reads and writes itself."""


@dataclass(frozen=True, slots=True)
class LiveSteps:
    """The live build's steps for what the batch cannot take whole (`app/pyramid/build.py`
    passes them, bound to its store): build some days of a device (the episodes added,
    and the days whose episodes changed), and roll up one day."""

    build_days: Callable[[str, list[date]], tuple[int, set[date]]]
    rollup_day: Callable[[date], None]


@dataclass(slots=True)
class HistoryResult:
    episodes: int = 0  # episodes added
    days: set[date] = field(default_factory=set)  # days whose episodes were built
    rolled: set[date] = field(default_factory=set)  # days whose digest was computed
    more: bool = False  # stopped early to yield: days are left to build


@dataclass(slots=True)
class _Timeline:
    """A device's active intervals read so far, and up to where its reads reached."""

    intervals: list[Interval] = field(default_factory=list)
    read_to: int = -(2**62)


def build_history(
    store: HistoryStore,
    *,
    user: UserContext,
    device_ids: Sequence[str],
    now: datetime,
    settings: Settings,
    params: SegmentParams,
    live: LiveSteps,
    progress: Progress | None = None,
    roll_up: bool = True,
    checkpoint: Callable[[str], None] | None = None,
    step_over: Callable[[], bool] | None = None,
) -> HistoryResult:
    """Build these devices' unbuilt days and roll up those days' digests (not weeks
    and months: the caller rolls those up once for every day it touched). Without
    `roll_up` no digest is computed: the caller asks for the days' rollups (a build of
    some of a user's devices cannot know a day whole). `checkpoint` is called before each
    device-month, and once `step_over` says so the build stops between two of them
    (`more`: days are left)."""
    result = HistoryResult()
    user_id = user.user_id
    todo: dict[str, list[date]] = {}
    for device_id in device_ids:
        days = store.days_to_build(user_id=user_id, device_id=device_id)
        reopen = store.days_to_reopen(user_id=user_id, device_id=device_id, days=days)
        if reopen:
            keys = sorted({key for day in reopen for key in scope_keys(day)})
            store.reopen_days(user_id=user_id, device_id=device_id, days=reopen, digest_keys=keys)
            result.days.update(reopen)
        todo[device_id] = sorted({*days, *reopen})
    # What is built already (after the reopened days lost their episodes).
    built = {b.device_id: b for b in store.batch_built_through(user_id=user_id)}
    tail: dict[str, list[date]] = {}
    marked_after: dict[str, list[date]] = {}
    for device_id, days in todo.items():
        last = built[device_id].day_local if device_id in built else None
        marked = set(built[device_id].marked) if device_id in built else set()
        # At or before the watermark's day: the live build, a day at a time, first.
        rest = [day for day in days if last is not None and day <= last]
        if rest:
            added, changed = live.build_days(device_id, rest)
            result.episodes += added
            result.days |= changed | set(rest)
        after = [day for day in days if last is None or day > last]
        tail[device_id] = [day for day in after if day not in marked]
        # A marked day after the watermark is rebuilt whole by the live build, after.
        marked_after[device_id] = [day for day in after if day in marked]
    # A day two days after every device's watermark day holds only records this build
    # reads (the overlap of a day reads a day back): its digest comes from these reads.
    newest = max((b.day_local for b in built.values() if b.day_local is not None), default=None)
    fresh_from = newest + timedelta(days=2) if newest is not None else date.min
    fresh_until = date.max  # a device stopped at a day still open: no batch digest from it
    # Nor for a day another device rebuilds by the live build after the batch.
    rebuilt_later = {day for days in marked_after.values() for day in days}
    timelines: dict[str, _Timeline] = {}
    months = _months([day for days in tail.values() for day in days])
    jobs = [
        (index, device_id, own)
        for index, (month, _) in enumerate(months)
        for device_id in sorted(tail)
        if (own := [day for day in tail[device_id] if (day.year, day.month) == month])
    ]
    stopped: set[str] = set()
    # The next device's chunk is read while this one is segmented (PostgreSQL works on
    # the other core). Never the same device's next month: this save moves its
    # watermark, which would void that read.
    with ThreadPoolExecutor(max_workers=1) as reader:
        ahead: dict[int, Future[BatchRead]] = {}
        at = 0
        for index, (_, days) in enumerate(months):
            chunks: list[DeviceChunk] = []
            while at < len(jobs) and jobs[at][0] == index:
                _, device_id, own = jobs[at]
                if at and step_over is not None and step_over():
                    result.more = True
                    break
                if checkpoint is not None:
                    checkpoint(f"building {device_id} {own[0].isoformat()}…")
                first = ahead.pop(at).result() if at in ahead else None
                if at + 1 < len(jobs) and jobs[at + 1][1] != device_id:
                    _, next_device, next_days = jobs[at + 1]
                    window = _window(user, next_days, settings=settings)
                    ahead[at + 1] = reader.submit(_read, store, user, next_device, window)
                at += 1
                if device_id in stopped:
                    continue
                timeline = timelines.setdefault(device_id, _Timeline())
                chunk = _build_chunk(
                    store, user=user, device_id=device_id, days=own, now=now,
                    settings=settings, params=params, timeline=timeline, first=first,
                )  # fmt: skip
                if chunk is None:
                    continue
                chunks.append(chunk)
                result.episodes += chunk.new
                stop = chunk.stopped_at or date.max
                result.days.update(day for day in own if day <= stop)
                if chunk.stopped_at is not None:
                    # Open records below a later episode would fall under the watermark:
                    # the device's later days wait for the next build (as `build_device`).
                    stopped.add(device_id)
                    fresh_until = min(fresh_until, chunk.stopped_at)
            fresh = [
                day for day in days if fresh_from <= day < fresh_until and day not in rebuilt_later
            ]
            _rollup_fresh(
                store, user=user, days=fresh, chunks=chunks, timelines=timelines, now=now,
                settings=settings,
            )  # fmt: skip
            result.rolled.update(fresh)
            if progress:
                progress(days[-1].isoformat(), index + 1, len(months))
    for device_id, days in sorted(marked_after.items()):
        if days and not result.more:
            added, changed = live.build_days(device_id, days)
            result.episodes += added
            result.days |= changed | set(days)
            result.rolled -= changed  # an earlier day it cut short: roll it up again
    for day in sorted(result.days - result.rolled) if roll_up else ():
        live.rollup_day(day)
        result.rolled.add(day)
    return result


def _months(days: Sequence[date]) -> list[tuple[tuple[int, int], list[date]]]:
    out: dict[tuple[int, int], list[date]] = {}
    for day in sorted(set(days)):
        out.setdefault((day.year, day.month), []).append(day)
    return sorted(out.items())


def _build_chunk(
    store: HistoryStore,
    *,
    user: UserContext,
    device_id: str,
    days: list[date],
    now: datetime,
    settings: Settings,
    params: SegmentParams,
    timeline: _Timeline,
    first: BatchRead | None = None,
) -> DeviceChunk | None:
    """One device-month: read (or take the read made ahead), segment, save. A record
    inserted, deleted or re-labelled meanwhile voids the read (the save compares the
    window's stamp): read again. A chunk changed under every try is left to the build
    its change asked for; nothing is lost."""
    window = _window(user, days, settings=settings)
    for attempt in range(SAVE_ATTEMPTS):
        read = first if attempt == 0 and first is not None else None
        if read is None:
            read = _read(store, user, device_id, window)
        chunk = batch.segment_chunk(
            read.records, device_id=device_id, days=set(days), params=params, now=now.timestamp()
        )
        saved = store.save_episode_chunk(
            user_id=user.user_id, drafts=chunk.drafts, window=read.window
        )
        if saved is None:
            continue
        chunk.ids = {s.episode_key: s.episode_id for s in saved}
        chunk.new = sum(1 for s in saved if s.new)
        # The read window overlaps the last one by a day: take only what is new of it.
        seen_to = timeline.read_to / 1_000_000
        unseen = [r for r in read.records if r.ts >= seen_to]
        timeline.intervals = batch.join_intervals(
            timeline.intervals, batch.active_intervals(unseen)
        )
        timeline.read_to = batch.micros(window[2])
        return chunk
    return None


def _window(
    user: UserContext, days: Sequence[date], *, settings: Settings
) -> tuple[date, datetime, datetime]:
    """What a chunk of days reads: its first day (whose mark the stamp sees), and the
    read window of its days."""
    tz = zone(user.time_zone)
    start, _ = day_bounds(days[0], tz=tz, cut_hour=user.day_cut_hour)
    _, end = day_bounds(days[-1], tz=tz, cut_hour=user.day_cut_hour)
    ts_from, ts_to = read_window(start, end, idle_gap_s=settings.idle_gap_s)
    return days[0], ts_from, ts_to


def _read(
    store: HistoryStore,
    user: UserContext,
    device_id: str,
    window: tuple[date, datetime, datetime],
) -> BatchRead:
    day, ts_from, ts_to = window
    return store.batch_stream(
        user_id=user.user_id, device_id=device_id, day=day, ts_from=ts_from, ts_to=ts_to
    )


def _rollup_fresh(
    store: HistoryStore,
    *,
    user: UserContext,
    days: list[date],
    chunks: Sequence[DeviceChunk],
    timelines: dict[str, _Timeline],
    now: datetime,
    settings: Settings,
) -> None:
    """The digests and signals of days this build read whole, in one write."""
    if not days:
        return
    tz = zone(user.time_zone)
    numbers = {n.day_local: n for n in store.batch_day_metrics(user_id=user.user_id, days=days)}
    episodes: dict[date, list[EpisodeFacts]] = {}
    for facts in store.batch_episode_facts(user_id=user.user_id, days=days):
        episodes.setdefault(facts.day_local, []).append(facts)
    members = batch.member_facts(chunks)
    unsettled = {day for chunk in chunks for day in chunk.open_days}
    rollups = []
    for day in days:
        start, end = day_bounds(day, tz=tz, cut_hour=user.day_cut_hour)
        overlap = batch.overlap_seconds(
            [t.intervals for t in timelines.values()],
            ts_from=batch.micros(start),
            ts_to=batch.micros(end),
        )
        rollups.append(
            batch.day_rollup(
                day=day,
                start=start,
                end=end,
                numbers=numbers[day],
                episodes=episodes.get(day, []),
                members=members.get(day, []),
                overlap=overlap,
                settled=day not in unsettled,
                tz=tz,
                cut_hour=user.day_cut_hour,
                idle_gap_s=settings.idle_gap_s,
                now=now,
            )
        )
    store.save_day_rollups(user_id=user.user_id, rollups=rollups)
