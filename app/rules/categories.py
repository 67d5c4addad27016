"""Category and privacy rules applied at ingest, so every record has a category
without any model and excluded activity never reaches the database in clear.

    rules = load_rules(user_file=None)
    verdict = rules.classify(app="Code.exe", title="main.py — timetrace", domain=None)
    verdict.category, verdict.app  # "work", "Visual Studio Code"

The reported app name is first mapped to its canonical name (`app/rules/apps.py`);
rules match the canonical name. A browser record without a URL gets its site from
the window title (`verdict.source` then reads `title:<rule>`: lower confidence).
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args

from app.errors import ConfigError
from app.patterns import LinearPattern, PatternSyntaxError, encoded
from app.rules.apps import AppIdentities, load_app_identities
from app.rules.user_match import RuleSet, UserRule

Category = Literal["work", "study", "social", "entertainment", "system", "uncategorized"]
CATEGORIES: tuple[Category, ...] = get_args(Category)
CATEGORY_LABELS_ZH: dict[Category, str] = {
    "work": "工作",
    "study": "学习",
    "social": "沟通",
    "entertainment": "娱乐",
    "system": "系统",
    "uncategorized": "未分类",
}
ExcludeAction = Literal["drop", "redact"]
_FIELDS = ("app", "title", "domain")


@dataclass(frozen=True, slots=True)
class _Rule:
    name: str
    patterns: tuple[tuple[str, LinearPattern], ...]
    incognito: bool | None

    def title_pattern(self) -> LinearPattern | None:
        return next((pattern for field, pattern in self.patterns if field == "title"), None)

    def admits(self, *, app: str, domain: str, incognito: bool) -> bool:
        """Whether everything but the title matches."""
        if self.incognito is not None and self.incognito != incognito:
            return False
        values = {"app": app, "domain": domain}
        return all(p.matches(values[f]) for f, p in self.patterns if f != "title")


@dataclass(frozen=True, slots=True)
class CategoryRule(_Rule):
    category: Category


@dataclass(frozen=True, slots=True)
class ExcludeRule(_Rule):
    action: ExcludeAction


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the rules decided for one record."""

    category: Category
    source: str  # "rule:<name>", "title:<name>" (site read from a title), "idle" or "default"
    action: ExcludeAction | None = None  # set when a privacy rule matched
    exclude_rule: str | None = None
    app: str = ""  # the canonical app name


def _compile_rule(raw: dict[str, Any], *, origin: str, kind: str) -> dict[str, Any]:
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{origin}: every [[{kind}]] needs a name")
    patterns: list[tuple[str, LinearPattern]] = []
    for field in _FIELDS:
        if field in raw:
            try:
                patterns.append((field, LinearPattern.compile(str(raw[field]))))
            except PatternSyntaxError as exc:
                raise ConfigError(f"{origin}: rule {name!r}: bad {field} regex: {exc}") from exc
    incognito = raw.get("incognito")
    if incognito is not None and not isinstance(incognito, bool):
        raise ConfigError(f"{origin}: rule {name!r}: incognito must be true or false")
    if not patterns and incognito is None:
        raise ConfigError(f"{origin}: rule {name!r} matches nothing (give app, title or domain)")
    unknown = set(raw) - {"name", "category", "action", "incognito", *_FIELDS}
    if unknown:
        raise ConfigError(f"{origin}: rule {name!r}: unknown keys {sorted(unknown)}")
    return {"name": name, "patterns": tuple(patterns), "incognito": incognito}


def _load_toml(text: str, *, origin: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{origin}: not valid TOML: {exc}") from exc


def _parse(data: dict[str, Any], *, origin: str) -> tuple[list[CategoryRule], list[ExcludeRule]]:
    categories: list[CategoryRule] = []
    for raw in data.get("category", []):
        common = _compile_rule(raw, origin=origin, kind="category")
        category = raw.get("category")
        if category not in CATEGORIES:
            raise ConfigError(
                f"{origin}: rule {common['name']!r}: category must be one of {list(CATEGORIES)}"
            )
        categories.append(CategoryRule(category=category, **common))
    excludes: list[ExcludeRule] = []
    for raw in data.get("exclude", []):
        common = _compile_rule(raw, origin=origin, kind="exclude")
        action = raw.get("action", "drop")
        if action not in get_args(ExcludeAction):
            raise ConfigError(f"{origin}: rule {common['name']!r}: action must be drop or redact")
        excludes.append(ExcludeRule(action=action, **common))
    return categories, excludes


R = TypeVar("R", bound=_Rule)
# Rules whose app and domain patterns matched, each with its title pattern (if any).
Shortlist = tuple[tuple[R, LinearPattern | None], ...]
_SHORTLISTS_MAX = 100_000
_FOR_USER_MAX = 256  # users' rule sets kept specialised (each with its own verdict cache)


class Rules:
    """App identities, then an ordered set of privacy and category rules; first match wins."""

    def __init__(
        self, *, categories: list[CategoryRule], excludes: list[ExcludeRule], apps: AppIdentities
    ) -> None:
        self.categories = categories
        self.excludes = excludes
        self.apps = apps
        # App names and domains repeat endlessly, titles much less: per (app, domain) the
        # rules are cut down once to those that only still need their title checked.
        self._shortlists: dict[
            tuple[str, str, bool], tuple[Shortlist[ExcludeRule], Shortlist[CategoryRule]]
        ] = {}
        # Window titles repeat frame after frame: most lookups are cache hits.
        self.classify = lru_cache(maxsize=65_536)(self._classify)
        self.user: tuple[UserRule, ...] = ()
        self._user_set = RuleSet(())  # the user's rules, compiled for one pass a record
        self._for_user: dict[tuple[UserRule, ...], Rules] = {}

    def for_user(self, rules: Sequence[UserRule]) -> Rules:
        """These rules with a user's own rules (`app/rules/user.py`) tried first: the
        same verdicts but for the category of a record one of them names. Privacy rules
        still come first, idle time stays `system`, and a redacted record is named by
        its app alone (its title and URL were hidden)."""
        key = tuple(rules)
        if not key:
            return self
        found = self._for_user.get(key)
        if found is None:
            if len(self._for_user) >= _FOR_USER_MAX:
                self._for_user.clear()
            found = Rules(categories=self.categories, excludes=self.excludes, apps=self.apps)
            found._shortlists = self._shortlists  # the file rules' work is shared
            found.user = key
            found._user_set = RuleSet(key)
            found.classify = lru_cache(maxsize=16_384)(found._classify_for_user)
            self._for_user[key] = found
        return found

    def _classify_for_user(
        self,
        *,
        app: str,
        title: str,
        domain: str | None,
        idle: bool = False,
        incognito: bool = False,
    ) -> Verdict:
        verdict = self._classify(
            app=app, title=title, domain=domain, idle=idle, incognito=incognito
        )
        if idle or verdict.action == "drop":
            return verdict
        hidden = verdict.action == "redact"
        rule = self._user_set.first(
            app=verdict.app,
            domain=None if hidden else domain,
            title="" if hidden else title,
        )
        if rule is None:
            return verdict
        category: Category = rule.category  # type: ignore[assignment]  # checked on write
        return replace(verdict, category=category, source=rule.source)

    def _classify(
        self,
        *,
        app: str,
        title: str,
        domain: str | None,
        idle: bool = False,
        incognito: bool = False,
    ) -> Verdict:
        """`app` as reported, `domain` from the record's URL (None without one)."""
        name = self.apps.canonical(app)
        site = None
        if domain is None and self.apps.is_browser(name):
            site = self.apps.site_of(self.apps.page_title(title))
        excludes, categories = self._shortlist(name, domain or site or "", incognito)
        exclude = _first(excludes, title)
        if exclude is not None:
            if exclude.action == "drop":
                return Verdict("uncategorized", "excluded", "drop", exclude.name, name)
            # A redacted record is categorised from its app alone: the title
            # and URL it hid must not leak through the category either.
            category, source = self._category(self._shortlist(name, "", False)[1], "", idle, False)
            return Verdict(category, source, "redact", exclude.name, name)
        category, source = self._category(categories, title, idle, site is not None)
        return Verdict(category, source, app=name)

    def _shortlist(
        self, app: str, domain: str, incognito: bool
    ) -> tuple[Shortlist[ExcludeRule], Shortlist[CategoryRule]]:
        key = (app, domain, incognito)
        found = self._shortlists.get(key)
        if found is None:
            if len(self._shortlists) >= _SHORTLISTS_MAX:
                self._shortlists.clear()
            excludes = _admitted(self.excludes, app=app, domain=domain, incognito=incognito)
            # Category rules ignore the incognito flag (a private window is an exclude).
            categories = _admitted(self.categories, app=app, domain=domain, incognito=False)
            found = self._shortlists[key] = (excludes, categories)
        return found

    def _category(
        self, shortlist: Shortlist[CategoryRule], title: str, idle: bool, site_from_title: bool
    ) -> tuple[Category, str]:
        if idle:
            return "system", "idle"
        rule = _first(shortlist, title)
        if rule is None:
            return "uncategorized", "default"
        # A site read from a title, not a URL, is a lower-confidence source: say so.
        titled = site_from_title and any(field == "domain" for field, _ in rule.patterns)
        return rule.category, f"{'title' if titled else 'rule'}:{rule.name}"


def _admitted(rules: Sequence[R], *, app: str, domain: str, incognito: bool) -> Shortlist[R]:
    return tuple(
        (rule, rule.title_pattern())
        for rule in rules
        if rule.admits(app=app, domain=domain, incognito=incognito)
    )


def _first(shortlist: Shortlist[R], title: str) -> R | None:
    data: bytes | None = None  # the title encoded once, for all the patterns it meets
    for rule, title_pattern in shortlist:
        if title_pattern is None:
            return rule
        data = encoded(title) if data is None else data
        if title_pattern.matches_encoded(data):
            return rule
    return None


def load_rules(*, user_file: Path | None) -> Rules:
    """The user's rules and app identities (if any) followed by the shipped defaults."""
    categories: list[CategoryRule] = []
    excludes: list[ExcludeRule] = []
    user_data: dict[str, Any] | None = None
    if user_file is not None:
        try:
            text = user_file.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read rules file {user_file}: {exc.strerror}") from exc
        user_data = _load_toml(text, origin=str(user_file))
        categories, excludes = _parse(user_data, origin=str(user_file))
    default_text = resources.files("app").joinpath("rules/default.toml").read_text("utf-8")
    default_categories, default_excludes = _parse(
        _load_toml(default_text, origin="default rules"), origin="default rules"
    )
    return Rules(
        categories=categories + default_categories,
        excludes=excludes + default_excludes,
        apps=load_app_identities(user_data=user_data, user_origin=str(user_file)),
    )
