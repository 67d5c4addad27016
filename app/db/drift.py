"""The drift check between the SQL and the row models: each named query that returns
typed rows is described by the server (parsed and planned, never run) and its result
columns compared with the fields of the model its rows are loaded into. A column
renamed in a migration alone shows up here, as does a field renamed in a model alone.
An empty list means they agree. tests/db/test_query_drift.py runs it."""

from __future__ import annotations

import re
from collections.abc import Mapping

import psycopg
from psycopg import pq

from app.db.connection import Connection
from app.db.named import NamedQuery
from app.db.queries import load_queries
from app.store.row import Row

_PLACEHOLDER = re.compile(r"%\((\w+)\)s|%%")


def positional(sql: str) -> str:
    """A query with psycopg's named placeholders as the server's own ($1, $2, …)."""
    numbers: dict[str, int] = {}

    def number(match: re.Match[str]) -> str:
        if match.group(0) == "%%":
            return "%"
        return f"${numbers.setdefault(match.group(1), len(numbers) + 1)}"

    return _PLACEHOLDER.sub(number, sql)


class _Undescribed(Exception):
    pass


def result_columns(conn: Connection, sql: str) -> list[str]:
    """The names of a query's result columns, as the server describes them; a query
    the server refuses raises `_Undescribed` with its message. Runs in a savepoint (or
    a transaction of its own), so a refused query leaves the caller's transaction be."""
    with conn.transaction():
        prepared = conn.pgconn.prepare(b"", positional(sql).encode())
        if prepared.status != pq.ExecStatus.COMMAND_OK:
            message = prepared.error_field(pq.DiagnosticField.MESSAGE_PRIMARY) or b""
            raise _Undescribed(message.decode())
        described = conn.pgconn.describe_prepared(b"")
        return [(described.fname(i) or b"").decode() for i in range(described.nfields)]


def declared_queries(store: type) -> dict[str, type[Row] | None]:
    """Every query a store class declares as a method (`app.db.named`), with the row
    model its rows are loaded into (None for a value, a column or a write)."""
    return {
        attr.query: attr.model
        for cls in reversed(store.__mro__)
        for attr in vars(cls).values()
        if isinstance(attr, NamedQuery)
    }


def query_drift(conn: Connection, models: Mapping[str, type[Row]]) -> list[str]:
    """Where a query's result columns and its row model's fields differ."""
    queries = load_queries()
    problems: list[str] = []
    for name, model in sorted(models.items()):
        if name not in queries:
            problems.append(f"{name}: no such query")
            continue
        try:
            columns = result_columns(conn, queries[name])
        except (_Undescribed, psycopg.Error) as exc:
            problems.append(f"{name}: the database refuses it: {exc}")
            continue
        fields = set(model.model_fields)
        problems += [
            f"{name}: column {c} is not a field of {model.__name__}"
            for c in columns
            if c not in fields
        ]
        # A field with a default may be left to it (`Row.model_construct` fills it in).
        required = {f for f, info in model.model_fields.items() if info.is_required()}
        problems += [
            f"{name}: field {f} of {model.__name__} is not a column"
            for f in sorted(required - set(columns))
        ]
        if len(set(columns)) != len(columns):
            problems.append(f"{name}: a column name stands twice")
    return problems
