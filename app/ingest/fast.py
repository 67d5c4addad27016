"""The fast path for a capture client's batch: msgspec decodes the request body straight
into structs, with the constraints of `RecordBatch` and `RecordIn`, and the checks of
`check_records` then run over the whole batch at once. The fast path only ever says
yes or "not sure": a body it refuses, or has any doubt about, goes to `RecordBatch`
(pydantic), which accepts it the same way or says what is wrong with it. So every
error answer comes from one place, and the two parsers cannot disagree on one.

    batch = decode_batch(body, now=datetime.now(UTC))  # a FastBatch, or None: use pydantic

Where msgspec and pydantic-core could read one input two ways, the fast path declines:
- more than six digits of a second's fraction (msgspec rounds them, pydantic cuts);
- an ASCII character written as a `\\u00XX` escape: a NUL (pydantic's path drops it
  from text, refuses it in a key), or a fraction's dot or digits;
- `$` in a pattern, which Python lets match before a final newline (`\\Z` here).
Lone surrogates and invalid UTF-8 both refuse alike. `tests/unit/test_ingest_fast_path.py`
holds the two paths equal on varied batches and on each of these edges.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Annotated, cast

import msgspec

from app.ingest.records import (
    APP_MAX,
    MAX_BATCH,
    MAX_RECORD_SPAN,
    SURELY_LATE_ENOUGH,
    TITLE_MAX,
    URL_MAX,
    RecordBatch,
    RecordIn,
)
from app.store.accounts import DEVICE_ID_PATTERN

# Python's `$` matches before a final "\n"; pydantic-core's regex does not.
_DEVICE_ID = DEVICE_ID_PATTERN.removesuffix("$") + r"\Z"
_Instant = Annotated[datetime, msgspec.Meta(tz=True)]


class FastRecord(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """`RecordIn`'s fields and constraints (a test holds them equal), as a struct: it
    has the fields the rules read (`RecordFields`)."""

    client_record_id: Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
    ts_start: _Instant
    ts_end: _Instant | None = None
    app: Annotated[str, msgspec.Meta(max_length=APP_MAX)] = ""
    window_title: Annotated[str, msgspec.Meta(max_length=TITLE_MAX)] = ""
    url: Annotated[str, msgspec.Meta(max_length=URL_MAX)] | None = None
    is_idle: bool = False
    incognito: bool = False
    capture_reason: Annotated[str, msgspec.Meta(max_length=64)] | None = None
    screenshot_ref: Annotated[str, msgspec.Meta(max_length=1_024)] | None = None
    screenshot_sha256: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}\Z")] | None = None

    @property
    def description(self) -> str | None:
        return None  # capture clients send no frame text


class FastBatch(msgspec.Struct, forbid_unknown_fields=True):
    """`RecordBatch` as a struct."""

    device_id: Annotated[str, msgspec.Meta(pattern=_DEVICE_ID)]
    records: Annotated[list[FastRecord], msgspec.Meta(min_length=1, max_length=MAX_BATCH)]


_DECODER = msgspec.json.Decoder(FastBatch)
# A fraction of seven digits or more (in a timestamp, or anywhere: a title that has one
# only sends its batch the slow way). Compiled patterns: a literal first byte is found
# by a fast scan, where `in` on bytes is slower for these.
_LONG_FRACTION = re.compile(rb"\.[0-9]{7}")
# An ASCII character written as an escape: a NUL (\u0000), or a dot or digit a fraction
# might hide in. Encoders write only control characters so, and rarely.
_ESCAPED_ASCII = re.compile(rb"\\u00[0-7]")


def decode_batch(body: bytes, *, now: datetime) -> FastBatch | None:
    """The batch in `body` when it is well-formed and every record passes the checks
    `RecordBatch` makes (with `now` as the clock); None when in any doubt."""
    if _ESCAPED_ASCII.search(body) or _LONG_FRACTION.search(body):
        return None
    try:
        batch = _DECODER.decode(body)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return batch if _records_fine(batch.records, now=now) else None


def _records_fine(records: list[FastRecord], *, now: datetime) -> bool:
    """`check_records` finds nothing: times inside [1990, now + 1 day], ends after starts
    and within 24 hours of them, keys not blank. (A NUL escape was declined before decoding,
    and msgspec decodes no lone surrogate, so the text needs no look.)"""
    floor, latest = SURELY_LATE_ENOUGH, now + timedelta(days=1)
    span, zero = MAX_RECORD_SPAN, timedelta(0)
    for rec in records:
        start, end = rec.ts_start, rec.ts_end
        if not floor <= start <= latest:
            return False
        if end is not None and not (zero <= end - start <= span and end <= latest):
            return False
        if not rec.client_record_id.strip():
            return False
    return True


def as_record_batch(batch: FastBatch) -> RecordBatch:
    """A `RecordBatch` holding the fast path's records as they are (structs with the
    fields the rules read), marked as checked: FastAPI passes a model instance through
    its validation, and the batch's own check does not run again."""
    # Not RecordIn instances, but the same fields: ingest reads them as `RecordFields`.
    records = cast("list[RecordIn]", batch.records)
    model = RecordBatch.model_construct(device_id=batch.device_id, records=records)
    model._checked = True
    return model
