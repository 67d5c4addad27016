"""How a user's own category rule (`app/rules/user.py`) names a record: the reading the
database function `timetrace_user_rule_matches` (migration 0027) shares, record for
record. A leaf, so that the category rules can try a user's rules first.

    rule = UserRule(rule_id=7, kind="title", pattern="standup*notes", category="work")
    matches(rule, app="Notion", domain=None, title="Standup — Weekly notes")  # True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

RuleKind = Literal["app", "site", "title"]
RULE_KINDS: tuple[RuleKind, ...] = get_args(RuleKind)
SOURCE_PREFIX = "user:"  # records.category_source of a record a user rule categorised

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def fold(text: str) -> str:
    """ASCII letters in lower case, everything else as it is (the database's reading,
    whatever its locale)."""
    return text.translate(_ASCII_LOWER)


@dataclass(frozen=True, slots=True)
class UserRule:
    rule_id: int
    kind: RuleKind
    pattern: str
    category: str  # a Category (app/rules/categories.py)

    @property
    def source(self) -> str:
        return f"{SOURCE_PREFIX}{self.rule_id}"


def _title_matches(pattern: str, title: str) -> bool:
    """Whether `title` contains the pattern's pieces in order (`*` between them)."""
    text = fold(title)
    at = 0
    for piece in fold(pattern).split("*"):
        found = text.find(piece, at)
        if found < 0:
            return False
        at = found + len(piece)
    return True


def matches(rule: UserRule, *, app: str, domain: str | None, title: str) -> bool:
    """Whether the rule names a record with this canonical app, URL domain and title."""
    if rule.kind == "app":
        return app == rule.pattern
    if rule.kind == "site":
        return domain is not None and (
            domain == rule.pattern or domain.endswith("." + rule.pattern)
        )
    return _title_matches(rule.pattern, title)


def first_match(
    rules: Sequence[UserRule], *, app: str, domain: str | None, title: str
) -> UserRule | None:
    """The first rule, in the user's order, that names the record."""
    return next((r for r in rules if matches(r, app=app, domain=domain, title=title)), None)
