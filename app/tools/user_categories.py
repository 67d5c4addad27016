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

from collections import defaultdict
from datetime import date

from pydantic import Field

from app.rules.things import Thing
from app.rules.tree import CategoryTree, label
from app.tools.registry import ToolContext
from app.tools.results import Shape


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
    found = tree.find(mention) if tree else None
    if found is None:
        return None
    return Thing(
        "category",
        found.path,
        label(found),
        "user category",
        user_categories=tuple(tree.subtree(found.category_id)),
    )


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
    most first."""
    tree = tree_for(ctx)
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
