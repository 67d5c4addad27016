"""The seam between the domain and the database.

Jobs, tools and routes depend on this small typed `Store` protocol, grouped by
layer; `app.db.pg_store.PostgresStore` implements it with the named SQL in
`sql/queries.sql`. Nothing above the seam imports psycopg or writes SQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Protocol

# Columns of one ingest INSERT, in order (each is a list, one value per record).
NewRecords: tuple[str, ...] = (
    "client_record_id",
    "ts_start",
    "ts_end",
    "day_local",
    "app",
    "window_title",
    "url",
    "domain",
    "is_idle",
    "capture_reason",
    "screenshot_ref",
    "screenshot_sha256",
    "category",
    "category_source",
    "redacted",
)


@dataclass(frozen=True, slots=True)
class UserContext:
    """Who a request acts for, with the clock rules of their logical day."""

    user_id: int
    name: str
    time_zone: str
    day_cut_hour: int


@dataclass(frozen=True, slots=True)
class DeviceRow:
    device_id: str
    name: str
    kind: str
    created_at: datetime


class AccountStore(Protocol):
    def ensure_user(self, *, name: str, time_zone: str, day_cut_hour: int) -> UserContext: ...
    def get_user(self, *, name: str) -> UserContext | None: ...
    def user_for_token(self, *, token_hash: bytes) -> UserContext | None: ...
    def add_token(self, *, user_id: int, token_hash: bytes, name: str) -> int: ...
    def count_tokens(self) -> int: ...
    def add_device(self, *, user_id: int, device_id: str, name: str, kind: str) -> bool: ...
    def device_exists(self, *, user_id: int, device_id: str) -> bool: ...
    def list_devices(self, *, user_id: int) -> list[DeviceRow]: ...


class RecordStore(Protocol):
    def insert_records(self, *, user_id: int, device_id: str, columns: dict[str, list[Any]]) -> int:
        """Insert new records (keyed by device + client_record_id); return how many were new."""
        ...

    def delete_records(
        self,
        *,
        user_id: int,
        record_ids: Sequence[int] | None = None,
        device_id: str | None = None,
        ts_from: datetime | None = None,
        ts_to: datetime | None = None,
    ) -> int:
        """Tombstone records: their text is blanked and analyses removed at once; the
        time span stays until the layers built from them are rebuilt."""
        ...

    def day_category_seconds(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> dict[tuple[date, str], float]:
        """Seconds per (logical day, category) over [day_from, day_to], by the duration rule."""
        ...


class Store(AccountStore, RecordStore, Protocol):
    """Everything the domain needs from storage."""
