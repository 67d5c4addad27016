"""Users, API tokens and devices (mixed into PostgresStore)."""

from __future__ import annotations

from app.db.base import Queries
from app.db.named import Params, found, method, one, row, rows, value
from app.db.queries import QUERIES
from app.errors import DatabaseError, InvalidInputError
from app.store import AccountStore, DeviceRow, UserContext
from app.store.accounts import Beginnings, ClockChange, DeviceActivityRow


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
    device_activity = rows(AccountStore.device_activity, DeviceActivityRow)
    beginnings = one(AccountStore.beginnings, Beginnings)

    def _change_clock(self, params: Params) -> ClockChange:
        user = {"user_id": params["user_id"]}
        with self.pool.connection() as conn, conn.transaction():
            # Deletions, re-labels and build saves of the user wait (lock_records_shared).
            conn.execute(QUERIES["lock_records"], user)
            expired = conn.execute(QUERIES["raw_expired_day"], user).fetchone()
            if expired is not None and expired["raw_expired_day"] is not None:
                raise InvalidInputError(
                    f"raw records before {expired['raw_expired_day']} have expired (retention): "
                    "their days cannot be built again in another zone, so the clock stays"
                )
            conn.execute(QUERIES["set_user_clock"], params)
            records = conn.execute(QUERIES["move_record_days"], params).rowcount
            conn.execute(QUERIES["move_redirect_days"], params)
            episodes = conn.execute(QUERIES["drop_user_episodes"], params).rowcount
            dropped = conn.execute(QUERIES["drop_user_digests"], user).fetchone()
        assert dropped is not None  # an aggregate: always one row
        return ClockChange(records=records, episodes=episodes, digests=dropped["digests"])

    change_user_clock = method(AccountStore.change_user_clock, _change_clock)
