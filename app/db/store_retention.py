"""Retention tiers: settings, the expiry job's reads and writes, a month of records
dropped whole, and the bytes of each layer (docs/retention.md)."""

from __future__ import annotations

from datetime import date

from psycopg import sql

from app.db.base import Queries, retrying
from app.db.named import Params, method
from app.db.queries import QUERIES
from app.store.retention import (
    ExpiryCounts,
    LayerBytes,
    RetentionStore,
)


def _partition(month: date) -> sql.Identifier:
    """The name of a month's partition of records (as `timetrace_ensure_month` makes it)."""
    return sql.Identifier(f"records_{month:%Y_%m}")


class PostgresRetentionStore(Queries):
    def _drop_record_month(self, params: Params) -> ExpiryCounts | None:
        check = {k: params[k] for k in ("month_from", "month_to", "users", "cutoffs")}
        with self.pool.connection() as conn, conn.transaction():
            # Records locked for the check and the detach: no row a user keeps can
            # arrive in the month between them. A busy table waits at most 10 s.
            conn.execute("SET LOCAL lock_timeout = '10s'")
            conn.execute(QUERIES["lock_records_for_drop"])
            keeps = conn.execute(QUERIES["month_keeps_rows"], check).fetchone()
            if keeps is None or keeps["keeps"]:
                return None
            size = conn.execute(QUERIES["month_rows"], check).fetchone()
            analyses = conn.execute(QUERIES["drop_month_analyses"], check).rowcount
            name = _partition(params["month"])
            conn.execute(sql.SQL("ALTER TABLE records DETACH PARTITION {}").format(name))
            conn.execute(sql.SQL("DROP TABLE {}").format(name))
        return ExpiryCounts(records=int(size["rows"]) if size else 0, analyses=max(analyses, 0))

    drop_record_month = method(RetentionStore.drop_record_month, _drop_record_month)

    def _expire_user(self, params: Params) -> ExpiryCounts:
        def expire() -> ExpiryCounts:
            with self.pool.connection() as conn, conn.transaction():
                analyses = conn.execute(QUERIES["expire_analyses"], params).rowcount
                records = conn.execute(QUERIES["expire_records"], params).rowcount
                events = conn.execute(QUERIES["expire_aw_events"], params).rowcount
                conn.execute(QUERIES["expire_build_marks"], params)
                conn.execute(QUERIES["blank_expired_notes"], params)
                turns = conn.execute(QUERIES["drop_expired_turns"], params).fetchone()
                stripped = conn.execute(QUERIES["strip_episode_text"], params).fetchone()
                titles = conn.execute(QUERIES["strip_digest_titles"], params).fetchone()
                conn.execute(QUERIES["mark_retention_applied"], params)
            return ExpiryCounts(
                digests=int(titles["digests"]) if titles else 0,
                records=records,
                analyses=analyses,
                aw_events=events,
                episodes=int(stripped["episodes"]) if stripped else 0,
                turns=int(turns["turns"]) if turns else 0,
            )

        return retrying(expire)

    expire_user = method(RetentionStore.expire_user, _expire_user)

    def _storage_bytes(self, params: Params) -> list[LayerBytes]:
        with self.pool.connection() as conn:
            layers = [LayerBytes(**r) for r in conn.execute(QUERIES["storage_bytes"], params)]
            embedded = conn.execute(QUERIES["embedding_bytes"], params).fetchone()
        return [*layers, *([LayerBytes(**embedded)] if embedded else [])]

    storage_bytes = method(RetentionStore.storage_bytes, _storage_bytes)
