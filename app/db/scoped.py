"""The store a scoped token's caller reads (docs/scopes.md): the same `PostgresStore`,
over one connection of its own whose temporary tables shadow the user's tables with
only what the scope lets be seen.

    store = scoped_store(url=services.url, settings=settings, user=user)
    store.raw_records(...)          # the same named queries, in-scope time only
    store.close()                   # or let it go: the connection closes with it

Every named query reads `records`, `episodes`, `digests`… by their plain names, and
PostgreSQL looks for a table in the session's temporary schema first; so the queries,
the duration rule and the tools run unchanged, and out-of-scope time is not there to
be counted, named or found. The shadow is made when the store is first used.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

from pgvector.psycopg import register_vector
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from app.db.connection import Connection, connect
from app.db.queries import QUERIES
from app.db.store import PostgresStore
from app.settings import Settings
from app.store.accounts import UserContext
from app.store.scope import TokenScope

# In this order: each step reads what the ones before made (docs/scopes.md).
SHADOW_STEPS = (
    QUERIES["scope_pieces"],
    QUERIES["scope_records"],
    QUERIES["scope_clip_records"],
    QUERIES["scope_finish_records"],
    QUERIES["scope_index_records"],
    QUERIES["scope_index_record_ids"],
    QUERIES["scope_analyses"],
    QUERIES["scope_index_analyses"],
    QUERIES["scope_empty_episodes"],
    QUERIES["scope_empty_digests"],
    QUERIES["scope_empty_signals"],
    QUERIES["scope_empty_marks"],
    QUERIES["scope_empty_redirects"],
    QUERIES["scope_empty_labels"],
    QUERIES["scope_empty_conversations"],
    QUERIES["scope_empty_turns"],
    QUERIES["scope_analyze"],
)


def make_shadow(conn: Connection, *, user_id: int, scope: TokenScope) -> None:
    """Make the scoped caller's temporary tables on `conn` (committed)."""
    params = {
        "user_id": user_id,
        "scope": Jsonb(scope.as_json()),
        "date_from": scope.date_from,
        "date_to": scope.date_to,
    }
    with conn.transaction():
        for step in SHADOW_STEPS:
            conn.execute(step, params)


class ScopedPool:
    """A stand-in for the store's pool: one connection, opened and shadowed at its first
    use, lent to one caller at a time; each use commits, or rolls back on an error, as a
    pool's does."""

    def __init__(self, *, url: str, settings: Settings, user_id: int, scope: TokenScope) -> None:
        self._url, self._settings = url, settings
        self._user_id, self._scope = user_id, scope
        self._conn: Connection | None = None
        self._lock = threading.RLock()

    def _open(self) -> Connection:
        conn = connect(self._url, settings=self._settings)
        register_vector(conn)
        make_shadow(conn, user_id=self._user_id, scope=self._scope)
        return conn

    @contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[Connection]:
        with self._lock:
            if self._conn is None or self._conn.closed:
                self._conn = self._open()
            conn = self._conn
            try:
                yield conn
            except BaseException:
                conn.rollback()
                raise
            conn.commit()

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


@contextmanager
def reader_for(url: str, *, settings: Settings, user: UserContext) -> Iterator[Connection]:
    """A connection of its own (autocommit) that reads what `user`'s token may see: the
    whole user's tables, or the scoped shadow (export streams from one)."""
    with connect(url, settings=settings, autocommit=True) as conn:
        if user.scope is not None and user.scope.limits_data:
            make_shadow(conn, user_id=user.user_id, scope=user.scope)
        yield conn


def _close(pool: ScopedPool) -> None:
    pool.close()


def scoped_store(*, url: str, settings: Settings, user: UserContext) -> PostgresStore:
    """The store that `user`'s token may read; its connection closes with the store."""
    assert user.scope is not None
    pool = ScopedPool(url=url, settings=settings, user_id=user.user_id, scope=user.scope)
    store = PostgresStore.over(cast(ConnectionPool[Any], pool))
    weakref.finalize(store, _close, pool)
    return store
