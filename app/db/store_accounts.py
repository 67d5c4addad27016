"""Users, API tokens and devices (mixed into PostgresStore)."""

from __future__ import annotations

from app.db.base import Queries
from app.db.named import found, one, row, rows, value
from app.errors import DatabaseError
from app.store.accounts import AccountStore, DeviceRow, UserContext


class PostgresAccountStore(Queries):
    def ping(self) -> None:
        try:
            with self.pool.connection(timeout=2) as conn:
                conn.execute("SELECT 1")
        except Exception as exc:
            raise DatabaseError(f"the database does not answer: {type(exc).__name__}") from exc

    ensure_user = one(AccountStore.ensure_user, UserContext)
    get_user = row(AccountStore.get_user, UserContext)
    get_user_by_id = row(AccountStore.get_user_by_id, UserContext)
    user_for_token = row(AccountStore.user_for_token, UserContext)
    add_token = value(AccountStore.add_token)
    count_tokens = value(AccountStore.count_tokens)
    add_device = found(AccountStore.add_device)
    device_exists = found(AccountStore.device_exists)
    list_devices = rows(AccountStore.list_devices, DeviceRow)
