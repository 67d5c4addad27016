"""Records (L0): ingest, import by COPY, deletion; and imports started over HTTP."""

from __future__ import annotations

from psycopg.errors import DeadlockDetected, UniqueViolation

from app.db.base import Queries, fetch_all, retrying
from app.db.named import Params, method, row, rows, value
from app.db.queries import QUERIES
from app.store import (
    CategorySeconds,
    DeletedDeviceDay,
    DeviceDayRecords,
    ImportProgress,
    ImportRow,
    ImportStore,
    NewRecords,
    RecordStore,
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


class PostgresRecordStore(Queries):
    def insert_records(self, *, user_id: int, device_id: str, records: NewRecords) -> int:
        columns = {
            name: getattr(records, name)
            for name in NewRecords.model_fields
            if name != "description"
        }
        params = {"user_id": user_id, "device_id": device_id, **columns}

        def insert() -> int:
            with self.pool.connection() as conn, conn.transaction(), conn.pipeline():
                # Shared: not while a build of the device saves (see insert_records). One
                # round trip; the insert's snapshot is still taken once the lock is held.
                conn.execute(QUERIES["lock_device_build_shared"], params)
                row = conn.execute(QUERIES["insert_records"], params).fetchone()
            return int(row["new"]) if row else 0

        return retrying(insert)

    def import_records(
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
        """A batch of records whose key range holds no stored key, on a device with no
        tombstone (a first import): COPY straight into `records`, a fifth cheaper than
        staging. None, with nothing written, when that does not hold (or a key was
        stored meanwhile by another writer), or when a record lies at or below the
        device's watermark (a late record marks its day): the staged insert then sorts
        it out."""
        keys = records.client_record_id
        params = {"user_id": user_id, "device_id": device_id, "first": min(keys), "last": max(keys)}
        first = min(zip(records.ts_start, keys, strict=True))
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

    def _clipped_seconds(self, params: Params) -> float:
        records: NewRecords = params["records"]
        if not len(records):
            return 0.0
        ends = [end for end in records.ts_end if end is not None]
        window = {
            "keys": records.client_record_id,
            "ts_from": min(records.ts_start),
            "ts_to": max([*ends, *records.ts_start]),
        }
        with self.pool.connection() as conn:
            row = conn.execute(QUERIES["clipped_seconds"], {**params, **window}).fetchone()
        return float(row["clipped_s"]) if row else 0.0

    clipped_seconds = method(RecordStore.clipped_seconds, _clipped_seconds)

    def _delete_records(self, params: Params) -> list[DeviceDayRecords]:
        user = {"user_id": params["user_id"]}

        def delete() -> list[DeviceDayRecords]:
            # One transaction: nothing built from the deleted records serves their text
            # once it commits; the rebuild (jobs, or the sweep) fills the layers again.
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(QUERIES["lock_records"], user)
                hit = fetch_all(conn, DeletedDeviceDay, QUERIES["tombstone_records"], params)
                if not hit:
                    return []
                days = sorted({h.day_local for h in hit})
                device_days = {
                    **user,
                    "devices": [h.device_id for h in hit],
                    "days": [h.day_local for h in hit],
                }
                conn.execute(QUERIES["delete_episodes_of_device_days"], device_days)
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
                return [
                    DeviceDayRecords(
                        device_id=h.device_id, day_local=h.day_local, records=h.records
                    )
                    for h in sorted(hit, key=lambda h: (h.device_id, h.day_local))
                ]

        return retrying(delete)

    delete_records = method(RecordStore.delete_records, _delete_records)
    day_category_seconds = rows(RecordStore.day_category_seconds, CategorySeconds)
    create_import = value(ImportStore.create_import)

    def update_import(self, *, user_id: int, import_id: int, progress: ImportProgress) -> None:
        with self.pool.connection() as conn:
            conn.execute(
                QUERIES["update_import"],
                {"user_id": user_id, "import_id": import_id, **dict(progress)},
            )

    get_import = row(ImportStore.get_import, ImportRow)
