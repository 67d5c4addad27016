"""aw-server's query2 (`POST /api/0/query/`) over the door's buckets, run by aw-core's
own engine (`aw_query`), so that every function aw-webui sends means what it means on
aw-server.

    body = answer_query(body=request_json, name="", buckets=metadata, read=read_events,
                        cache=day_cache)
    # JSON bytes: one result per time period, as aw-server answers

The engine reads the door's events through `DoorEvents`, an aw_datastore storage that
only reads: `query_bucket` gets a bucket's events in the period newest first, trimmed to
it, as aw-server's SQLite store gives them. aw-webui's canonical query (its Activity
view) is answered from pieces kept per day when a `DayCache` is given
(app/awdoor/daycache.py), with what the engine would answer. What the engine refuses
(a syntax error, a function it does not know, an argument of the wrong type) is
`QueryRefused`, with aw-server's type and message.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import orjson
from aw_core.models import Event
from aw_datastore import Datastore
from aw_datastore.storages import AbstractStorage
from aw_query.exceptions import QueryException
from aw_query.functions import functions as _functions
from aw_query.query2 import query as run_query2

from app.awdoor.canonical import Shape, json_default, recognise
from app.awdoor.daycache import DayCache, EventReader, cached_result
from app.awdoor.events import AwInputError, parse_time
from app.awdoor.webui_shape import recognise_webui
from app.store.awdoor import AwEventRow

# aw-core's functions: what a query may call (`find_bucket`, `flood`, `categorize`, ...).
FUNCTIONS: frozenset[str] = frozenset(_functions)
_US = timedelta(microseconds=1)
# What a transform may raise on data it does not expect (aw-server answers those with a 500).
_FAILURES = (KeyError, TypeError, ValueError, AttributeError, IndexError, re.error)


class QueryRefused(AwInputError):
    """The query cannot be answered (aw-server's 400, with its exception's name)."""

    def __init__(self, message: str, *, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class ReadOnly(QueryException):
    """The door's events are read, never written, by a query."""


class DoorEvents(AbstractStorage):
    """The door's buckets as aw_datastore storage, for the query engine: reads only."""

    sid = "timetrace-door"

    def __init__(
        self, testing: bool, *, buckets: dict[str, dict[str, Any]], read: EventReader
    ) -> None:
        self.testing = testing
        self._buckets = buckets
        self._read = read

    def buckets(self) -> dict[str, dict[str, Any]]:
        return dict(self._buckets)

    def get_metadata(self, bucket_id: str) -> dict[str, Any]:
        return self._buckets[bucket_id]

    def get_events(
        self,
        bucket_id: str,
        limit: int,
        starttime: datetime | None = None,
        endtime: datetime | None = None,
    ) -> list[Event]:
        if limit == 0:
            return []
        rows = self._read(bucket_id, starttime, endtime, None if limit < 0 else limit)
        return [_trimmed(_event(row), starttime, endtime) for row in rows]

    def get_eventcount(
        self,
        bucket_id: str,
        starttime: datetime | None = None,
        endtime: datetime | None = None,
    ) -> int:
        return len(self._read(bucket_id, starttime, endtime, None))

    def get_event(self, bucket_id: str, event_id: int) -> Event | None:
        raise ReadOnly("a query reads events by time, not by id")

    def create_bucket(
        self,
        bucket_id: str,
        type_id: str,
        client: str,
        hostname: str,
        created: str,
        name: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        raise ReadOnly("a query does not create buckets")

    def update_bucket(
        self,
        bucket_id: str,
        type_id: str | None = None,
        client: str | None = None,
        hostname: str | None = None,
        name: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> None:
        raise ReadOnly("a query does not change buckets")

    def delete_bucket(self, bucket_id: str) -> None:
        raise ReadOnly("a query does not delete buckets")

    def insert_one(self, bucket_id: str, event: Event) -> Event:
        raise ReadOnly("a query does not write events")

    def delete(self, bucket_id: str, event_id: int) -> bool:
        raise ReadOnly("a query does not delete events")

    def replace(self, bucket_id: str, event_id: int, event: Event) -> bool:
        raise ReadOnly("a query does not write events")

    def replace_last(self, bucket_id: str, event: Event) -> None:
        raise ReadOnly("a query does not write events")


def _event(row: AwEventRow) -> Event:
    return Event(
        id=row.event_id,
        timestamp=row.ts,
        duration=row.duration_us * _US,
        data=orjson.loads(row.data),
    )


def _trimmed(event: Event, start: datetime | None, end: datetime | None) -> Event:
    """An event cut to the period, as aw-server's SQLite store cuts what it reads."""
    if start is not None and event.timestamp < start:
        stop = event.timestamp + event.duration
        event.timestamp = start
        event.duration = stop - start
    if end is not None and event.timestamp + event.duration > end:
        event.duration = end - event.timestamp
    return event


def _periods(value: object) -> list[tuple[datetime, datetime]]:
    """`timeperiods`: ISO 8601 intervals (`start/end`), as aw-server splits and reads them."""
    if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
        raise AwInputError('timeperiods: expected a list of "start/end" strings')
    periods = []
    for period in value:
        parts = period.split("/")[:2]
        if len(parts) != 2:
            raise AwInputError(f"timeperiods: {period[:80]!r} is not start/end")
        try:
            periods.append((parse_time(parts[0]), parse_time(parts[1])))
        except AwInputError as exc:
            raise AwInputError(f"timeperiods: {period[:80]!r}: {exc.message}") from exc
    return periods


def _statements(value: object) -> str:
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        raise AwInputError("query: expected a list of strings (the query's statements)")
    return "".join(value)


def _store(read: EventReader, *, buckets: dict[str, dict[str, Any]]) -> Datastore:
    return Datastore(partial(DoorEvents, buckets=buckets, read=read))


def answer_query(
    *,
    body: object,
    name: str,
    buckets: dict[str, dict[str, Any]],
    read: EventReader,
    cache: DayCache | None = None,
) -> bytes:
    """aw-server's `/api/0/query/` answer, as JSON: a list with one result per period.
    `buckets`: each bucket's metadata as `GET /api/0/buckets/` gives it; `read`: a
    bucket's events in a range; `cache`: the canonical query's kept pieces (None: the
    engine answers every query). QueryRefused (or AwInputError) when it cannot answer."""
    if not isinstance(body, dict):
        raise AwInputError('a query is {"timeperiods": [...], "query": [...]}')
    periods = _periods(body.get("timeperiods"))
    text = _statements(body.get("query"))
    store = _store(read, buckets=buckets)
    shape = (recognise(text) or recognise_webui(text)) if cache is not None else None
    try:
        results = _answers(text, shape, periods, name=name, buckets=buckets, read=read,
                           cache=cache, store=store)  # fmt: skip
        return orjson.dumps(results, default=json_default)
    finally:
        if cache is not None:
            cache.start()  # a cold period's pieces, worked out after its answer


def _answers(
    text: str, shape: Shape | None, periods: list[tuple[datetime, datetime]], *, name: str,
    buckets: dict[str, dict[str, Any]], read: EventReader, cache: DayCache | None,
    store: Datastore,
) -> list[Any]:  # fmt: skip
    results: list[Any] = []
    for start, end in periods:
        try:
            kept = None
            if shape is not None and cache is not None:
                kept = cached_result(
                    shape=shape, start=start, end=end, buckets=buckets, read=read,
                    open_store=partial(_store, buckets=buckets), cache=cache, name=name,
                )  # fmt: skip
            results.append(kept if kept is not None else run_query2(name, text, start, end, store))
        except QueryException as exc:  # its message names an unknown function
            raise QueryRefused(str(exc), kind=type(exc).__name__) from exc
        except _FAILURES as exc:
            raise QueryRefused(
                f"the query failed: {type(exc).__name__}: {exc}", kind="QueryFunctionException"
            ) from exc
    return results
