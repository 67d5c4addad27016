"""The user's own category tree (migration 0034) as the rules and the counts read it:
a category named by a person (either language, any case, or its path), the kind a
rule that names it takes, and seconds per category added up the tree.

    tree = CategoryTree(store.list_user_categories(user_id=1))
    games = tree.named("games")            # or "游戏", "Entertainment > Games"
    games.kind                             # "entertainment": its top-level's kind
    tree.rolled_up({games.category_id: 3600.0})  # each category with its subtree's seconds

A top-level category belongs to one of the six kinds and every category below it to
the same one, so every number by kind stays what it was.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from app.errors import InvalidInputError
from app.rules.categories import CATEGORIES, Category
from app.store.user_categories import UserCategoryRow

NAME_MAX = 100
_COLOR = re.compile(r"#[0-9a-f]{6}")


def check_name(value: str | None) -> str | None:
    """A category's name as stored: trimmed, None when empty."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if len(text) > NAME_MAX or "\x00" in text:
        raise InvalidInputError(f"a category's name is at most {NAME_MAX} characters")
    return text


def check_color(value: str | None) -> str | None:
    """A colour as stored: #rrggbb in lower case (None: the kind's colour)."""
    if value is None or not value.strip():
        return None
    text = value.strip().lower()
    if len(text) == 4 and text.startswith("#"):  # #abc -> #aabbcc
        text = "#" + "".join(c * 2 for c in text[1:])
    if not _COLOR.fullmatch(text):
        raise InvalidInputError(f"a colour is #rrggbb; got {value!r}")
    return text


def check_kind(value: str) -> Category:
    if value not in CATEGORIES:
        raise InvalidInputError(f"kind must be one of {', '.join(CATEGORIES)}; got {value!r}")
    return value


def label(row: UserCategoryRow, *, zh: bool = False) -> str:
    """The category's name in the language asked for, else in the other."""
    first, second = (row.name_zh, row.name) if zh else (row.name, row.name_zh)
    return first or second or str(row.category_id)


class CategoryTree:
    """A user's categories, looked up by id or by the names people use."""

    def __init__(self, rows: Sequence[UserCategoryRow]) -> None:
        self.rows = list(rows)
        self.by_id = {r.category_id: r for r in self.rows}

    def __bool__(self) -> bool:
        return bool(self.rows)

    def find(self, text: str) -> UserCategoryRow | None:
        """The category `text` names: its name in either language (any case), its path
        ("Media > Games", "Media/Games") or its id ("#12"); None when none. A name two
        categories share names the shallower one."""
        wanted = text.strip()
        if wanted.startswith("#") and wanted[1:].isdigit():
            return self.by_id.get(int(wanted[1:]))
        folded = wanted.casefold()
        path = " > ".join(part.strip() for part in folded.replace("/", ">").split(">"))
        found = [
            r
            for r in self.rows
            if folded in {(r.name or "").casefold(), (r.name_zh or "").casefold()}
            or r.path.casefold() == path
        ]
        return min(found, key=lambda r: (r.depth, r.category_id)) if found else None

    def named(self, text: str) -> UserCategoryRow:
        found = self.find(text)
        if found is None:
            known = ", ".join(r.path for r in self.rows) or "none yet"
            raise InvalidInputError(f"no category {text!r} of yours (yours: {known})")
        return found

    def subtree(self, category_id: int) -> list[int]:
        """The category and every category below it."""
        out = [category_id]
        for row in self.rows:  # parents come before children (ordered by path)
            if row.parent_id in out and row.category_id not in out:
                out.append(row.category_id)
        return out

    def rolled_up(self, seconds: Mapping[int, float]) -> dict[int, float]:
        """Each category's seconds with its subtree's (a parent counts its children)."""
        total = dict.fromkeys(self.by_id, 0.0)
        for category_id, value in seconds.items():
            at: int | None = category_id
            while at is not None and at in self.by_id:
                total[at] += value
                at = self.by_id[at].parent_id
        return total


def target(tree: CategoryTree, text: str) -> tuple[Category, int | None]:
    """What a rule's category names: one of the six kinds, or a user category (with
    the kind it is under)."""
    if text in CATEGORIES:
        return text, None
    found = tree.find(text)
    if found is None:
        known = ", ".join([*CATEGORIES, *(r.path for r in tree.rows)])
        raise InvalidInputError(f"category must be one of {known}; got {text!r}")
    return check_kind(found.kind), found.category_id
