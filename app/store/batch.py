"""The batch build (`BatchStore`): a device's timeline read a chunk of days at a time,
its episodes written in bulk, the day digests of a chunk read and written at once.
`app/pyramid/batch.py` drives it; the live per-minute build keeps `EpisodeStore`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Protocol

from app.store.digests import DigestDraft, EpisodeFacts, MemberFacts, SignalDraft
from app.store.documents import TitleTime
from app.store.episodes import EpisodeDraft, ReadWindow, SegmentInput
from app.store.row import Row


class StreamRecord(SegmentInput, MemberFacts):
    """A record of a device's timeline as the batch reads it: what the segmenter reads
    (`SegmentInput`), what the signal detectors read of a member (`MemberFacts`: its
    `episode_id` and `device_id` are filled in once its episode is saved, so that a
    year's records need no second object each), and whether it still waits for an
    episode."""

    key: str  # client_record_id: ties at one start go by it
    unbuilt: bool
    episode_id: int = 0
    device_id: str = ""


class BatchRead(Row):
    """A chunk of a device's timeline, and the window it was read in."""

    records: list[StreamRecord]
    window: ReadWindow


class DeviceBuiltThrough(Row):
    """A device's watermark day (None: no episode yet), and its days marked for a
    rebuild."""

    device_id: str
    day_local: date | None
    marked: list[date]


class SavedEpisode(Row):
    """A staged episode's id (new, or stored by an earlier run of the same chunk)."""

    episode_key: str
    episode_id: int
    new: bool


class DayMetrics(Row):
    """`period_metrics` of one day, with `day_sources_through`."""

    day_local: date
    seconds_by_category: dict[str, float]
    seconds_by_app: dict[str, float]
    episode_count: int
    active_seconds: float
    idle_seconds: float
    switch_count: int
    interruption_seconds: float
    top_titles: list[TitleTime]
    first_activity: datetime | None
    last_activity: datetime | None
    computed_through_ts: datetime | None
    episode_ids: list[int]
    seconds_by_user_category: dict[str, float]  # empty: none (the key is left out)
    sources_through: datetime | None


class DayEpisodeFacts(EpisodeFacts):
    day_local: date


class DayRollup(Row):
    """A day digest and its signals, ready to store."""

    day: date
    digest: DigestDraft
    signals: list[SignalDraft]


class BatchStore(Protocol):
    """What the batch build reads and writes."""

    def batch_built_through(self, *, user_id: int) -> list[DeviceBuiltThrough]: ...

    def batch_stream(
        self, *, user_id: int, device_id: str, day: date, ts_from: datetime, ts_to: datetime
    ) -> BatchRead:
        """The device's live records in [ts_from, ts_to), in timeline order, and the
        window's stamp (with `day`'s mark: the chunk's first day), in one snapshot."""
        ...

    def save_episode_chunk(
        self, *, user_id: int, drafts: Sequence[EpisodeDraft], window: ReadWindow
    ) -> list[SavedEpisode] | None:
        """Store a chunk's closed episodes in one transaction; the ids of all of them
        (new, or stored by an earlier run). When the window's live records are no longer
        those the drafts were made from, nothing is saved and None is returned."""
        ...

    def batch_day_metrics(self, *, user_id: int, days: Sequence[date]) -> list[DayMetrics]: ...
    def batch_episode_facts(
        self, *, user_id: int, days: Sequence[date]
    ) -> list[DayEpisodeFacts]: ...

    def save_day_rollups(self, *, user_id: int, rollups: Sequence[DayRollup]) -> None:
        """Upsert these day digests and replace their days' signals, in one transaction."""
        ...
