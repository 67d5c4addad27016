"""The one input boundary: the types and checks every door validates what it is given
with — HTTP routes, web forms, import files, tool and MCP calls — so that one input
is treated the same whichever door it comes through.

    class RecordIn(BaseModel):
        client_record_id: Identifier      # NUL or blank refused (a key never changes)
        window_title: CapturedText        # NUL dropped (what a screen showed)
        ts_start: Instant                 # ISO 8601 with an offset; never a number

- Identifiers (keys, device ids, ids) refuse a NUL or a blank value: stripping would
  quietly turn one key into another. Captured text drops its NULs: PostgreSQL cannot
  hold them and a title is still worth keeping without them.
- A question is at most `QUESTION_MAX` characters at every door, and a client-kept
  conversation (the OpenAI-compatible door) at most `HISTORY_MAX` messages.
- Instants and days lie between `FIRST_DAY` and `LAST_DAY`, inside the calendar Python
  and PostgreSQL share, so that a day's edges, its week and its month always exist.
- Numbers are never times: an epoch integer for a timestamp is refused, not guessed.
- An import file's line is at most `IMPORT_LINE_MAX` bytes, refused before it is read
  whole; the ids it carries fit a bigint (`stored_id`), its instants and days the years
  kept (`stored_instant`, `stored_day`). A user keeps at most `RULES_MAX` rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime
from typing import IO, Annotated, Any

from pydantic import AfterValidator, AwareDatetime, BeforeValidator, Field, StrictInt, StrictStr

from app.text import storable
from app.timeutil import FIRST_DAY, LAST_DAY

QUESTION_MAX = 4_000  # characters of one question, at every door
HISTORY_MAX = 100  # messages of a conversation a client sends back (OpenAI door)
MESSAGE_MAX = 32_000  # characters of one earlier message of that conversation
BIGINT_MAX = 2**63 - 1  # the largest id PostgreSQL's bigint holds
RULES_MAX = 1_000  # a user's own category rules, at most (app/rules/user.py)
_NUMBER = re.compile(r"^\s*[-+]?\d+(\.\d*)?([eE][-+]?\d+)?\s*$")


def identifier(value: str) -> str:
    """A key or name that must arrive as it is: no NUL, not blank."""
    storable(value)
    if not value.strip():
        raise ValueError("must not be blank")
    return value


def captured(value: str) -> str:
    """Text a screen showed: NULs dropped (PostgreSQL cannot hold them)."""
    return storable(value.replace("\x00", ""))


def _not_a_number(value: Any) -> Any:
    if type(value) is str and value[:1].isdigit() and value[4:5] == value[7:8] == "-":
        return value  # YYYY-MM-…: a number has at most one "-" after its first digit
    if isinstance(value, (int, float)) or (isinstance(value, str) and _NUMBER.match(value)):
        raise ValueError(
            "must be an ISO 8601 date-time with its UTC offset "
            "(e.g. 2026-06-02T10:30:00+08:00), not a number"
        )
    return value


def _supported_instant(value: datetime) -> datetime:
    if not FIRST_DAY.year <= value.year <= LAST_DAY.year:
        raise ValueError(f"must lie between the years {FIRST_DAY.year} and {LAST_DAY.year}")
    return value


Identifier = Annotated[StrictStr, AfterValidator(identifier)]
CapturedText = Annotated[StrictStr, AfterValidator(captured)]
Question = Annotated[
    StrictStr, Field(min_length=1, max_length=QUESTION_MAX), AfterValidator(identifier)
]
Instant = Annotated[
    AwareDatetime, BeforeValidator(_not_a_number), AfterValidator(_supported_instant)
]
Day = Annotated[date, Field(ge=FIRST_DAY, le=LAST_DAY)]
# An instant parsed but not yet range-checked: for a model that checks a whole batch in
# one pass (`instant_problem`, `identifier_problem`, `captured_text` below), not per field.
ParsedInstant = Annotated[AwareDatetime, BeforeValidator(_not_a_number)]
Id = Annotated[StrictInt, Field(ge=1, le=BIGINT_MAX)]  # `true` is not 1


def identifier_problem(value: str) -> str | None:
    """What `Identifier` refuses in `value`, said as its message; None when it is fine."""
    if value.isascii() and "\x00" not in value and value.strip():
        return None  # the common case, without an exception
    try:
        identifier(value)
    except ValueError as exc:
        return str(exc)
    return None


def captured_text(value: str) -> str:
    """`CapturedText`'s check as a function: NULs dropped, a lone surrogate a ValueError."""
    if "\x00" in value:
        value = value.replace("\x00", "")
    if not value.isascii():
        storable(value)
    return value


def instant_problem(value: datetime) -> str | None:
    """What `Instant` refuses in a parsed instant, said as its message; None when fine."""
    try:
        _supported_instant(value)
    except ValueError as exc:
        return str(exc)
    return None


def _not_a_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("must be a number, not true or false")
    return value


# For tool arguments, which accept a model's lossless near-misses ("8" for 8), never a bool.
LaxId = Annotated[int, Field(ge=1, le=BIGINT_MAX), BeforeValidator(_not_a_bool)]


def question_text(value: str, *, field: str) -> str:
    """A question taken outside a model (the OpenAI door's last message): the checks of
    `Question`, as a ValueError naming `field`."""
    text = value.strip()
    if not text:
        raise ValueError(f"{field}: must not be blank")
    if len(text) > QUESTION_MAX:
        raise ValueError(f"{field}: a question is at most {QUESTION_MAX:,} characters")
    try:
        return identifier(text)
    except ValueError as exc:
        raise ValueError(f"{field}: {exc}") from exc


def import_text(value: object, *, limit: int) -> str:
    """An import file's text as HTTP would take it (`CapturedText`): no NUL, no lone
    surrogate, at most `limit` characters (cut, not refused: one odd title must not
    stop an import)."""
    text = value if isinstance(value, str) else ("" if value is None else str(value))
    if "\x00" in text:
        text = text.replace("\x00", "")
    if not text.isascii():
        text = text.encode("utf-8", "replace").decode("utf-8")
    return text[:limit]


def day_of(text: str) -> date:
    """A day written YYYY-MM-DD inside the supported range, or a ValueError saying so."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise ValueError(f"{text!r} is not a day (YYYY-MM-DD)")
    try:
        day = date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a day of the calendar") from None
    if not FIRST_DAY <= day <= LAST_DAY:
        raise ValueError(f"{text} is outside the days TimeTrace keeps ({FIRST_DAY} to {LAST_DAY})")
    return day


# -- ActivityWatch events (the door, app/awdoor): the bounds an event's numbers and data
# keep, beside the instants and captured text records keep. Each check says its refusal
# as a message, None when the value is fine.

EVENT_SPAN_MAX_S = 31 * 86_400  # an event's duration: a month (a machine left on, away)
PULSE_MAX_S = 86_400  # a heartbeat's pulsetime: a day (the longest span one record has)
EVENT_DATA_MAX = 16 * 1024  # an event's data as JSON, in bytes: a record's text and more


def span_problem(seconds: float, *, field: str) -> str | None:
    """An event's duration: a finite number of seconds, 0 up to `EVENT_SPAN_MAX_S`."""
    if 0 <= seconds <= EVENT_SPAN_MAX_S:
        return None
    return f"{field}: expected 0 to {EVENT_SPAN_MAX_S:,} seconds (31 days)"


def pulse_problem(seconds: float) -> str | None:
    """A heartbeat's pulsetime: 0 up to `PULSE_MAX_S` seconds."""
    if 0 <= seconds <= PULSE_MAX_S:
        return None
    return f"pulsetime: expected 0 to {PULSE_MAX_S:,} seconds"


def event_data_problem(data: dict[str, Any], *, size: int, limits: dict[str, int]) -> str | None:
    """An event's data (`size`: its JSON's length in bytes): at most `EVENT_DATA_MAX`
    bytes, and each text field of `limits` (app, title, URL) at most as long as a
    record's field of that name may be."""
    if size > EVENT_DATA_MAX:
        return f"data: at most {EVENT_DATA_MAX:,} bytes of JSON, not {size:,}"
    if size <= min(limits.values(), default=0):
        return None  # no text of it can be longer than the whole (the common case)
    for key, most in limits.items():
        text = data.get(key)
        if isinstance(text, str) and len(text) > most:
            return f"data.{key}: at most {most:,} characters, as a record's"
    return None


def captured_data(value: Any) -> Any:
    """An event's data with the NULs of its text dropped (keys and values, at any depth),
    as `CapturedText` drops a record's."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {captured_data(k): captured_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [captured_data(v) for v in value]


# -- import files (`timetrace import timetrace`) ------------------------------------------

IMPORT_LINE_MAX = 16 * 2**20  # bytes of one line of an import file


def bounded_lines(stream: IO[bytes], *, limit: int = IMPORT_LINE_MAX) -> Iterator[bytes]:
    """The lines of a file, each at most `limit` bytes (its newline aside): a longer one is
    a ValueError once `limit` bytes of it are read, never read whole into memory."""
    number = 0
    while line := stream.readline(limit + 1):
        number += 1
        if len(line) > limit and not (len(line) == limit + 1 and line.endswith(b"\n")):
            raise ValueError(f"line {number} is longer than {limit:,} bytes")
        yield line


def stored_id(value: object) -> int:
    """An id a file carries for a bigint key: a whole number from 1 to `BIGINT_MAX`."""
    if type(value) is not int or not 1 <= value <= BIGINT_MAX:
        raise ValueError(f"must be a whole number from 1 to {BIGINT_MAX}, not {value!r}")
    return value


def stored_instant(value: object) -> datetime:
    """An instant a file carries: ISO 8601 text with its offset, inside the years kept."""
    if not isinstance(value, str):
        raise ValueError(f"must be an ISO 8601 date-time, not {value!r}")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value[:40]!r} is not an ISO 8601 date-time") from None
    if parsed.tzinfo is None:
        raise ValueError(f"{value[:40]!r} has no UTC offset")
    _supported_instant(parsed)
    return parsed


def stored_day(value: object) -> date:
    """A day a file carries: `day_of`'s check for a value that may not be text."""
    if not isinstance(value, str):
        raise ValueError(f"must be a day (YYYY-MM-DD), not {value!r}")
    return day_of(value)


def kept_day(value: date, *, field: str) -> date:
    """A day given as a date (a query parameter, a CLI option) inside the days kept, or a
    ValueError naming `field`."""
    if not FIRST_DAY <= value <= LAST_DAY:
        raise ValueError(
            f"{field} must lie between {FIRST_DAY} and {LAST_DAY} (the days TimeTrace keeps)"
        )
    return value
