"""Records (L0) and the imports that write them: `RecordStore`, `ImportStore`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Protocol

from sqlmodel import Field

from app.store.row import Row


class NewRecords(Row):
    """One ingest batch as columns (one INSERT of unnested arrays), one value per record."""

    client_record_id: list[str] = Field(default_factory=list)
    ts_start: list[datetime] = Field(default_factory=list)
    ts_end: list[datetime | None] = Field(default_factory=list)
    day_local: list[date] = Field(default_factory=list)
    app: list[str] = Field(default_factory=list)  # canonical (app/rules/apps.py)
    app_raw: list[str] = Field(default_factory=list)  # as the client sent it
    window_title: list[str] = Field(default_factory=list)
    url: list[str | None] = Field(default_factory=list)
    domain: list[str | None] = Field(default_factory=list)
    is_idle: list[bool] = Field(default_factory=list)
    capture_reason: list[str | None] = Field(default_factory=list)
    screenshot_ref: list[str | None] = Field(default_factory=list)
    screenshot_sha256: list[str | None] = Field(default_factory=list)
    category: list[str] = Field(default_factory=list)
    category_source: list[str] = Field(default_factory=list)
    redacted: list[bool] = Field(default_factory=list)
    # The frame's own text (an importer's OCR or accessibility text): stored as its L1
    # description with no model call. Always None over HTTP.
    description: list[str | None] = Field(default_factory=list)

    def __len__(self) -> int:
        return len(self.client_record_id)


class RecordLine(Row):
    """A record as the query-time tools show it."""

    record_id: int
    device_id: str
    ts_start: datetime
    ts_end: datetime | None
    app: str
    window_title: str
    domain: str | None
    category: str
    is_idle: bool
    episode_id: int | None
    description: str | None


class ImportProgress(Row):
    """An import's state, as its worker job last wrote it (`done` of `total` in `stage`:
    bytes while reading, records while writing)."""

    status: str  # queued | running | done | failed
    stage: str = ""
    done: int = 0
    total: int | None = None
    events: int = 0
    new: int = 0
    duplicate: int = 0
    excluded: int = 0
    redacted: int = 0
    error: str | None = None


class ImportRow(ImportProgress):
    import_id: int = 0
    source: str = ""
    created_at: datetime | None = None
    updated_at: datetime | None = None


class DeviceDayRecords(Row):
    """How many records a deletion hit on one device and logical day."""

    device_id: str
    day_local: date
    records: int


class DeletedDeviceDay(DeviceDayRecords):
    """A deletion's hits on one device-day, with the start of the earliest record it
    deleted there (kept in the day's build mark)."""

    first_gone: datetime


class CategorySeconds(Row):
    """Seconds of one category on one logical day, by the duration rule."""

    day_local: date
    category: str
    seconds: float


class RecordStore(Protocol):
    def insert_records(self, *, user_id: int, device_id: str, records: NewRecords) -> int:
        """Insert new records (keyed by device + client_record_id); return how many were new."""
        ...

    def clipped_seconds(self, *, user_id: int, device_id: str, records: NewRecords) -> float:
        """Seconds the duration rule cuts off records in the overlaps these records (as
        stored under their keys, within their span) take part in: cut short, or cutting
        the record before them; on the device's timeline as it is now."""
        ...

    def import_records(
        self, *, user_id: int, device_id: str, records: NewRecords, model: str
    ) -> int:
        """`insert_records` for an importer's large batches (by COPY): the same key, and each
        record's description stored as its L1 analysis (`model` names the source)."""
        ...

    def delete_records(
        self,
        *,
        user_id: int,
        record_ids: Sequence[int] | None = None,
        device_id: str | None = None,
        ts_from: datetime | None = None,
        ts_to: datetime | None = None,
    ) -> list[DeviceDayRecords]:
        """Delete records, in one transaction: each keeps only ids, device, span and a hash
        of its key; its analysis and the label notes on it go; the episodes of its
        device-day and the signals of its day are deleted, and the day, week and month
        digests over it are stripped and marked stale until rolled up again. Returns
        the records hit per device and day."""
        ...

    def day_category_seconds(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> list[CategorySeconds]:
        """Seconds per logical day and category over [day_from, day_to], by the duration rule."""
        ...


class ImportStore(Protocol):
    def create_import(self, *, user_id: int, source: str) -> int: ...
    def update_import(self, *, user_id: int, import_id: int, progress: ImportProgress) -> None: ...
    def get_import(self, *, user_id: int, import_id: int) -> ImportRow | None: ...
