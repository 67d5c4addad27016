"""Building the pyramid without any model: episodes per device-day, then day,
week and month digests with their signals. The procrastinate tasks in
`app/jobs/pyramid.py` and `timetrace backfill` are thin shells over these.

Every function here may run twice, or be killed half-way and run again, and
leaves the same rows: episodes are keyed by device + first record and stored
in one transaction that writes no record (an episode is a span of its device's
timeline: its members are read by range), digests are upserts on
(user, grain, scope) that write nothing when nothing changed, and a day's
signals are replaced in the same transaction as its digest.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Protocol

from app.job_requests import build_job, rollup_day_job, rollup_period_job
from app.pyramid.batch_build import LiveSteps, build_history
from app.pyramid.episodes import draft_episode
from app.pyramid.metrics import merge_day_metrics
from app.pyramid.segmenter import SegmentParams, segment_records
from app.pyramid.signals import detect_day_signals, signal_metrics
from app.settings import Settings
from app.store.accounts import AccountStore, UserContext
from app.store.batch import BatchStore
from app.store.digests import DigestDraft, DigestStore
from app.store.documents import DigestMetrics
from app.store.episodes import EpisodeStore, ReadWindow, SegmentInput
from app.store.jobs import JobRequest
from app.store.tools import ToolStore
from app.timeutil import (
    day_bounds,
    day_key,
    month_key,
    period_days,
    read_window,
    scope_keys,
    week_key,
    zone,
)

# Called between bounded pieces of work with what comes next (days and ids, never
# captured text); a job's clock raises from it at its time limit or when the worker
# stops (app/jobs/limits.py). Code run outside a job passes nothing.
Checkpoint = Callable[[str], None]


class PyramidStore(AccountStore, EpisodeStore, DigestStore, BatchStore, ToolStore, Protocol):
    """What the builder uses: users, the episodes it saves (a day at a time or in bulk),
    the digests it rolls up, and the period metrics it reads as the tools do."""


def _no_checkpoint(doing: str) -> None:
    return None


def segment_params(settings: Settings) -> SegmentParams:
    return SegmentParams(
        idle_gap_s=settings.idle_gap_s,
        max_episode_s=settings.max_episode_s,
        switch_debounce_s=settings.switch_debounce_s,
        interruption_max_s=settings.interruption_max_s,
    )


# -- L2: episodes ------------------------------------------------------------------

SAVE_ATTEMPTS = 3
# More unbuilt days than this on a device (an import, a long offline spell): the job
# builds them in bulk (`app/pyramid/batch_build.py`), not a day at a time.
BATCH_FROM_DAYS = 2


@dataclass(slots=True)
class BuildResult:
    episodes: int = 0
    days: set[date] = field(default_factory=set)  # days whose episodes changed
    more: bool = False  # stopped early to yield (`step_over`): days are left to build
    rollups: list[JobRequest] = field(default_factory=list)  # for the caller to enqueue


def build_device(
    store: PyramidStore,
    *,
    user: UserContext,
    device_id: str,
    now: datetime,
    settings: Settings,
    days: Iterable[date] | None = None,
    enqueue_rollups: bool = False,
    checkpoint: Checkpoint = _no_checkpoint,
    step_over: Callable[[], bool] | None = None,
) -> BuildResult:
    """Close every episode of the device that a boundary (or time) has closed.

    Days whose closed episodes can no longer stand (stale after a deletion, or a
    record that arrived late) are rebuilt whole: the logical day is a boundary, so
    no other day's episodes change, except an earlier day whose last record the
    change cuts short or lets run again (see `days_to_reopen`).

    Days are built one at a time, oldest first, each in its own transaction; with
    `step_over`, the build stops after a day once it says so (`more` then tells the
    caller that days are left), so a long history never holds a worker in one go.
    A day whose last records are still open stops the build after it: a later day's
    episodes would raise the watermark past them.
    """
    tz = zone(user.time_zone)
    params = segment_params(settings)
    todo = (
        sorted(days)
        if days is not None
        else store.days_to_build(user_id=user.user_id, device_id=device_id)
    )
    result = BuildResult()
    reopen = store.days_to_reopen(user_id=user.user_id, device_id=device_id, days=todo)
    if reopen:
        # A late record may cut short the last record of an earlier day: rebuild that too.
        todo = sorted({*todo, *reopen})
        keys = sorted({key for day in reopen for key in scope_keys(day)})
        store.reopen_days(
            user_id=user.user_id,
            device_id=device_id,
            days=reopen,
            digest_keys=keys,
            then=[rollup_day_job(user.user_id, d) for d in reopen] if enqueue_rollups else [],
        )
        result.days.update(reopen)
    for index, day in enumerate(todo):
        if index and step_over is not None and step_over():
            result.more = True
            break
        checkpoint(f"building {device_id} {day.isoformat()}")
        start, end = day_bounds(day, tz=tz, cut_hour=user.day_cut_hour)
        ts_from, ts_to = read_window(start, end, idle_gap_s=settings.idle_gap_s)
        then = [rollup_day_job(user.user_id, day)] if enqueue_rollups else []
        # A record inserted, deleted or re-labelled meanwhile, or another build's save,
        # voids the read: read again. A day changed under every try is left to the build
        # its change asked for (or to the periodic sweep): it stays after the watermark
        # or marked, nothing is lost.
        open_tail = False
        for _ in range(SAVE_ATTEMPTS):
            read = store.records_to_segment(
                user_id=user.user_id, device_id=device_id, day=day, ts_from=ts_from, ts_to=ts_to
            )
            checkpoint(f"segmenting {device_id} {day.isoformat()}")
            segmented = segment_records(read.records, params=params, now=now.timestamp())
            open_from = segmented.open_from
            open_tail = open_from is not None
            if (
                open_from is not None
                and read.window.marked
                and _below(read.records[open_from], read.window)
            ):
                # A marked day whose last records are still open below the watermark
                # (later days are built): it stays marked until they close.
                break
            segments = segmented.closed
            if not segments and not read.window.marked:
                break
            drafts = []
            for segment in segments:
                checkpoint(f"drafting episodes of {device_id} {day.isoformat()}")
                drafts.append(draft_episode(segment, device_id=device_id))
            saved = store.save_episodes(
                user_id=user.user_id, drafts=drafts, window=read.window, then=then
            )
            if saved is not None:
                result.episodes += len(saved)
                if drafts or read.window.marked:  # its episodes changed
                    result.days.add(day)
                break
        if open_tail and days is None:
            break  # the next build (the sweep's, or the next batch's) goes on
    return result


def _below(record: SegmentInput, window: ReadWindow) -> bool:
    """Whether the record's position is at or below the watermark the window read."""
    if window.after_ts is None or window.after_key is None:
        return False
    return (record.ts, record.key) <= (window.after_ts, window.after_key)


def build_and_enqueue(
    store: PyramidStore,
    *,
    user: UserContext,
    device_id: str,
    now: datetime,
    settings: Settings,
    checkpoint: Checkpoint = _no_checkpoint,
    step_over: Callable[[], bool] | None = None,
) -> BuildResult:
    """The `build_episodes` job: build, asking for the rollup of each day it changes in
    the same transaction as the change (a kill in between cannot lose it). A long
    unbuilt span (an import over HTTP) goes through the batch build instead, a
    device-month per transaction, and leaves its days' rollups to the caller to enqueue
    (`rollups`: a kill in between leaves them to the sweep, which finds the episodes
    changed)."""
    if len(store.days_to_build(user_id=user.user_id, device_id=device_id)) > BATCH_FROM_DAYS:
        built = build_history(
            store,
            user=user,
            device_ids=[device_id],
            now=now,
            settings=settings,
            params=segment_params(settings),
            live=_live_steps(store, user=user, now=now, settings=settings),
            roll_up=False,
            checkpoint=checkpoint,
            step_over=step_over,
        )
        rollups = [rollup_day_job(user.user_id, day) for day in sorted(built.days)]
        return BuildResult(built.episodes, built.days, built.more, rollups)
    return build_device(
        store,
        user=user,
        device_id=device_id,
        now=now,
        settings=settings,
        enqueue_rollups=True,
        checkpoint=checkpoint,
        step_over=step_over,
    )


# -- L3/L4: digests and signals -------------------------------------------------------


def rollup_day(
    store: PyramidStore,
    *,
    user: UserContext,
    day: date,
    now: datetime,
    settings: Settings,
    then: Sequence[JobRequest] = (),
    checkpoint: Checkpoint = _no_checkpoint,
) -> int:
    """Compute the day digest and the day's signals from its closed episodes (and enqueue
    `then` in the same transaction)."""
    checkpoint(f"rolling up {day.isoformat()}")
    tz = zone(user.time_zone)
    start, end = day_bounds(day, tz=tz, cut_hour=user.day_cut_hour)
    # Before the numbers: an episode that changes after them leaves the digest due again.
    through = store.sources_through(user_id=user.user_id, grain="day", day_from=day, day_to=day)
    live = store.period_metrics(user_id=user.user_id, day_from=day, day_to=day)
    facts = store.day_facts(user_id=user.user_id, day=day)
    episodes, members = facts.episodes, facts.members
    signals = detect_day_signals(
        episodes,
        members,
        tz=tz,
        cut_hour=user.day_cut_hour,
        idle_gap_s=settings.idle_gap_s,
        checkpoint=lambda: checkpoint(f"detecting the signals of {day.isoformat()}"),
    )
    read_from, _ = read_window(start, end, idle_gap_s=settings.idle_gap_s)
    overlap = store.device_overlap_seconds(
        user_id=user.user_id, ts_from=start, ts_to=end, read_from=read_from
    )
    metrics = DigestMetrics(
        **live.metrics, **signal_metrics(signals), device_overlap_seconds=overlap
    )
    over = now >= end + timedelta(seconds=settings.idle_gap_s)
    digest = DigestDraft.model_construct(
        grain="day",
        scope_key=day_key(day),
        period_start=start,
        period_end=end,
        metrics=metrics,
        source_ids=live.episode_ids,
        computed_through_ts=live.computed_through_ts,
        finalized=over and store.day_is_settled(user_id=user.user_id, day=day),
        sources_through=through,
    )
    return store.save_day_rollup(
        user_id=user.user_id, digest=digest, day=day, signals=signals, then=then
    )


def rollup_period(
    store: PyramidStore,
    *,
    user: UserContext,
    grain: str,
    key: str,
    now: datetime,
    settings: Settings,
) -> int:
    """A week or month digest from its day digests (a month never from weeks)."""
    tz = zone(user.time_zone)
    first, last = period_days(grain, key)
    start, _ = day_bounds(first, tz=tz, cut_hour=user.day_cut_hour)
    _, end = day_bounds(last, tz=tz, cut_hour=user.day_cut_hour)
    through = store.sources_through(user_id=user.user_id, grain=grain, day_from=first, day_to=last)
    days = store.day_digests(user_id=user.user_id, day_from=first, day_to=last)
    metrics = merge_day_metrics([d.metrics for d in days])
    # The top titles of a period are not the sum of each day's top ten.
    period = store.period_metrics(user_id=user.user_id, day_from=first, day_to=last)
    metrics["top_titles"] = period.metrics.get("top_titles", [])
    complete = all(d.finalized and not d.stale for d in days) and len(days) == store.active_days(
        user_id=user.user_id, day_from=first, day_to=last
    )
    last_activity = metrics.get("last_activity")
    digest = DigestDraft.model_construct(
        grain=grain,
        scope_key=key,
        period_start=start,
        period_end=end,
        metrics=metrics,
        source_ids=[d.digest_id for d in days],
        computed_through_ts=datetime.fromisoformat(last_activity) if last_activity else None,
        finalized=complete and now >= end + timedelta(seconds=settings.idle_gap_s),
        sources_through=through,
    )
    return store.save_digest(user_id=user.user_id, digest=digest)


def rollup_day_and_enqueue(
    store: PyramidStore,
    *,
    user: UserContext,
    day: date,
    now: datetime,
    settings: Settings,
    checkpoint: Checkpoint = _no_checkpoint,
) -> int:
    """The `rollup_day` job: the day digest, asking for its week and month in the same
    transaction (a kill in between cannot lose them)."""
    return rollup_day(
        store,
        user=user,
        day=day,
        now=now,
        settings=settings,
        checkpoint=checkpoint,
        then=[
            rollup_period_job(user.user_id, "week", week_key(day)),
            rollup_period_job(user.user_id, "month", month_key(day)),
        ],
    )


# -- sweeps and back-fill ------------------------------------------------------------------


# How far back the periodic sweep looks for episodes and day digests that changed: it
# runs every minute, so a day covers any pause of the worker short of a day; a longer
# one is caught up by `timetrace backfill`, which looks at the whole history.
SWEEP_LOOKBACK = timedelta(days=1)


def pending_jobs(store: PyramidStore, *, now: datetime | None = None) -> list[JobRequest]:
    """What the periodic sweep enqueues: builds for devices with records not built yet
    or marked days, rollups for days whose digest is missing, old or unfinalized, and for
    weeks and months behind their days (a chain of jobs a crash cut). Only what changed
    in the last `SWEEP_LOOKBACK` is read again, so the sweep does not grow with history."""
    since = (now or datetime.now(UTC)) - SWEEP_LOOKBACK
    builds = [build_job(w.user_id, w.device_id) for w in store.devices_with_work()]
    rollups = [rollup_day_job(r.user_id, r.day_local) for r in store.rollups_due(since=since)]
    periods = [
        rollup_period_job(p.user_id, p.grain, p.scope_key) for p in store.periods_due(since=since)
    ]
    return builds + rollups + periods


@dataclass(slots=True)
class BackfillSummary:
    days: int = 0
    episodes: int = 0
    day_digests: int = 0
    period_digests: int = 0


def backfill(
    store: PyramidStore,
    *,
    now: datetime,
    settings: Settings,
    progress: Callable[[str, int, int], None] | None = None,
) -> BackfillSummary:
    """Bring every layer up to date: each user's unbuilt history by the batch build
    (`app/pyramid/batch_build.py`, oldest first: a device's watermark only moves
    forward), then the day digests due for other reasons, then the weeks and months of
    every day touched."""
    summary = BackfillSummary()
    work: dict[int, list[str]] = {}
    for w in store.devices_with_work():
        work.setdefault(w.user_id, []).append(w.device_id)
    due = {(r.user_id, r.day_local) for r in store.rollups_due()}
    if work:
        store.refresh_statistics()
    users: dict[int, UserContext] = {}

    def user_of(user_id: int) -> UserContext | None:
        user = users.get(user_id) or store.get_user_by_id(user_id=user_id)
        if user is not None:
            users[user_id] = user
        return user

    # Weeks and months an earlier run left behind (killed before its period rollups).
    periods: set[tuple[UserContext, str, str]] = set()
    for p in store.periods_due():
        if (user := user_of(p.user_id)) is not None:
            periods.add((user, p.grain, p.scope_key))
    touched: set[tuple[int, date]] = set()
    for user_id, device_ids in sorted(work.items()):
        if (user := user_of(user_id)) is None:
            continue
        built = build_history(
            store,
            user=user,
            device_ids=sorted(device_ids),
            now=now,
            settings=settings,
            params=segment_params(settings),
            live=_live_steps(store, user=user, now=now, settings=settings),
            progress=progress,
        )
        summary.episodes += built.episodes
        summary.day_digests += len(built.rolled)
        touched |= {(user_id, day) for day in built.days | built.rolled}
        for day in built.rolled:
            periods |= periods_of(user, day)
    for user_id, day in sorted(due - touched):
        if (user := user_of(user_id)) is None:
            continue
        rollup_day(store, user=user, day=day, now=now, settings=settings)
        summary.day_digests += 1
        touched.add((user_id, day))
        periods |= periods_of(user, day)
    summary.days = len({day for _, day in touched})
    summary.period_digests = rollup_periods(store, periods, now=now, settings=settings)
    return summary


def _live_steps(
    store: PyramidStore, *, user: UserContext, now: datetime, settings: Settings
) -> LiveSteps:
    def build_days(device_id: str, days: list[date]) -> tuple[int, set[date]]:
        built = build_device(
            store, user=user, device_id=device_id, now=now, settings=settings, days=days
        )
        return built.episodes, built.days

    def rollup(day: date) -> None:
        rollup_day(store, user=user, day=day, now=now, settings=settings)

    return LiveSteps(build_days=build_days, rollup_day=rollup)


def periods_of(user: UserContext, day: date) -> set[tuple[UserContext, str, str]]:
    """The week and month digests a day rolls up into."""
    return {(user, "week", week_key(day)), (user, "month", month_key(day))}


def rollup_periods(
    store: PyramidStore,
    periods: set[tuple[UserContext, str, str]],
    *,
    now: datetime,
    settings: Settings,
) -> int:
    """Week and month digests, newest first; returns how many."""
    for user, grain, key in sorted(periods, key=lambda p: (p[2], p[0].user_id), reverse=True):
        rollup_period(store, user=user, grain=grain, key=key, now=now, settings=settings)
    return len(periods)


def rollup_days(
    store: PyramidStore,
    days: Iterable[tuple[UserContext, date]],
    *,
    now: datetime,
    settings: Settings,
) -> None:
    """Day digests for these (user, day) pairs, then the weeks and months they fall in."""
    periods: set[tuple[UserContext, str, str]] = set()
    for user, day in days:
        rollup_day(store, user=user, day=day, now=now, settings=settings)
        periods |= periods_of(user, day)
    rollup_periods(store, periods, now=now, settings=settings)


class RebuildDays(Protocol):
    """`rebuild_days` with its store and settings bound: what a door passes to rebuild
    the days a change touched before it answers."""

    def __call__(
        self, *, user: UserContext, device_days: Sequence[tuple[str, date]], now: datetime
    ) -> None: ...


def rebuild_days(
    store: PyramidStore,
    *,
    user: UserContext,
    device_days: Sequence[tuple[str, date]],
    now: datetime,
    settings: Settings,
) -> None:
    """Rebuild the episodes of these device-days now, then their digests (after a
    re-label: the next answer must already see it)."""
    days = {day for _, day in device_days}
    for device_id in sorted({device for device, _ in device_days}):
        days |= build_device(
            store,
            user=user,
            device_id=device_id,
            now=now,
            settings=settings,
            days=[day for device, day in device_days if device == device_id],
        ).days
    rollup_days(store, [(user, day) for day in sorted(days)], now=now, settings=settings)
