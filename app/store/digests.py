"""Digests (L3/L4) and signals: what the rollups read and write (`DigestStore`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Protocol

from app.store.documents import DigestMetrics, Evidence, Interruption, SignalMetrics
from app.store.jobs import JobRequest


@dataclass(frozen=True, slots=True)
class PeriodMetrics:
    """A period's digest numbers by SQL over its closed episodes."""

    metrics: DigestMetrics
    computed_through_ts: datetime | None
    episode_ids: list[int]


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
