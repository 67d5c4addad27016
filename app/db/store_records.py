"""Records (L0): ingest, import by COPY, deletion; and imports started over HTTP."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

from psycopg.errors import DeadlockDetected, UniqueViolation

from app.db.base import Queries, retrying
from app.db.queries import QUERIES
from app.store import (
    ImportProgress,
    ImportRow,
    NewRecords,
)
from app.text import fts_document
from app.timeutil import day_key, scope_keys

# The columns of `copy_import_staging` and `copy_records`, which go in binary (a fifth
# of text's cost per row): a NewRecords row, then the description and its FTS text.
_STAGING_TYPES = [
    "text", "timestamptz", "timestamptz", "date", "text", "text", "text", "text", "text",
    "bool", "text", "text", "text", "text", "text", "bool", "text", "text",
]  # fmt: skip

_RECORD_COLUMNS = [name for name in NewRecords.__dataclass_fields__ if name != "description"]

_RECORD_TYPES = ["int8", "text", *_STAGING_TYPES[: len(_RECORD_COLUMNS)]]


class PostgresRecordStore(Queries):
    def insert_records(self, *, user_id: int, device_id: str, records: NewRecords) -> int:
        columns = {
            name: getattr(records, name)
            for name in NewRecords.__dataclass_fields__
            if name != "description"
        }
        params = {"user_id": user_id, "device_id": device_id, **columns}

        def insert() -> int:
            with self.pool.connection() as conn:
                return conn.execute(QUERIES["insert_records"], params).rowcount

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
            conn.execute(QUERIES["create_import_staging"])
            with conn.cursor().copy(QUERIES["copy_import_staging"]) as copy:
                copy.set_types(_STAGING_TYPES)
                for row in zip(
                    *(getattr(records, name) for name in NewRecords.__dataclass_fields__),
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
        stored meanwhile by another writer): the staged insert then sorts it out."""
        keys = records.client_record_id
        params = {"user_id": user_id, "device_id": device_id, "first": min(keys), "last": max(keys)}
        try:
            with self.pool.connection() as conn, conn.transaction():
                stored = conn.execute(QUERIES["any_key_stored"], params).fetchone()
                if stored is None or stored["found"]:
                    return None
                with conn.cursor().copy(QUERIES["copy_records"]) as copy:
                    copy.set_types(_RECORD_TYPES)
                    columns = (getattr(records, name) for name in _RECORD_COLUMNS)
                    for row in zip(*columns, strict=True):
                        copy.write_row((user_id, device_id, *row))
        except (UniqueViolation, DeadlockDetected):  # another writer of the same keys
            return None
        return len(records)

    def clipped_seconds(self, *, user_id: int, device_id: str, records: NewRecords) -> float:
        if not len(records):
            return 0.0
        ends = [end for end in records.ts_end if end is not None]
        row = self._one(
            "clipped_seconds",
            {
                "user_id": user_id,
                "device_id": device_id,
                "keys": records.client_record_id,
                "ts_from": min(records.ts_start),
                "ts_to": max([*ends, *records.ts_start]),
            },
        )
        return float(row["clipped_s"]) if row else 0.0

    def delete_records(
        self,
        *,
        user_id: int,
        record_ids: Sequence[int] | None = None,
        device_id: str | None = None,
        ts_from: datetime | None = None,
        ts_to: datetime | None = None,
    ) -> dict[tuple[str, date], int]:
        params = {
            "user_id": user_id,
            "record_ids": list(record_ids) if record_ids is not None else None,
            "device_id": device_id,
            "ts_from": ts_from,
            "ts_to": ts_to,
        }

        def delete() -> dict[tuple[str, date], int]:
            # One transaction: nothing built from the deleted records serves their text
            # once it commits; the rebuild (jobs, or the sweep) fills the layers again.
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(QUERIES["lock_records"], {"user_id": user_id})
                hit = {
                    (r["device_id"], r["day_local"]): int(r["n"])
                    for r in conn.execute(QUERIES["tombstone_records"], params)
                }
                if not hit:
                    return {}
                device_days = sorted(hit)
                days = sorted({day for _, day in device_days})
                conn.execute(
                    QUERIES["delete_episodes_of_device_days"],
                    {
                        "user_id": user_id,
                        "devices": [device for device, _ in device_days],
                        "days": [day for _, day in device_days],
                    },
                )
                # Digests before signals, as a rollup writes them (one lock order).
                conn.execute(
                    QUERIES["strip_digests"],
                    {"user_id": user_id, "keys": sorted({k for d in days for k in scope_keys(d)})},
                )
                conn.execute(
                    QUERIES["delete_day_signals"],
                    {"user_id": user_id, "keys": [day_key(day) for day in days]},
                )
                # What quotes the records outside the layers: re-label notes and the
                # conversation turns that read their time.
                conn.execute(QUERIES["blank_notes_touching_deleted"], {"user_id": user_id})
                conn.execute(QUERIES["drop_turns_reaching_deleted"], {"user_id": user_id})
                return hit

        return retrying(delete)

    def day_category_seconds(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> dict[tuple[date, str], float]:
        rows = self._all(
            "day_category_seconds", {"user_id": user_id, "day_from": day_from, "day_to": day_to}
        )
        return {(row["day_local"], row["category"]): float(row["seconds"]) for row in rows}

    def create_import(self, *, user_id: int, source: str) -> int:
        row = self._one("create_import", {"user_id": user_id, "source": source})
        assert row is not None  # RETURNING always yields the row
        return int(row["import_id"])

    def update_import(self, *, user_id: int, import_id: int, progress: ImportProgress) -> None:
        params = {f: getattr(progress, f) for f in ImportProgress.__dataclass_fields__}
        with self.pool.connection() as conn:
            conn.execute(
                QUERIES["update_import"], {"user_id": user_id, "import_id": import_id, **params}
            )

    def get_import(self, *, user_id: int, import_id: int) -> ImportRow | None:
        return self._one_as(ImportRow, "get_import", {"user_id": user_id, "import_id": import_id})
