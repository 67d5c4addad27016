"""The base of the PostgreSQL store: named queries over a connection pool, their
rows loaded straight into the typed rows of `app.store` (a query's columns are the
row's fields; `row_factory` builds them without validation)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, LiteralString, TypeVar

from psycopg import Cursor
from psycopg.rows import RowFactory, RowMaker
from psycopg_pool import ConnectionPool

from app.db.connection import Connection
from app.errors import DatabaseBusyError
from app.store.row import Row

R = TypeVar("R")
RowT = TypeVar("RowT", bound=Row)


def row_factory(model: type[RowT]) -> RowFactory[RowT]:
    """Rows of a query as `model`, built without validation (`Row.maker`): the columns
    come from our own SQL, and the drift test keeps them the model's fields."""

    def for_cursor(cursor: Cursor[Any]) -> RowMaker[RowT]:
        return model.maker([column.name for column in cursor.description or ()])

    return for_cursor


def lost_a_race(exc: DatabaseBusyError) -> bool:
    """A deadlock or a serialization failure (SQLSTATE class 40): worth running again."""
    return str(getattr(exc.__cause__, "sqlstate", "") or "").startswith("40")


def retrying(transaction: Callable[[], R], *, attempts: int = 4) -> R:
    """Run a transaction again (a few times, with a short jittered wait) when it lost a
    deadlock or a serialization conflict to a concurrent one; other errors pass."""
    for attempt in range(1, attempts + 1):
        try:
            return transaction()
        except DatabaseBusyError as exc:
            if attempt == attempts or not lost_a_race(exc):
                raise
            time.sleep(0.02 * 2**attempt * random.uniform(0.5, 1.5))
    raise AssertionError("unreachable")


def fetch_all(
    conn: Connection,
    model: type[RowT],
    query: LiteralString,
    params: dict[str, Any],
    *,
    binary: bool = False,
) -> list[RowT]:
    """Every row of a query on this connection (in its transaction), as `model`;
    `binary` for many rows (numbers and times decode faster)."""
    with conn.cursor(row_factory=row_factory(model), binary=binary) as cur:
        return cur.execute(query, params).fetchall()


class Queries:
    """The base of every mixin: the pool its methods take connections from."""

    pool: ConnectionPool[Connection]
