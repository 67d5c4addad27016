"""The base of the PostgreSQL store: named queries over a connection pool."""

from __future__ import annotations

from typing import Any

from psycopg_pool import ConnectionPool

from app.db.connection import Connection
from app.db.queries import QUERIES


class Queries:
    """Named queries over the pool, one connection (and transaction) per call."""

    pool: ConnectionPool[Connection]

    def _one(self, name: str, params: dict[str, Any]) -> dict[str, Any] | None:
        with self.pool.connection() as conn:
            return conn.execute(QUERIES[name], params).fetchone()

    def _all(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        with self.pool.connection() as conn:
            return conn.execute(QUERIES[name], params).fetchall()
