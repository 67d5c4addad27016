"""`PostgresStore`: the `Store` protocol over a psycopg connection pool and the
named queries of `sql/queries.sql`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from psycopg_pool import ConnectionPool

from app.db.connection import Connection
from app.db.queries import QUERIES
from app.store import DeviceRow, UserContext


def _user(row: dict[str, Any] | None) -> UserContext | None:
    return UserContext(**row) if row else None


class PostgresStore:
    def __init__(self, pool: ConnectionPool[Connection]) -> None:
        self.pool = pool

    def _one(self, name: str, params: dict[str, Any]) -> dict[str, Any] | None:
        with self.pool.connection() as conn:
            return conn.execute(QUERIES[name], params).fetchone()

    def _all(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        with self.pool.connection() as conn:
            return conn.execute(QUERIES[name], params).fetchall()

    # -- accounts -------------------------------------------------------------

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

    # -- records (L0) -----------------------------------------------------------

    def insert_records(self, *, user_id: int, device_id: str, columns: dict[str, list[Any]]) -> int:
        with self.pool.connection() as conn:
            cur = conn.execute(
                QUERIES["insert_records"], {"user_id": user_id, "device_id": device_id, **columns}
            )
            return cur.rowcount

    def delete_records(
        self,
        *,
        user_id: int,
        record_ids: Sequence[int] | None = None,
        device_id: str | None = None,
        ts_from: datetime | None = None,
        ts_to: datetime | None = None,
    ) -> int:
        row = self._one(
            "tombstone_records",
            {
                "user_id": user_id,
                "record_ids": list(record_ids) if record_ids is not None else None,
                "device_id": device_id,
                "ts_from": ts_from,
                "ts_to": ts_to,
            },
        )
        return int(row["n"]) if row else 0

    def day_category_seconds(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> dict[tuple[date, str], float]:
        rows = self._all(
            "day_category_seconds", {"user_id": user_id, "day_from": day_from, "day_to": day_to}
        )
        return {(row["day_local"], row["category"]): float(row["seconds"]) for row in rows}
