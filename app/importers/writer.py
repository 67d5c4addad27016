"""Where every importer's records go: the ingest path (`app.ingest.records`, the same
rules as HTTP) in large binary COPY batches per device, with counts for the final
summary and a progress callback. The rules run in the importer's thread; one thread
of the writer's own stores a batch while the importer makes the next, so PostgreSQL
and the importer work at the same time, and at most one batch waits (memory stays
flat).

    with RecordWriter(store, user=user, rules=rules, source="activitywatch") as writer:
        writer.ensure_device("laptop", name="laptop", kind="laptop")
        writer.add("laptop", ImportedRecord(...))
    writer.summary
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import NamedTuple

from app.ingest.records import (
    IngestResult,
    IngestStore,
    PreparedRecords,
    prepare_records,
    store_prepared,
)
from app.rules.categories import Rules
from app.rules.user import rules_for_user
from app.store.accounts import UserContext

BATCH = 20_000
Progress = Callable[[str, int, int | None], None]  # stage, done, total (None: unknown)


class ImportedRecord(NamedTuple):
    """One record as an importer makes it (the fields `prepare_records` reads); a tuple,
    as millions are made per import."""

    client_record_id: str
    ts_start: datetime
    ts_end: datetime | None
    app: str
    window_title: str
    url: str | None = None
    is_idle: bool = False
    incognito: bool = False
    capture_reason: str | None = None
    description: str | None = None
    screenshot_ref: str | None = None
    screenshot_sha256: str | None = None


@dataclass(slots=True)
class ImportSummary:
    """What an import did (`events`: what the source held; the rest counts records)."""

    source: str
    events: int = 0
    skipped: int = 0  # events no record could come from (bad times, unfocused frames)
    new: int = 0
    duplicate: int = 0
    excluded: int = 0
    redacted: int = 0
    first: datetime | None = None
    last: datetime | None = None
    devices: list[str] = field(default_factory=list)

    @property
    def records(self) -> int:
        return self.new + self.duplicate + self.excluded


class RecordWriter:
    def __init__(
        self,
        store: IngestStore,
        *,
        user: UserContext,
        rules: Rules,
        source: str,
        progress: Progress | None = None,
    ) -> None:
        self._store = store
        self._user = user
        # The user's own rules as they stand when the import starts (the same object when
        # the caller already added them).
        self._rules = rules_for_user(store, rules, user_id=user.user_id)
        self._progress = progress
        self.summary = ImportSummary(source=source)
        self._device: str | None = None
        self._batch: list[ImportedRecord] = []
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="import-writer")
        self._writing: Future[IngestResult] | None = None

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        try:
            if kind is None:
                self.flush()
                self._written()
            elif self._writing is not None:
                wait([self._writing])  # nothing writes once the import has stopped
        finally:
            self._thread.shutdown()

    def ensure_device(self, device_id: str, *, name: str, kind: str) -> None:
        """Register the device unless it exists (one TimeTrace device per source host)."""
        self._store.add_device(
            user_id=self._user.user_id, device_id=device_id, name=name, kind=kind
        )
        if device_id not in self.summary.devices:
            self.summary.devices.append(device_id)

    def add(self, device_id: str, record: ImportedRecord) -> None:
        if device_id != self._device or len(self._batch) >= BATCH:
            self.flush()
            self._device = device_id
        self._batch.append(record)

    def flush(self) -> None:
        """Hand the batch to the writing thread (after the one before it is stored)."""
        if not self._batch or self._device is None:
            return
        batch = self._batch
        first = min(r.ts_start for r in batch)
        last = max(r.ts_end or r.ts_start for r in batch)
        # The rules run here; the thread only stores (Python in two threads would take
        # turns at the interpreter lock, each waiting on the other).
        prepared = prepare_records(batch, rules=self._rules, user=self._user)
        self._submit(self._device, prepared, first=first, last=last)
        self._batch = []

    def add_prepared(
        self, device_id: str, prepared: PreparedRecords, *, first: datetime, last: datetime
    ) -> None:
        """A batch an importer made into columns itself (by the same rules as
        `prepare_records`), with the first start and last end of the records it
        received."""
        self.flush()
        self._device = device_id
        self._submit(device_id, prepared, first=first, last=last)

    def _submit(
        self, device_id: str, prepared: PreparedRecords, *, first: datetime, last: datetime
    ) -> None:
        summary = self.summary
        summary.first = first if summary.first is None else min(summary.first, first)
        summary.last = last if summary.last is None else max(summary.last, last)
        self._written()
        self._writing = self._thread.submit(
            store_prepared,
            self._store,
            user=self._user,
            device_id=device_id,
            prepared=prepared,
            source=summary.source,
        )

    def _written(self) -> None:
        """Wait for the batch being written, and count it (its error is raised here)."""
        if self._writing is None:
            return
        result, self._writing = self._writing.result(), None
        summary = self.summary
        summary.new += result.new
        summary.duplicate += result.duplicate
        summary.excluded += result.excluded
        summary.redacted += result.redacted
        if self._progress:
            self._progress("writing", summary.records, None)
