"""The base of the PostgreSQL store: named queries over a connection pool, their
rows loaded straight into the typed rows of `app.store` (psycopg's `class_row`)."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, TypeVar

from psycopg.rows import class_row
from psycopg_pool import ConnectionPool

from app.db.connection import Connection
from app.db.queries import QUERIES
from app.errors import DatabaseBusyError

R = TypeVar("R")


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


class Queries:
    """Named queries over the pool, one connection (and transaction) per call."""

    pool: ConnectionPool[Connection]

    def _one(self, name: str, params: dict[str, Any]) -> dict[str, Any] | None:
        with self.pool.connection() as conn:
            return conn.execute(QUERIES[name], params).fetchone()

    def _all(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        with self.pool.connection() as conn:
            return conn.execute(QUERIES[name], params).fetchall()

    def _one_as(self, row: type[R], name: str, params: dict[str, Any]) -> R | None:
        """The query's first row as `row` (its columns are the dataclass's fields)."""
        with self.pool.connection() as conn, conn.cursor(row_factory=class_row(row)) as cur:
            return cur.execute(QUERIES[name], params).fetchone()

    def _all_as(self, row: type[R], name: str, params: dict[str, Any]) -> list[R]:
        """Every row of the query as `row`."""
        with self.pool.connection() as conn, conn.cursor(row_factory=class_row(row)) as cur:
            return cur.execute(QUERIES[name], params).fetchall()
