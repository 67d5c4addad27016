"""How a user's own category rule (`app/rules/user.py`) names a record: the reading the
database function `timetrace_user_rule_matches` (migration 0027) shares, record for
record. A leaf, so that the category rules can try a user's rules first.

    rule = UserRule(rule_id=7, kind="title", pattern="standup*notes", category="work")
    matches(rule, app="Notion", domain=None, title="Standup — Weekly notes")  # True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, get_args

from app.patterns import LinearPattern

RuleKind = Literal["app", "site", "title", "regex"]
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


@lru_cache(maxsize=4_096)
def regex(pattern: str) -> LinearPattern:
    """A regex rule's pattern (ActivityWatch's categories), case-sensitive unless it
    starts with (?i), as the database's `~` reads it."""
    return LinearPattern.compile(pattern, ignore_case=False)


def matches(rule: UserRule, *, app: str, domain: str | None, title: str) -> bool:
    """Whether the rule names a record with this canonical app, URL domain and title."""
    if rule.kind == "regex":
        found = regex(rule.pattern)
        return found.matches(app) or found.matches(title)
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


_GRAM = 3  # characters of the piece a title rule is found by


class RuleSet:
    """A user's rules compiled for one pass per record: `first` finds what `first_match`
    finds, in time that does not grow with the number of rules. App rules by a lookup
    of the app, site rules by the domain and each of its parents, title rules by a few
    characters of their longest piece found in the folded title (a rule whose piece is
    not in the title cannot match), then checked with `matches` itself, in order.

        rules = RuleSet(user_rules)
        rules.first(app="Slack", domain=None, title="general")  # first_match(...)
    """

    __slots__ = ("_apps", "_grams", "_regexes", "_sites", "rules")

    def __init__(self, rules: Sequence[UserRule]) -> None:
        self.rules = tuple(rules)
        self._apps: dict[str, int] = {}
        self._sites: dict[str, int] = {}
        self._grams: dict[int, dict[str, list[int]]] = {}  # gram length -> gram -> rules
        self._regexes: list[int] = []  # tried on every record (few: ActivityWatch's)
        for i, rule in enumerate(self.rules):
            if rule.kind == "regex":
                self._regexes.append(i)
            elif rule.kind == "app":
                self._apps.setdefault(rule.pattern, i)
            elif rule.kind == "site":
                self._sites.setdefault(rule.pattern, i)
            else:
                piece = max(fold(rule.pattern).split("*"), key=len)
                gram = piece[:_GRAM]
                self._grams.setdefault(len(gram), {}).setdefault(gram, []).append(i)

    def first(self, *, app: str, domain: str | None, title: str) -> UserRule | None:
        """The first rule, in the user's order, that names the record."""
        best = self._apps.get(app, len(self.rules))
        if domain is not None and self._sites:
            parts = domain.split(".")
            for n in range(len(parts)):
                found = self._sites.get(".".join(parts[n:]))
                if found is not None and found < best:
                    best = found
        if self._grams:
            best = self._title(fold(title), app=app, domain=domain, title=title, best=best)
        for i in self._regexes:
            if i >= best:
                break
            if matches(self.rules[i], app=app, domain=domain, title=title):
                best = i
                break
        return self.rules[best] if best < len(self.rules) else None

    def _title(self, folded: str, *, app: str, domain: str | None, title: str, best: int) -> int:
        """The first title rule before `best` that names the record, else `best`."""
        found: list[int] = []
        for size, grams in self._grams.items():
            if size == 0:  # a rule of `*` and nothing else names every title
                found.extend(grams[""])
                continue
            seen = {folded[i : i + size] for i in range(len(folded) - size + 1)}
            for gram in seen & grams.keys() if len(seen) < len(grams) else grams.keys() & seen:
                found.extend(grams[gram])
        for i in sorted(found):
            if i >= best:
                break
            if matches(self.rules[i], app=app, domain=domain, title=title):
                return i
        return best
