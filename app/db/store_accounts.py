"""Users, API tokens and devices (mixed into PostgresStore)."""

from __future__ import annotations

from app.db.base import Queries
from app.db.named import found
from app.errors import DatabaseError
from app.store.accounts import AccountStore


class PostgresAccountStore(Queries):
    def ping(self) -> None:
        try:
            with self.pool.connection(timeout=2) as conn:
                conn.execute("SELECT 1")
        except Exception as exc:
            raise DatabaseError(f"the database does not answer: {type(exc).__name__}") from exc

    add_device = found(AccountStore.add_device)
    device_exists = found(AccountStore.device_exists)
