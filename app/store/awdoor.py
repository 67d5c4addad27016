"""The ActivityWatch door's storage: `AwDoorStore` and its rows (buckets, events and
settings kept as aw-server keeps them; the conversion's reads and its one write)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from app.store.jobs import JobRequest
from app.store.records import NewRecords
from app.store.row import Row


class AwBucketRow(Row):
    bucket_id: str
    name: str | None
    type: str
    client: str
    hostname: str
    created: datetime
    data: str  # JSON as stored
    last_updated: datetime | None


class AwEventRow(Row):
    event_id: int
    ts: datetime
    duration_us: int
    data: str  # JSON as sent


class AwLastEvent(Row):
    bucket_id: str
    event_id: int
    ts: datetime
    duration_us: int
    data: str


class AwSettingRow(Row):
    key: str
    value: str  # JSON


class AwDirtyRow(Row):
    """A bucket, and its mark in the database (an event deleted since its host's last
    conversion; the door marks its other writes in memory)."""

    bucket_id: str
    type: str
    client: str
    hostname: str
    dirty_from: datetime | None
    changes: int


class AwChangedRow(Row):
    """A bucket written by group commits the conversion has not seen (after a crash)."""

    bucket_id: str
    dirty_from: datetime
    changed: int


class AwSpanRow(Row):
    """An event as the conversion reads it."""

    bucket_id: str
    ts: datetime
    duration_us: int
    data: str


class AwSpanIdRow(Row):
    bucket_id: str
    ts: datetime
    duration_us: int
    data: str
    event_id: int


class AwEventWrite(Row):
    """Events to insert or replace, as columns (a group of heartbeats), and the group's
    number (increasing: what a conversion has seen is what is numbered up to a point)."""

    bucket_ids: list[str]
    event_ids: list[int]
    starts_us: list[int]  # µs since the epoch
    durations: list[int]  # µs
    datas: list[str]  # JSON as sent
    change: int


class AwImportBatch(Row):
    """An import's buckets and events, as JSON arrays (one parameter each): buckets as
    [id, name, type, client, hostname, created (ISO 8601), data as text], events as
    [bucket id, start µs, duration µs, data as text]."""

    buckets: str
    events: str


class AwSetAsideRow(Row):
    """Door events set aside (the conversion could not use them), per user and reason."""

    user_id: int
    reason: str
    events: int


class AwReconciled(Row):
    inserted: int
    updated: int
    removed: int
    late_days: int


class AwEventWriter(Protocol):
    """The door's one writer of events: a database connection of its own, so that a
    group of heartbeats is one statement and one round trip (no connection lent and
    checked, no BEGIN and COMMIT of their own). Used by one thread at a time."""

    def new_ids(self, *, n: int) -> list[int]:
        """`n` ids from the door's sequence, in order."""
        ...

    def save(self, *, user_id: int, events: AwEventWrite) -> None:
        """Insert or replace events by id, stamped with the group's number: one
        statement, its own transaction, which writes nothing else (no row the
        conversion writes)."""
        ...

    def close(self) -> None: ...


class AwDoorStore(Protocol):
    def aw_buckets(self, *, user_id: int) -> list[AwBucketRow]: ...
    def aw_create_bucket(
        self,
        *,
        user_id: int,
        bucket_id: str,
        name: str | None,
        type: str,
        client: str,
        hostname: str,
        created: datetime,
        data: str,
    ) -> bool:
        """False when the bucket exists already (nothing changes)."""
        ...

    def aw_update_bucket(
        self,
        *,
        user_id: int,
        bucket_id: str,
        type: str | None,
        client: str | None,
        hostname: str | None,
        data: str | None,
    ) -> bool: ...
    def aw_delete_bucket(self, *, user_id: int, bucket_id: str) -> bool: ...
    def aw_last_events(self, *, user_id: int, bucket_ids: Sequence[str]) -> list[AwLastEvent]: ...
    def aw_event_writer(self) -> AwEventWriter:
        """A writer of events on a connection of its own (the caller closes it)."""
        ...

    def aw_events(
        self,
        *,
        user_id: int,
        bucket_id: str,
        start_at: datetime | None,
        end_at: datetime | None,
        lim: int | None,
    ) -> list[AwEventRow]: ...
    def aw_event(self, *, user_id: int, bucket_id: str, event_id: int) -> AwEventRow | None: ...
    def aw_count_events(
        self, *, user_id: int, bucket_id: str, start_at: datetime | None, end_at: datetime | None
    ) -> int: ...
    def aw_delete_event(self, *, user_id: int, bucket_id: str, event_id: int) -> int: ...
    def aw_settings(self, *, user_id: int) -> list[AwSettingRow]: ...
    def aw_set_setting(self, *, user_id: int, key: str, value: str) -> None: ...
    def aw_drop_setting(self, *, user_id: int, key: str) -> None: ...
    def aw_dirty(self, *, user_id: int) -> list[AwDirtyRow]: ...
    def aw_clear_dirty(
        self, *, user_id: int, bucket_ids: Sequence[str], changes: Sequence[int]
    ) -> None: ...
    def aw_converted_through(self, *, user_id: int) -> int | None:
        """The group number up to which every write has been converted."""
        ...

    def aw_set_converted(self, *, user_id: int, through: int) -> None: ...
    def aw_edits(self, *, user_id: int) -> int | None:
        """How many deletions and edits the door's events have had that the door did not
        write as heartbeats or inserts (None: none)."""
        ...

    def aw_changed_since(self, *, user_id: int, after: int) -> list[AwChangedRow]: ...
    def aw_events_before(
        self, *, user_id: int, bucket_ids: Sequence[str], before_at: datetime, n: int
    ) -> list[AwSpanIdRow]: ...
    def aw_events_from(
        self, *, user_id: int, bucket_ids: Sequence[str], from_ats: Sequence[datetime | None]
    ) -> list[AwSpanIdRow]: ...
    def aw_first_event(self, *, user_id: int, bucket_ids: Sequence[str]) -> datetime | None: ...
    def aw_import(self, *, user_id: int, batch: AwImportBatch) -> str | None:
        """Create the buckets and insert their events in one transaction, their buckets
        marked for the conversion; when one of them exists already nothing is written
        and its id is returned (None: all written)."""
        ...

    def aw_set_aside(
        self, *, user_id: int, bucket_ids: Sequence[str], event_ids: Sequence[int], reason: str
    ) -> None:
        """Set events aside with `reason`: the conversion reads them no more."""
        ...

    def aw_redact_windows(
        self,
        *,
        user_id: int,
        bucket_ids: Sequence[str],
        datas: Sequence[str],
        from_at: datetime | None,
    ) -> int:
        """Redact the events of these buckets from `from_at` on whose data equals one of
        `datas` (JSON); how many."""
        ...

    def aw_set_aside_counts(self) -> list[AwSetAsideRow]:
        """Every user's set-aside door events, counted by reason (status, /healthz)."""
        ...

    def aw_reconcile(
        self,
        *,
        user_id: int,
        device_id: str,
        since_at: datetime | None,
        records: NewRecords,
        jobs: Sequence[JobRequest],
    ) -> AwReconciled:
        """Make a device's door records from `since_at` on (all when None) equal to
        `records`, in one transaction: insert, update in place, remove; mark the days
        of changes at or below the device's watermark; defer `jobs` when anything
        changed."""
        ...
