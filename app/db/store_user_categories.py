"""The user's category tree: the writes of several queries (mixed into PostgresStore)."""

from __future__ import annotations

from collections.abc import Sequence

from app.db.base import Queries, fetch_all
from app.db.connection import Connection
from app.db.named import Params, method
from app.db.queries import QUERIES
from app.db.store_user_rules import mark_days
from app.store.tools import DeviceDay
from app.store.user_categories import UserCategoryStore


def _mark_rule_days(conn: Connection, user_id: int, rule_ids: Sequence[int]) -> list[DeviceDay]:
    if not rule_ids:
        return []
    days = fetch_all(
        conn,
        DeviceDay,
        QUERIES["rule_device_days"],
        {"user_id": user_id, "rule_ids": list(rule_ids)},
    )
    mark_days(conn, user_id, days)
    return days


class PostgresUserCategoryStore(Queries):
    def _remove(self, params: Params) -> list[DeviceDay]:
        user = {"user_id": params["user_id"], "category_id": params["category_id"]}
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(QUERIES["lock_records"], user)
            moved = [
                int(r["rule_id"])
                for r in conn.execute(QUERIES["retarget_user_category_rules"], user)
            ]
            conn.execute(QUERIES["delete_user_category"], user)
            return _mark_rule_days(conn, params["user_id"], moved)

    remove_user_category = method(UserCategoryStore.remove_user_category, _remove)

    def _mark(self, params: Params) -> list[DeviceDay]:
        with self.pool.connection() as conn, conn.transaction():
            return _mark_rule_days(conn, params["user_id"], params["rule_ids"])

    mark_rule_days = method(UserCategoryStore.mark_rule_days, _mark)
