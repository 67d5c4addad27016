"""Ingest: validate a batch of records, apply privacy and category rules, and
hand the rows to the store. The HTTP route and the importers both come here, and so
does deletion.

    result = ingest_batch(store, user=user, batch=RecordBatch(...), rules=rules)
    deleted = delete_records(store, user=user, ts_from=..., ts_to=...)
    deleted = delete_records(store, user=user, ts_from=..., ts_to=..., rebuild_now=ctx.rebuild)
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Protocol, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StrictBool,
    StrictStr,
    ValidationError,
    model_validator,
)

from app.boundary import ParsedInstant, captured_text, identifier_problem, instant_problem
from app.errors import DatabaseError, UnknownDeviceError
from app.ingest.ruled import LogicalDays, Verdicts, rule_text
from app.job_requests import build_job, rollup_day_job
from app.pyramid.build import RebuildDays
from app.rules.categories import Rules
from app.rules.user import rules_for_user
from app.store.accounts import DEVICE_ID_PATTERN, AccountStore, UserContext
from app.store.jobs import JobStore
from app.store.records import NewRecords, RecordStore
from app.store.user_rules import UserRuleStore
from app.timeutil import zone

log = logging.getLogger("timetrace.ingest")
MAX_BATCH = 5_000
MAX_RECORD_SPAN = timedelta(hours=24)
MIN_YEAR = 1990
APP_MAX, TITLE_MAX, URL_MAX = 256, 4_096, 4_096  # the most each text field may hold


class IngestStore(AccountStore, RecordStore, UserRuleStore, JobStore, Protocol):
    """What ingest and deletion use: the device check, the records, the jobs they ask
    for, and the user's own category rules."""


class RecordIn(BaseModel):
    """One timeline unit as a capture client sends it. Its fields are parsed here, with
    pydantic-core's own constraints (types, lengths, the hash's pattern); what needs
    Python (NUL, blank keys, time ranges, end after start) is checked for a whole
    `RecordBatch` in one pass, with one reading of the clock."""

    model_config = ConfigDict(extra="forbid")

    client_record_id: Annotated[StrictStr, Field(min_length=1, max_length=128)]
    ts_start: ParsedInstant
    ts_end: ParsedInstant | None = None
    app: Annotated[StrictStr, Field(max_length=APP_MAX)] = ""
    window_title: Annotated[StrictStr, Field(max_length=TITLE_MAX)] = ""
    url: Annotated[StrictStr, Field(max_length=URL_MAX)] | None = None
    is_idle: StrictBool = False
    incognito: StrictBool = False
    capture_reason: Annotated[StrictStr, Field(max_length=64)] | None = None
    screenshot_ref: Annotated[StrictStr, Field(max_length=1_024)] | None = None
    screenshot_sha256: Annotated[StrictStr, Field(pattern=r"^[0-9a-f]{64}$")] | None = None

    @property
    def description(self) -> str | None:
        return None  # capture clients send no frame text; importers may (screenpipe)


# Captured text of a record (the boundary's `CapturedText`: NULs dropped).
_TEXT_FIELDS = ("app", "window_title", "url", "capture_reason", "screenshot_ref")
# Any instant after this is inside the years kept and after MIN_YEAR in every UTC offset.
SURELY_LATE_ENOUGH = datetime(MIN_YEAR, 1, 3, tzinfo=UTC)


def _time_problem(value: datetime, *, latest: datetime) -> str | None:
    if SURELY_LATE_ENOUGH <= value <= latest:
        return None
    if (problem := instant_problem(value)) is not None:
        return problem
    if value.year < MIN_YEAR:
        return f"year {value.year} is before {MIN_YEAR}"
    if value > latest:
        return "is more than a day in the future (check the device clock)"
    return None


def capture_time_problem(value: datetime, *, now: datetime) -> str | None:
    """What a record refuses in its start or end `value`, said as its message (None when
    fine): for another door's times (the ActivityWatch door's events)."""
    return _time_problem(value, latest=now + timedelta(days=1))


def _record_problems(rec: RecordIn, *, latest: datetime) -> Iterator[tuple[str | None, str]]:
    """(field or None for the record, message) for each thing wrong with one record;
    drops the NULs of its captured text on the way."""
    if (problem := identifier_problem(rec.client_record_id)) is not None:
        yield "client_record_id", problem
    start, end = rec.ts_start, rec.ts_end
    if (problem := _time_problem(start, latest=latest)) is not None:
        yield "ts_start", problem
    if end is not None:
        if (problem := _time_problem(end, latest=latest)) is not None:
            yield "ts_end", problem
        elif end < start:
            yield None, "ts_end is before ts_start"
        elif end - start > MAX_RECORD_SPAN:
            yield None, "ts_end is more than 24 hours after ts_start"
    for name in _TEXT_FIELDS:
        text = getattr(rec, name)
        if text is None or (text.isascii() and "\x00" not in text):
            continue
        try:
            clean = captured_text(text)
        except ValueError as exc:
            yield name, str(exc)
            continue
        if clean != text:
            setattr(rec, name, clean)


def check_records(records: Sequence[RecordIn], *, now: datetime) -> list[Any]:
    """Everything the types cannot say about a batch's records, in one pass: as
    validation errors located at `records[i].field`, as a per-field check would give
    (pydantic-core's `InitErrorDetails`, for `ValidationError.from_exception_data`)."""
    latest = now + timedelta(days=1)
    floor, span, zero = SURELY_LATE_ENOUGH, MAX_RECORD_SPAN, timedelta(0)
    problems: list[Any] = []
    for i, rec in enumerate(records):
        # The common record, without a call: times plainly inside the range, and its
        # key and text together ASCII without NUL, or at least encodable without NUL.
        start, end = rec.ts_start, rec.ts_end
        if floor <= start <= latest and (
            end is None or (zero <= end - start <= span and end <= latest)
        ):
            key = rec.client_record_id
            text = "".join(
                (key, rec.app, rec.window_title, rec.url or "", rec.capture_reason or "",
                 rec.screenshot_ref or "")
            )  # fmt: skip
            if "\x00" not in text and key.strip() and (text.isascii() or _encodable(text)):
                continue
        for field, message in _record_problems(rec, latest=latest):
            loc: tuple[str | int, ...] = ("records", i) if field is None else ("records", i, field)
            value = rec if field is None else getattr(rec, field)
            problems.append(
                {"type": "value_error", "loc": loc, "input": value, "ctx": {"error": message}}
            )
    return problems


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class RecordBatch(BaseModel):
    """A batch of records from one device."""

    model_config = ConfigDict(extra="forbid")

    device_id: Annotated[StrictStr, Field(pattern=DEVICE_ID_PATTERN)]
    records: Annotated[list[RecordIn], Field(min_length=1, max_length=MAX_BATCH)]

    # Set once the records passed `check_records`: validating the batch again (FastAPI
    # does, with the instance the route parsed from bytes) does not check them again.
    _checked: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _check(self) -> Self:
        if self._checked:
            return self
        problems = check_records(self.records, now=datetime.now(UTC))
        if problems:  # located at each record's field, as a field's own check would be
            raise ValidationError.from_exception_data(type(self).__name__, problems)
        self._checked = True
        return self


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


# A prepared row: what varies per record, then what its text decided (`_RULED`, the
# same tuple for every record of one text); made into `NewRecords`' columns at the end.
_OWN = ("client_record_id", "ts_start", "ts_end", "day_local", "is_idle", "capture_reason",
        "screenshot_ref", "screenshot_sha256", "description")  # fmt: skip
_RULED = ("app", "app_raw", "window_title", "url", "domain", "category", "category_source",
          "redacted")  # fmt: skip


def prepare_records(
    records: Sequence[RecordFields], *, rules: Rules, user: UserContext
) -> PreparedRecords:
    """Rows ready to insert, and how many records were excluded and redacted. The one
    place privacy and category rules meet a record, for HTTP and the importers alike
    (`rule_text`: once per distinct text in the batch, as titles repeat; the rules
    themselves once per distinct app, title and site)."""
    days = LogicalDays(tz=zone(user.time_zone), cut_hour=user.day_cut_hour)
    # Per distinct text: dropped, redacted, and the columns it decides (`_RULED`).
    seen: dict[tuple[str, str, str | None, bool, bool], tuple[bool, bool, tuple[Any, ...]]] = {}
    verdicts: Verdicts = {}
    made: list[tuple[Any, ...]] = []
    add = made.append
    day_of = days.of
    excluded = redacted = 0
    for rec in records:
        text = (rec.app, rec.window_title, rec.url, rec.is_idle, rec.incognito)
        found = seen.get(text)
        if found is None:
            ruled = rule_text(
                rules,
                app=rec.app,
                title=rec.window_title,
                url=rec.url,
                idle=rec.is_idle,
                incognito=rec.incognito,
                verdicts=verdicts,
            )
            found = seen[text] = (
                ruled.drop,
                ruled.redacted,
                (ruled.app, ruled.app_raw, ruled.window_title, ruled.url, ruled.domain,
                 ruled.category, ruled.category_source, ruled.redacted),
            )  # fmt: skip
        drop, hide, columns = found
        if drop:
            excluded += 1
            continue
        start = rec.ts_start
        if hide:
            redacted += 1
            own: tuple[Any, ...] = (rec.client_record_id, start, rec.ts_end, day_of(start),
                                    rec.is_idle, rec.capture_reason, None, None, None)  # fmt: skip
        else:
            own = (rec.client_record_id, start, rec.ts_end, day_of(start), rec.is_idle,
                   rec.capture_reason, rec.screenshot_ref, rec.screenshot_sha256,
                   rec.description)  # fmt: skip
        add(own + columns)
    if made:
        by_name = dict(zip(_OWN + _RULED, map(list, zip(*made, strict=True)), strict=True))
        fields: dict[str, Any] = {name: by_name[name] for name in NewRecords.model_fields}
        rows = NewRecords.model_construct(**fields)
    else:
        rows = NewRecords()
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
    rules = rules_for_user(store, rules, user_id=user.user_id)
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
    importer prepares the next batch while this one is stored). Without `source` (a
    capture client's batch) the device must be registered: UnknownDeviceError if not."""
    rows = prepared.rows
    kept = len(rows)
    # Without a worker the build job waits; the records are safe either way.
    jobs = [build_job(user.user_id, device_id)]
    if source is None:
        stored = store.store_batch(
            user_id=user.user_id, device_id=device_id, records=rows, jobs=jobs
        )
        if not stored.device_known:
            raise UnknownDeviceError(
                f"unknown device {device_id!r}: register it first "
                "(POST /api/v1/devices or `timetrace device add`)"
            )
        new, clipped = stored.new, stored.clipped_s
    else:
        # An importer's summary has no use for clipped seconds: its batches skip that read.
        new, clipped = 0, 0.0
        if kept:
            new = store.import_records(
                user_id=user.user_id, device_id=device_id, records=rows, model=source
            )
        if new:
            store.defer(jobs)
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
    """Store a batch from a capture client (HTTP): its device must be registered
    (UnknownDeviceError, with nothing stored, if not)."""
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
