"""The checks each row of a TimeTrace export goes through before an import writes it
(app/db/restore.py), with the boundary's rules (app/boundary.py), so that a file is
held to what HTTP ingest would take:

- a key's id is a whole number PostgreSQL's bigint holds (1 to 2**63 - 1);
- instants lie inside the years kept, days too;
- a NUL (which PostgreSQL cannot hold) is dropped from a record's captured text, as
  ingest drops it, and refused anywhere else (in a key it would turn one into another);
- a row that names a device names one the file lists;
- a user's own rules are at most `RULES_MAX`, as every door keeps them.

    checks = RowChecks.for_tables(conn, tables=["devices", "records"])
    checks.check(KIND_BY_NAME["records"], row, line=12)   # an ImportFileError, or None

A refusal names the file's line; the import, one transaction, then leaves nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from app.boundary import RULES_MAX, captured_text, stored_day, stored_id, stored_instant
from app.db.connection import Connection
from app.db.export import Kind
from app.db.queries import QUERIES
from app.errors import InvalidInputError

# A record's text as a screen showed it: NULs dropped, as HTTP ingest drops them.
CAPTURED = frozenset({"app", "app_raw", "window_title", "url", "domain", "capture_reason"})
_BY_TYPE: dict[str, Callable[[object], object]] = {
    "timestamptz": stored_instant,
    "date": stored_day,
}


class ImportFileError(InvalidInputError):
    """This is not a complete TimeTrace export (jsonl) this version can read."""


@dataclass(slots=True)
class RowChecks:
    """Each table's column types, and the devices the file has listed so far."""

    types: dict[str, dict[str, str]]
    devices: set[str] = field(default_factory=set)
    rules: int = 0  # user rules read so far

    @classmethod
    def for_tables(cls, conn: Connection, *, tables: Iterable[str]) -> RowChecks:
        return cls(
            {
                table: {
                    r["name"]: r["type"]
                    for r in conn.execute(QUERIES["import_column_types"], {"table": table})
                }
                for table in tables
            }
        )

    def check(self, kind: Kind, row: dict[str, Any], *, line: int, nul: bool) -> None:
        """Refuse what PostgreSQL could not hold or the file contradicts (an
        ImportFileError naming `line`); `nul`: the line has a NUL somewhere, dropped here
        from a record's captured text."""
        try:
            self._check(kind, row, nul=nul)
        except ValueError as exc:
            raise ImportFileError(f"line {line} ({kind.name}): {exc}") from None

    def _check(self, kind: Kind, row: dict[str, Any], *, nul: bool) -> None:
        if kind.id is not None and kind.id in row:
            _column(kind.id, stored_id, row[kind.id])
        types = self.types.get(kind.name, {})
        for name, value in row.items():
            check = _BY_TYPE.get(types.get(name, ""))
            if check is not None and value is not None:
                _column(name, check, value)
        if nul:
            _nuls(kind, row)
        if kind.name == "user_rules":
            self.rules += 1
            if self.rules > RULES_MAX:
                raise ValueError(f"more than {RULES_MAX:,} rules, the most a user keeps")
        device = row.get("device_id")
        if kind.name == "devices":
            self.devices.add(str(device))
        elif device is not None and device not in self.devices:
            raise ValueError(f"device {str(device)[:80]!r} is not one of the file's devices")


def _column(name: str, check: Callable[[object], object], value: object) -> None:
    try:
        check(value)
    except ValueError as exc:
        raise ValueError(f"{name} {exc}") from None


def _nuls(kind: Kind, row: dict[str, Any]) -> None:
    """NULs dropped from a record's captured text; anywhere else, refused."""
    for name, value in row.items():
        if isinstance(value, str) and "\x00" in value:
            if kind.name == "records" and name in CAPTURED:
                row[name] = captured_text(value)
                continue
            raise ValueError(f"{name} must not contain NUL characters")
        if isinstance(value, (dict, list)) and _holds_nul(value):
            raise ValueError(f"{name} must not contain NUL characters")


def _holds_nul(value: object) -> bool:
    """Whether a JSON document holds a NUL in a key or a string anywhere inside it."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_nul(v) for v in value)
    return False
