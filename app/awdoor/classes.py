"""aw-webui's category tree, the `classes` setting, as the user's own category tree.

    classes = DoorClasses(store, user=user, rules=rules, settings=settings)
    classes.write(value)     # aw-webui saved its tree: kept, and the user's tree follows
    classes.converge()       # at start: a write cut short is finished or undone

aw-webui keeps its categories in `/api/0/settings/classes`: a list of objects
`{"id", "name": [path…], "rule": {"type": "regex" | "none", "regex", "ignore_case"},
"data": {"color", "score"}}`. The door keeps the setting as written and reads it back
the same; and the tree becomes the user's category tree in TimeTrace as the
ActivityWatch importer makes it (`sync_tree`, app/importers/aw_tree.py): categories by
path, each regex a user rule, the history re-categorised as a rules change does.

Which rules are aw-webui's: the regex rules of every tree the door has put in place
and not yet seen replaced, kept in a setting aw-webui never sees (`TREES_KEY`). A write
adds its tree to that list before it changes anything and leaves only its own there
once the tree and the `classes` setting both hold it; so after a crash at any point
the list still names every tree whose rules may be in place, and the next start (or
write) removes them all but the stored tree's.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Protocol

import orjson

from app.awdoor.events import AwInputError
from app.errors import InvalidInputError
from app.importers.aw_categories import AwClass, parse_classes
from app.importers.aw_tree import TreeSynced, sync_tree
from app.pyramid.user_categories import CATEGORIES_MAX, TreeStore
from app.rules.categories import Rules
from app.rules.tree import check_name
from app.settings import Settings
from app.store.accounts import UserContext
from app.store.awdoor import AwDoorStore, AwSettingRow

CategoryRule = tuple[list[str], dict[str, Any]]
CLASSES_KEY = "classes"
# The trees whose rules may be in the user's tree; never shown to aw-webui.
TREES_KEY = "timetrace:classes-trees"
log = logging.getLogger("timetrace.awdoor")


class ClassesStore(AwDoorStore, TreeStore, Protocol):
    """The door's settings and the user's tree and rules."""


def category_rules(classes: object) -> list[CategoryRule]:
    """The tree as aw-client's `get_classes` hands it to `categorize`: (name path, rule)
    per category, in order. AwInputError when it is not aw-webui's shape."""
    if not isinstance(classes, list):
        raise AwInputError("classes: expected a list of categories")
    rules: list[CategoryRule] = []
    for category in classes:
        name = category.get("name") if isinstance(category, dict) else None
        rule = category.get("rule") if isinstance(category, dict) else None
        if not isinstance(name, list) or not all(isinstance(n, str) for n in name):
            raise AwInputError("classes: each category has a name, a list of strings")
        if not isinstance(rule, dict):
            raise AwInputError(f"classes: category {' > '.join(name)[:80]!r} has no rule")
        rules.append((name, rule))
    return rules


def visible(rows: list[AwSettingRow]) -> dict[str, Any]:
    """The settings as aw-webui wrote them (the door's own key left out)."""
    return {r.key: orjson.loads(r.value) for r in rows if r.key != TREES_KEY}


def _classes(value: object) -> list[AwClass]:
    if not value:
        return []
    category_rules(value)
    assert isinstance(value, list)
    if len(value) > CATEGORIES_MAX:
        raise AwInputError(f"classes: at most {CATEGORIES_MAX} categories")
    return [replace(c, path=_names(c.path)) for c in parse_classes(value, source="classes")]


def _earlier(value: object) -> list[AwClass]:
    """An earlier tree, whose rules and categories are to go: read as leniently as it
    was kept (a door of an earlier version checked less)."""
    try:
        return _classes(value)
    except InvalidInputError:
        pass
    try:
        return parse_classes(value, source="classes") if value else []
    except InvalidInputError:
        return []


def _names(path: tuple[str, ...]) -> tuple[str, ...]:
    """A name path as the user's categories keep it (each name trimmed)."""
    try:
        names = tuple(check_name(n) for n in path)
    except InvalidInputError as exc:
        raise AwInputError(f"classes: {' > '.join(path)[:80]!r}: {exc}") from exc
    if not all(names):
        raise AwInputError(f"classes: {' > '.join(path)[:80]!r} has an empty name")
    return tuple(n for n in names if n)


class DoorClasses:
    """The `classes` setting of one user, kept in step with the user's tree. Writes are
    serialised (one at a time per door)."""

    def __init__(
        self, store: ClassesStore, *, user: UserContext, rules: Rules, settings: Settings
    ) -> None:
        self.store = store
        self.user = user
        self.rules = rules
        self.settings = settings
        self._lock = threading.Lock()

    def _stored(self) -> tuple[Any, list[Any] | None]:
        """The stored `classes` (None: not set) and the trees list (None: none kept)."""
        held = {r.key: r.value for r in self.store.aw_settings(user_id=self.user.user_id)}
        classes = orjson.loads(held[CLASSES_KEY]) if CLASSES_KEY in held else None
        trees = orjson.loads(held[TREES_KEY]) if TREES_KEY in held else None
        return classes, trees if isinstance(trees, list) else None

    def _set(self, key: str, value: Any) -> None:
        uid = self.user.user_id
        if value:
            self.store.aw_set_setting(user_id=uid, key=key, value=orjson.dumps(value).decode())
        else:  # aw-server drops a key set to a false value
            self.store.aw_drop_setting(user_id=uid, key=key)

    def _sync(self, target: Any, trees: list[Any]) -> TreeSynced:
        dropped = [c for tree in trees for c in _earlier(tree)]
        done = sync_tree(
            self.store,
            rules=self.rules,
            settings=self.settings,
            user=self.user,
            classes=_classes(target),
            dropped=dropped,
            now=datetime.now(UTC),
        )
        for path, why in [*done.skipped, *done.kept]:
            log.info("aw-webui's category %s: %s", path, why)
        return done

    def write(self, value: Any) -> TreeSynced:
        """aw-webui wrote its tree: the user's tree follows, then the setting is kept.
        AwInputError (nothing changed) for a tree of the wrong shape or one the user's
        tree cannot take."""
        _classes(value)  # the shape, before anything is written
        with self._lock:
            stored, trees = self._stored()
            trees = [*(trees if trees is not None else [stored] if stored else []), value]
            self._set(TREES_KEY, trees)
            try:
                done = self._sync(value, trees)
            except InvalidInputError as exc:  # too many rules, say: the stored tree back
                self._undo(stored, trees)
                raise AwInputError(f"classes: {exc}") from exc
            self._set(CLASSES_KEY, value)
            self._set(TREES_KEY, [value] if value else [])
            return done

    def _undo(self, stored: Any, trees: list[Any]) -> None:
        try:
            self._sync(stored, trees)
        except InvalidInputError as exc:  # kept by an earlier door, unchecked: the next
            log.warning("aw-webui's stored category tree is not taken: %s", exc)
            return  # write replaces it
        self._set(TREES_KEY, [stored] if stored else [])

    def converge(self) -> TreeSynced | None:
        """A write cut short (the door stopped between its steps), or a tree stored
        before the door followed them: the user's tree made to hold the stored
        `classes`. None when it already does."""
        with self._lock:
            stored, trees = self._stored()
            if trees == ([stored] if stored else []) or (trees is None and not stored):
                return None
            try:  # no list: a tree stored by a door from before trees were followed
                done = self._sync(stored, trees if trees is not None else [stored])
            except InvalidInputError as exc:  # kept by an earlier door, unchecked: left
                log.warning("aw-webui's stored category tree is not taken: %s", exc)
                return None
            self._set(TREES_KEY, [stored] if stored else [])
            return done
