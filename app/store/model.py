"""The model layer's work: summaries, embeddings, narratives, descriptions (`ModelStore`)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Protocol

from app.store.documents import DigestMetrics
from app.store.row import Row


class SummaryMember(Row):
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


class EpisodeForSummary(Row):
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


class PendingEpisode(Row):
    """An episode the model layer still owes something (a summary, an embedding)."""

    user_id: int
    episode_id: int


class PendingNarrative(Row):
    user_id: int
    grain: str
    scope_key: str


class PendingDescription(Row):
    user_id: int
    record_id: int


class DayEpisodeSummary(Row):
    """One episode of a day, as a day narrative reads it."""

    episode_id: int
    ts_start: datetime
    ts_end: datetime
    category: str
    title: str
    summary: str | None
    cues: list[str]
    duration_s: float


class ChildNarrative(Row):
    """A day's narrative, as its week's or month's narrative reads it."""

    digest_id: int
    scope_key: str
    narrative: str | None


class ModelWorkCounts(Row):
    """The model layer's work over every user: done, still owed, failed."""

    summaries_done: int
    summaries_pending: int
    summaries_failed: int
    summaries_by_rules: int  # written from their records by rule (no model's yet)
    embeddings_done: int
    embeddings_pending: int
    embeddings_failed: int
    narratives_done: int
    narratives_pending: int
    narratives_failed: int
    descriptions_failed: int


class ModelFailure(Row):
    """One failed summary, embedding, narrative or description, and why."""

    kind: str  # summary | embedding | narrative | description
    target: str  # "episode 42", "day 2026-06-02", "record 7"
    reason: str | None
    at: datetime


class RecordToDescribe(Row):
    record_id: int
    app: str
    window_title: str
    url: str | None
    screenshot_ref: str
    screenshot_sha256: str | None


class ModelStore(Protocol):
    """What the model layer reads and writes.

    Rows come back typed; `metrics` of `save_narrative` is a digest's metrics document,
    written back as it was read."""

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
        metrics: DigestMetrics,
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
