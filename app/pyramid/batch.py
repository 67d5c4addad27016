"""The pure half of the batch build: a chunk of one device's timeline (read in one
ordered pass) cut into device-days and segmented with the unchanged segmenter, the
drafts and the member facts the signal detectors read, the device-overlap sweep, and
a day digest from its numbers. No I/O; `app/pyramid/batch_build.py` drives it.

    chunk = segment_chunk(records, device_id="laptop", days={day}, params=p, now=now)
    chunk.drafts, chunk.open_days, active_intervals(records)

The same functions run per device-day as the live build (`build_device`) does, so the
episodes are the same by construction; `tests/db/test_batch_build.py` compares both.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from app.pyramid.episodes import draft_episode
from app.pyramid.segmenter import Segment, SegmentParams, segment_records
from app.pyramid.signals import detect_day_signals, signal_metrics
from app.store.batch import DayMetrics, DayRollup, StreamRecord
from app.store.digests import DigestDraft, EpisodeFacts, MemberFacts
from app.store.documents import DigestMetrics
from app.store.episodes import EpisodeDraft
from app.timeutil import day_key

Interval = tuple[int, int]  # [start, end) in epoch microseconds


@dataclass(slots=True)
class DeviceChunk:
    """A device's closed episodes of some days (drafts with their segments, in timeline
    order), and the days left with records in an open tail (not settled)."""

    device_id: str
    drafts: list[EpisodeDraft] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    open_days: set[date] = field(default_factory=set)
    ids: dict[str, int] = field(default_factory=dict)  # episode key → id, once saved
    new: int = 0  # episodes the save added (a rerun finds them stored)
    stopped_at: date | None = None  # a day left with open records: later days wait


def device_days(records: Iterable[StreamRecord], days: set[date]) -> dict[date, list[StreamRecord]]:
    """The unbuilt records of these logical days, per day, in timeline order."""
    out: dict[date, list[StreamRecord]] = {}
    for r in records:
        if r.unbuilt and r.day in days:
            out.setdefault(r.day, []).append(r)
    return out


def segment_chunk(
    records: Sequence[StreamRecord],
    *,
    device_id: str,
    days: set[date],
    params: SegmentParams,
    now: float,
) -> DeviceChunk:
    """Segment each device-day of the chunk alone, as the live build does (a logical
    day always closes a segment), and draft its closed segments. A day whose last
    records are still open ends the chunk: a later day's episodes would raise the
    watermark past them."""
    chunk = DeviceChunk(device_id)
    for day, own in sorted(device_days(records, days).items()):
        result = segment_records(own, params=params, now=now)
        for segment in result.closed:
            chunk.segments.append(segment)
            chunk.drafts.append(draft_episode(segment, device_id=device_id))
        if result.open_from is not None:
            chunk.open_days.add(day)
            chunk.stopped_at = day
            break
    return chunk


def member_facts(chunks: Sequence[DeviceChunk]) -> dict[date, list[MemberFacts]]:
    """Per day, the member records of the chunks' episodes that have an id, ordered as
    `day_member_facts` orders them (device, then timeline). The records themselves are
    the facts: their episode and device are filled in here, in place (rows this build
    read, read by nothing else)."""
    out: dict[date, list[MemberFacts]] = {}
    for chunk in sorted(chunks, key=lambda c: c.device_id):
        for draft, segment in zip(chunk.drafts, chunk.segments, strict=True):
            episode_id = chunk.ids.get(draft.episode_key)
            if episode_id is None:
                continue
            members = out.setdefault(draft.day_local, [])
            for m in segment.members:
                assert isinstance(m, StreamRecord)
                fields = m.__dict__
                fields["episode_id"] = episode_id
                fields["device_id"] = chunk.device_id
                members.append(m)
    return out


# -- device overlap ---------------------------------------------------------------------


def active_intervals(records: Iterable[StreamRecord]) -> list[Interval]:
    """A device's active (not idle) time as sorted, disjoint intervals in microseconds.
    One device's effective spans never overlap, and spans that touch are merged: in the
    sweep an end goes before a start at one instant, so touching never overlaps."""
    out: list[Interval] = []
    for r in records:
        if r.is_idle:
            continue
        # Times are whole microseconds: round() gives them back exactly, and rounds a
        # duration as `make_interval(secs => d)` does.
        start = round(r.ts * 1_000_000)
        end = start + round(r.duration * 1_000_000)
        if end <= start:
            continue
        if out and out[-1][1] >= start:
            if end > out[-1][1]:
                out[-1] = (out[-1][0], end)
            continue
        out.append((start, end))
    return out


def join_intervals(before: list[Interval], after: list[Interval]) -> list[Interval]:
    """Intervals read so far and those of a later read (which start no earlier)."""
    if before and after and before[-1][1] >= after[0][0]:
        joined = (before[-1][0], max(before[-1][1], after[0][1]))
        return [*before[:-1], joined, *after[1:]]
    return before + after


def overlap_seconds(devices: Iterable[Sequence[Interval]], *, ts_from: int, ts_to: int) -> float:
    """Seconds of [ts_from, ts_to) (microseconds) during which two or more devices were
    active at once: the sweep of `device_overlap_seconds`, over each device's intervals."""
    edges: list[tuple[int, int]] = []
    for intervals in devices:
        # The first interval that ends after ts_from, up to the first that starts at ts_to.
        first = bisect.bisect_right(intervals, ts_from, key=lambda i: i[1])
        for start, end in itertools.islice(intervals, first, None):
            if start >= ts_to:
                break
            s, e = max(start, ts_from), min(end, ts_to)
            if e > s:
                edges += [(s, 1), (e, -1)]
    edges.sort()
    active = overlap = 0
    for (t, delta), (t_next, _) in itertools.pairwise(edges):
        active += delta
        if active >= 2:
            overlap += t_next - t
    return overlap / 1_000_000


def micros(when: datetime) -> int:
    """An aware instant in epoch microseconds."""
    delta = when - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


# -- the day digest ---------------------------------------------------------------------


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def day_rollup(
    *,
    day: date,
    start: datetime,
    end: datetime,
    numbers: DayMetrics,
    episodes: Sequence[EpisodeFacts],
    members: Sequence[MemberFacts],
    overlap: float,
    settled: bool,
    tz: ZoneInfo,
    cut_hour: int,
    idle_gap_s: float,
    now: datetime,
) -> DayRollup:
    """A day digest and its signals, as `rollup_day` makes them from the same reads."""
    signals = detect_day_signals(episodes, members, tz=tz, cut_hour=cut_hour, idle_gap_s=idle_gap_s)
    metrics = DigestMetrics(
        seconds_by_category=numbers.seconds_by_category,
        seconds_by_app=numbers.seconds_by_app,
        episode_count=numbers.episode_count,
        active_seconds=numbers.active_seconds,
        idle_seconds=numbers.idle_seconds,
        switch_count=numbers.switch_count,
        interruption_seconds=numbers.interruption_seconds,
        top_titles=numbers.top_titles,
        first_activity=_iso(numbers.first_activity),
        last_activity=_iso(numbers.last_activity),
        **signal_metrics(signals),
        device_overlap_seconds=overlap,
    )
    if numbers.seconds_by_user_category:  # as `period_metrics`: a user with categories
        metrics["seconds_by_user_category"] = numbers.seconds_by_user_category
    over = now >= end + timedelta(seconds=idle_gap_s)
    digest = DigestDraft.model_construct(
        grain="day",
        scope_key=day_key(day),
        period_start=start,
        period_end=end,
        metrics=metrics,
        source_ids=list(numbers.episode_ids),
        computed_through_ts=numbers.computed_through_ts,
        finalized=over and settled,
        sources_through=numbers.sources_through,
    )
    return DayRollup.model_construct(day=day, digest=digest, signals=signals)
