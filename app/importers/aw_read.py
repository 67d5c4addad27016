"""ActivityWatch history, read: an export file or a running aw-server's buckets and
events, streamed and set aside on disk per bucket (`spill.py`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import IO, Any
from urllib.parse import quote

import httpx
import msgspec

from app.boundary import import_text
from app.errors import InvalidInputError
from app.importers.jsonstream import JsonStream, NoRun
from app.importers.spill import EventSpill, canonical
from app.importers.writer import Progress
from app.ingest.records import (
    MAX_RECORD_SPAN,
)

SOURCE = "activitywatch"
WINDOW, AFK, WEB = "currentwindow", "afkstatus", "web.tab.current"
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
US = timedelta(microseconds=1)
MAX_SPAN_US = MAX_RECORD_SPAN // US
_NAME_MAX = 200  # a bucket's id, type, hostname or client


class ActivityWatchError(InvalidInputError):
    """The ActivityWatch history could not be read."""


@dataclass(slots=True)
class Bucket:
    index: int
    id: str
    type: str = ""
    hostname: str = ""
    client: str = ""
    events: int = 0


@dataclass(slots=True)
class Host:
    """One machine's buckets: it becomes one TimeTrace device."""

    name: str
    device_id: str
    windows: list[Bucket] = field(default_factory=list)
    afk: list[Bucket] = field(default_factory=list)
    web: list[Bucket] = field(default_factory=list)

    @property
    def is_phone(self) -> bool:
        return any("android" in b.id.lower() or "android" in b.client for b in self.windows)


# -- reading ------------------------------------------------------------------------------------


class _FastEvent(msgspec.Struct):
    """An event as `Reader.decode_run` takes it (other fields are left unread)."""

    timestamp: str
    data: msgspec.Raw
    duration: float | None = None


_decode_events = msgspec.json.Decoder(list[_FastEvent]).decode
_CANONICALS_MAX = 16_384
_decode_data = msgspec.json.Decoder().decode


def _data(raw: bytes) -> Any:
    """An event's data object as the standard decoder reads it: by msgspec's decoder
    where that one takes it, as they agree on all it takes (a shallow object: one
    nested deeper than the standard decoder's recursion allows is left to it)."""
    if raw.count(b"{") + raw.count(b"[") <= 64:
        try:
            return _decode_data(raw)
        except msgspec.DecodeError:
            pass  # an infinity, a lone surrogate: what only the standard one reads
    return json.loads(raw.decode("utf-8"))


_SLOW_EVENTS = 1_000  # after a refused run, events read one by one (about a run's worth)


def _micros(value: object) -> int:
    if not isinstance(value, str):
        raise ValueError("timestamp is not a string")
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # ActivityWatch stores UTC
    return (moment - EPOCH) // US


class Reader:
    """Puts every event of every bucket into the spill, keeping the buckets' metadata."""

    def __init__(self, spill: EventSpill, progress: Progress | None, total: int | None) -> None:
        self.spill = spill
        self.buckets: list[Bucket] = []
        self.skipped = 0
        self._progress = progress
        self._total = total
        self.measure: Callable[[], int] = lambda: spill.count  # progress: events, or bytes
        # Event data as read -> its canonical text (`spill.canonical`): the same data
        # comes back event after event, and one text object for it keeps the spill small.
        self._canonicals: dict[bytes, str] = {}

    def bucket(self, bucket_id: str) -> Bucket:
        found = Bucket(index=len(self.buckets), id=import_text(bucket_id, limit=_NAME_MAX))
        self.buckets.append(found)
        return found

    def describe(self, bucket: Bucket, meta: dict[str, Any]) -> None:
        # Names from the file are captured text too: no NUL, bounded (a hostname
        # becomes a device's name).
        bucket.id = import_text(meta.get("id") or bucket.id, limit=_NAME_MAX)
        bucket.type = import_text(meta.get("type") or "", limit=_NAME_MAX)
        bucket.hostname = import_text(meta.get("hostname") or "", limit=_NAME_MAX)
        bucket.client = import_text(meta.get("client") or "", limit=_NAME_MAX)

    def decode_run(self, text: str) -> list[tuple[int, int, str]]:
        """A run of events as spill rows (start, duration, canonical data), when each
        is one `event` stores without a word: an object with a data object, a time it
        reads, a duration of zero or more. Otherwise a ValueError (nothing is kept),
        and `event` reads them one by one."""
        rows = []
        canonicals = self._canonicals
        for event in _decode_events(text.encode("utf-8")):
            raw = bytes(event.data)
            data = canonicals.get(raw)
            if data is None:
                if not raw.startswith(b"{"):
                    raise ValueError("data is not an object")
                if len(canonicals) >= _CANONICALS_MAX:
                    canonicals.clear()
                data = canonicals[raw] = canonical(_data(raw))
            duration = round((event.duration or 0) * 1_000_000)
            if duration < 0:
                raise ValueError("negative duration")
            rows.append((_micros(event.timestamp), duration, data))
        return rows

    def add_rows(self, bucket: Bucket, rows: list[tuple[int, int, str]]) -> None:
        """What `decode_run` made of a run of events."""
        before = self.spill.count
        bucket.events += len(rows)
        self.spill.add_rows(bucket=bucket.index, rows=rows)
        if self._progress and self.spill.count // 50_000 > before // 50_000:
            self._progress("reading", self.measure(), self._total)

    def event(self, bucket: Bucket, event: object, where: Callable[[], int]) -> None:
        if not isinstance(event, dict) or not isinstance(event.get("data"), dict):
            raise ActivityWatchError(
                f"event {bucket.events + 1:,} of bucket {bucket.id!r} is not an event object "
                f"(near byte {where():,})"
            )
        try:
            start = _micros(event.get("timestamp"))
            duration = round(float(event.get("duration") or 0) * 1_000_000)
        except (TypeError, ValueError):
            self.skipped += 1
            return
        bucket.events += 1
        if duration < 0:
            self.skipped += 1
            return
        self.spill.add(bucket=bucket.index, start=start, duration=duration, data=event["data"])
        if self._progress and self.spill.count % 50_000 == 0:
            self._progress("reading", self.measure(), self._total)


def read_export(source: IO[bytes], reader: Reader, *, name: str, size: int | None = None) -> None:
    """Stream an export into the reader's spill. A file that is cut off or corrupt stops
    here, before anything is written, with where it stopped."""
    stream = JsonStream(source, name=name)

    def where() -> int:
        return stream.position()

    reader.measure = lambda: stream.bytes_read
    seen_buckets = False
    try:
        stream.expect("{")
        more = stream.first_item("}")
        while more:
            key = stream.string()
            stream.expect(":")
            if key == "buckets":
                seen_buckets = True
                _read_buckets(stream, reader, where)
            else:
                stream.value()
            more = stream.next_item("}")
        if stream.peek():
            raise stream.error("goes on after the end of the export")
    except InvalidInputError as exc:  # the stream's and the reader's own
        raise ActivityWatchError(f"{exc.message}; {_got(reader)} — nothing was imported") from exc
    if not seen_buckets:
        raise ActivityWatchError(f'{name} is not an ActivityWatch export (no "buckets")')


def _got(reader: Reader) -> str:
    if not reader.buckets:
        return "no bucket was read"
    last = reader.buckets[-1]
    return (
        f"read {reader.spill.count + reader.skipped:,} events of {len(reader.buckets)} "
        f"bucket(s), the last {last.id!r} after {last.events:,}"
    )


def _read_buckets(stream: JsonStream, reader: Reader, where: Callable[[], int]) -> None:
    opening = stream.peek()
    if opening not in "{[" or not opening:
        raise stream.error('has "buckets" that is neither an object nor an array')
    close = "}" if opening == "{" else "]"
    stream.expect(opening)
    more = stream.first_item(close)
    while more:
        bucket_id = ""
        if close == "}":
            bucket_id = stream.string()
            stream.expect(":")
        _read_bucket(stream, reader, reader.bucket(bucket_id), where)
        more = stream.next_item(close)


def _read_bucket(
    stream: JsonStream, reader: Reader, bucket: Bucket, where: Callable[[], int]
) -> None:
    meta: dict[str, Any] = {}
    stream.expect("{")
    more = stream.first_item("}")
    while more:
        key = stream.string()
        stream.expect(":")
        if key == "events":
            _read_events(stream, reader, bucket, where)
        else:
            meta[key] = stream.value()
            if key in ("id", "type", "hostname", "client"):
                reader.describe(bucket, {**meta, "id": meta.get("id") or bucket.id})
        more = stream.next_item("}")
    reader.describe(bucket, {**meta, "id": meta.get("id") or bucket.id})


def _read_events(
    stream: JsonStream, reader: Reader, bucket: Bucket, where: Callable[[], int]
) -> None:
    """A bucket's events: runs of them decoded at once (`_FastEvent`), and one by one
    (`reader.event`) for a while where a run is refused (an odd value, a `}` in a
    title where the run would end, the end of the bucket)."""
    stream.expect("[")
    if not stream.first_item("]"):
        return
    slow = 0
    while True:
        if slow == 0:
            run = stream.array_run(reader.decode_run)
            if not isinstance(run, NoRun):
                rows, ended = run
                reader.add_rows(bucket, rows)
                if ended:
                    return
                continue
            slow = 1 if run is NoRun.SHORT else _SLOW_EVENTS
        slow -= 1
        reader.event(bucket, stream.value(), where)
        if not stream.next_item("]"):
            return


def read_server(client: httpx.Client, reader: Reader, *, url: str, page: int = 5_000) -> None:
    """Every bucket of a running aw-server (`GET /api/0/buckets/`), events paged back
    in time (`?end=` the oldest one seen, newest first as the server lists them)."""
    base = url.rstrip("/")
    try:
        listing = _get_json(client, f"{base}/api/0/buckets/", {})
        if not isinstance(listing, dict):
            raise ActivityWatchError(f"{base} did not list buckets as aw-server does")
        for bucket_id, meta in listing.items():
            bucket = reader.bucket(str(bucket_id))
            reader.describe(bucket, meta if isinstance(meta, dict) else {})
            end: str | None = None
            at_end: set[str] = set()
            while True:
                params: dict[str, str | int] = {"limit": page}
                if end is not None:
                    params["end"] = end
                events = _get_json(
                    client, f"{base}/api/0/buckets/{quote(bucket.id, safe='')}/events", params
                )
                if not isinstance(events, list):
                    raise ActivityWatchError(f"{base} sent events of {bucket.id!r} as no list")
                fresh = [e for e in events if _event_key(e) not in at_end]
                for event in fresh:
                    reader.event(bucket, event, lambda: 0)
                if len(events) < page or not fresh:
                    break
                end = min(str(e.get("timestamp")) for e in events if isinstance(e, dict))
                oldest = _micros(end)
                at_end = {_event_key(e) for e in events if _starts_at(e, oldest)}
    except httpx.HTTPError as exc:
        raise ActivityWatchError(f"cannot read {base}: {exc}") from exc


def _get_json(client: httpx.Client, url: str, params: dict[str, str | int]) -> Any:
    response = client.get(url, params=params)
    if response.status_code != 200:
        raise ActivityWatchError(f"{url} answered HTTP {response.status_code}")
    try:
        return response.json()
    except ValueError as exc:
        raise ActivityWatchError(f"{url} did not answer JSON") from exc


def _event_key(event: object) -> str:
    """An event seen on the page before: by its id where the server gives one, since
    aw-server-rust clips events to the range asked (one starting at `end` comes back
    with duration 0)."""
    if not isinstance(event, dict):
        return ""
    if event.get("id") is not None:
        return f"id:{event['id']}"
    return f"{event.get('timestamp')}|{event.get('duration')}|{event.get('data')}"


def _starts_at(event: object, moment: int) -> bool:
    try:
        return isinstance(event, dict) and _micros(event.get("timestamp")) == moment
    except ValueError:
        return False


# -- hosts and records ------------------------------------------------------------------------
