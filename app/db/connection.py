"""Database URLs and connections.

url = database_url(settings)          # embedded server started when no URL is set
with connect(url, settings=settings) as conn: ...
pool = open_pool(url, settings=settings)
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

from app.db.embedded import start_embedded
from app.errors import ConfigError, DatabaseBusyError, DatabaseError
from app.settings import Settings

DEFAULT_DATABASE = "timetrace"
POOL_WAIT_S = 10.0
Connection = psycopg.Connection[dict[str, Any]]


def database_url(settings: Settings, *, database: str = DEFAULT_DATABASE) -> str:
    """The URL to use: the configured one, or the embedded server's (started, database created)."""
    if settings.database_url:
        try:
            conninfo_to_dict(settings.database_url)
        except psycopg.ProgrammingError as exc:
            raise ConfigError(
                "TIMETRACE_DATABASE_URL is not a PostgreSQL URL "
                f"(postgresql://user:password@host:5432/dbname): {exc}"
            ) from exc
        return settings.database_url
    server = start_embedded(pgdata=settings.pgdata)
    ensure_database(server.get_uri(database="postgres"), database=database)
    return str(server.get_uri(database=database))


def ensure_database(admin_url: str, *, database: str, template: str | None = None) -> bool:
    """Create `database` when missing; True when it was created."""
    with psycopg.connect(admin_url, autocommit=True) as admin:
        exists = admin.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [database]
        ).fetchone()
        if exists:
            return False
        query = sql.SQL("CREATE DATABASE {}").format(sql.Identifier(database))
        if template:
            query = sql.SQL("CREATE DATABASE {} TEMPLATE {} STRATEGY FILE_COPY").format(
                sql.Identifier(database), sql.Identifier(template)
            )
        admin.execute(query)
        return True


def drop_database(admin_url: str, *, database: str) -> None:
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database))
        )


def session_options(settings: Settings) -> str:
    # The duration rule in sql/ reads the idle gap from this setting (default 300 s).
    return f"-c timetrace.idle_gap_s={settings.idle_gap_s} -c timezone=UTC"


def connect(url: str, *, settings: Settings, autocommit: bool = False) -> Connection:
    try:
        return psycopg.connect(
            url, autocommit=autocommit, row_factory=dict_row, options=session_options(settings)
        )
    except psycopg.OperationalError as exc:
        raise DatabaseError(f"cannot connect to the database: {exc}") from exc


class Pool(ConnectionPool[Connection]):
    """The store's pool. A connection is checked before it is lent, so one broken by a
    database restart is replaced instead of failing a request; a lost connection, a
    deadlock or a timeout leaves as `DatabaseBusyError` (HTTP 503, a job retried)."""

    @contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[Connection]:
        try:
            with super().connection(timeout) as conn:
                yield conn
        except psycopg.OperationalError as exc:
            raise DatabaseBusyError(
                f"the database is busy or restarting ({type(exc).__name__}); try again"
            ) from exc


def open_pool(url: str, *, settings: Settings, min_size: int = 1) -> Pool:
    pool = Pool(
        url,
        min_size=min_size,
        max_size=settings.pool_max_size,
        kwargs={"row_factory": dict_row, "options": session_options(settings)},
        connection_class=psycopg.Connection[dict[str, Any]],
        # Embeddings travel as pgvector values, not as text literals.
        configure=register_vector,
        check=ConnectionPool.check_connection,
        # A request (or a job) waits this long for a connection, then gets a 503 (a retry).
        timeout=POOL_WAIT_S,
        open=False,
        name="timetrace",
    )
    try:
        pool.open(wait=True, timeout=15)
    except Exception as exc:
        raise DatabaseError(f"cannot open a connection pool: {exc}") from exc
    return pool
