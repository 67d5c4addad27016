"""The category rules each user writes ("always count Slack as work"): stored per user in
the database (`user_rules`), tried before the file and default rules, first match wins.

    rule = UserRule(rule_id=7, kind="app", pattern="Slack", category="work")
    matches(rule, app="Slack", domain=None, title="general - Acme - Slack")  # True
    first_match((rule,), app="Slack", domain=None, title="")                 # rule
    normalize_pattern(kind="app", text="code.exe", vocabulary=vocabulary)    # "Visual Studio Code"

A rule names one thing, read exactly as the database function
`timetrace_user_rule_matches` (migration 0027) reads it, so that a preview of the
history, its re-categorising and ingest agree record for record:

- `app`: the canonical app name (`app/rules/apps.toml`), equal;
- `site`: a host, equal to the record's domain (from its URL) or a parent of it;
- `title`: text the window title contains, ASCII letters in either case, `*` standing
  for any run of characters;
- `regex`: a regular expression searched in the app and the title, case-sensitive
  unless it starts with `(?i)` (ActivityWatch's categories, `app/importers/aw_tree.py`).

A site rule needs the URL's domain: a browser window without a URL matches a title
rule (what the coverage view and the web UI offer for it).
"""

from __future__ import annotations

from collections.abc import Sequence

from app.boundary import RULES_MAX, identifier
from app.errors import InvalidInputError
from app.patterns import PatternSyntaxError
from app.rules.categories import CATEGORIES, Category, Rules
from app.rules.things import Vocabulary
from app.rules.user_match import (
    RULE_KINDS,
    SOURCE_PREFIX,
    RuleKind,
    UserRule,
    first_match,
    fold,
    matches,
    regex,
)
from app.store.user_rules import UserRuleRow, UserRuleStore
from app.text import canonical_domain

__all__ = [
    "PATTERN_MAX",
    "RULES_MAX",
    "RULE_KINDS",
    "SOURCE_PREFIX",
    "RuleKind",
    "UserRule",
    "check_category",
    "check_count",
    "check_kind",
    "first_match",
    "fold",
    "matches",
    "normalize_pattern",
    "rules_for_user",
    "to_user_rules",
]
PATTERN_MAX = 500


def check_count(count: int) -> int:
    """A user's number of rules, refused past `RULES_MAX`."""
    if count > RULES_MAX:
        raise InvalidInputError(
            f"a user keeps at most {RULES_MAX:,} rules; delete or merge some first"
        )
    return count


def check_category(value: str) -> Category:
    if value not in CATEGORIES:
        raise InvalidInputError(f"category must be one of {', '.join(CATEGORIES)}; got {value!r}")
    return value


def check_kind(value: str) -> RuleKind:
    if value not in RULE_KINDS:
        raise InvalidInputError(f"kind must be one of {', '.join(RULE_KINDS)}; got {value!r}")
    return value


def normalize_pattern(*, kind: RuleKind, text: str, vocabulary: Vocabulary) -> str:
    """What a rule stores for what a person typed: the canonical app for any of its
    names ("code.exe", "VS Code" and "Visual Studio Code" are one app), the site's
    domain for a site's name or address ("知乎", "https://www.zhihu.com/x"), a title
    pattern trimmed."""
    text = text.strip()
    if not text:
        raise InvalidInputError(f"say which {kind} the rule is for")
    try:
        identifier(text)  # no NUL (PostgreSQL cannot hold it), no lone surrogate
    except ValueError as exc:
        raise InvalidInputError(f"a rule's pattern {exc}") from None
    if len(text) > PATTERN_MAX:
        raise InvalidInputError(f"a rule's pattern is at most {PATTERN_MAX} characters")
    if kind == "regex":
        try:
            regex(text)
        except PatternSyntaxError as exc:
            raise InvalidInputError(f"a rule's regex cannot run: {exc}") from None
        return text
    if kind == "title":
        if not text.replace("*", "").strip():
            raise InvalidInputError("a title pattern needs some text besides *")
        return text
    thing = vocabulary.match(text)
    if kind == "app":
        if thing is not None and thing.kind in ("app", "site") and len(thing.apps) == 1:
            return thing.apps[0]
        return vocabulary.apps.canonical(text)
    if thing is not None and thing.kind == "site":
        return thing.name
    domain = canonical_domain(text if "://" in text else f"https://{text}")
    if not domain or "." not in domain:
        raise InvalidInputError(f"{text!r} is not a site's name or address (say example.com)")
    return domain


def to_user_rules(rows: Sequence[UserRuleRow]) -> tuple[UserRule, ...]:
    """A user's stored rules, in their order, as the category rules try them."""
    return tuple(
        UserRule(rule_id=r.rule_id, kind=check_kind(r.kind), pattern=r.pattern, category=r.category)
        for r in rows
    )


def rules_for_user(store: UserRuleStore, rules: Rules, *, user_id: int) -> Rules:
    """`rules` with the user's own rules tried first (the rules themselves when none)."""
    return rules.for_user(to_user_rules(store.list_user_rules(user_id=user_id)))
