"""Digests (L3/L4) and signals: what the rollups read and write (`DigestStore`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Protocol

from sqlmodel import Field

from app.store.documents import DigestMetrics, Evidence, Interruption, SignalMetrics
from app.store.jobs import JobRequest
from app.store.row import Row


class PeriodMetrics(Row):
    """A period's digest numbers by SQL over its closed episodes."""

    metrics: DigestMetrics
    computed_through_ts: datetime | None
    episode_ids: list[int]


class DigestDraft(Row):
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


class DigestRow(Row):
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


class EpisodeFacts(Row):
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


class MemberFacts(Row):
    """One member record: when, where and the text it showed."""

    episode_id: int
    device_id: str
    ts_start: datetime
    cluster: str
    text: str  # window title, plus the description when there is one
    is_idle: bool = False


class SignalDraft(Row):
    kind: str
    key: str
    ts_start: datetime
    ts_end: datetime
    severity: float
    metrics: SignalMetrics = Field(default_factory=dict)
    evidence: Evidence = Field(default_factory=lambda: Evidence())


class SignalRow(Row):
    signal_id: int
    kind: str
    scope: str
    day_local: date
    ts_start: datetime
    ts_end: datetime
    severity: float
    metrics: SignalMetrics
    evidence: Evidence


class DayDue(Row):
    """A day digest to (re)compute."""

    user_id: int
    day_local: date


class PeriodDue(Row):
    """A week or month digest to (re)compute or finalize."""

    user_id: int
    grain: str
    scope_key: str


class DayFacts(Row):
    """What the signal detectors read of a day: its episodes and their member records."""

    episodes: list[EpisodeFacts]
    members: list[MemberFacts]


class DigestStore(Protocol):
    """What the rollups read and write (they read `period_metrics` too)."""

    def day_facts(self, *, user_id: int, day: date) -> DayFacts: ...
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
    def rollups_due(self, *, since: datetime | None = None) -> list[DayDue]:
        """Day digests missing, stale, older than their episodes, or ready to be
        finalized; of the days whose episodes changed after `since` (None: any day)
        and of the days not finalized yet."""
        ...

    def periods_due(self, *, since: datetime | None = None) -> list[PeriodDue]:
        """Week and month digests missing, stale or older than their days, or ready to
        be finalized; of the periods whose day digests changed after `since` (None:
        any period) and of the periods not finalized yet."""
        ...
