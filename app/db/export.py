"""A user's data out: `timetrace export` and GET /api/v1/export (docs/export.md).

Three formats, each streamed as bytes from one read-only snapshot, never a year in memory:

- `jsonl`: everything TimeTrace holds for the user, one JSON line per row, every column
  of each kind in `KINDS` as PostgreSQL stores it (read by COPY), between a header line
  and a trailer with the counts. `app/db/restore.py` reads it back.
- `csv`: the records or the episodes as one table for spreadsheets.
- `activitywatch`: aw-server's export format (`app/db/export_aw.py`).

    request = ExportRequest(user=user, fmt="jsonl", day_from=None, day_to=None)
    with pool.connection() as conn:
        for chunk in export_chunks(conn, request=request, progress=print):
            out.write(chunk)
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal, LiteralString

from psycopg import sql

from app.boundary import kept_day
from app.db.connection import Connection
from app.db.export_aw import CHUNK_BYTES, Progress, activitywatch_chunks
from app.db.queries import QUERIES
from app.errors import InvalidInputError
from app.store.accounts import UserContext
from app.timeutil import day_bounds, zone

FORMAT_NAME = "timetrace-export"
FORMAT_VERSION = 1

Format = Literal["jsonl", "activitywatch", "csv"]
Table = Literal["records", "episodes"]
FORMATS: tuple[Format, ...] = ("jsonl", "activitywatch", "csv")
TABLES: tuple[Table, ...] = ("records", "episodes")

# A UTF-8 byte order mark: spreadsheets (Excel) read a CSV without one as a legacy code page.
BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of row in a jsonl export: a tenant table, carried whole, column by column.

    `window`: the column a --from/--to window filters on (a logical `day` column or an
    `instant`); none: the kind is carried whole whatever the window (devices, rules,
    conversations). `id` and `sequence`: an id column whose sequence an import moves past
    (`sequence` when the column does not own one). `local`: columns of this server's own
    bookkeeping, not carried (an import gives them their defaults)."""

    name: str
    window: str | None = None
    window_is_day: bool = False
    id: str | None = None
    sequence: str | None = None
    local: tuple[str, ...] = ()


# In the order an import writes them (what a row points at comes first). Adding a kind is
# one line here; tests/db/test_export.py fails on a tenant table neither here nor in
# NOT_EXPORTED.
KINDS: tuple[Kind, ...] = (
    Kind("devices"),
    Kind("user_categories", id="category_id"),
    Kind("user_rules", id="rule_id"),
    Kind("retention"),
    Kind("records", window="ts_start", id="record_id"),
    Kind("record_analyses", window="ts_start"),
    Kind("episodes", window="ts_start", id="episode_id"),
    Kind("episode_redirects", window="day_local", window_is_day=True),
    Kind("build_marks", window="day_local", window_is_day=True),
    Kind("digests", window="period_start", id="digest_id"),
    Kind("signals", window="day_local", window_is_day=True, id="signal_id"),
    Kind("labels", window="created_at", id="label_id"),
    Kind("conversations", id="conversation_id"),
    Kind("conversation_turns"),
    Kind("aw_buckets"),
    # `changed` numbers the door's group commits on this server; carried, a new server's
    # door would read old numbers as writes it has not converted yet.
    Kind("aw_events", window="ts", id="event_id", sequence="aw_event_ids", local=("changed",)),
    Kind("aw_settings"),
)
KIND_BY_NAME = {kind.name: kind for kind in KINDS}

# Tenant tables an export leaves out, and why.
NOT_EXPORTED: dict[str, str] = {
    "imports": "the progress of that server's import jobs, not the user's history; an "
    "import of this file leaves its own mark there",
    "aw_converted": "how far that server's ActivityWatch door has converted its own group "
    "commits (aw_events.changed, not carried either); the records it made are carried",
    "aw_edits": "a count of that server's edits to its door's events, which only tells "
    "its door to drop the query results it keeps in memory",
}


@dataclass(frozen=True, slots=True)
class ExportRequest:
    """What to export: a user, a format, and an optional window of logical days."""

    user: UserContext
    fmt: Format
    day_from: date | None = None
    day_to: date | None = None
    table: Table = "records"  # csv: which table

    def __post_init__(self) -> None:
        if self.fmt not in FORMATS:
            raise InvalidInputError(f"format must be one of {', '.join(FORMATS)}")
        if self.table not in TABLES:
            raise InvalidInputError(f"table must be one of {', '.join(TABLES)}")
        for name, day in (("from", self.day_from), ("to", self.day_to)):
            if day is not None:
                try:
                    kept_day(day, field=name)
                except ValueError as exc:
                    raise InvalidInputError(str(exc)) from None
        if self.day_from and self.day_to and self.day_from > self.day_to:
            raise InvalidInputError("from must be on or before to")

    @property
    def windowed(self) -> bool:
        return self.day_from is not None or self.day_to is not None

    def instants(self) -> tuple[datetime, datetime]:
        """The window as instants: from the start of `day_from`'s logical day to the end
        of `day_to`'s, in the user's clock (open sides: the ends of time)."""
        tz = zone(self.user.time_zone)
        cut = self.user.day_cut_hour
        lo = day_bounds(self.day_from, tz=tz, cut_hour=cut)[0] if self.day_from else None
        hi = day_bounds(self.day_to, tz=tz, cut_hour=cut)[1] if self.day_to else None
        return (
            lo or datetime(1, 1, 2, tzinfo=UTC),
            hi or datetime(9999, 12, 30, tzinfo=UTC),
        )

    def days(self) -> tuple[date, date]:
        """The window as logical days, `day_to` included (open sides: the ends of time)."""
        return (self.day_from or date(1, 1, 2), self.day_to or date(9999, 12, 30))

    def media_type(self) -> str:
        return {
            "jsonl": "application/x-ndjson",
            "csv": "text/csv; charset=utf-8",
            "activitywatch": "application/json",
        }[self.fmt]

    def file_name(self) -> str:
        span = ""
        if self.windowed:
            lo, hi = self.days()
            span = f"-{lo.isoformat() if self.day_from else 'start'}"
            span += f"-{hi.isoformat() if self.day_to else 'end'}"
        if self.fmt == "csv":
            return f"timetrace-{self.user.name}-{self.table}{span}.csv"
        ext = "jsonl" if self.fmt == "jsonl" else "json"
        suffix = "-activitywatch" if self.fmt == "activitywatch" else ""
        return f"timetrace-{self.user.name}{suffix}{span}.{ext}"


def _quiet(kind: str, done: int) -> None:
    """No progress shown."""


def template(query: LiteralString, **parts: sql.Composable) -> sql.Composed:
    """A named query with identifiers put in its `{…}` places (see sql/queries/export.sql)."""
    return sql.SQL(query).format(**parts)


def table_columns(conn: Connection, table: str) -> list[str]:
    """The columns an export carries of `table` (all but user_id and generated ones)."""
    return [r["name"] for r in conn.execute(QUERIES["export_columns"], {"table": table})]


def identifiers(names: list[str]) -> sql.Composed:
    return sql.SQL(", ").join(sql.Identifier(n) for n in names)


def record_count(conn: Connection, *, request: ExportRequest) -> int:
    """How many records (tombstones included) the export of `request` carries."""
    lo, hi = request.instants()
    row = conn.execute(
        QUERIES["export_record_count"], {"user_id": request.user.user_id, "lo": lo, "hi": hi}
    ).fetchone()
    return int(row["n"]) if row else 0


def copy_lines(
    conn: Connection, query: sql.Composed | LiteralString, params: dict[str, Any]
) -> Iterator[bytes]:
    """The rows of a COPY … TO STDOUT, one `bytes` each as the server sends them."""
    with conn.cursor() as cur, cur.copy(query, params) as copy:
        for data in copy:
            yield bytes(data)


def _line(obj: object) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def jsonl_chunks(
    conn: Connection, *, request: ExportRequest, progress: Progress = _quiet
) -> Iterator[bytes]:
    """The jsonl export: a header line, each kind's rows, a trailer with the counts."""
    user = request.user
    schema = conn.execute(QUERIES["export_schema"]).fetchone() or {}
    columns = {
        kind.name: [c for c in table_columns(conn, kind.name) if c not in kind.local]
        for kind in KINDS
    }
    header = {
        "kind": "header",
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "export_id": str(uuid.uuid4()),
        "created_at": datetime.now(UTC).isoformat(),
        "schema_version": schema.get("schema_version"),
        "embedding_dim": schema.get("embedding_dim"),
        "user": {
            "name": user.name,
            "time_zone": user.time_zone,
            "day_cut_hour": user.day_cut_hour,
        },
        "window": (
            {
                "from": request.day_from.isoformat() if request.day_from else None,
                "to": request.day_to.isoformat() if request.day_to else None,
            }
            if request.windowed
            else None
        ),
        "columns": columns,
    }
    yield _line(header)
    lo, hi = request.instants()
    day_lo, day_hi = request.days()
    counts: dict[str, int] = {}
    for kind in KINDS:
        parts = {"columns": identifiers(columns[kind.name]), "table": sql.Identifier(kind.name)}
        params: dict[str, Any] = {"user_id": user.user_id}
        if request.windowed and kind.window is not None:
            window = sql.Identifier(kind.window)
            query = template(QUERIES["export_rows_in_window"], window=window, **parts)
            params |= (
                {"lo": day_lo, "hi": day_hi + timedelta(days=1)}
                if kind.window_is_day
                else {"lo": lo, "hi": hi}
            )
        else:
            query = template(QUERIES["export_rows"], **parts)
        prefix = b'{"kind":"' + kind.name.encode() + b'","row":'
        n = 0
        buffer: list[bytes] = []
        size = 0
        progress(kind.name, 0)
        for data in copy_lines(conn, query, params):
            # COPY's text format doubles each backslash; JSON has no raw control
            # character, so that is the only escape to undo.
            row = data[:-1].replace(b"\\\\", b"\\") if b"\\" in data else data[:-1]
            buffer.append(prefix + row + b"}\n")
            size += len(row) + 40
            n += 1
            if size >= CHUNK_BYTES:
                yield b"".join(buffer)
                buffer.clear()
                size = 0
                progress(kind.name, n)
        if buffer:
            yield b"".join(buffer)
        progress(kind.name, n)
        counts[kind.name] = n
    yield _line({"kind": "trailer", "counts": counts, "rows": sum(counts.values())})


def csv_chunks(
    conn: Connection, *, request: ExportRequest, progress: Progress = _quiet
) -> Iterator[bytes]:
    """One table (records or episodes) as CSV with a header row, times in the user's zone."""
    lo, hi = request.instants()
    params = {"user_id": request.user.user_id, "lo": lo, "hi": hi, "tz": request.user.time_zone}
    query = (
        QUERIES["export_records_csv"]
        if request.table == "records"
        else QUERIES["export_episodes_csv"]
    )
    buffer = [BOM]
    size = 0
    n = -1  # the header row
    for data in copy_lines(conn, query, params):
        buffer.append(data)
        size += len(data)
        n += 1
        if size >= CHUNK_BYTES:
            yield b"".join(buffer)
            buffer.clear()
            size = 0
            progress(request.table, n)
    yield b"".join(buffer)
    progress(request.table, max(n, 0))


def export_chunks(
    conn: Connection, *, request: ExportRequest, progress: Progress = _quiet
) -> Iterator[bytes]:
    """The export of `request` as bytes, from one read-only snapshot on `conn`."""
    with conn.transaction():
        conn.execute(QUERIES["export_snapshot"])
        if request.fmt == "jsonl":
            yield from jsonl_chunks(conn, request=request, progress=progress)
        elif request.fmt == "csv":
            yield from csv_chunks(conn, request=request, progress=progress)
        else:
            lo, hi = request.instants()
            yield from activitywatch_chunks(
                conn, user_id=request.user.user_id, lo=lo, hi=hi, progress=progress
            )
