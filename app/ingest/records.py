"""Ingest: validate a batch of records, apply privacy and category rules, and
hand the rows to the store. The HTTP route and the importers both come here, and so
does deletion.

    result = ingest_batch(store, user=user, batch=RecordBatch(...), rules=rules)
    deleted = delete_records(store, user=user, ts_from=..., ts_to=...)
    deleted = delete_records(store, user=user, ts_from=..., ts_to=..., rebuild_now=ctx.rebuild)
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated, Protocol, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    model_validator,
)

from app.boundary import CapturedText, Identifier, Instant
from app.errors import DatabaseError, UnknownDeviceError
from app.ingest.ruled import LogicalDays, Ruled, rule_text
from app.job_requests import build_job, rollup_day_job
from app.pyramid.build import RebuildDays
from app.rules.categories import Rules
from app.store import (
    DEVICE_ID_PATTERN,
    AccountStore,
    JobStore,
    NewRecords,
    RecordStore,
    UserContext,
)
from app.timeutil import zone

log = logging.getLogger("timetrace.ingest")
MAX_BATCH = 5_000
MAX_RECORD_SPAN = timedelta(hours=24)
MIN_YEAR = 1990
APP_MAX, TITLE_MAX, URL_MAX = 256, 4_096, 4_096  # the most each text field may hold


class IngestStore(AccountStore, RecordStore, JobStore, Protocol):
    """What ingest and deletion use: the device check, the records, and the jobs they
    ask for."""


def _sane_time(value: datetime) -> datetime:
    if value.year < MIN_YEAR:
        raise ValueError(f"year {value.year} is before {MIN_YEAR}")
    if value > datetime.now(UTC) + timedelta(days=1):
        raise ValueError("is more than a day in the future (check the device clock)")
    return value


# The input boundary's types (app/boundary.py): NUL dropped from captured text and
# refused in keys, no blank key, no epoch number for a time.
Text = CapturedText
Timestamp = Annotated[Instant, AfterValidator(_sane_time)]


class RecordIn(BaseModel):
    """One timeline unit as a capture client sends it."""

    model_config = ConfigDict(extra="forbid")

    client_record_id: Annotated[Identifier, Field(min_length=1, max_length=128)]
    ts_start: Timestamp
    ts_end: Timestamp | None = None
    app: Annotated[Text, Field(max_length=APP_MAX)] = ""
    window_title: Annotated[Text, Field(max_length=TITLE_MAX)] = ""
    url: Annotated[Text, Field(max_length=URL_MAX)] | None = None
    is_idle: StrictBool = False
    incognito: StrictBool = False
    capture_reason: Annotated[Text, Field(max_length=64)] | None = None
    screenshot_ref: Annotated[Text, Field(max_length=1_024)] | None = None
    screenshot_sha256: Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")] | None = None

    @property
    def description(self) -> str | None:
        return None  # capture clients send no frame text; importers may (screenpipe)

    @model_validator(mode="after")
    def _end_after_start(self) -> Self:
        if self.ts_end is not None:
            if self.ts_end < self.ts_start:
                raise ValueError("ts_end is before ts_start")
            if self.ts_end - self.ts_start > MAX_RECORD_SPAN:
                raise ValueError("ts_end is more than 24 hours after ts_start")
        return self


class RecordBatch(BaseModel):
    """A batch of records from one device."""

    model_config = ConfigDict(extra="forbid")

    device_id: Annotated[StrictStr, Field(pattern=DEVICE_ID_PATTERN)]
    records: Annotated[list[RecordIn], Field(min_length=1, max_length=MAX_BATCH)]


class IngestResult(BaseModel):
    received: int
    new: int
    duplicate: int
    excluded: int
    redacted: int
    # Seconds cut off by overlaps this batch takes part in (one device is one timeline):
    # a record ending after the next one starts counts only up to that start (not
    # measured for an importer's batches: 0).
    clipped_s: float


class RecordFields(Protocol):
    """What the rules read of a record: a validated `RecordIn`, or an importer's record
    (app/importers), which has a frame description besides."""

    @property
    def client_record_id(self) -> str: ...
    @property
    def ts_start(self) -> datetime: ...
    @property
    def ts_end(self) -> datetime | None: ...
    @property
    def app(self) -> str: ...
    @property
    def window_title(self) -> str: ...
    @property
    def url(self) -> str | None: ...
    @property
    def is_idle(self) -> bool: ...
    @property
    def incognito(self) -> bool: ...
    @property
    def capture_reason(self) -> str | None: ...
    @property
    def screenshot_ref(self) -> str | None: ...
    @property
    def screenshot_sha256(self) -> str | None: ...
    @property
    def description(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class PreparedRecords:
    """A batch after the rules: the rows to insert, and what the rules did to it."""

    rows: NewRecords
    received: int
    excluded: int
    redacted: int


def prepare_records(
    records: Sequence[RecordFields], *, rules: Rules, user: UserContext
) -> PreparedRecords:
    """Rows ready to insert, and how many records were excluded and redacted. The one
    place privacy and category rules meet a record, for HTTP and the importers alike
    (`rule_text`: once per distinct text in the batch, as titles repeat)."""
    days = LogicalDays(tz=zone(user.time_zone), cut_hour=user.day_cut_hour)
    seen: dict[tuple[str, str, str | None, bool, bool], Ruled] = {}
    rows = NewRecords()
    # The columns' appends bound once: a batch is thousands of records.
    columns = [getattr(rows, name).append for name in NewRecords.model_fields]
    (
        add_key, add_start, add_end, add_day, add_app, add_app_raw, add_title, add_url,
        add_domain, add_idle, add_reason, add_shot, add_sha, add_category, add_source,
        add_redacted, add_description,
    ) = columns  # fmt: skip
    day_of = days.of
    excluded = redacted = 0
    for rec in records:
        text = (rec.app, rec.window_title, rec.url, rec.is_idle, rec.incognito)
        ruled = seen.get(text)
        if ruled is None:
            ruled = seen[text] = rule_text(
                rules,
                app=rec.app,
                title=rec.window_title,
                url=rec.url,
                idle=rec.is_idle,
                incognito=rec.incognito,
            )
        if ruled.drop:
            excluded += 1
            continue
        hide = ruled.redacted
        redacted += hide
        add_key(rec.client_record_id)
        add_start(rec.ts_start)
        add_end(rec.ts_end)
        add_day(day_of(rec.ts_start))
        add_app(ruled.app)
        add_app_raw(ruled.app_raw)
        add_title(ruled.window_title)
        add_url(ruled.url)
        add_domain(ruled.domain)
        add_idle(rec.is_idle)
        add_reason(rec.capture_reason)
        add_shot(None if hide else rec.screenshot_ref)
        add_sha(None if hide else rec.screenshot_sha256)
        add_category(ruled.category)
        add_source(ruled.category_source)
        add_redacted(hide)
        add_description(None if hide else rec.description)
    return PreparedRecords(rows, received=len(records), excluded=excluded, redacted=redacted)


def store_records(
    store: IngestStore,
    *,
    user: UserContext,
    device_id: str,
    records: Sequence[RecordFields],
    rules: Rules,
    source: str | None = None,
) -> IngestResult:
    """Apply the rules and store a device's records idempotently (a replayed record is a
    duplicate and changes nothing), then ask for the device's episodes. `source` names
    an importer: its batches go by COPY, with each record's description."""
    prepared = prepare_records(records, rules=rules, user=user)
    return store_prepared(store, user=user, device_id=device_id, prepared=prepared, source=source)


def store_prepared(
    store: IngestStore,
    *,
    user: UserContext,
    device_id: str,
    prepared: PreparedRecords,
    source: str | None = None,
) -> IngestResult:
    """The storing half of `store_records`, for a batch `prepare_records` made (an
    importer prepares the next batch while this one is stored)."""
    rows = prepared.rows
    kept = len(rows)
    new = 0
    if kept and source is None:
        new = store.insert_records(user_id=user.user_id, device_id=device_id, records=rows)
    elif kept and source is not None:
        new = store.import_records(
            user_id=user.user_id, device_id=device_id, records=rows, model=source
        )
    if new:
        # Without a worker this job waits; the records are safe either way.
        store.defer([build_job(user.user_id, device_id)])
    # An importer's summary has no use for clipped seconds: its batches skip that read.
    clipped = (
        store.clipped_seconds(user_id=user.user_id, device_id=device_id, records=rows)
        if source is None
        else 0.0
    )
    return IngestResult(
        received=prepared.received,
        new=new,
        duplicate=kept - new,
        excluded=prepared.excluded,
        redacted=prepared.redacted,
        clipped_s=round(clipped, 3),
    )


def ingest_batch(
    store: IngestStore, *, user: UserContext, batch: RecordBatch, rules: Rules
) -> IngestResult:
    """Store a batch from a capture client (HTTP): its device must be registered."""
    if not store.device_exists(user_id=user.user_id, device_id=batch.device_id):
        raise UnknownDeviceError(
            f"unknown device {batch.device_id!r}: register it first "
            "(POST /api/v1/devices or `timetrace device add`)"
        )
    return store_records(
        store, user=user, device_id=batch.device_id, records=batch.records, rules=rules
    )


def sane_time(value: datetime, *, now: datetime) -> bool:
    """What `RecordIn` accepts: not before 1990, not more than a day ahead of `now`."""
    return value.year >= MIN_YEAR and value <= now + timedelta(days=1)


def delete_records(
    store: IngestStore,
    *,
    user: UserContext,
    record_ids: list[int] | None = None,
    device_id: str | None = None,
    ts_from: datetime | None = None,
    ts_to: datetime | None = None,
    rebuild_now: RebuildDays | None = None,
) -> int:
    """Delete records, for every door: once this returns, no layer serves their text
    (see `RecordStore.delete_records`). The episodes and digests of their days are
    rebuilt by the jobs asked for here (or, if those are lost, by the sweep); with
    `rebuild_now` (the web page, whose next page must already show the rebuilt days)
    they are also rebuilt before this returns, and a rebuild that fails on the
    database leaves them to those jobs. Returns how many records were deleted."""
    hit = store.delete_records(
        user_id=user.user_id,
        record_ids=record_ids,
        device_id=device_id,
        ts_from=ts_from,
        ts_to=ts_to,
    )
    store.defer(
        [build_job(user.user_id, device) for device in sorted({h.device_id for h in hit})]
        + [rollup_day_job(user.user_id, day) for day in sorted({h.day_local for h in hit})]
    )
    if rebuild_now is not None and hit:
        try:
            rebuild_now(
                user=user,
                device_days=sorted((h.device_id, h.day_local) for h in hit),
                now=datetime.now(UTC),
            )
        except DatabaseError as exc:
            log.warning("deletion: rebuild left to the worker (%s)", type(exc).__name__)
    return sum(h.records for h in hit)
