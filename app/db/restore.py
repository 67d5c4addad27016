"""A TimeTrace export back in (`timetrace import timetrace FILE --user NAME`): every layer
restored as exported, so that moving servers loses nothing (docs/export.md says why the
layers are restored rather than rebuilt).

Each row goes back into its table with its ids kept (the ids are the user's: every key
starts with user_id), so that what points at them — digests' source ids, signals'
evidence, labels' targets, conversation turns' episode ids, a record's analysis — still
points at the same row. Id sequences then move past the kept ids, so later rows of any
user take new ones.

One transaction: nobody (the worker's sweep included) sees a half-restored user, and an
import cut short leaves nothing, so it can simply be run again. Only the records' monthly
partitions are made apart, each in a short transaction on a second connection, as ingest
makes them (a partition made inside a long transaction would hold up everyone's ingest
into that month until it ends).

It goes only into a user that holds nothing yet; a user marked with this very file
(`imports`, source `timetrace:<export id>`) gets nothing more (the second import adds
nothing, even after the worker has rebuilt days since); any other user is refused:
mixing two histories' pyramids would be neither of them.

    summary = restore_file(url=url, settings=settings, path=path, user_name="me")
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import IO, Any

import msgspec
from psycopg import errors, sql

from app.boundary import bounded_lines
from app.db.connection import Connection, connect
from app.db.export import (
    FORMAT_NAME,
    FORMAT_VERSION,
    KIND_BY_NAME,
    KINDS,
    Kind,
    identifiers,
    table_columns,
    template,
)
from app.db.queries import QUERIES
from app.db.restore_checks import ImportFileError, RowChecks
from app.errors import ConflictError
from app.settings import Settings

BATCH_ROWS = 2_000  # rows of one kind written by one statement

_decode = msgspec.json.Decoder()
_encode = msgspec.json.Encoder()


class ImportTargetError(ConflictError):
    """The user already holds other data: import into a new user (--user NEW_NAME)."""


@dataclass(slots=True)
class RestoreSummary:
    user_id: int
    user_name: str
    export_id: str
    rows: int = 0  # rows read from the file
    new: int = 0  # rows added (0 on a second import of the same file)
    by_kind: dict[str, int] = field(default_factory=dict)  # rows added per kind
    devices: list[str] = field(default_factory=list)  # the devices in the file


Progress = Callable[[str, int], None]  # the kind being read, rows read so far


def _quiet(kind: str, done: int) -> None:
    """No progress shown."""


Line = tuple[int, dict[str, Any], bool]  # its number, its object, whether it has a NUL


def _lines(stream: IO[bytes]) -> Iterator[Line]:
    """Each line's object; a line longer than the boundary's cap is refused before it is
    read whole."""
    try:
        for number, line in enumerate(bounded_lines(stream), start=1):
            if not line.strip():
                continue
            try:
                obj = _decode.decode(line)
            except msgspec.DecodeError as exc:
                raise ImportFileError(f"line {number} is not JSON: {exc}") from exc
            if not isinstance(obj, dict) or "kind" not in obj:
                raise ImportFileError(f"line {number} has no kind")
            yield number, obj, b"\\u0000" in line
    except ValueError as exc:
        raise ImportFileError(str(exc)) from None


def _check_header(header: dict[str, Any], conn: Connection) -> None:
    if header.get("kind") != "header" or header.get("format") != FORMAT_NAME:
        raise ImportFileError("the first line is not a TimeTrace export's header")
    if header.get("version") != FORMAT_VERSION:
        raise ImportFileError(
            f"export format version {header.get('version')}; this TimeTrace reads "
            f"version {FORMAT_VERSION}"
        )
    schema = conn.execute(QUERIES["export_schema"]).fetchone() or {}
    if header.get("embedding_dim") not in (None, schema.get("embedding_dim")):
        raise ImportFileError(
            f"the export's embeddings have {header['embedding_dim']} dimensions, this "
            f"database {schema.get('embedding_dim')} (TIMETRACE_EMBEDDING_DIM)"
        )


def _months(rows: list[dict[str, Any]]) -> list[date]:
    """The UTC months of records' starts (their partitions)."""
    months = set()
    for row in rows:
        ts = datetime.fromisoformat(row["ts_start"]).astimezone(UTC)
        months.add(date(ts.year, ts.month, 1))
    return sorted(months)


class _Writer:
    """Batches of one kind's rows into the user, in the import's transaction (none when
    the user holds this file already: `skip`)."""

    def __init__(
        self,
        conn: Connection,
        *,
        ddl: Connection,
        user_id: int,
        exported: dict[str, list[str]],
        skip: bool,
    ) -> None:
        self.conn = conn
        self.ddl = ddl
        self.skip = skip
        self.user_id = user_id
        self.exported = exported
        self.queries: dict[str, sql.Composed] = {}
        self.added: dict[str, int] = {}
        self.devices: set[str] = set()
        self.seen_months: set[date] = set()

    def _query(self, kind: Kind) -> sql.Composed:
        if kind.name not in self.queries:
            here = set(table_columns(self.conn, kind.name))
            # The columns both the file and this schema have: a column a later migration
            # added takes its default, one this schema dropped is left out.
            columns = [c for c in self.exported.get(kind.name, []) if c in here]
            key = [
                r["name"]
                for r in self.conn.execute(QUERIES["export_primary_key"], {"table": kind.name})
            ]
            self.queries[kind.name] = template(
                QUERIES["import_rows"],
                table=sql.Identifier(kind.name),
                columns=identifiers(columns),
                key=identifiers(key),
            )
        return self.queries[kind.name]

    def write(self, kind: Kind, rows: list[dict[str, Any]], *, line: int) -> None:
        """Write `rows` (the last read on `line`); what PostgreSQL refuses in them is
        the file's fault, said in one line."""
        if kind.name == "devices":
            self.devices.update(str(row.get("device_id")) for row in rows)
        if not rows or self.skip:
            return
        if kind.name == "records":
            self._months(_months(rows))
        # Never prepared: a prepared INSERT keeps routing rows by the partitions of records
        # it was first run with, and would refuse a month made since (as above).
        try:
            cur = self.conn.execute(
                self._query(kind),
                {"user_id": self.user_id, "rows": _encode.encode(rows).decode()},
                prepare=False,
            )
        except (errors.DataError, errors.IntegrityError) as exc:
            message = exc.diag.message_primary or str(exc)
            raise ImportFileError(
                f"the {kind.name} up to line {line} hold what the database refuses: {message}"
            ) from None
        self.added[kind.name] = self.added.get(kind.name, 0) + max(cur.rowcount, 0)

    def _months(self, months: list[date]) -> None:
        """The records' partitions for `months`, each made and committed at once on the
        other connection, before the rows of the batch arrive."""
        new = [m for m in months if m not in self.seen_months]
        if new:
            with self.ddl.transaction():
                self.ddl.execute(QUERIES["ensure_months"], {"months": new})
            self.seen_months.update(new)

    def advance_sequences(self) -> None:
        """Move each id sequence past the ids kept."""
        if self.skip:
            return
        for kind in KINDS:
            if kind.id is None:
                continue
            row = self.conn.execute(
                template(
                    QUERIES["import_top_id"],
                    table=sql.Identifier(kind.name),
                    id=sql.Identifier(kind.id),
                ),
                {"user_id": self.user_id},
            ).fetchone()
            top = row["top"] if row else None
            if top is not None:
                self.conn.execute(
                    QUERIES["import_advance_sequence"],
                    {"sequence": kind.sequence, "table": kind.name, "column": kind.id, "top": top},
                )


def _user_for(conn: Connection, *, name: str, header: dict[str, Any]) -> tuple[int, bool]:
    """The user to import into (made with the file's clock if missing), and whether it
    holds this very file already."""
    clock = header.get("user") or {}
    time_zone = str(clock.get("time_zone") or "UTC")
    cut = int(clock.get("day_cut_hour") or 0)
    made = conn.execute(
        QUERIES["ensure_user"], {"name": name, "time_zone": time_zone, "day_cut_hour": cut}
    ).fetchone()
    assert made is not None  # INSERT … ON CONFLICT DO UPDATE … RETURNING: always a row
    user_id = int(made["user_id"])
    source = _source(header)
    seen = conn.execute(QUERIES["import_seen"], {"user_id": user_id, "source": source}).fetchone()
    if seen and seen["seen"]:
        return user_id, True
    for kind in KINDS:
        query = template(QUERIES["import_user_holds"], table=sql.Identifier(kind.name))
        holds = conn.execute(query, {"user_id": user_id}).fetchone()
        if holds and holds["holds"]:
            raise ImportTargetError(
                f"user {name!r} already holds {kind.name} of another history; import into "
                "a new user (--user NEW_NAME)"
            )
    # Logical days depend on the clock: the user's must be the file's.
    conn.execute(
        QUERIES["import_user_clock"],
        {"user_id": user_id, "time_zone": time_zone, "day_cut_hour": cut},
    )
    return user_id, False


def _source(header: dict[str, Any]) -> str:
    """The mark an import of this file leaves in `imports`."""
    return f"timetrace:{header.get('export_id')}"


def restore_stream(
    conn: Connection,
    *,
    ddl: Connection,
    stream: IO[bytes],
    user_name: str,
    progress: Progress = _quiet,
) -> RestoreSummary:
    """Restore a jsonl export read from `stream` into the user `user_name`, in one
    transaction on `conn`; `ddl` (autocommit) makes the records' partitions."""
    lines = _lines(stream)
    first = next(lines, None)
    if first is None:
        raise ImportFileError("the file is empty")
    header = first[1]
    with conn.transaction():
        _check_header(header, conn)
        user_id, seen = _user_for(conn, name=user_name, header=header)
        exported: dict[str, list[str]] = header.get("columns") or {}
        writer = _Writer(conn, ddl=ddl, user_id=user_id, exported=exported, skip=seen)
        checks = RowChecks.for_tables(conn, tables=[k.name for k in KINDS])
        read = _restore_rows(lines, writer, checks, progress)
        writer.advance_sequences()
        summary = RestoreSummary(
            user_id=user_id,
            user_name=user_name,
            export_id=str(header.get("export_id")),
            rows=sum(read.values()),
            new=sum(writer.added.values()),
            by_kind=dict(writer.added),
            devices=sorted(writer.devices),
        )
        if not seen:
            conn.execute(
                QUERIES["import_mark"],
                {"user_id": user_id, "source": _source(header)}
                | {"rows": summary.rows, "new": summary.new},
            )
    return summary


def _restore_rows(
    lines: Iterator[Line], writer: _Writer, checks: RowChecks, progress: Progress
) -> dict[str, int]:
    """Each kind's rows written in batches; the rows read per kind, checked against the
    trailer."""
    batch: list[dict[str, Any]] = []
    current: Kind | None = None
    trailer: dict[str, Any] | None = None
    read: dict[str, int] = {}
    number = 0
    for number, obj, nul in lines:
        name = obj["kind"]
        if name == "trailer":
            trailer = obj
            break
        kind = KIND_BY_NAME.get(name)
        if kind is None:
            raise ImportFileError(f"line {number}: unknown kind {name!r}")
        row = obj.get("row")
        if not isinstance(row, dict):
            raise ImportFileError(f"line {number}: a row must be an object")
        checks.check(kind, row, line=number, nul=nul)
        if kind is not current:
            if current is not None:
                writer.write(current, batch, line=number - 1)
                batch = []
            current = kind
        batch.append(row)
        read[name] = read.get(name, 0) + 1
        if len(batch) >= BATCH_ROWS:
            writer.write(kind, batch, line=number)
            batch = []
            progress(name, read[name])
    if current is not None:
        writer.write(current, batch, line=number)
    if trailer is None:
        raise ImportFileError("the file ends before its trailer: it was cut short")
    counts = trailer.get("counts") or {}
    if {k: v for k, v in counts.items() if v} != read:
        raise ImportFileError(f"the trailer counts {counts}, the file holds {read}")
    return read


def restore_file(
    *, url: str, settings: Settings, path: Path, user_name: str, progress: Progress = _quiet
) -> RestoreSummary:
    """Restore the jsonl export at `path` into the user `user_name` of the database at
    `url`."""
    with (
        path.open("rb") as stream,
        connect(url, settings=settings) as conn,
        connect(url, settings=settings, autocommit=True) as ddl,
    ):
        return restore_stream(conn, ddl=ddl, stream=stream, user_name=user_name, progress=progress)
