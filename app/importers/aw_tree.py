"""ActivityWatch's categories brought over as they are: aw-webui's tree (names,
hierarchy, colours) becomes the user's own category tree, and each regex a user rule
of kind `regex` that names its category, with aw's case rule.

    classes = classes_of_export(path) or read_export_classes(categories_file)
    plan = plan_tree(classes, top_kinds={"Chores": "work"})
    plan.unmapped          # tops no name maps to a kind and none was given: uncategorized
    done = apply_tree(store, rules=rules, settings=settings, user=user, plan=plan, now=now)

The top of the tree maps onto the six kinds by its name where that is clear (Work →
work, Media → entertainment, Comms → social: `CATEGORY_WORDS` of
app/importers/aw_categories.py, the top's own name only), else by `top_kinds` (the
CLI's --top-kind, or its prompt), else uncategorized. A class matches a record when its
regex is found in the app or the window title, case-sensitive unless `ignore_case`
(stored as a leading `(?i)`); of the classes that match, aw-core takes the one of
highest rank (priority, else depth × 10; the later of equal ones), so the rules are
ordered that way and the user's first matching rule wins. They come after the user's
own rules. A class whose regex RE2 cannot run is skipped, with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from app.errors import InvalidInputError
from app.importers.aw_categories import (
    CATEGORY_WORDS,
    AwCategoriesError,
    AwClass,
    parse_classes,
)
from app.importers.jsonstream import JsonStream
from app.patterns import PatternSyntaxError
from app.pyramid.user_categories import TreeStore, tree_of
from app.pyramid.user_rules import RulesSaved, drafts_of, save_rules
from app.rules.categories import CATEGORIES, Rules
from app.rules.tree import CategoryTree, check_color
from app.rules.user_match import regex
from app.settings import Settings
from app.store.accounts import UserContext
from app.store.user_rules import RuleDraft


@dataclass(slots=True)
class TreePlan:
    """What an import of aw-webui's tree will make."""

    classes: list[AwClass]
    kinds: dict[str, str] = field(default_factory=dict)  # top name -> kind
    unmapped: list[str] = field(default_factory=list)  # tops mapped by no name (uncategorized)


@dataclass(slots=True)
class TreeImported:
    categories: int  # made now
    rules: int  # regex rules added or changed
    skipped: list[tuple[str, str]]  # (path, why)
    saved: RulesSaved | None

    def said(self, plan: TreePlan) -> str:
        tops = ", ".join(f"{top} → {kind}" for top, kind in plan.kinds.items())
        lines = [
            f"ActivityWatch's categories: {self.categories} categories made, "
            f"{self.rules} regex rules ({tops})"
        ]
        if plan.unmapped:
            lines.append(
                "  no kind said for " + ", ".join(plan.unmapped)
                + ": counted as uncategorized (--top-kind NAME=KIND sets one)"
            )  # fmt: skip
        lines += [f"  skipped {path}: {why}" for path, why in self.skipped]
        return "\n".join(lines)


def classes_of_export(path: Path) -> list[AwClass] | None:
    """The `classes` an export file carries before its buckets (TimeTrace's activitywatch
    export writes them there; aw-server's own export has none): None without."""
    try:
        source = path.open("rb")
    except OSError as exc:
        raise AwCategoriesError(f"cannot read {path}: {exc.strerror}") from exc
    with source:
        stream = JsonStream(source, name=path.name)
        try:
            stream.expect("{")
            more = stream.first_item("}")
            while more:
                key = stream.string()
                stream.expect(":")
                if key == "buckets":
                    return None  # what follows is history, read by the importer
                value = stream.value()
                if key == "classes":
                    return parse_classes(value, source=str(path))
                more = stream.next_item("}")
        except InvalidInputError:
            return None  # the importer says what is wrong with the file
    return None


def top_kind(name: str) -> str | None:
    """The kind a top of aw-webui's tree is by its name, where that is clear."""
    return CATEGORY_WORDS.get(name.strip().lower())


def plan_tree(classes: Sequence[AwClass], *, top_kinds: Mapping[str, str]) -> TreePlan:
    plan = TreePlan(classes=list(classes))
    given = {k.strip().casefold(): v for k, v in top_kinds.items()}
    for item in classes:
        top = item.path[0] if item.path else ""
        if not top or top in plan.kinds or top in plan.unmapped:
            continue
        kind = given.get(top.casefold()) or top_kind(top)
        if kind is not None and kind not in CATEGORIES:
            raise InvalidInputError(f"--top-kind {top}: one of {', '.join(CATEGORIES)}")
        if kind is None:
            plan.unmapped.append(top)
        plan.kinds[top] = kind or "uncategorized"
    return plan


def parse_top_kinds(pairs: Sequence[str]) -> dict[str, str]:
    """--top-kind NAME=KIND, given any number of times."""
    out = {}
    for pair in pairs:
        name, sep, kind = pair.partition("=")
        if not sep or not name.strip() or kind.strip() not in CATEGORIES:
            raise InvalidInputError(
                f"--top-kind takes NAME=KIND, KIND one of {', '.join(CATEGORIES)}; got {pair!r}"
            )
        out[name.strip()] = kind.strip()
    return out


def _ensure_path(
    store: TreeStore, tree: CategoryTree, user_id: int, path: tuple[str, ...], kind: str
) -> tuple[CategoryTree, int, bool]:
    """The category at `path` (made, with its parents, where missing)."""
    parent: int | None = None
    made = False
    for name in path:
        found = next(
            (r for r in tree.rows if r.parent_id == parent and (r.name or "") == name), None
        )
        if found is None:
            parent = store.add_user_category(
                user_id=user_id, parent_id=parent, kind=kind, name=name, name_zh=None, color=None
            )
            tree = tree_of(store, user_id=user_id)
            made = True
        else:
            parent = found.category_id
    assert parent is not None
    return tree, parent, made


def _pattern(item: AwClass) -> str | None:
    if item.regex is None:
        return None
    return f"(?i){item.regex}" if item.ignore_case else item.regex


def apply_tree(
    store: TreeStore,
    *,
    rules: Rules,
    settings: Settings,
    user: UserContext,
    plan: TreePlan,
    now: datetime,
) -> TreeImported:
    """Make the plan's categories (an existing one of the same path is kept, its colour
    set) and put its regex rules after the user's own, then re-categorise the history."""
    tree = tree_of(store, user_id=user.user_id)
    made = 0
    targets: dict[tuple[str, ...], tuple[str, int]] = {}
    for item in plan.classes:
        if not item.path:
            continue
        kind = plan.kinds[item.path[0]]
        tree, category_id, fresh = _ensure_path(store, tree, user.user_id, item.path, kind)
        made += fresh
        targets[item.path] = (kind, category_id)
        if item.color and (color := _color(item.color)):
            row = tree.by_id[category_id]
            store.edit_user_category(
                user_id=user.user_id,
                category_id=category_id,
                parent_id=row.parent_id,
                name=row.name,
                name_zh=row.name_zh,
                color=color,
            )
    drafts, changed, skipped = _with_rules(store, user, plan, targets)
    saved = None
    if changed:
        saved = save_rules(store, rules=rules, settings=settings, user=user, drafts=drafts, now=now)
    return TreeImported(categories=made, rules=changed, skipped=skipped, saved=saved)


def _color(value: str) -> str | None:
    try:
        return check_color(value)
    except InvalidInputError:
        return None  # a colour aw-webui keeps by name ("red"): the kind's colour instead


def _with_rules(
    store: TreeStore,
    user: UserContext,
    plan: TreePlan,
    targets: Mapping[tuple[str, ...], tuple[str, int]],
) -> tuple[list[RuleDraft], int, list[tuple[str, str]]]:
    drafts = drafts_of(store.list_user_rules(user_id=user.user_id))
    at = {(d.kind, d.pattern): i for i, d in enumerate(drafts)}
    skipped: list[tuple[str, str]] = []
    changed = 0
    seen: set[str] = set()
    # aw-core's highest rank wins, the later of equal ranks: tried in that order.
    ordered = sorted(enumerate(plan.classes), key=lambda pair: (-pair[1].rank, -pair[0]))
    for _, item in ordered:
        pattern = _pattern(item)
        if pattern is None or not item.path or pattern in seen:
            continue
        seen.add(pattern)
        try:
            regex(pattern)
        except PatternSyntaxError as exc:
            skipped.append(("/".join(item.path), f"RE2 cannot run its regex: {exc}"))
            continue
        kind, category_id = targets[item.path]
        new = RuleDraft(
            rule_id=None, kind="regex", pattern=pattern, category=kind, category_id=category_id
        )
        if ("regex", pattern) in at:
            old = drafts[at[("regex", pattern)]]
            if (old.category, old.category_id) == (kind, category_id):
                continue
            drafts[at[("regex", pattern)]] = old.model_copy(
                update={"category": kind, "category_id": category_id}
            )
        else:
            drafts.append(new)
        changed += 1
    return drafts, changed, skipped


def classes_of(
    *, export: Path | None, categories_file: Path | None, server: list[AwClass] | None
) -> list[AwClass] | None:
    """aw-webui's categories for an import: a categories file given, else the export
    file's own, else the server's settings."""
    from app.importers.aw_categories import read_export_classes

    if categories_file is not None:
        return read_export_classes(categories_file)
    if export is not None:
        return classes_of_export(export)
    return server
