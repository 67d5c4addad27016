"""Editing the user's category tree, for every door (web, CLI, importers): a category
made, renamed, recoloured, moved or removed, and the history re-categorised with the
rules' own path when a change moves records to another kind or user category.

    made = add_category(store, user_id=1, parent="entertainment", name="Games")
    move_category(store, rules=rules, settings=settings, user=user,
                  category="Games", parent="work", now=now)  # its records become work

A top-level category sits under a kind (`parent` is one of the six); a category under
another takes that one's kind. Renaming or recolouring moves no record: a record's
user category is its rule's (app/rules/tree.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from app.errors import InvalidInputError
from app.pyramid.user_rules import RulesSaved, RulesStore, recategorize_now
from app.rules.categories import CATEGORIES, Rules
from app.rules.tree import CategoryTree, check_color, check_name
from app.settings import Settings
from app.store.accounts import UserContext
from app.store.user_categories import UserCategoryRow, UserCategoryStore

CATEGORIES_MAX = 500  # a user's categories, at most


class TreeStore(RulesStore, UserCategoryStore, Protocol):
    """What editing the tree uses: the tree, the rules and the rebuild."""


@dataclass(frozen=True, slots=True)
class Parent:
    """Where a category sits: under a kind (top level) or under another category."""

    kind: str
    category_id: int | None


def parent_of(tree: CategoryTree, text: str) -> Parent:
    """The place `text` names: one of the six kinds or a category of the user's."""
    if text in CATEGORIES:
        return Parent(kind=text, category_id=None)
    found = tree.named(text)
    return Parent(kind=found.kind, category_id=found.category_id)


def tree_of(store: UserCategoryStore, *, user_id: int) -> CategoryTree:
    return CategoryTree(store.list_user_categories(user_id=user_id))


def add_category(
    store: UserCategoryStore,
    *,
    user_id: int,
    parent: str,
    name: str | None = None,
    name_zh: str | None = None,
    color: str | None = None,
) -> UserCategoryRow:
    """A new category under a kind or under one of the user's categories."""
    tree = tree_of(store, user_id=user_id)
    if len(tree.rows) >= CATEGORIES_MAX:
        raise InvalidInputError(f"a user keeps at most {CATEGORIES_MAX} categories")
    where = parent_of(tree, parent)
    names = check_name(name), check_name(name_zh)
    if names == (None, None):
        raise InvalidInputError("give the category a name (or a Chinese name)")
    _refuse_taken(tree, where, *names)
    made = store.add_user_category(
        user_id=user_id,
        parent_id=where.category_id,
        kind=where.kind,
        name=names[0],
        name_zh=names[1],
        color=check_color(color),
    )
    return tree_of(store, user_id=user_id).by_id[made]


def _refuse_taken(
    tree: CategoryTree, where: Parent, name: str | None, name_zh: str | None, *, but: int = 0
) -> None:
    for row in tree.rows:
        if row.parent_id != where.category_id or row.category_id == but:
            continue
        if (name and (row.name or "").casefold() == name.casefold()) or (
            name_zh and row.name_zh == name_zh
        ):
            raise InvalidInputError(f"{row.path!r} is there already")


def edit_category(
    store: UserCategoryStore,
    *,
    user_id: int,
    category: str,
    name: str | None = None,
    name_zh: str | None = None,
    color: str | None = None,
) -> UserCategoryRow:
    """Rename or recolour a category (None: as it is); no record moves."""
    tree = tree_of(store, user_id=user_id)
    row = tree.named(category)
    new_name = check_name(name) if name is not None else row.name
    new_zh = check_name(name_zh) if name_zh is not None else row.name_zh
    if (new_name, new_zh) == (None, None):
        raise InvalidInputError("a category keeps a name in one language at least")
    _refuse_taken(tree, Parent(row.kind, row.parent_id), new_name, new_zh, but=row.category_id)
    store.edit_user_category(
        user_id=user_id,
        category_id=row.category_id,
        parent_id=row.parent_id,
        name=new_name,
        name_zh=new_zh,
        color=check_color(color) if color is not None else row.color,
    )
    return tree_of(store, user_id=user_id).by_id[row.category_id]


def move_category(
    store: TreeStore,
    *,
    rules: Rules,
    settings: Settings,
    user: UserContext,
    category: str,
    parent: str,
    now: datetime,
) -> RulesSaved:
    """Put a category (and its subtree) under another kind or category; when its kind
    changes, its rules' records move to the new kind and their days are rebuilt."""
    tree = tree_of(store, user_id=user.user_id)
    row = tree.named(category)
    where = parent_of(tree, parent)
    if where.category_id is not None and where.category_id in tree.subtree(row.category_id):
        raise InvalidInputError(f"{row.path!r} cannot go under itself")
    _refuse_taken(tree, where, row.name, row.name_zh, but=row.category_id)
    store.edit_user_category(
        user_id=user.user_id,
        category_id=row.category_id,
        parent_id=where.category_id,
        name=row.name,
        name_zh=row.name_zh,
        color=row.color,
    )
    if where.kind != row.kind:
        store.set_user_category_kind(
            user_id=user.user_id, category_id=row.category_id, kind=where.kind
        )
    return recategorize_now(store, rules=rules, settings=settings, user=user, now=now)


def remove_category(
    store: TreeStore,
    *,
    rules: Rules,
    settings: Settings,
    user: UserContext,
    category: str,
    now: datetime,
) -> RulesSaved:
    """Delete a category without children: its rules name its parent instead (a
    top-level one's, only its kind); the days of its records are rebuilt."""
    tree = tree_of(store, user_id=user.user_id)
    row = tree.named(category)
    children = [r.path for r in tree.rows if r.parent_id == row.category_id]
    if children:
        raise InvalidInputError(
            f"{row.path!r} has categories under it ({', '.join(children)}): move or remove "
            "them first"
        )
    days = store.remove_user_category(user_id=user.user_id, category_id=row.category_id)
    return recategorize_now(store, rules=rules, settings=settings, user=user, now=now, extra=days)
