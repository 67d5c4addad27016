"""Compare the SQLModel models with the live schema: table and column names,
types and nullability. An empty list means they agree."""

from __future__ import annotations

import re

from sqlalchemy import MetaData
from sqlalchemy.dialects import postgresql

from app.db.connection import Connection

_LIVE_COLUMNS = """
SELECT c.relname AS table_name, a.attname AS column_name,
       format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
  AND a.attnum > 0 AND NOT a.attisdropped
  AND c.relname NOT LIKE 'procrastinate%%'
"""


def _normalise(type_name: str) -> str:
    # The vector dimension is a deployment setting, checked by `migrate` against schema_meta.
    return re.sub(r"^vector\(\d+\)$", "vector", type_name.lower())


def schema_drift(conn: Connection, *, metadata: MetaData) -> list[str]:
    live: dict[str, dict[str, tuple[str, bool]]] = {}
    for row in conn.execute(_LIVE_COLUMNS):
        live.setdefault(row["table_name"], {})[row["column_name"]] = (
            _normalise(row["type"]),
            not row["not_null"],
        )
    problems: list[str] = []
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    for table in metadata.sorted_tables:
        columns = live.pop(table.name, None)
        if columns is None:
            problems.append(f"table {table.name}: in the models, not in the database")
            continue
        for column in table.columns:
            found = columns.pop(column.name, None)
            where = f"{table.name}.{column.name}"
            if found is None:
                problems.append(f"{where}: in the model, not in the database")
                continue
            model_type = _normalise(column.type.compile(dialect=dialect))
            live_type, live_nullable = found
            if model_type != live_type:
                problems.append(f"{where}: model type {model_type}, database type {live_type}")
            if bool(column.nullable) != live_nullable:
                problems.append(
                    f"{where}: model nullable={column.nullable}, database nullable={live_nullable}"
                )
        problems.extend(
            f"{table.name}.{name}: in the database, not in the model" for name in columns
        )
    problems.extend(f"table {name}: in the database, not in the models" for name in live)
    return problems
