"""ActivityWatch events as aw-core models them, and its heartbeat merge (pure).

    event = parse_event(body, now=now)               # InvalidInputError when it is no event
    merged = heartbeat_merge(last, event, pulsetime_us=pulsetime_us(2.0))

Times are integer microseconds since the epoch, so every comparison and sum is
exact, as aw-core's `timedelta` arithmetic is. aw-core keeps timestamps to the
millisecond (it truncates what it is sent), durations to the microsecond; a
timestamp without a zone is UTC.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson

from app.boundary import captured_data, event_data_problem, pulse_problem, span_problem
from app.errors import InvalidInputError, TimeTraceError
from app.ingest.records import APP_MAX, TITLE_MAX, URL_MAX, capture_time_problem

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
_EVENT_KEYS = frozenset({"id", "timestamp", "duration", "data"})
# The text of an event's data that becomes a record's, held to a record's lengths.
_TEXT_LIMITS = {"app": APP_MAX, "title": TITLE_MAX, "url": URL_MAX}


class AwInputError(InvalidInputError):
    """An event or bucket is not what aw-server accepts."""


class NoSuchBucket(TimeTraceError):
    """There is no bucket by that name (aw-server's 404)."""


@dataclass(slots=True, eq=False)
class AwEvent:
    """One event. `event_id` is None until stored; `data` is the object as sent, and
    `data_json` its JSON text (written once, kept with the event)."""

    event_id: int | None
    start: int  # µs since the epoch
    duration: int  # µs
    data: dict[str, Any]
    data_json: str

    @property
    def end(self) -> int:
        return self.start + self.duration

    def document(self, *, with_id: bool = True) -> dict[str, Any]:
        """The event as aw-server answers it (`Event.to_json_dict`)."""
        out: dict[str, Any] = {"id": self.event_id} if with_id else {}
        out["timestamp"] = iso(self.start)
        out["duration"] = seconds(self.duration)
        out["data"] = self.data
        return out


def iso(micros: int) -> str:
    """A time as aw-server writes it: ISO 8601 in UTC, `+00:00`, microseconds when any."""
    return (EPOCH + micros * _US).isoformat()


def seconds(micros: int) -> float:
    """A duration as `timedelta.total_seconds()` gives it."""
    return (micros * _US).total_seconds()


def micros_of(moment: datetime) -> int:
    return (moment - EPOCH) // _US


def moment_of(micros: int) -> datetime:
    return EPOCH + micros * _US


def parse_time(value: object) -> datetime:
    """An ISO 8601 time as aw-core reads it (`iso8601.parse_date`); no zone is UTC."""
    if not isinstance(value, str):
        raise AwInputError("timestamp: expected an ISO 8601 string")
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise AwInputError(f"timestamp: not an ISO 8601 time: {value[:64]!r}") from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


def pulsetime_us(value: object) -> int:
    """`?pulsetime=` (seconds, a float) in µs, rounded as `timedelta(seconds=…)` rounds."""
    try:
        number = float(str(value))
    except ValueError as exc:
        raise AwInputError("pulsetime: expected a number of seconds") from exc
    if (problem := pulse_problem(number)) is not None:
        raise AwInputError(problem)
    return timedelta(seconds=number) // _US


def data_json(data: dict[str, Any]) -> str:
    try:
        return orjson.dumps(data).decode()
    except orjson.JSONEncodeError as exc:  # a lone surrogate, an integer past 64 bits
        raise AwInputError(f"data: cannot be stored as JSON ({exc})") from exc


def parse_event(body: object, *, now: datetime, need_timestamp: bool = False) -> AwEvent:
    """An event from its JSON object, as `aw_core.models.Event(**body)` makes it: the
    timestamp truncated to the millisecond (now when missing, unless `need_timestamp`:
    a heartbeat's schema requires one), the duration in seconds (0 when missing),
    data an object ({} when missing or null). Held to the boundary's checks
    (`app/boundary.py`): a time records accept, a bounded duration, data no larger
    than a record's text allows, NULs dropped from its text."""
    if not isinstance(body, dict):
        raise AwInputError("an event is a JSON object")
    unknown = set(body) - _EVENT_KEYS
    if unknown:
        raise AwInputError(f"unknown event field(s): {', '.join(sorted(unknown))[:200]}")
    stamp = body.get("timestamp")
    if stamp is None:
        if need_timestamp:
            raise AwInputError("timestamp: required")
        moment = now
    else:
        moment = parse_time(stamp)
        if (problem := capture_time_problem(moment, now=now)) is not None:
            raise AwInputError(f"timestamp: {problem}")
    micros = micros_of(moment)
    micros -= micros % 1_000  # aw-core keeps milliseconds
    duration = body.get("duration")
    if duration is None:
        duration_us = 0
    elif isinstance(duration, bool) or not isinstance(duration, int | float):
        raise AwInputError("duration: expected a number of seconds")
    elif (problem := span_problem(duration, field="duration")) is not None:
        raise AwInputError(problem)
    else:
        duration_us = timedelta(seconds=duration) // _US
    data = body.get("data")
    if data is None:
        data = {}
    elif not isinstance(data, dict):
        raise AwInputError("data: expected an object")
    event_id = body.get("id")
    if event_id is not None and (isinstance(event_id, bool) or not isinstance(event_id, int)):
        raise AwInputError("id: expected an integer")
    return AwEvent(event_id, micros, duration_us, *_checked_data(data))


def _checked_data(data: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """Data and its JSON text, NULs dropped, within the boundary's bounds."""
    text = data_json(data)
    if "\\u0000" in text:  # how JSON writes a NUL: none in the common case
        data = captured_data(data)
        text = data_json(data)
    size = len(text) if text.isascii() else len(text.encode())
    if (problem := event_data_problem(data, size=size, limits=_TEXT_LIMITS)) is not None:
        raise AwInputError(problem)
    return data, text


def stored_problem(start: datetime, duration_us: int, *, now: datetime) -> str | None:
    """Why an event already stored lies past the boundary (one an older door took), in
    words without its text: a time records refuse, a duration past the bound. None
    when it is fine."""
    if (problem := capture_time_problem(start, now=now)) is not None:
        return f"timestamp: {problem}"
    return span_problem(duration_us / 1_000_000, field="duration")


def heartbeat_merge(last: AwEvent, heartbeat: AwEvent, *, pulsetime: int) -> bool:
    """aw-core's `heartbeat_merge`: when the heartbeat has the last event's data and
    starts within [its start, its end + pulsetime], the last event is extended (never
    shortened) and True is returned; otherwise False and nothing changes."""
    if last.data != heartbeat.data:
        return False
    if not last.start <= heartbeat.start <= last.start + last.duration + pulsetime:
        return False
    if last.duration < 0:
        return False  # aw-core refuses a merge that would keep a negative duration
    last.duration = max(last.duration, heartbeat.start - last.start + heartbeat.duration)
    return True
