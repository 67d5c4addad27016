"""Records (L0): ingest, import by COPY, deletion; and imports started over HTTP."""

from __future__ import annotations

import operator
import weakref
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from itertools import chain, islice, repeat
from typing import Any, TypeVar

from psycopg.errors import CheckViolation, DeadlockDetected, UniqueViolation
from psycopg_pool import ConnectionPool

from app.db.base import fetch_all, retrying
from app.db.connection import Connection
from app.db.named import Params, method
from app.db.queries import QUERIES
from app.db.store_jobs import PostgresJobStore
from app.errors import UnknownDeviceError
from app.store.jobs import JobRequest
from app.store.records import (
    DeletedDeviceDay,
    DeviceDayRecords,
    ImportProgress,
    NewRecords,
    RecordStore,
    StoredBatch,
)
from app.text import fts_document
from app.timeutil import day_key, scope_keys

# The columns of `copy_import_staging` and `copy_records`, which go in binary (a fifth
# of text's cost per row): a NewRecords row, then the description and its FTS text.
_STAGING_TYPES = [
    "text", "timestamptz", "timestamptz", "date", "text", "text", "text", "text", "text",
    "bool", "text", "text", "text", "text", "text", "bool", "text", "text",
]  # fmt: skip

_RECORD_COLUMNS = [name for name in NewRecords.model_fields if name != "description"]

_RECORD_TYPES = ["int8", "text", *_STAGING_TYPES[: len(_RECORD_COLUMNS)]]

# The months of records known to have a partition, per pool (so per database).
_KNOWN_MONTHS: weakref.WeakKeyDictionary[ConnectionPool[Connection], set[date]] = (
    weakref.WeakKeyDictionary()
)
R = TypeVar("R")


def batch_clipped_seconds(
    records: NewRecords, *, before_start: datetime | None, before_end: datetime | None
) -> float:
    """What the `clipped_seconds` query finds, for a batch stored alone inside its span,
    after the record that starts at `before_start` (None: none before it): on the
    timeline, each record whose end passes the next one's start is cut there."""
    starts, ends = records.ts_start, records.ts_end
    # A client sends its timeline in order (starts rising: compared in C, no key needed);
    # sort only when it did not.
    if not all(map(operator.lt, starts, islice(starts, 1, None))):
        keys = records.client_record_id
        order = sorted(range(len(starts)), key=lambda i: (starts[i], keys[i]))
        starts, ends = [starts[i] for i in order], [ends[i] for i in order]
    first_end = before_end if before_start is not None else None
    clipped = timedelta(0)  # whole microseconds: exact, as the query's interval sum
    # Each start with the end before it (the last end cuts nothing here).
    for end, start in zip(chain((first_end,), ends), starts, strict=False):
        if end is not None and end > start:
            clipped += end - start
    return clipped.total_seconds()


def _copies_straight(records: NewRecords, around: dict[str, Any]) -> bool:
    """Whether a batch may be copied straight into records, with no staging and no
    `insert_records`: its device has no tombstone (a deleted key must not come back),
    no live record is stored inside its span (so none of its keys is), and it lies
    after the device's watermark (nothing in it is late, so no day needs a mark), and
    none of it lies before the user's raw expiry (retention: that span stays gone)."""
    if around["tombstones"] or around["inside"]:
        return False
    expired = around["expired_before"]
    if expired is not None and min(records.ts_start) < expired:
        return False
    if around["mark_start"] is None:
        return True
    # Positions compare as (ts_start, client_record_id COLLATE "C"): by code point.
    first = min(zip(records.ts_start, records.client_record_id, strict=True))
    return first > (around["mark_start"], around["mark_key"])


def _copy_records(conn: Connection, params: Params, records: NewRecords) -> int | None:
    """A batch by binary COPY straight into records, in a savepoint: half the database's
    cost of staging it and inserting from there. None, with nothing written,
    when a key is there after all (the batch repeats one, or a concurrent batch stored
    it meanwhile): the staged insert then sorts it out."""
    count = len(records)
    columns = [
        repeat(params["user_id"], count),
        repeat(params["device_id"], count),
        *(getattr(records, name) for name in _RECORD_COLUMNS),
    ]
    try:
        with conn.transaction(), conn.cursor().copy(QUERIES["copy_records"]) as copy:
            copy.set_types(_RECORD_TYPES)
            write = copy.write_row
            for row in zip(*columns, strict=True):
                write(row)
    except (UniqueViolation, DeadlockDetected):
        return None
    return len(records)


def _insert_staged(conn: Connection, params: Params, records: NewRecords) -> int:
    """A batch by binary COPY into a staging table, then `insert_records` from it (what
    is stored already is skipped; late records mark their day). Returns how many rows
    were new."""
    conn.execute(QUERIES["create_ingest_staging"])
    with conn.cursor().copy(QUERIES["copy_ingest_staging"]) as copy:
        copy.set_types(_STAGING_TYPES[: len(_RECORD_COLUMNS)])
        for row in zip(*(getattr(records, n) for n in _RECORD_COLUMNS), strict=True):
            copy.write_row(row)
    inserted = conn.execute(QUERIES["insert_records"], params).fetchone()
    return int(inserted["new"]) if inserted else 0


class PostgresRecordStore(PostgresJobStore):
    def store_batch(
        self, *, user_id: int, device_id: str, records: NewRecords, jobs: Sequence[JobRequest]
    ) -> StoredBatch:
        if not len(records):  # every record excluded by the rules: only the device check
            with self.pool.connection() as conn:
                known = conn.execute(
                    QUERIES["device_exists"], {"user_id": user_id, "device_id": device_id}
                ).fetchone()
            return StoredBatch(device_known=known is not None)
        ends = [end for end in records.ts_end if end is not None]
        params = {
            "user_id": user_id,
            "device_id": device_id,
            "ts_from": min(records.ts_start),
            "ts_to": max([*ends, *records.ts_start]),
        }

        def store() -> StoredBatch:
            with self.pool.connection() as conn, conn.transaction():
                with conn.pipeline():
                    # Shared: not while a build of the device saves (see insert_records),
                    # so the watermark read next holds until this commits.
                    conn.execute(QUERIES["lock_device_build_shared"], params)
                    around = conn.execute(QUERIES["batch_neighbours"], params).fetchone()
                if around is None or not around["device_known"]:
                    return StoredBatch(device_known=False)
                new = None
                if _copies_straight(records, around):
                    new = _copy_records(conn, params, records)
                if new is None:
                    new = _insert_staged(conn, params, records)
                if new == len(records) and not around["inside"]:
                    # Only this batch is stored inside its span: its overlaps are
                    # its own and the one with the record before it.
                    clipped = batch_clipped_seconds(
                        records,
                        before_start=around["before_start"],
                        before_end=around["before_end"],
                    )
                else:  # a replay, a late batch: the stored timeline decides
                    clipped = self._clipped_in(conn, {**params, "records": records})
                if new:
                    self._defer(conn, jobs)
                return StoredBatch(device_known=True, new=new, clipped_s=clipped)

        return self._with_months(records.ts_start, lambda: retrying(store))

    def ensure_record_months(self, *, days: Sequence[date]) -> int:
        """Make the monthly partitions of records holding these days (UTC) where missing,
        each in a short transaction of its own; a month known to this store is skipped.
        Returns how many were made."""
        known = _KNOWN_MONTHS.setdefault(self.pool, set())
        months = sorted({day.replace(day=1) for day in days} - known)
        if not months:
            return 0
        with self.pool.connection() as conn, conn.transaction():
            row = conn.execute(QUERIES["ensure_months"], {"months": months}).fetchone()
        known.update(months)
        return int(row["made"]) if row else 0

    def _months_of(self, starts: Sequence[datetime]) -> None:
        """The partitions for a batch's starts (their months in UTC)."""
        first, last = (t.astimezone(UTC).date().replace(day=1) for t in (min(starts), max(starts)))
        if (last - first).days <= 31:  # one month, or two in a row: the usual batch
            months = {first, last}
        else:  # a batch across a gap of months: only the months it has records in
            months = {t.astimezone(UTC).date().replace(day=1) for t in starts}
        self.ensure_record_months(days=sorted(months))

    def _with_months(self, starts: Sequence[datetime], write: Callable[[], R]) -> R:
        """`write` once the months of `starts` exist; again, once, if a month this process
        took as made is gone (a schema made again under a running store)."""
        self._months_of(starts)
        try:
            return write()
        except CheckViolation as exc:
            if "no partition" not in str(exc):
                raise
            _KNOWN_MONTHS.pop(self.pool, None)
            self._months_of(starts)
            return write()

    def import_records(
        self, *, user_id: int, device_id: str, records: NewRecords, model: str
    ) -> int:
        if not len(records):
            return 0
        # No foreign key checks each row's device any more: the batch's is checked here.
        with self.pool.connection() as conn:
            known = conn.execute(
                QUERIES["device_exists"], {"user_id": user_id, "device_id": device_id}
            ).fetchone()
        if known is None:
            raise UnknownDeviceError(f"unknown device {device_id!r}: register it first")
        return self._with_months(
            records.ts_start,
            lambda: self._import_records(
                user_id=user_id, device_id=device_id, records=records, model=model
            ),
        )

    def _import_records(
        self, *, user_id: int, device_id: str, records: NewRecords, model: str
    ) -> int:
        if not any(records.description):
            copied = self._copy_new_records(user_id=user_id, device_id=device_id, records=records)
            if copied is not None:
                return copied
        fts = [fts_document(text) if text else None for text in records.description]
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(
                QUERIES["lock_device_build_shared"], {"user_id": user_id, "device_id": device_id}
            )
            conn.execute(QUERIES["create_import_staging"])
            with conn.cursor().copy(QUERIES["copy_import_staging"]) as copy:
                copy.set_types(_STAGING_TYPES)
                for row in zip(
                    *(getattr(records, name) for name in NewRecords.model_fields),
                    fts,
                    strict=True,
                ):
                    copy.write_row(row)
            inserted = conn.execute(
                QUERIES["insert_staged_records"],
                {"user_id": user_id, "device_id": device_id, "model": model},
            ).fetchone()
        return int(inserted["new"]) if inserted else 0

    def _copy_new_records(self, *, user_id: int, device_id: str, records: NewRecords) -> int | None:
        """A batch of records whose span holds no stored record, on a device with no
        tombstone (a first import): COPY straight into `records`, a fifth cheaper than
        staging. None, with nothing written, when that does not hold (or a key was
        stored meanwhile by another writer), or when a record lies at or below the
        device's watermark (a late record marks its day): the staged insert then sorts
        it out."""
        starts, keys = records.ts_start, records.client_record_id
        params = {
            "user_id": user_id,
            "device_id": device_id,
            "first": min(starts),
            "last": max(starts),
        }
        first = min(zip(starts, keys, strict=True))
        try:
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(QUERIES["lock_device_build_shared"], params)
                stored = conn.execute(QUERIES["any_key_stored"], params).fetchone()
                if stored is None or stored["found"]:
                    return None
                mark = conn.execute(QUERIES["device_watermark"], params).fetchone()
                # Keys compare as COLLATE "C" does: by code point.
                if mark is not None and first <= (mark["last_start"], mark["last_key"]):
                    return None
                with conn.cursor().copy(QUERIES["copy_records"]) as copy:
                    copy.set_types(_RECORD_TYPES)
                    columns = (getattr(records, name) for name in _RECORD_COLUMNS)
                    for row in zip(*columns, strict=True):
                        copy.write_row((user_id, device_id, *row))
        except (UniqueViolation, DeadlockDetected):  # another writer of the same keys
            return None
        return len(records)

    @staticmethod
    def _clipped_in(conn: Connection, params: Params) -> float:
        """`clipped_seconds` by SQL, on this connection (inside its transaction)."""
        records: NewRecords = params["records"]
        row = conn.execute(
            QUERIES["clipped_seconds"], {**params, "keys": records.client_record_id}
        ).fetchone()
        return float(row["clipped_s"]) if row else 0.0

    def _delete_records(self, params: Params) -> list[DeviceDayRecords]:
        user = {"user_id": params["user_id"]}

        def delete() -> list[DeviceDayRecords]:
            # One transaction: nothing built from the deleted records serves their text
            # once it commits; the rebuild (jobs, or the sweep) fills the layers again.
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(QUERIES["lock_records"], user)
                hit = fetch_all(conn, DeletedDeviceDay, QUERIES["tombstone_records"], params)
                # Where the span's raw has expired (retention), what was built from it.
                expired = fetch_all(
                    conn, DeviceDayRecords, QUERIES["erase_expired_episodes"], params
                )
                if expired:
                    self._erase_expired(conn, params, expired)
                if not hit:
                    return expired
                conn.execute(
                    QUERIES["flag_tombstones"],
                    {**user, "devices": sorted({h.device_id for h in hit})},
                )
                days = sorted({h.day_local for h in hit})
                device_days = {
                    **user,
                    "devices": [h.device_id for h in hit],
                    "days": [h.day_local for h in hit],
                }
                conn.execute(QUERIES["delete_episodes_of_device_days"], device_days)
                conn.execute(QUERIES["forget_deleted_redirect_keys"], device_days)
                # The days are rebuilt from a mark, which also keeps the first deleted
                # record (it may have cut an earlier day's last record short).
                conn.execute(
                    QUERIES["mark_device_days"],
                    {
                        **device_days,
                        "first_ts": [None] * len(hit),
                        "first_gone": [h.first_gone for h in hit],
                    },
                )
                # Digests before signals, as a rollup writes them (one lock order).
                conn.execute(
                    QUERIES["strip_digests"],
                    {**user, "keys": sorted({k for d in days for k in scope_keys(d)})},
                )
                conn.execute(
                    QUERIES["delete_day_signals"], {**user, "keys": [day_key(d) for d in days]}
                )
                # What quotes the records outside the layers: re-label notes and the
                # conversation turns that read their time.
                conn.execute(QUERIES["blank_notes_touching_deleted"], user)
                conn.execute(QUERIES["drop_turns_reaching_deleted"], user)
                conn.execute(QUERIES["drop_aw_events_reaching_deleted"], user)
                return [
                    DeviceDayRecords(
                        device_id=h.device_id, day_local=h.day_local, records=h.records
                    )
                    for h in sorted(hit, key=lambda h: (h.device_id, h.day_local))
                ] + expired

        return retrying(delete)

    @staticmethod
    def _erase_expired(conn: Connection, params: Params, erased: list[DeviceDayRecords]) -> None:
        """A deletion over expired raw (retention): the digests and signals of the days
        whose episodes went are stripped (rolled up again from what is left), and the
        notes and conversation turns that may quote the span go."""
        user = {"user_id": params["user_id"]}
        days = sorted({e.day_local for e in erased})
        conn.execute(
            QUERIES["strip_digests"],
            {**user, "keys": sorted({k for d in days for k in scope_keys(d)})},
        )
        conn.execute(QUERIES["delete_day_signals"], {**user, "keys": [day_key(d) for d in days]})
        found = conn.execute(QUERIES["raw_expired_before"], user).fetchone()
        until = found["raw_expired_before"] if found is not None else None
        assert until is not None, "episodes are erased only over an expiry"
        span = {
            **user,
            "turns_from": params["ts_from"],
            "raw_before": until if params["ts_to"] is None else min(params["ts_to"], until),
        }
        conn.execute(QUERIES["blank_expired_notes"], span)
        conn.execute(QUERIES["drop_expired_turns"], span)

    delete_records = method(RecordStore.delete_records, _delete_records)

    def update_import(self, *, user_id: int, import_id: int, progress: ImportProgress) -> None:
        with self.pool.connection() as conn:
            conn.execute(
                QUERIES["update_import"],
                {"user_id": user_id, "import_id": import_id, **dict(progress)},
            )
