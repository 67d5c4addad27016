"""Episodes (L2): what the episode builder reads and writes (`EpisodeStore`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Protocol

from app.store.documents import Interruption
from app.store.jobs import JobRequest
from app.store.row import Row


class SegmentInput(Row):
    """One record as the segmenter sees it (times in epoch seconds). `key` is its
    client_record_id: with `ts`, its position on the device's timeline."""

    record_id: int
    key: str = ""
    ts: float
    duration: float
    app: str
    title: str
    domain: str | None
    category: str
    is_idle: bool
    day: date
    confidence: float = 1.0
    embedding: Sequence[float] | None = None

    @property
    def end(self) -> float:
        return self.ts + self.duration


class ReadWindow(Row):
    """What a build of one device-day read: `stamp` changes when a live record of the
    read window is inserted, deleted or changed meanwhile, when another build saves
    episodes of the device (its watermark moves), or when the day's mark changes.
    `marked`: the day was marked, so the whole day was read (its save clears the mark).
    `after_ts`/`after_key`: the device's watermark as read (epoch seconds and key; None
    when the device has no episode)."""

    device_id: str
    day: date
    ts_from: datetime
    ts_to: datetime
    stamp: str
    marked: bool = False
    after_ts: float | None = None
    after_key: str | None = None


class SegmentRead(Row):
    """A device-day's records not built yet, and the window they were read in."""

    records: list[SegmentInput]
    window: ReadWindow


class EpisodeDraft(Row):
    """A closed episode ready to store: its span on the device's timeline runs from its
    first member's position (ts_start, first_key) to its last one's (last_start,
    last_key); `record_ids` are its members (for the interruptions' evidence, never
    written to the records)."""

    episode_key: str
    device_id: str
    ts_start: datetime
    first_key: str
    last_start: datetime
    last_key: str
    ts_end: datetime
    day_local: date
    primary_app: str
    cluster_key: str
    category: str
    title: str
    summary_status: str
    interruptions: list[Interruption]
    frame_count: int
    duration_s: float
    active_s: float
    category_seconds: dict[str, float]
    app_seconds: dict[str, float]
    switch_count: int
    interruption_s: float
    boundary: str
    record_ids: list[int]
    # Written by rule from the members while no model has (`app/pyramid/cards.py`).
    summary: str | None = None
    summary_by: str | None = None


class EpisodeLine(Row):
    """An episode as the query-time tools show it."""

    episode_id: int
    device_id: str
    ts_start: datetime
    ts_end: datetime
    category: str
    category_source: str  # "records", or "model" when a summary filled in "uncategorized"
    title: str
    summary: str | None
    duration_s: float
    active_s: float  # duration_s without idle/locked time
    summary_by: str | None = None  # "rules" (from its records, no model) or "model"


class UserDevice(Row):
    """A user's device with records waiting for an episode, or stale episodes."""

    user_id: int
    device_id: str


class DayCount(Row):
    day_local: date
    n: int


class EpisodeStore(Protocol):
    """What the episode builder reads and writes."""

    def devices_with_work(self) -> list[UserDevice]: ...
    def refresh_statistics(self) -> None:
        """Refresh the planner's statistics of what a bulk build reads. Right after a
        large load they describe the table before it, and each device-day's reads
        then take several times as long (autovacuum catches up only later)."""
        ...

    def days_to_build(self, *, user_id: int, device_id: str) -> list[date]: ...
    def days_to_reopen(
        self, *, user_id: int, device_id: str, days: Sequence[date]
    ) -> list[date]: ...

    def reopen_days(
        self,
        *,
        user_id: int,
        device_id: str,
        days: Sequence[date],
        digest_keys: Sequence[str],
        then: Sequence[JobRequest] = (),
    ) -> None:
        """Delete the device's episodes of these days and mark the days for a rebuild
        (their records count as not built until it), mark the digests with these scope
        keys stale; enqueue `then` in the same transaction."""
        ...

    def records_to_segment(
        self, *, user_id: int, device_id: str, day: date, ts_from: datetime, ts_to: datetime
    ) -> SegmentRead: ...

    def save_episodes(
        self,
        *,
        user_id: int,
        drafts: Sequence[EpisodeDraft],
        window: ReadWindow,
        then: Sequence[JobRequest] = (),
    ) -> list[int] | None:
        """Insert closed episodes (no record is written), clear the day's mark when the
        window was read marked, and enqueue `then`, in one transaction under the device
        build lock: a worker killed after it cannot lose the follow-up jobs. When what
        the window read changed meanwhile (a record inserted, deleted or re-labelled,
        another build's save, a new mark), nothing is saved and None is returned: read
        the day again. Live records the new episodes would leave below the watermark
        outside any episode have their days marked. A deletion or re-label waits for
        the save, and then sees its episodes."""
        ...

    def episode_counts(self, *, user_id: int, day_from: date, day_to: date) -> list[DayCount]:
        """Closed, current episodes per logical day (days with none are left out)."""
        ...
