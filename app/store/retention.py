"""Retention tiers (`RetentionStore`): a user's settings, how far they have been applied,
what the daily job removes, and the bytes each layer holds (docs/retention.md)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Protocol

from app.store.row import Row


class RetentionRow(Row):
    """A user's tiers (None: kept) and how far they have been applied: every record
    before `raw_expired_before` (the start of logical day `raw_expired_day`) is gone,
    and episodes of days before `episodes_expired_day` keep no text."""

    user_id: int
    raw_days: int | None
    episode_days: int | None
    keep_digest_titles: bool
    raw_expired_before: datetime | None
    raw_expired_day: date | None
    episodes_expired_day: date | None
    applied_at: datetime | None


class RetentionUser(RetentionRow):
    """A user with a tier (or an expiry not yet carried out), with the clock of their
    logical day and how far the job has carried out the saved expiry (the job's input):
    the conversation turns, notes and digest titles over raw before `raw_applied_before`
    and the text of episodes of days before `episodes_applied_day` are gone (None: none
    is known to be)."""

    name: str
    time_zone: str
    day_cut_hour: int
    raw_applied_before: datetime | None = None
    episodes_applied_day: date | None = None


class ExpiryCounts(Row):
    """What expiring a user up to given bounds removes: rows, and the bytes of their data
    as stored (episodes: of the text columns that go)."""

    records: int = 0
    record_bytes: int = 0
    analyses: int = 0
    analysis_bytes: int = 0
    aw_events: int = 0
    aw_event_bytes: int = 0
    episodes: int = 0
    episode_bytes: int = 0
    turns: int = 0
    digests: int = 0  # whose top titles and narrative went (asked for)


class MonthRows(Row):
    """A month of records: its rows (every user's) and the bytes of their data."""

    rows: int
    bytes: int


class LayerBytes(Row):
    """One layer's size: bytes on disk (or estimated for one user; None: unknown) and rows."""

    layer: str
    bytes: int | None
    rows: int


class RetentionStore(Protocol):
    def get_retention(self, *, user_id: int) -> RetentionRow | None: ...

    def set_retention(
        self,
        *,
        user_id: int,
        raw_days: int | None,
        episode_days: int | None,
        keep_digest_titles: bool = True,
    ) -> RetentionRow:
        """Set a user's tiers (None: kept); what has expired stays expired."""
        ...

    def retention_users(self) -> list[RetentionUser]:
        """Every user with a raw tier, or with a saved expiry not yet carried out (the
        job's work, all users)."""
        ...

    def first_unsettled_day(self, *, user_id: int, day_from: date, day_to: date) -> date | None:
        """The first day of [day_from, day_to) whose pyramid is not settled (marked, stale,
        records not built, a digest missing, stale or not final): raw stays from there."""
        ...

    def expiry_counts(
        self,
        *,
        user_id: int,
        raw_before: datetime,
        turns_from: datetime | None,
        episode_from: date | None,
        episode_to: date | None,
        keep_digest_titles: bool = True,
    ) -> ExpiryCounts:
        """What `expire_user` with the same bounds removes, without removing it."""
        ...

    def advance_retention(
        self, *, user_id: int, raw_before: datetime, raw_day: date, episode_to: date | None
    ) -> None:
        """Record the new expiry: from now on ingest drops records before `raw_before`."""
        ...

    def record_months(self) -> list[date]:
        """The first day of each monthly partition of records, oldest first."""
        ...

    def month_keeps_rows(
        self,
        *,
        month_from: datetime,
        month_to: datetime,
        users: list[int],
        cutoffs: list[datetime],
    ) -> bool:
        """Whether the month holds a row some user keeps, given each user's expiry
        (`users[i]` expires before `cutoffs[i]`; a user not listed keeps everything)."""
        ...

    def month_rows(self, *, month_from: datetime, month_to: datetime) -> MonthRows: ...

    def drop_record_month(
        self,
        *,
        month: date,
        month_from: datetime,
        month_to: datetime,
        users: list[int],
        cutoffs: list[datetime],
    ) -> ExpiryCounts | None:
        """Detach and drop a month of records whole, with its analyses, when (checked again
        with records locked) no user keeps a row of it; None, with nothing done, when one
        does. Counts what went (records and analyses)."""
        ...

    def expire_user(
        self,
        *,
        user_id: int,
        raw_before: datetime,
        raw_day: date,
        turns_from: datetime | None,
        episode_from: date | None,
        episode_to: date | None,
        keep_digest_titles: bool = True,
    ) -> ExpiryCounts:
        """Remove, in one transaction, what `expiry_counts` counts that is still there:
        records and analyses before `raw_before`, the door's events, build marks of
        expired days, notes and conversation turns that may quote the expired raw, the
        text of the episodes of [episode_from, episode_to), and (unless
        `keep_digest_titles`) the top titles and narratives of the digests over the
        expired raw; then record the expiry as carried out (`raw_applied_before`,
        `episodes_applied_day`). Counts what went."""
        ...

    def storage_bytes(self) -> list[LayerBytes]:
        """Each layer's bytes on disk and rows (every user's), and the embeddings'."""
        ...

    def user_storage(self, *, user_id: int) -> list[LayerBytes]:
        """One user's rows per layer, bytes estimated from each table's mean row size."""
        ...
