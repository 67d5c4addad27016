"""The seam between the domain and the database.

Jobs, tools and routes depend on the small typed `Store` protocol below,
grouped by who uses it; `app.db.store.PostgresStore` implements it with the
named SQL in `sql/queries.sql`. Everything that crosses the seam is a typed row
defined here: frozen dataclasses for rows, TypedDicts for the JSON documents
stored in jsonb columns (digest metrics, signal evidence, interruptions), so
their stored shape is exactly what the code reads. Nothing above the seam
imports psycopg or writes SQL; nothing below it knows about HTTP, MCP or jobs.
See docs/architecture.md ("The seam").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal, Protocol, TypedDict, get_args

# -- JSON documents stored in jsonb columns -----------------------------------------


class TitleTime(TypedDict):
    title: str
    seconds: float


class DigestMetrics(TypedDict, total=False):
    """The numbers of a day, week or month digest (`digests.metrics`). Day digests
    come from SQL over closed episodes plus the signal-derived numbers; weeks and
    months are sums of their days (`days` counts them)."""

    seconds_by_category: dict[str, float]
    seconds_by_app: dict[str, float]
    episode_count: int
    active_seconds: float
    idle_seconds: float
    switch_count: int
    interruption_seconds: float
    top_titles: list[TitleTime]
    first_activity: str | None  # ISO-8601 UTC
    last_activity: str | None
    focus_minutes: float
    distraction_minutes: float
    late_night_minutes: float
    signal_counts: dict[str, int]
    device_overlap_seconds: float  # two or more devices active at once (each counts its own)
    days: int


class Interruption(TypedDict):
    """A short entertainment break kept inside a work episode (`episodes.interruptions`)."""

    ts_start: str  # ISO-8601 UTC
    ts_end: str
    seconds: float
    app: str
    title: str
    record_ids: list[int]


class Evidence(TypedDict, total=False):
    """What shows a signal (`signals.evidence`)."""

    episode_ids: list[int]
    cues: list[str]


SignalMetrics = dict[str, str | float]  # e.g. {"pattern": "undo_storm", "undos": 12}
JobArgs = dict[str, int | str]

# -- accounts ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UserContext:
    """Who a request acts for, with the clock rules of their logical day."""

    user_id: int
    name: str
    time_zone: str
    day_cut_hour: int


DeviceKind = Literal["desktop", "laptop", "phone", "tablet", "other"]
DEVICE_KINDS: tuple[DeviceKind, ...] = get_args(DeviceKind)
# Letters, digits and . _ : - only, at most 64 (the same CHECK guards the column).
DEVICE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"
# Record, episode and label ids are bigint: a larger number cannot name any row.
ID_MAX = 2**63 - 1


@dataclass(frozen=True, slots=True)
class DeviceRow:
    device_id: str
    name: str
    kind: str
    created_at: datetime


# -- records (L0) ----------------------------------------------------------------------


@dataclass(slots=True)
class NewRecords:
    """One ingest batch as columns (one INSERT of unnested arrays), one value per record."""

    client_record_id: list[str] = field(default_factory=list)
    ts_start: list[datetime] = field(default_factory=list)
    ts_end: list[datetime | None] = field(default_factory=list)
    day_local: list[date] = field(default_factory=list)
    app: list[str] = field(default_factory=list)  # canonical (app/rules/apps.py)
    app_raw: list[str] = field(default_factory=list)  # as the client sent it
    window_title: list[str] = field(default_factory=list)
    url: list[str | None] = field(default_factory=list)
    domain: list[str | None] = field(default_factory=list)
    is_idle: list[bool] = field(default_factory=list)
    capture_reason: list[str | None] = field(default_factory=list)
    screenshot_ref: list[str | None] = field(default_factory=list)
    screenshot_sha256: list[str | None] = field(default_factory=list)
    category: list[str] = field(default_factory=list)
    category_source: list[str] = field(default_factory=list)
    redacted: list[bool] = field(default_factory=list)
    # The frame's own text (an importer's OCR or accessibility text): stored as its L1
    # description with no model call. Always None over HTTP.
    description: list[str | None] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.client_record_id)


@dataclass(frozen=True, slots=True)
class RecordLine:
    """A record as the query-time tools show it."""

    record_id: int
    device_id: str
    ts_start: datetime
    ts_end: datetime | None
    app: str
    window_title: str
    domain: str | None
    category: str
    is_idle: bool
    episode_id: int | None
    description: str | None


@dataclass(frozen=True, slots=True)
class UncategorizedTime:
    """Active time no rule categorised, for one app and site (the coverage view)."""

    app: str
    domain: str | None
    window_title: str  # only for a browser record without a URL, else ""
    seconds: float


# -- things: what the resolver and the tools on things read ---------------------------


@dataclass(frozen=True, slots=True)
class RecordMatch:
    """Which records belong to a thing, as plain values (the store writes its own SQL).
    A record matches when it is idle and `idle` is set; or, not idle, its app is one of
    `apps`, or its URL's domain is one of `domains` or under one; or it is a record of
    one of `browsers` without a URL whose title contains one of `page_terms` (a
    candidate: the caller checks which site the title names); or, idle or not, its
    category is one of `categories`; or its window title contains `title`. Text is
    compared case-insensitively."""

    apps: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    idle: bool = False
    domains: tuple[str, ...] = ()
    browsers: tuple[str, ...] = ()
    page_terms: tuple[str, ...] = ()
    page_titles: tuple[str, ...] = ()  # exact titles of such records, already confirmed
    title: str | None = None


@dataclass(frozen=True, slots=True)
class ThingSeconds:
    """Seconds of matching records by the duration rule, per logical day and group."""

    day_local: date
    app: str
    domain: str | None
    page_title: str | None  # the title of a site candidate (a URL-less browser record), else None
    seconds: float
    last_ts: datetime


@dataclass(frozen=True, slots=True)
class DaySeconds:
    day_local: date
    seconds: float


@dataclass(frozen=True, slots=True)
class KnownName:
    """An app (and site) a user's recent records hold, how many records, and whether
    one of their titles contains the text asked about."""

    app: str
    domain: str | None
    records: int
    titled: bool


@dataclass(frozen=True, slots=True)
class MomentRecord:
    """A record near an instant, with its effective duration (the duration rule)."""

    record_id: int
    device_id: str
    ts_start: datetime
    ts_end: datetime | None
    app: str
    window_title: str
    domain: str | None
    category: str
    is_idle: bool
    episode_id: int | None
    description: str | None
    duration_s: float


# -- jobs ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class JobRequest:
    """A job to enqueue; one waiting job per queueing lock, one running per lock."""

    task_name: str
    queue: str
    args: JobArgs
    queueing_lock: str | None = None
    lock: str | None = None
    priority: int = 0


@dataclass(frozen=True, slots=True)
class JobHealth:
    """The job queue at a glance (/healthz, `timetrace status`)."""

    waiting: int  # due to run now
    oldest_waiting_s: float | None  # since the oldest of them last became due
    running: int
    stalled: int  # running on a worker that stopped sending heartbeats
    failed: int
    workers: int  # with a recent heartbeat


@dataclass(frozen=True, slots=True)
class JobOverLimit:
    """A job still running past its time limit (app/jobs/limits.py)."""

    job_id: int
    task_name: str
    user_id: int | None
    running_s: float


@dataclass(frozen=True, slots=True)
class StuckUser:
    """A user with jobs due in a lane ('main': the pyramid's, or 'models') none of whose
    jobs there has started for `still_s`."""

    user_id: int
    lane: str
    still_s: float


@dataclass(frozen=True, slots=True)
class JobStop:
    """A job stopped at its time limit: what it was at, and what became of it."""

    user_id: int | None
    job_id: int
    task_name: str
    reason: str  # ids, days and seconds only: never captured text
    outcome: str  # "continued" (the rest queued) or "failed"
    ran_s: float
    limit_s: float
    stopped_at: datetime | None = None


# -- episodes (L2) -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SegmentInput:
    """One record as the segmenter sees it (times in epoch seconds)."""

    record_id: int
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


@dataclass(frozen=True, slots=True)
class ReadWindow:
    """The live records of a device's read window as a build read them: `stamp` changes
    when one is deleted, changed or linked to an episode meanwhile."""

    device_id: str
    ts_from: datetime
    ts_to: datetime
    stamp: str


@dataclass(frozen=True, slots=True)
class SegmentRead:
    """A device-day's unassigned records, and the window they were read in."""

    records: list[SegmentInput]
    window: ReadWindow


@dataclass(frozen=True, slots=True)
class EpisodeDraft:
    """A closed episode ready to store, with the records it is made of."""

    episode_key: str
    device_id: str
    ts_start: datetime
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


@dataclass(frozen=True, slots=True)
class EpisodeLine:
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


@dataclass(frozen=True, slots=True)
class SearchHit(EpisodeLine):
    score: float
    semantic_rank: int | None
    lexical_rank: int | None


@dataclass(frozen=True, slots=True)
class Neighbor(EpisodeLine):
    """The episode just before or after `of_id` on the same device."""

    of_id: int
    side: str  # "before" | "after"


@dataclass(frozen=True, slots=True)
class ModelBacklog:
    """Summaries a user's episodes still wait for, or failed, and the first and last
    day with a failure (get_now's line)."""

    pending: int
    failed: int
    last_reason: str | None
    first_failed_day: date | None = None
    last_failed_day: date | None = None


@dataclass(frozen=True, slots=True)
class OpenSitting:
    """What a device has done since its last closed episode."""

    since: datetime
    records: int
    main_app: str | None


# -- digests (L3/L4) and signals -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PeriodMetrics:
    """A period's digest numbers by SQL over its closed episodes."""

    metrics: DigestMetrics
    computed_through_ts: datetime | None
    episode_ids: list[int]


@dataclass(frozen=True, slots=True)
class TailSeconds:
    """Seconds of records not yet in a closed episode (the open tail), by group."""

    category: str
    app: str
    is_idle: bool
    seconds: float
    last_ts: datetime | None


@dataclass(frozen=True, slots=True)
class DigestDraft:
    grain: str
    scope_key: str
    period_start: datetime
    period_end: datetime
    metrics: DigestMetrics
    source_ids: list[int]
    computed_through_ts: datetime | None
    finalized: bool
    # The newest update of its sources (episodes, or day digests) when it was computed.
    sources_through: datetime | None = None


@dataclass(frozen=True, slots=True)
class UnbuiltDay:
    """A logical day with live records not (or no longer) in a current closed episode."""

    day: date
    records: int


@dataclass(frozen=True, slots=True)
class DigestRow:
    digest_id: int
    grain: str
    scope_key: str
    period_start: datetime
    period_end: datetime
    metrics: DigestMetrics
    narrative: str | None
    narrative_status: str
    source_ids: list[int]
    computed_through_ts: datetime | None
    finalized: bool
    stale: bool


@dataclass(frozen=True, slots=True)
class EpisodeFacts:
    """What the signal detectors know of an episode."""

    episode_id: int
    device_id: str
    ts_start: datetime
    ts_end: datetime
    category: str
    active_s: float
    interruption_s: float
    interruptions: Sequence[Interruption] = ()
    cues: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class MemberFacts:
    """One member record: when, where and the text it showed."""

    episode_id: int
    device_id: str
    ts_start: datetime
    cluster: str
    text: str  # window title, plus the description when there is one
    is_idle: bool = False


@dataclass(frozen=True, slots=True)
class SignalDraft:
    kind: str
    key: str
    ts_start: datetime
    ts_end: datetime
    severity: float
    metrics: SignalMetrics = field(default_factory=dict)
    evidence: Evidence = field(default_factory=lambda: Evidence())


@dataclass(frozen=True, slots=True)
class SignalRow:
    signal_id: int
    kind: str
    scope: str
    day_local: date
    ts_start: datetime
    ts_end: datetime
    severity: float
    metrics: SignalMetrics
    evidence: Evidence


# -- the model layer ---------------------------------------------------------------------------


# -- imports started over HTTP --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImportProgress:
    """An import's state, as its worker job last wrote it (`done` of `total` in `stage`:
    bytes while reading, records while writing)."""

    status: str  # queued | running | done | failed
    stage: str = ""
    done: int = 0
    total: int | None = None
    events: int = 0
    new: int = 0
    duplicate: int = 0
    excluded: int = 0
    redacted: int = 0
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ImportRow(ImportProgress):
    import_id: int = 0
    source: str = ""
    created_at: datetime | None = None
    updated_at: datetime | None = None


# -- the protocol, grouped by who uses it -------------------------------------------------------


class AccountStore(Protocol):
    def ping(self) -> None:
        """Raise `DatabaseError` unless the database answers."""
        ...

    def ensure_user(self, *, name: str, time_zone: str, day_cut_hour: int) -> UserContext: ...
    def get_user(self, *, name: str) -> UserContext | None: ...
    def get_user_by_id(self, *, user_id: int) -> UserContext | None: ...
    def user_for_token(self, *, token_hash: bytes) -> UserContext | None: ...
    def add_token(self, *, user_id: int, token_hash: bytes, name: str) -> int: ...
    def count_tokens(self) -> int: ...
    def add_device(self, *, user_id: int, device_id: str, name: str, kind: str) -> bool: ...
    def device_exists(self, *, user_id: int, device_id: str) -> bool: ...
    def list_devices(self, *, user_id: int) -> list[DeviceRow]: ...


class RecordStore(Protocol):
    def insert_records(self, *, user_id: int, device_id: str, records: NewRecords) -> int:
        """Insert new records (keyed by device + client_record_id); return how many were new."""
        ...

    def clipped_seconds(self, *, user_id: int, device_id: str, records: NewRecords) -> float:
        """Seconds the duration rule cuts off records in the overlaps these records (as
        stored under their keys, within their span) take part in: cut short, or cutting
        the record before them; on the device's timeline as it is now."""
        ...

    def import_records(
        self, *, user_id: int, device_id: str, records: NewRecords, model: str
    ) -> int:
        """`insert_records` for an importer's large batches (by COPY): the same key, and each
        record's description stored as its L1 analysis (`model` names the source)."""
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
        """Delete records, in one transaction: each keeps only ids, device, span and a hash
        of its key; its analysis and the label notes on it go; the episodes of its
        device-day and the signals of its day are deleted, and the day, week and month
        digests over it are stripped and marked stale until rolled up again. Returns
        records hit per (device, day)."""
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

    def recover_stalled_jobs(self, *, stalled_after_s: float) -> int:
        """Put back in the queue each job left running by a worker silent for longer than
        `stalled_after_s` (ended `aborted` instead when a twin already waits). Returns how
        many."""
        ...

    def job_health(self, *, stalled_after_s: float) -> JobHealth: ...

    def jobs_past_limit(self, *, limit_s: float, import_limit_s: float) -> list[JobOverLimit]:
        """Jobs running for longer than their limit (imports have their own)."""
        ...

    def stuck_users(self, *, stuck_after_s: float) -> list[StuckUser]: ...

    def record_job_stop(self, stop: JobStop) -> None: ...

    def recent_job_stops(self, *, since_s: float) -> list[JobStop]: ...

    def prune_job_stops(self, *, older_than_s: float) -> None: ...


class EpisodeStore(Protocol):
    """What the episode builder reads and writes."""

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
    ) -> SegmentRead: ...

    def save_episodes(
        self,
        *,
        user_id: int,
        drafts: Sequence[EpisodeDraft],
        window: ReadWindow,
        then: Sequence[JobRequest] = (),
    ) -> list[int] | None:
        """Insert closed episodes, link their records and enqueue `then`, in one
        transaction: a worker killed after it cannot lose the follow-up jobs. When the
        window's live records are no longer those the drafts were made from (a deletion,
        a re-label, another build), nothing is saved and None is returned: read the day
        again. A deletion or re-label waits for the save, and then sees its episodes."""
        ...

    def episode_counts(self, *, user_id: int, day_from: date, day_to: date) -> dict[date, int]: ...


class DigestStore(Protocol):
    """What the rollups read and write (they read `period_metrics` too)."""

    def day_facts(
        self, *, user_id: int, day: date
    ) -> tuple[list[EpisodeFacts], list[MemberFacts]]: ...
    def day_is_settled(self, *, user_id: int, day: date) -> bool: ...
    def save_digest(self, *, user_id: int, digest: DigestDraft) -> int: ...

    def save_day_rollup(
        self,
        *,
        user_id: int,
        digest: DigestDraft,
        day: date,
        signals: Sequence[SignalDraft],
        then: Sequence[JobRequest] = (),
    ) -> int:
        """Upsert the day digest, replace the day's signals and enqueue `then` (its week
        and month), in one transaction."""
        ...

    def sources_through(
        self, *, user_id: int, grain: str, day_from: date, day_to: date
    ) -> datetime | None:
        """The newest update of what a digest is computed from: the closed episodes of a
        day, or the day digests of a week or month. Read it before the numbers."""
        ...

    def day_digests(self, *, user_id: int, day_from: date, day_to: date) -> list[DigestRow]: ...
    def active_days(self, *, user_id: int, day_from: date, day_to: date) -> int: ...
    def rollups_due(self) -> list[tuple[int, date]]: ...

    def periods_due(self) -> list[tuple[int, str, str]]:
        """(user, grain, key) of week and month digests missing, stale or older than
        their days, or ready to be finalized."""
        ...


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
class ModelWorkCounts:
    """The model layer's work over every user: done, still owed, failed."""

    summaries_done: int
    summaries_pending: int
    summaries_failed: int
    embeddings_done: int
    embeddings_pending: int
    embeddings_failed: int
    narratives_done: int
    narratives_pending: int
    narratives_failed: int
    descriptions_failed: int


@dataclass(frozen=True, slots=True)
class ModelFailure:
    """One failed summary, embedding, narrative or description, and why."""

    kind: str  # summary | embedding | narrative | description
    target: str  # "episode 42", "day 2026-06-02", "record 7"
    reason: str | None
    at: datetime


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
        fts_text: str,
        reason: str | None = None,
        raw: str | None = None,
    ) -> date | None:
        """Store a summary (or, with status 'failed', why not and the model's raw answer)
        if the episode is still pending; `fts_text` is added to its keyword index, never
        put in place of it. Returns its day, or None."""
        ...

    def fill_episode_category(self, *, user_id: int, episode_id: int, category: str) -> bool:
        """Give an `uncategorized` episode a summary's category (source `model`), unless a
        user's label decided it; True when it did."""
        ...

    def episode_text_for_embedding(self, *, user_id: int, episode_id: int) -> str | None: ...
    def episode_day(self, *, user_id: int, episode_id: int) -> date | None: ...
    def save_episode_embedding(
        self, *, user_id: int, episode_id: int, embedding: list[float]
    ) -> None: ...

    def fail_episode_embedding(self, *, user_id: int, episode_id: int, reason: str) -> None:
        """Mark a summary's embedding failed, with why; the summary stays as it is."""
        ...

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
        reason: str | None = None,
        raw: str | None = None,
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
        reason: str | None = None,
        raw: str | None = None,
    ) -> None: ...

    def model_work_counts(self) -> ModelWorkCounts: ...
    def model_failures(self, *, limit: int) -> list[ModelFailure]: ...


class ImportStore(Protocol):
    def create_import(self, *, user_id: int, source: str) -> int: ...
    def update_import(self, *, user_id: int, import_id: int, progress: ImportProgress) -> None: ...
    def get_import(self, *, user_id: int, import_id: int) -> ImportRow | None: ...


class ToolStore(Protocol):
    """What the query-time tools read, and the one write they make (re-labelling)."""

    def period_metrics(self, *, user_id: int, day_from: date, day_to: date) -> PeriodMetrics:
        """Digest numbers by SQL over the closed episodes of [day_from, day_to]."""
        ...

    def get_digest(self, *, user_id: int, grain: str, scope_key: str) -> DigestRow | None: ...
    def list_signals(self, *, user_id: int, day_from: date, day_to: date) -> list[SignalRow]: ...

    def final_digests_overlapping(
        self, *, user_id: int, ts_from: datetime, ts_to: datetime
    ) -> list[DigestRow]: ...

    def open_tail_metrics(
        self, *, user_id: int, day_from: date, day_to: date, ts_from: datetime, ts_to: datetime
    ) -> list[TailSeconds]: ...

    def device_overlap_seconds(
        self, *, user_id: int, ts_from: datetime, ts_to: datetime, read_from: datetime
    ) -> float:
        """Seconds of [ts_from, ts_to) during which two or more devices were active (not
        idle) at once, by each device's effective spans; records are read from `read_from`."""
        ...

    def period_signal_counts(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> dict[str, int]: ...

    def unbuilt_days(self, *, user_id: int, day_from: date, day_to: date) -> list[UnbuiltDay]:
        """Days of [day_from, day_to] whose records are not all in current episodes yet."""
        ...

    def latest_records(self, *, user_id: int, now: datetime, limit: int) -> list[RecordLine]: ...
    def last_closed_episode(self, *, user_id: int, now: datetime) -> EpisodeLine | None: ...
    def model_backlog(self, *, user_id: int) -> ModelBacklog: ...

    def open_sitting(
        self, *, user_id: int, device_id: str, now: datetime
    ) -> OpenSitting | None: ...

    def list_episodes(
        self,
        *,
        user_id: int,
        ts_from: datetime,
        ts_to: datetime,
        category: str | None,
        limit: int,
    ) -> list[EpisodeLine]: ...

    def search_episodes(
        self,
        *,
        user_id: int,
        terms: Sequence[Sequence[str]],
        embedding: list[float] | None,
        day_from: date | None,
        day_to: date | None,
        category: str | None,
        k: int,
        candidates: int,
    ) -> list[SearchHit]:
        """Episodes by keyword terms (all tokens of a term, any term; see
        `app.text.keyword_terms`) and by cosine distance to `embedding`, fused by
        Reciprocal Rank Fusion; the best `k`."""
        ...

    def episode_neighbors(self, *, user_id: int, ids: list[int]) -> list[Neighbor]: ...

    def uncategorized_time(
        self,
        *,
        user_id: int,
        day_from: date,
        day_to: date,
        ts_from: datetime,
        ts_to: datetime,
        browsers: Sequence[str],
        limit: int,
    ) -> list[UncategorizedTime]:
        """Active `uncategorized` seconds of [day_from, day_to] (records starting in
        [ts_from, ts_to), the read window) by app and domain, and by title for records
        of these browsers without a URL; most first."""
        ...

    def raw_records(
        self,
        *,
        user_id: int,
        ts_from: datetime,
        ts_to: datetime,
        device_id: str | None,
        limit: int,
    ) -> list[RecordLine]: ...

    # -- things (app/tools/things.py) ----------------------------------------------------

    def known_names(self, *, user_id: int, title: str | None) -> list[KnownName]:
        """Apps and domains of the user's records in the 90 days before their newest, and
        whether a title of theirs contains `title` (case-insensitive)."""
        ...

    def thing_seconds(
        self, *, user_id: int, day_from: date, day_to: date, match: RecordMatch, unbuilt_only: bool
    ) -> list[ThingSeconds]:
        """Seconds of the matching records of [day_from, day_to] by the duration rule, by
        day, app, domain and (for site candidates) title; only records not in an episode
        yet when `unbuilt_only`."""
        ...

    def page_titles(
        self, *, user_id: int, day_from: date, day_to: date, match: RecordMatch
    ) -> list[str]:
        """The distinct titles of the period's URL-less browser records (of
        `match.browsers`) that contain one of `match.page_terms`."""
        ...

    def episode_thing_seconds(
        self,
        *,
        user_id: int,
        day_from: date,
        day_to: date,
        apps: Sequence[str],
        categories: Sequence[str],
        idle: bool,
    ) -> list[DaySeconds]:
        """Per day, the closed episodes' seconds in these apps and categories (plus their
        idle seconds when `idle`)."""
        ...

    def latest_matching(
        self, *, user_id: int, match: RecordMatch, since: datetime, before: datetime, limit: int
    ) -> list[RecordLine]:
        """The newest matching records that start in [since, before), newest first."""
        ...

    def records_around(self, *, user_id: int, at: datetime, per_side: int) -> list[MomentRecord]:
        """On each device, up to per_side + 1 records starting at or before `at` (within a
        day) and per_side after it (within a day), with their effective durations."""
        ...

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


# -- conversations with the agent ----------------------------------------------------


class TurnStep(TypedDict, total=False):
    """One tool call of a turn (`conversation_turns.steps`): what was read, not the result."""

    tool: str
    arguments: dict[str, object]
    tokens: int
    error: str


@dataclass(frozen=True, slots=True)
class ConversationRow:
    conversation_id: int
    title: str
    created_at: datetime
    updated_at: datetime
    turns: int


@dataclass(frozen=True, slots=True)
class NewTurn:
    """One question and its answer, as the agent (or the offline answerer) gave it."""

    question: str
    answer: str
    status: Literal["done", "cancelled"]
    mode: Literal["agent", "offline"]
    steps: list[TurnStep]
    episode_ids: list[int]
    tool_tokens: int
    model_calls: int
    elapsed_ms: int
    # The time the turn read (first, last instant): deleting a record in it drops the
    # turn. "nothing" for a turn that read no records; None when unknown (all time).
    reach: tuple[datetime, datetime] | Literal["nothing"] | None = None
    started_at: datetime | None = None  # when it began reading (a deletion since voids it)


@dataclass(frozen=True, slots=True)
class TurnRow:
    turn_no: int
    question: str
    answer: str
    status: str
    mode: str
    steps: list[TurnStep]
    episode_ids: list[int]
    tool_tokens: int
    model_calls: int
    elapsed_ms: int
    created_at: datetime


class ConversationStore(Protocol):
    """Conversations with the agent; every call is scoped to one user."""

    def create_conversation(self, *, user_id: int, title: str) -> int: ...
    def get_conversation(self, *, user_id: int, conversation_id: int) -> ConversationRow | None: ...
    def list_conversations(self, *, user_id: int, limit: int) -> list[ConversationRow]: ...
    def conversation_turns(self, *, user_id: int, conversation_id: int) -> list[TurnRow]: ...

    def add_turn(self, *, user_id: int, conversation_id: int, turn: NewTurn) -> int | None:
        """Append a turn; its number, or None when the conversation is not the user's."""
        ...

    def delete_conversation(self, *, user_id: int, conversation_id: int) -> bool: ...


# -- rows of the web pages (WebStore) ------------------------------------------------


@dataclass(frozen=True, slots=True)
class WebSessionRow:
    """A signed-in browser: who it acts for, and the token its forms must carry."""

    user_id: int
    name: str
    time_zone: str
    day_cut_hour: int
    csrf_token: str

    @property
    def user(self) -> UserContext:
        return UserContext(
            user_id=self.user_id,
            name=self.name,
            time_zone=self.time_zone,
            day_cut_hour=self.day_cut_hour,
        )


@dataclass(frozen=True, slots=True)
class TokenRow:
    """An API token as the privacy page lists it (never its secret)."""

    token_id: int
    name: str
    created_at: datetime
    revoked_at: datetime | None
    web_sessions: int


@dataclass(frozen=True, slots=True)
class EpisodeDetail(EpisodeLine):
    """An episode as its panel shows it."""

    day_local: date
    primary_app: str
    summary_status: str
    cues: list[str]
    interruptions: list[Interruption]
    frame_count: int


@dataclass(frozen=True, slots=True)
class SiteTime:
    """Active seconds on one web site (domain) in a period."""

    domain: str
    seconds: float


@dataclass(frozen=True, slots=True)
class RangeCount:
    """What a deletion of a time range would erase on one device and logical day."""

    device_id: str
    day_local: date
    records: int
    first_ts: datetime
    last_ts: datetime
    apps: list[str]


class WebStore(Protocol):
    """What the web pages read beyond the tools, and their sign-in sessions."""

    def start_web_session(
        self, *, token_hash: bytes, session_hash: bytes, csrf_token: str, ttl_s: int
    ) -> UserContext | None:
        """Open a session for a valid API token (None when the token is unknown or
        revoked); sessions past their expiry are cleared on the way."""
        ...

    def web_session(self, *, session_hash: bytes) -> WebSessionRow | None:
        """The session, while it has not expired and its token is not revoked."""
        ...

    def end_web_session(self, *, session_hash: bytes) -> None: ...
    def list_tokens(self, *, user_id: int) -> list[TokenRow]: ...

    def revoke_token(self, *, user_id: int, token_id: int) -> bool:
        """Revoke an API token and end the browser sessions made from it."""
        ...

    def episode_detail(self, *, user_id: int, episode_id: int) -> EpisodeDetail | None: ...
    def episode_records(self, *, user_id: int, episode_id: int, limit: int) -> list[RecordLine]: ...

    def site_seconds(
        self,
        *,
        user_id: int,
        day_from: date,
        day_to: date,
        ts_from: datetime,
        ts_to: datetime,
        limit: int,
    ) -> list[SiteTime]:
        """Active seconds per domain over the logical days [day_from, day_to], by the
        duration rule; [ts_from, ts_to) is the read window of those days."""
        ...

    def records_in_range(
        self, *, user_id: int, ts_from: datetime, ts_to: datetime, device_id: str | None
    ) -> list[RangeCount]:
        """Live records starting in [ts_from, ts_to), counted per device and day."""
        ...


class Store(
    AccountStore,
    RecordStore,
    JobStore,
    EpisodeStore,
    DigestStore,
    ModelStore,
    ImportStore,
    ToolStore,
    ConversationStore,
    WebStore,
    Protocol,
):
    """Everything the domain needs from storage."""
