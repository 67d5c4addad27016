"""The user's own category tree (`user_categories`, migration 0034): categories under
the six kinds ("Entertainment > Games"), each with a name in one or both languages, a
colour and a parent. A user rule may name one (`user_rules.category_id`); a record's
user category is its rule's (app/rules/tree.py).

    store.add_user_category(user_id=1, parent_id=None, kind="entertainment",
                            name="Games", name_zh="游戏", color="#e4572e")  # its id
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from app.store.tools import DeviceDay, UserCategoryDay, UserCategoryRow, UserCategorySeconds

__all__ = ["UserCategoryDay", "UserCategoryRow", "UserCategorySeconds", "UserCategoryStore"]


class UserCategoryStore(Protocol):
    """A user's category tree; every call is scoped to one user."""

    def list_user_categories(self, *, user_id: int) -> list[UserCategoryRow]:
        """The tree, each category with its path, parents before children."""
        ...

    def add_user_category(
        self,
        *,
        user_id: int,
        parent_id: int | None,
        kind: str,
        name: str | None,
        name_zh: str | None,
        color: str | None,
    ) -> int:
        """A new category's id."""
        ...

    def edit_user_category(
        self,
        *,
        user_id: int,
        category_id: int,
        parent_id: int | None,
        name: str | None,
        name_zh: str | None,
        color: str | None,
    ) -> None: ...

    def set_user_category_kind(self, *, user_id: int, category_id: int, kind: str) -> None:
        """The category, everything below it and the rules naming any of them take
        `kind` (the history follows when the rules are applied again)."""
        ...

    def remove_user_category(self, *, user_id: int, category_id: int) -> list[DeviceDay]:
        """Delete a category without children: its rules name its parent instead (or
        only its kind). The device-days whose records it held are marked for a
        rebuild and returned."""
        ...

    def mark_rule_days(self, *, user_id: int, rule_ids: Sequence[int]) -> list[DeviceDay]:
        """Mark for a rebuild, and return, the device-days holding records these rules
        categorised (their rules now name another user category)."""
        ...
