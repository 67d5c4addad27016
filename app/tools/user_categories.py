"""The user's own categories (migration 0034) in the tools: a mention that names one
("Games", "游戏"), its seconds, and query_stats' `seconds_by_user_category`.

    thing = category_thing(ctx, mention="games")   # Thing(kind="category", user_categories=(4,))
    total, parts = category_seconds(ctx, thing, day_from=..., day_to=...)
    items = user_category_items(ctx, day_from=..., day_to=...)

A record is counted under the category of the user rule that categorised it; a
category counts its own records and those of the categories below it. Seconds come
from the records by the duration rule, as the pages' sites do.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from datetime import date

from pydantic import Field

from app.rules.things import Thing, loose
from app.rules.tree import CategoryTree, label
from app.store.tools import KnownName, UserCategoryRow
from app.tools.registry import ToolContext
from app.tools.results import Shape

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


class UserCategoryTime(Shape):
    """One of the user's categories: its seconds with those of the categories below it."""

    category: str = Field(description="its path of names from the top")
    kind: str = Field(description="the kind it is under (work, entertainment, ...)")
    color: str | None = None
    seconds: int
    hours: float


def tree_for(ctx: ToolContext) -> CategoryTree:
    return CategoryTree(ctx.store.tool_categories(user_id=ctx.user.user_id))


def category_thing(ctx: ToolContext, *, mention: str) -> Thing | None:
    """The user's category a mention names (either language, any case, or its path)."""
    tree = tree_for(ctx)
    if not tree:
        return None
    found = tree.find(mention) or _by_form(tree, loose(mention))
    if found is None:
        return None
    return Thing(
        "category",
        found.path,
        label(found),
        "user category",
        user_categories=tuple(tree.subtree(found.category_id)),
    )


def _names_form(key: str, word: str) -> bool:
    """Whether `word` is another form of the category name `key` (both loose): 打游戏
    holds 游戏; game, gamed and gaming share games' stem."""
    if _CJK.search(key):
        return len(key) >= 2 and key in word
    return len(key) >= 4 and word.startswith(_stem(key)) and len(word) <= len(key) + 3


def _by_form(tree: CategoryTree, word: str) -> UserCategoryRow | None:
    """The shallowest category one of whose names `word` is a form of."""
    found = [
        r for r in tree.rows if any(_names_form(loose(n), word) for n in (r.name, r.name_zh) if n)
    ]
    return min(found, key=lambda r: (r.depth, r.category_id)) if found else None


def category_seconds(
    ctx: ToolContext, thing: Thing, *, day_from: date, day_to: date
) -> tuple[float, dict[str, float]]:
    """A user category's seconds over [day_from, day_to], and by category below it."""
    tree = tree_for(ctx)
    parts: dict[str, float] = defaultdict(float)
    for row in ctx.store.user_category_seconds(
        user_id=ctx.user.user_id, day_from=day_from, day_to=day_to
    ):
        if row.category_id in thing.user_categories and row.category_id in tree.by_id:
            parts[tree.by_id[row.category_id].path] += row.seconds
    return sum(parts.values()), dict(parts)


def category_seconds_by_day(
    ctx: ToolContext, thing: Thing, *, day_from: date, day_to: date
) -> dict[date, float]:
    """A user category's seconds on each logical day that has any."""
    by_day: dict[date, float] = defaultdict(float)
    for row in ctx.store.user_category_days(
        user_id=ctx.user.user_id, day_from=day_from, day_to=day_to
    ):
        if row.category_id in thing.user_categories:
            by_day[row.day_local] += row.seconds
    return {day: s for day, s in sorted(by_day.items()) if s > 0}


def user_category_items(
    ctx: ToolContext, *, day_from: date, day_to: date, top_n: int | None = None
) -> list[UserCategoryTime]:
    """Every category of the user's with time in the period (its subtree's seconds),
    most first. A user with no categories has none: their records are not read."""
    tree = tree_for(ctx)
    if not tree:
        return []
    own = {
        r.category_id: r.seconds
        for r in ctx.store.user_category_seconds(
            user_id=ctx.user.user_id, day_from=day_from, day_to=day_to
        )
    }
    totals = tree.rolled_up(own)
    ordered = sorted(
        ((tree.by_id[i], s) for i, s in totals.items() if s > 0),
        key=lambda pair: (-pair[1], pair[0].path),
    )
    return [
        UserCategoryTime(
            category=row.path,
            kind=row.kind,
            color=row.color,
            seconds=round(s),
            hours=round(s / 3600, 2),
        )
        for row, s in ordered[:top_n]
    ]


def _stem(key: str) -> str:
    """The part of a Latin name its other forms share: "gam" for games (game, gamed,
    gaming)."""
    return key[: max(3, len(key) - 2)]


def category_mentions(known: Iterable[KnownName], names: Mapping[str, str]) -> dict[str, str]:
    """The words of a question that name the user's own categories, to the mention the
    resolver takes for each (its path): its names in both languages, and the words the
    lexicon gave its kind that say the same thing ("game", "打游戏" for Games under
    entertainment, when "游戏" or "games" is its name). Learnt from the data
    (`known_names`' rows of categories), so asking knows them without a rule of its own."""
    out: dict[str, str] = {}
    for row in known:
        if row.category is None:
            continue
        keys = [k for k in (loose(n) for n in row.category_names or ()) if k]
        out.update(dict.fromkeys(keys, row.category))
        for word, mention in names.items():
            if mention != row.category_kind or word in out:
                continue
            if any(_names_form(key, word) for key in keys):
                out[word] = row.category
    return out
