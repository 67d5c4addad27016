"""aw-webui's category tree, the `classes` setting, as TimeTrace will take it.

    rules = category_rules(classes)  # [(["Work", "Programming"], {"type": "regex", ...}), ...]

aw-webui keeps its categories in `/api/0/settings/classes`: a list of objects
`{"id", "name": [path…], "rule": {"type": "regex" | "none", "regex", "ignore_case"},
"data": {"color", "score"}}`. The door keeps the setting as written and reads it back
the same. `classes_written` is the one seam where a tree aw-webui writes is to become
the user's own category tree in TimeTrace (so that an edit in aw-webui re-categorises as
a rules change does); until TimeTrace has a per-user tree, it only checks the shape.
"""

from __future__ import annotations

from typing import Any

from app.awdoor.events import AwInputError

CategoryRule = tuple[list[str], dict[str, Any]]


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


def classes_written(*, user_id: int, classes: object) -> list[CategoryRule]:
    """aw-webui wrote its category tree for `user_id`: the seam where it becomes the
    user's category tree (wired when TimeTrace keeps one per user). Its rules today."""
    return category_rules(classes)
