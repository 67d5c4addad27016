"""The seam between the domain and the database.

Jobs, tools and routes depend on this small typed `Store` protocol, grouped by
layer; `app.db.store.PostgresStore` implements it with the named SQL in
`sql/queries.sql`. Nothing above the seam imports psycopg or writes SQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from app.pyramid.episodes import EpisodeDraft
    from app.pyramid.segmenter import SegmentInput
    from app.pyramid.signals import EpisodeFacts, MemberFacts, SignalDraft

# Columns of one ingest INSERT, in order (each is a list, one value per record).
NewRecords: tuple[str, ...] = (
    "client_record_id",
    "ts_start",
    "ts_end",
    "day_local",
    "app",
    "window_title",
    "url",
    "domain",
    "is_idle",
    "capture_reason",
    "screenshot_ref",
    "screenshot_sha256",
    "category",
    "category_source",
    "redacted",
)


@dataclass(frozen=True, slots=True)
class UserContext:
    """Who a request acts for, with the clock rules of their logical day."""

    user_id: int
    name: str
    time_zone: str
    day_cut_hour: int


@dataclass(frozen=True, slots=True)
class DeviceRow:
    device_id: str
    name: str
    kind: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class JobRequest:
    """A procrastinate job to enqueue; one waiting job per queueing lock."""

    task_name: str
    queue: str
    args: dict[str, Any]
    queueing_lock: str | None = None
    lock: str | None = None
    priority: int = 0


@dataclass(frozen=True, slots=True)
class DigestDraft:
    grain: str
    scope_key: str
    period_start: datetime
    period_end: datetime
    metrics: dict[str, Any]
    source_ids: list[int]
    computed_through_ts: datetime | None
    finalized: bool


@dataclass(frozen=True, slots=True)
class DayDigestRow:
    digest_id: int
    scope_key: str
    metrics: dict[str, Any]
    finalized: bool


class AccountStore(Protocol):
    def ensure_user(self, *, name: str, time_zone: str, day_cut_hour: int) -> UserContext: ...
    def get_user(self, *, name: str) -> UserContext | None: ...
    def user_for_token(self, *, token_hash: bytes) -> UserContext | None: ...
    def add_token(self, *, user_id: int, token_hash: bytes, name: str) -> int: ...
    def count_tokens(self) -> int: ...
    def add_device(self, *, user_id: int, device_id: str, name: str, kind: str) -> bool: ...
    def device_exists(self, *, user_id: int, device_id: str) -> bool: ...
    def list_devices(self, *, user_id: int) -> list[DeviceRow]: ...


class RecordStore(Protocol):
    def insert_records(self, *, user_id: int, device_id: str, columns: dict[str, list[Any]]) -> int:
        """Insert new records (keyed by device + client_record_id); return how many were new."""
        ...

    def delete_records(
        self,
        *,
        user_id: int,
        record_ids: Sequence[int] | None = None,
        device_id: str | None = None,
        ts_from: datetime | None = None,
        ts_to: datetime | None = None,
    ) -> dict[tuple[str, date], int]:
        """Tombstone records: their text is blanked and analyses removed at once, the
        episodes built from them are marked stale. Returns records hit per (device, day)."""
        ...

    def day_category_seconds(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> dict[tuple[date, str], float]:
        """Seconds per (logical day, category) over [day_from, day_to], by the duration rule."""
        ...


class JobStore(Protocol):
    def defer(self, jobs: Sequence[JobRequest]) -> int:
        """Enqueue jobs; one already waiting under the same queueing lock is kept. Returns
        how many were added."""
        ...


class EpisodeStore(Protocol):
    def devices_with_work(self) -> list[tuple[int, str]]: ...
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
        """Delete the device's episodes of these days (their records fall back to
        unassigned) and mark the digests with these scope keys stale; enqueue `then`
        in the same transaction."""
        ...

    def records_to_segment(
        self, *, user_id: int, device_id: str, day: date, ts_from: datetime, ts_to: datetime
    ) -> list[SegmentInput]: ...

    def save_episodes(
        self, *, user_id: int, drafts: Sequence[EpisodeDraft], then: Sequence[JobRequest] = ()
    ) -> list[int]:
        """Insert closed episodes, link their records and enqueue `then`, in one
        transaction: a worker killed after it cannot lose the follow-up jobs."""
        ...


class DigestStore(Protocol):
    def period_metrics(self, *, user_id: int, day_from: date, day_to: date) -> dict[str, Any]:
        """Digest numbers by SQL over the closed episodes of the period."""
        ...

    def day_facts(
        self, *, user_id: int, day: date
    ) -> tuple[list[EpisodeFacts], list[MemberFacts]]: ...
    def day_is_settled(self, *, user_id: int, day: date) -> bool: ...
    def save_digest(self, *, user_id: int, digest: DigestDraft) -> int: ...

    def save_day_rollup(
        self, *, user_id: int, digest: DigestDraft, day: date, signals: Sequence[SignalDraft]
    ) -> int:
        """Upsert the day digest and replace the day's signals, in one transaction."""
        ...

    def day_digests(self, *, user_id: int, day_from: date, day_to: date) -> list[DayDigestRow]: ...
    def active_days(self, *, user_id: int, day_from: date, day_to: date) -> int: ...
    def rollups_due(self) -> list[tuple[int, date]]: ...
    def get_digest(self, *, user_id: int, grain: str, scope_key: str) -> dict[str, Any] | None: ...

    def list_signals(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> list[dict[str, Any]]: ...

    def episode_counts(self, *, user_id: int, day_from: date, day_to: date) -> dict[date, int]: ...
    def get_user_by_id(self, *, user_id: int) -> UserContext | None: ...


# -- rows of the model layer (ModelStore) -------------------------------------------


@dataclass(frozen=True, slots=True)
class SummaryMember:
    """One record of an episode, as the summary prompt and its checks see it."""

    record_id: int
    ts_start: datetime
    app: str
    window_title: str
    domain: str | None
    category: str
    is_idle: bool
    description: str | None  # from the frame description, when there is one
    duration_s: float  # for the prompt only: the last member's is capped, not exact


@dataclass(frozen=True, slots=True)
class EpisodeForSummary:
    episode_id: int
    device_id: str
    ts_start: datetime
    ts_end: datetime
    day_local: date
    primary_app: str
    category: str
    title: str
    summary_status: str
    day_apps: list[str]  # every app of the user that day, for the grounding check
    members: list[SummaryMember]


@dataclass(frozen=True, slots=True)
class PendingEpisode:
    """An episode the model layer still owes something (a summary, an embedding)."""

    user_id: int
    episode_id: int


@dataclass(frozen=True, slots=True)
class PendingNarrative:
    user_id: int
    grain: str
    scope_key: str


@dataclass(frozen=True, slots=True)
class PendingDescription:
    user_id: int
    record_id: int


@dataclass(frozen=True, slots=True)
class DayEpisodeSummary:
    """One episode of a day, as a day narrative reads it."""

    episode_id: int
    ts_start: datetime
    ts_end: datetime
    category: str
    title: str
    summary: str | None
    cues: list[str]
    duration_s: float


@dataclass(frozen=True, slots=True)
class ChildNarrative:
    """A day's narrative, as its week's or month's narrative reads it."""

    digest_id: int
    scope_key: str
    narrative: str | None


@dataclass(frozen=True, slots=True)
class RecordToDescribe:
    record_id: int
    app: str
    window_title: str
    url: str | None
    screenshot_ref: str
    screenshot_sha256: str | None


class ModelStore(Protocol):
    """What the model layer reads and writes.

    Rows come back typed; the one dict parameter, `metrics` of `save_narrative`,
    is a digest's free-form metrics JSON document, written back as it was read."""

    def episode_for_summary(self, *, user_id: int, episode_id: int) -> EpisodeForSummary | None: ...

    def save_episode_summary(
        self,
        *,
        user_id: int,
        episode_id: int,
        title: str,
        summary: str | None,
        tags: list[str],
        cues: list[str],
        status: str,
        embedding: list[float] | None,
        fts_text: str,
    ) -> date | None:
        """Store a summary if the episode is still pending; its day, or None."""
        ...

    def episode_text_for_embedding(self, *, user_id: int, episode_id: int) -> str | None: ...
    def episode_day(self, *, user_id: int, episode_id: int) -> date | None: ...
    def save_episode_embedding(
        self, *, user_id: int, episode_id: int, embedding: list[float]
    ) -> None: ...
    def pending_summaries(self, *, limit: int) -> list[PendingEpisode]: ...
    def pending_embeddings(self, *, limit: int) -> list[PendingEpisode]: ...
    def pending_narratives(self, *, limit: int) -> list[PendingNarrative]: ...
    def pending_descriptions(self, *, limit: int) -> list[PendingDescription]: ...
    def day_episode_summaries(self, *, user_id: int, day: date) -> list[DayEpisodeSummary]: ...
    def child_narratives(self, *, user_id: int, ids: list[int]) -> list[ChildNarrative]: ...

    def save_narrative(
        self,
        *,
        user_id: int,
        digest_id: int,
        narrative: str | None,
        status: str,
        source_ids: list[int],
        metrics: dict[str, Any],
    ) -> bool:
        """Store it if the digest is still pending and its metrics are the ones it
        was written from."""
        ...

    def record_for_description(
        self, *, user_id: int, record_id: int
    ) -> RecordToDescribe | None: ...

    def save_record_analysis(
        self,
        *,
        user_id: int,
        record_id: int,
        description: str | None,
        category: str | None,
        confidence: float | None,
        cues: list[str],
        model: str,
        fts_text: str,
    ) -> None: ...


class ToolStore(Protocol):
    """What the query-time tools read (and the one write, re-labelling)."""

    def final_digests_overlapping(
        self, *, user_id: int, ts_from: datetime, ts_to: datetime
    ) -> list[dict[str, Any]]: ...

    def open_tail_metrics(
        self, *, user_id: int, day_from: date, day_to: date, ts_from: datetime, ts_to: datetime
    ) -> list[dict[str, Any]]: ...

    def period_signal_counts(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> dict[str, int]: ...
    def latest_records(
        self, *, user_id: int, now: datetime, limit: int
    ) -> list[dict[str, Any]]: ...
    def last_closed_episode(self, *, user_id: int, now: datetime) -> dict[str, Any] | None: ...

    def open_sitting(
        self, *, user_id: int, device_id: str, now: datetime
    ) -> dict[str, Any] | None: ...

    def list_episodes(
        self,
        *,
        user_id: int,
        ts_from: datetime,
        ts_to: datetime,
        category: str | None,
        limit: int,
    ) -> list[dict[str, Any]]: ...

    def search_episodes(
        self,
        *,
        user_id: int,
        tsquery: str | None,
        embedding: list[float] | None,
        day_from: date | None,
        day_to: date | None,
        category: str | None,
        k: int,
        candidates: int,
    ) -> list[dict[str, Any]]: ...

    def episode_neighbors(self, *, user_id: int, ids: list[int]) -> list[dict[str, Any]]: ...

    def raw_records(
        self,
        *,
        user_id: int,
        ts_from: datetime,
        ts_to: datetime,
        device_id: str | None,
        limit: int,
    ) -> list[dict[str, Any]]: ...

    def relabel(
        self,
        *,
        user_id: int,
        target_kind: str,
        target_id: int,
        category: str,
        actor: str,
        note: str,
    ) -> tuple[int, list[tuple[str, date]]] | None:
        """Re-label a record or an episode's records, audited; mark the episodes built
        from them stale. Returns the label id and the (device, day) pairs to rebuild."""
        ...


class Store(
    AccountStore, RecordStore, JobStore, EpisodeStore, DigestStore, ModelStore, ToolStore, Protocol
):
    """Everything the domain needs from storage."""
