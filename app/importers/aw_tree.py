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
from app.pyramid import user_rules
from app.pyramid.user_categories import TreeStore, tree_of
from app.pyramid.user_rules import RulesSaved, drafts_of, preview_rules, save_rules
from app.rules.categories import CATEGORIES, Rules
from app.rules.tree import CategoryTree, check_color
from app.rules.user_match import regex
from app.settings import Settings
from app.store.accounts import UserContext
from app.store.user_categories import UserCategoryRow
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
        found = _child(tree, parent, name)
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


def _child(tree: CategoryTree, parent: int | None, name: str) -> UserCategoryRow | None:
    """The category named `name` under `parent`, whatever its case (one per parent)."""
    folded = name.casefold()
    return next(
        (r for r in tree.rows if r.parent_id == parent and (r.name or "").casefold() == folded),
        None,
    )


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
    targets, made = _made(store, user.user_id, plan)
    drafts, changed, skipped = _with_rules(store, user, plan, targets)
    saved = None
    if changed:
        saved = save_rules(store, rules=rules, settings=settings, user=user, drafts=drafts, now=now)
    return TreeImported(categories=made, rules=changed, skipped=skipped, saved=saved)


def _made(
    store: TreeStore, user_id: int, plan: TreePlan
) -> tuple[dict[tuple[str, ...], tuple[str, int]], int]:
    """The plan's categories, made where missing, their colours set: (kind, id) by path,
    and how many were made."""
    tree = tree_of(store, user_id=user_id)
    made = 0
    targets: dict[tuple[str, ...], tuple[str, int]] = {}
    for item in plan.classes:
        if not item.path:
            continue
        kind = plan.kinds[item.path[0]]
        tree, category_id, fresh = _ensure_path(store, tree, user_id, item.path, kind)
        made += fresh
        targets[item.path] = (kind, category_id)
        row = tree.by_id[category_id]
        color = _color(item.color) if item.color else None
        if color and color != row.color:
            store.edit_user_category(
                user_id=user_id,
                category_id=category_id,
                parent_id=row.parent_id,
                name=row.name,
                name_zh=row.name_zh,
                color=color,
            )
    return targets, made


def _color(value: str) -> str | None:
    try:
        return check_color(value)
    except InvalidInputError:
        return None  # a colour aw-webui keeps by name ("red"): the kind's colour instead


def _wanted(
    plan: TreePlan, targets: Mapping[tuple[str, ...], tuple[str, int]]
) -> tuple[list[RuleDraft], list[tuple[str, str]]]:
    """The plan's regex rules, in the order aw-core tries its classes (the highest rank,
    the later of equal ranks, first), and the classes RE2 cannot run."""
    wanted: list[RuleDraft] = []
    skipped: list[tuple[str, str]] = []
    seen: set[str] = set()
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
        wanted.append(
            RuleDraft(
                rule_id=None, kind="regex", pattern=pattern, category=kind, category_id=category_id
            )
        )
    return wanted, skipped


def _with_rules(
    store: TreeStore,
    user: UserContext,
    plan: TreePlan,
    targets: Mapping[tuple[str, ...], tuple[str, int]],
) -> tuple[list[RuleDraft], int, list[tuple[str, str]]]:
    drafts = drafts_of(store.list_user_rules(user_id=user.user_id))
    at = {(d.kind, d.pattern): i for i, d in enumerate(drafts)}
    wanted, skipped = _wanted(plan, targets)
    changed = 0
    for new in wanted:
        if ("regex", new.pattern) in at:
            old = drafts[at[("regex", new.pattern)]]
            if (old.category, old.category_id) == (new.category, new.category_id):
                continue
            drafts[at[("regex", new.pattern)]] = old.model_copy(
                update={"category": new.category, "category_id": new.category_id}
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


# -- aw-webui's tree kept in step (the ActivityWatch door's `classes` setting) ---------------


@dataclass(slots=True)
class TreeSynced:
    """What keeping the user's tree in step with aw-webui's did."""

    made: int  # categories made
    removed: list[str]  # paths of categories removed
    kept: list[tuple[str, str]]  # (path, why) of categories aw-webui no longer has, kept
    skipped: list[tuple[str, str]]  # (path, why) of classes that give no rule
    saved: RulesSaved | None  # None: no rule changed
    background: bool = False  # the history is re-categorised by a job


def tree_kinds(tree: CategoryTree) -> dict[str, str]:
    """The kind each top-level category of the user's already has, by name: a top of
    aw-webui's tree that exists keeps its kind (given at import, or moved since)."""
    return {r.name: r.kind for r in tree.rows if r.parent_id is None and r.name}


def sync_tree(
    store: TreeStore,
    *,
    rules: Rules,
    settings: Settings,
    user: UserContext,
    classes: Sequence[AwClass],
    dropped: Sequence[AwClass],
    now: datetime,
) -> TreeSynced:
    """Make the user's tree hold aw-webui's `classes`: its categories made or kept by
    path, its regex rules in place of those of the trees in `dropped` (earlier ones of
    aw-webui), after the user's own rules, which stay as they are; the history
    re-categorised (by a job when long); then the categories only `dropped` had, with no
    rule and no category under them left, removed."""
    plan = plan_tree(classes, top_kinds=tree_kinds(tree_of(store, user_id=user.user_id)))
    targets, made = _made(store, user.user_id, plan)
    current = drafts_of(store.list_user_rules(user_id=user.user_id))
    wanted, skipped = _wanted(plan, targets)
    drafts = _in_step(current, wanted, drop={p for c in dropped if (p := _pattern(c))})
    saved, background = None, False
    if [_key(d) for d in drafts] != [_key(d) for d in current]:
        # A long history is re-categorised by a job; its size is looked at first, since
        # the preview reads every record.
        background = (
            store.live_records_beyond(user_id=user.user_id, n=user_rules.BACKGROUND_SCANNED)
            or preview_rules(store, rules=rules, user_id=user.user_id, drafts=drafts).long
        )
        saved = save_rules(
            store,
            rules=rules,
            settings=settings,
            user=user,
            drafts=drafts,
            now=now,
            background=background,
        )
    held = {_folded(c.path[:n]) for c in classes for n in range(1, len(c.path) + 1)}
    gone = {c.path for c in dropped if c.path and _folded(c.path) not in held}
    removed, kept = _pruned(store, user.user_id, gone)
    return TreeSynced(made, removed, kept, skipped, saved, background)


def _folded(path: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(n.casefold() for n in path)


def _key(d: RuleDraft) -> tuple[object, ...]:
    return (d.rule_id, d.kind, d.pattern, d.category, d.category_id)


def _in_step(
    current: Sequence[RuleDraft], wanted: Sequence[RuleDraft], *, drop: set[str]
) -> list[RuleDraft]:
    """The user's own rules in their order, then the tree's in aw-core's: a regex rule of
    the tree (now or in a dropped one) is the tree's; one still wanted keeps its id (its
    records stay its own), one no longer wanted goes."""
    ours = drop | {w.pattern for w in wanted}
    held = {d.pattern: d for d in current if d.kind == "regex" and d.pattern in ours}
    own = [d for d in current if not (d.kind == "regex" and d.pattern in ours)]
    tree = [
        held[w.pattern].model_copy(update={"category": w.category, "category_id": w.category_id})
        if w.pattern in held
        else w
        for w in wanted
    ]
    return [*own, *tree]


def _pruned(
    store: TreeStore, user_id: int, gone: set[tuple[str, ...]]
) -> tuple[list[str], list[tuple[str, str]]]:
    """Remove the categories at `gone` paths, deepest first, that no rule names and no
    category sits under; say why each other one is kept."""
    removed: list[str] = []
    kept: list[tuple[str, str]] = []
    for path in sorted(gone, key=lambda p: (-len(p), p)):
        tree = tree_of(store, user_id=user_id)
        row = _at_path(tree, path)
        if row is None:
            continue
        named = {r.category_id for r in store.list_user_rules(user_id=user_id)}
        if row.category_id in named:
            kept.append((row.path, "a rule of yours names it"))
        elif any(r.parent_id == row.category_id for r in tree.rows):
            kept.append((row.path, "categories of yours are under it"))
        else:
            store.remove_user_category(user_id=user_id, category_id=row.category_id)
            removed.append(row.path)
    return removed, kept


def _at_path(tree: CategoryTree, path: tuple[str, ...]) -> UserCategoryRow | None:
    parent: int | None = None
    row = None
    for name in path:
        row = _child(tree, parent, name)
        if row is None:
            return None
        parent = row.category_id
    return row
