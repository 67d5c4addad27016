"""The user's category tree as the rules and counts read it (app/rules/tree.py), the
words that name its categories in a question (app/tools/user_categories.py), and the
tree as aw-webui's classes (app/db/export_aw.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from app.db.export_aw import classes_from
from app.errors import InvalidInputError
from app.rules.tree import CategoryTree, check_color, target
from app.store.tools import KnownName
from app.store.user_categories import UserCategoryRow
from app.store.user_rules import UserRuleRow
from app.tools.user_categories import category_mentions

NOW = datetime(2003, 3, 12, tzinfo=UTC)


def _row(
    i: int, parent: int | None, name: str, path: str, *, zh: str | None = None
) -> UserCategoryRow:
    return UserCategoryRow(
        category_id=i, parent_id=parent, kind="entertainment", name=name, name_zh=zh,
        color=None, path=path, depth=path.count(">") + 1,
    )  # fmt: skip


TREE = CategoryTree(
    [
        _row(1, None, "Media", "Media"),
        _row(2, 1, "Games", "Media > Games", zh="游戏"),
        _row(3, 2, "Steam", "Media > Games > Steam"),
    ]
)


def test_a_category_is_found_by_either_name_its_path_or_its_id() -> None:
    assert TREE.named("games").category_id == 2
    assert TREE.named("游戏").category_id == 2
    assert TREE.named("media/games/steam").category_id == 3
    assert TREE.named("#1").category_id == 1
    with pytest.raises(InvalidInputError, match="no category 'Chess'"):
        TREE.named("Chess")


def test_seconds_roll_up_the_tree_and_a_rule_target_is_a_kind_or_a_category() -> None:
    assert TREE.rolled_up({3: 60.0, 2: 40.0}) == {1: 100.0, 2: 100.0, 3: 60.0}
    assert TREE.subtree(1) == [1, 2, 3]
    assert target(TREE, "work") == ("work", None)
    assert target(TREE, "Games") == ("entertainment", 2)
    assert check_color("#ABC") == "#aabbcc"
    with pytest.raises(InvalidInputError):
        check_color("red")


def test_the_kinds_words_that_say_a_categorys_name_name_the_category() -> None:
    known = [
        KnownName(app="Slack", domain=None, records=3, titled=False),
        KnownName(app="", domain=None, records=0, titled=False, category="Media > Games",
                  category_kind="entertainment", category_names=["Games", "游戏"]),
    ]  # fmt: skip
    names = {"game": "entertainment", "gaming": "entertainment", "打游戏": "entertainment",
             "videos": "entertainment", "gamesir": "GameSir", "code": "work"}  # fmt: skip
    assert category_mentions(known, names) == {
        "games": "Media > Games",
        "游戏": "Media > Games",
        "game": "Media > Games",
        "gaming": "Media > Games",
        "打游戏": "Media > Games",
    }


def test_the_tree_goes_out_as_aw_webuis_classes() -> None:
    rules = [
        UserRuleRow(rule_id=1, position=1, kind="regex", pattern="(?i)steam",
                    category="entertainment", category_id=3, created=NOW, updated=NOW),
        UserRuleRow(rule_id=2, position=2, kind="app", pattern="Hades", category="entertainment",
                    category_id=2, created=NOW, updated=NOW),
        UserRuleRow(rule_id=3, position=3, kind="title", pattern="chess*online",
                    category="entertainment", category_id=2, created=NOW, updated=NOW),
    ]  # fmt: skip
    assert classes_from(TREE.rows, rules) == [
        {"name": ["Media"], "rule": {"type": "none"}},
        {"name": ["Media", "Games"],
         "rule": {"type": "regex", "regex": "(?:^Hades$)|(?:chess.*online)", "ignore_case": False}},
        {"name": ["Media", "Games", "Steam"],
         "rule": {"type": "regex", "regex": "steam", "ignore_case": True}},
    ]  # fmt: skip
