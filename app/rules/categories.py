"""Category and privacy rules applied at ingest, so every record has a category
without any model and excluded activity never reaches the database in clear.

    rules = load_rules(user_file=None)
    verdict = rules.classify(app="Code", title="main.py — timetrace", domain=None)
    verdict.category  # "work"
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal, get_args

from app.errors import ConfigError

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
    patterns: tuple[tuple[str, re.Pattern[str]], ...]
    incognito: bool | None

    def matches(self, fields: dict[str, str], *, incognito: bool) -> bool:
        if self.incognito is not None and self.incognito != incognito:
            return False
        return all(pattern.search(fields[field]) for field, pattern in self.patterns)


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
    source: str  # "rule:<name>", "idle" or "default"
    action: ExcludeAction | None = None  # set when a privacy rule matched
    exclude_rule: str | None = None


def _compile_rule(raw: dict[str, Any], *, origin: str, kind: str) -> dict[str, Any]:
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{origin}: every [[{kind}]] needs a name")
    patterns: list[tuple[str, re.Pattern[str]]] = []
    for field in _FIELDS:
        if field in raw:
            try:
                patterns.append((field, re.compile(str(raw[field]), re.IGNORECASE)))
            except re.error as exc:
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


def _parse(text: str, *, origin: str) -> tuple[list[CategoryRule], list[ExcludeRule]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{origin}: not valid TOML: {exc}") from exc
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


class Rules:
    """An ordered set of privacy and category rules; first match wins."""

    def __init__(self, *, categories: list[CategoryRule], excludes: list[ExcludeRule]) -> None:
        self.categories = categories
        self.excludes = excludes
        # Window titles repeat frame after frame: most lookups are cache hits.
        self.classify = lru_cache(maxsize=65_536)(self._classify)

    def _classify(
        self,
        *,
        app: str,
        title: str,
        domain: str | None,
        idle: bool = False,
        incognito: bool = False,
    ) -> Verdict:
        fields = {"app": app, "title": title, "domain": domain or ""}
        for exclude in self.excludes:
            if exclude.matches(fields, incognito=incognito):
                if exclude.action == "drop":
                    return Verdict("uncategorized", "excluded", "drop", exclude.name)
                # A redacted record is categorised from its app alone: the title
                # and URL it hid must not leak through the category either.
                kept = self._category({"app": app, "title": "", "domain": ""}, idle=idle)
                return Verdict(kept.category, kept.source, "redact", exclude.name)
        return self._category(fields, idle=idle)

    def _category(self, fields: dict[str, str], *, idle: bool) -> Verdict:
        if idle:
            return Verdict("system", "idle")
        for rule in self.categories:
            if rule.matches(fields, incognito=False):
                return Verdict(rule.category, f"rule:{rule.name}")
        return Verdict("uncategorized", "default")


def load_rules(*, user_file: Path | None) -> Rules:
    """The user's rules (if any) followed by the shipped defaults."""
    categories: list[CategoryRule] = []
    excludes: list[ExcludeRule] = []
    if user_file is not None:
        try:
            text = user_file.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot read rules file {user_file}: {exc.strerror}") from exc
        user_categories, user_excludes = _parse(text, origin=str(user_file))
        categories += user_categories
        excludes += user_excludes
    default_text = resources.files("app").joinpath("rules/default.toml").read_text("utf-8")
    default_categories, default_excludes = _parse(default_text, origin="default rules")
    return Rules(categories=categories + default_categories, excludes=excludes + default_excludes)
