"""The ActivityWatch door's storage: buckets, events, settings, and the conversion's
one write (`aw_reconcile`: a host's door records made equal to what its events make)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import orjson
import psycopg
from psycopg_pool import ConnectionPool

from app.db.base import retrying
from app.db.connection import Connection
from app.db.named import Params, found, method
from app.db.queries import QUERIES
from app.db.store_records import PostgresRecordStore
from app.errors import DatabaseBusyError
from app.store.awdoor import (
    AwDoorStore,
    AwEventWrite,
    AwImportBatch,
    AwReconciled,
)
from app.store.records import NewRecords

# The columns of `aw_staging`, by binary COPY: a NewRecords row without its description.
_COLUMNS = [name for name in NewRecords.model_fields if name != "description"]
_TYPES = [
    "text", "timestamptz", "timestamptz", "date", "text", "text", "text", "text", "text",
    "bool", "text", "text", "text", "text", "text", "bool",
]  # fmt: skip


class PostgresAwEventWriter:
    """`AwEventWriter` on a connection of its own, in autocommit: a group's one
    statement is its transaction, sent and committed in one round trip."""

    def __init__(self, pool: ConnectionPool[Connection]) -> None:
        # The pool's own address and session options (its conninfo and kwargs may be
        # given as callables).
        conninfo = pool.conninfo() if callable(pool.conninfo) else pool.conninfo
        kwargs = pool.kwargs() if callable(pool.kwargs) else pool.kwargs
        try:
            self._conn: Connection = psycopg.connect(
                conninfo, **{**(kwargs or {}), "autocommit": True}
            )
            self._conn.execute(QUERIES["aw_relaxed_commit"])
        except psycopg.OperationalError as exc:
            raise DatabaseBusyError(f"cannot reach the database ({type(exc).__name__})") from exc

    def new_ids(self, *, n: int) -> list[int]:
        with self._translated():
            rows = self._conn.execute(QUERIES["aw_new_event_ids"], {"n": n}).fetchall()
        return [r["event_id"] for r in rows]

    def save(self, *, user_id: int, events: AwEventWrite) -> None:
        with self._translated():
            e = events
            rows = zip(e.bucket_ids, e.event_ids, e.starts_us, e.durations, e.datas, strict=True)
            args = {
                "user_id": user_id,
                "change": e.change,
                "rows": orjson.dumps(list(rows)).decode(),
            }
            self._conn.execute(QUERIES["aw_save_events"], args)

    def close(self) -> None:
        self._conn.close()

    @contextlib.contextmanager
    def _translated(self) -> Iterator[None]:
        try:
            yield
        except psycopg.OperationalError as exc:
            raise DatabaseBusyError(
                f"the database is busy or restarting ({type(exc).__name__}); try again"
            ) from exc


def _reconcile(store: PostgresAwDoorStore, params: Params) -> AwReconciled:
    records: NewRecords = params["records"]

    def write() -> AwReconciled:
        with store.pool.connection() as conn, conn.transaction():
            # Shared: not while a build of the device saves (as ingest).
            conn.execute(QUERIES["lock_device_build_shared"], params)
            conn.execute(QUERIES["create_aw_staging"])
            with conn.cursor().copy(QUERIES["copy_aw_staging"]) as copy:
                copy.set_types(_TYPES)
                for line in zip(*(getattr(records, n) for n in _COLUMNS), strict=True):
                    copy.write_row(line)
            found_row = conn.execute(QUERIES["aw_reconcile"], params).fetchone()
            assert found_row is not None, "the query always yields one row"
            done = AwReconciled.model_construct(**found_row)
            if done.inserted or done.updated or done.removed:
                store._defer(conn, params["jobs"])
            return done

    if len(records):
        return store._with_months(records.ts_start, lambda: retrying(write))
    return retrying(write)


class _BucketExists(Exception):
    """An import's bucket exists already: the import's transaction is rolled back."""

    def __init__(self, bucket_id: str) -> None:
        super().__init__(bucket_id)
        self.bucket_id = bucket_id


def _import(store: PostgresAwDoorStore, params: Params) -> str | None:
    """An import in one transaction: its buckets, then its events; nothing when one of
    its buckets exists already."""
    batch: AwImportBatch = params["batch"]
    args = {"user_id": params["user_id"], "buckets": batch.buckets, "events": batch.events}

    def write() -> None:
        with store.pool.connection() as conn, conn.transaction():
            taken = conn.execute(QUERIES["aw_import_buckets"], args).fetchone()
            if taken is not None:
                raise _BucketExists(taken["bucket_id"])
            conn.execute(QUERIES["aw_import_events"], args)

    try:
        retrying(write)
    except _BucketExists as exc:
        return exc.bucket_id
    return None


class PostgresAwDoorStore(PostgresRecordStore):
    aw_create_bucket = found(AwDoorStore.aw_create_bucket)
    aw_update_bucket = found(AwDoorStore.aw_update_bucket)
    aw_delete_bucket = found(AwDoorStore.aw_delete_bucket)

    def aw_event_writer(self) -> PostgresAwEventWriter:
        return PostgresAwEventWriter(self.pool)

    aw_import = method(AwDoorStore.aw_import, _import)
    aw_reconcile = method(AwDoorStore.aw_reconcile, _reconcile)
