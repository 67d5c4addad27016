"""Users, API tokens and devices (mixed into PostgresStore)."""

from __future__ import annotations

from psycopg.types.json import Jsonb

from app.db.base import Queries
from app.db.named import Params, found, method, value
from app.db.queries import QUERIES
from app.errors import AuthError, DatabaseError, InvalidInputError
from app.store.accounts import AccountStore, ClockChange, UserContext
from app.store.scope import TokenScope


def _scope_json(scope: TokenScope | None) -> Jsonb | None:
    return Jsonb(scope.as_json()) if scope is not None else None


def _user_for_token(store: Queries, params: Params) -> UserContext | None:
    with store.pool.connection() as conn:
        found = conn.execute(QUERIES["user_for_token"], params).fetchone()
    if found is None:
        return None
    expires_at = found.pop("expires_at")
    if expires_at is not None and expires_at <= params["now"]:
        raise AuthError(f"the API token expired at {expires_at.isoformat()}")
    scope = found.pop("scope")
    return UserContext(
        **found, scope=TokenScope.model_validate(scope) if scope is not None else None
    )


class PostgresAccountStore(Queries):
    def ping(self) -> None:
        try:
            with self.pool.connection(timeout=2) as conn:
                conn.execute("SELECT 1")
        except Exception as exc:
            raise DatabaseError(f"the database does not answer: {type(exc).__name__}") from exc

    user_for_token = method(AccountStore.user_for_token, _user_for_token)
    add_token = value(AccountStore.add_token, adapt={"scope": _scope_json})
    add_device = found(AccountStore.add_device)
    device_exists = found(AccountStore.device_exists)

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
