"""Users, API tokens and devices (mixed into PostgresStore)."""

from __future__ import annotations

from typing import Any

from app.db.base import Queries
from app.db.queries import QUERIES
from app.errors import DatabaseError
from app.store import (
    DeviceRow,
    UserContext,
)


class PostgresAccountStore(Queries):
    def ping(self) -> None:
        try:
            with self.pool.connection(timeout=2) as conn:
                conn.execute("SELECT 1")
        except Exception as exc:
            raise DatabaseError(f"the database does not answer: {type(exc).__name__}") from exc

    def ensure_user(self, *, name: str, time_zone: str, day_cut_hour: int) -> UserContext:
        row = self._one(
            "ensure_user", {"name": name, "time_zone": time_zone, "day_cut_hour": day_cut_hour}
        )
        assert row is not None  # RETURNING always yields the row
        return UserContext(**row)

    def get_user(self, *, name: str) -> UserContext | None:
        return _user(self._one("get_user", {"name": name}))

    def user_for_token(self, *, token_hash: bytes) -> UserContext | None:
        return _user(self._one("user_for_token", {"token_hash": token_hash}))

    def add_token(self, *, user_id: int, token_hash: bytes, name: str) -> int:
        row = self._one("add_token", {"user_id": user_id, "token_hash": token_hash, "name": name})
        assert row is not None
        return int(row["token_id"])

    def count_tokens(self) -> int:
        row = self._one("count_tokens", {})
        return int(row["n"]) if row else 0

    def add_device(self, *, user_id: int, device_id: str, name: str, kind: str) -> bool:
        with self.pool.connection() as conn:
            cur = conn.execute(
                QUERIES["add_device"],
                {"user_id": user_id, "device_id": device_id, "name": name, "kind": kind},
            )
            return cur.rowcount == 1

    def device_exists(self, *, user_id: int, device_id: str) -> bool:
        return self._one("device_exists", {"user_id": user_id, "device_id": device_id}) is not None

    def list_devices(self, *, user_id: int) -> list[DeviceRow]:
        return [DeviceRow(**row) for row in self._all("list_devices", {"user_id": user_id})]

    def get_user_by_id(self, *, user_id: int) -> UserContext | None:
        return _user(self._one("get_user_by_id", {"user_id": user_id}))


def _user(row: dict[str, Any] | None) -> UserContext | None:
    return UserContext(**row) if row else None
