"""The coverage view: which apps and sites took the most time that no rule
categorised, each with a rule line that would categorise it.

    items = coverage_items(rows, apps=rules.apps, top_n=10)
    items[0].rule  # "title = 'Slack'" for Slack in Firefox
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence

from app.rules.apps import AppIdentities
from app.store.tools import UncategorizedTime
from app.tools.results import Shape, opt

_REGEX_SPECIAL = re.compile(r"([.^$*+?{}\[\]\\|()])")


def _literal(text: str) -> str:
    """A regex matching `text` literally, readable (spaces and CJK left alone)."""
    return _REGEX_SPECIAL.sub(r"\\\1", text)


def _toml_string(text: str) -> str:
    # A literal string keeps backslashes as they are; one holding a quote cannot be one.
    return f"'{text}'" if "'" not in text else json.dumps(text, ensure_ascii=False)


def rule_line(*, field: str, pattern: str) -> str:
    """One line of a [[category]] table, e.g. `domain = '(^|\\.)example\\.com$'`."""
    return f"{field} = {_toml_string(pattern)}"


def _key(row: UncategorizedTime, apps: AppIdentities) -> tuple[str, str | None, str | None]:
    """(app, site shown to the user, rule line) of one row."""
    if row.domain:
        pattern = rf"(^|\.){_literal(row.domain)}$"
        return row.app, row.domain, rule_line(field="domain", pattern=pattern)
    if row.window_title:
        site = apps.site_label(apps.page_title(row.window_title))
        if site:
            return row.app, site, rule_line(field="title", pattern=_literal(site))
    if apps.is_browser(row.app):
        return row.app, None, None  # a private or untitled window: nothing to match on
    return row.app, None, rule_line(field="app", pattern=f"^{_literal(row.app)}$")


class Uncovered(Shape):
    """An app or site with uncategorized time, and the rule line that would categorise it."""

    app: str
    site: str | None = opt()
    seconds: int
    hours: float
    rule: str | None = opt("none for private or untitled browser windows")


def coverage_items(
    rows: Sequence[UncategorizedTime], *, apps: AppIdentities, top_n: int
) -> list[Uncovered]:
    """The apps and sites with the most uncategorized time, most first."""
    seconds: dict[tuple[str, str | None, str | None], float] = {}
    for row in rows:
        key = _key(row, apps)
        seconds[key] = seconds.get(key, 0.0) + row.seconds
    ordered = sorted(seconds.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1] or ""))
    return [
        Uncovered(app=app, site=site, seconds=round(total), hours=round(total / 3600, 2), rule=rule)
        for (app, site, rule), total in ordered[:top_n]
    ]


_NAME = re.compile(r"[^\w]+")


def rules_snippet(items: Sequence[Uncovered]) -> str:
    """[[category]] tables for the items that have a rule line, ready to paste into a
    rules file once each `category` is set."""
    blocks = []
    for item in items:
        if item.rule is None:
            continue
        label = item.site or item.app
        name = _NAME.sub("-", f"{item.app}-{label}" if item.site else label).strip("-")
        blocks.append(
            "[[category]]\n"
            f"name = {json.dumps(name.lower() or 'app', ensure_ascii=False)}\n"
            'category = "work"  # work, study, social, entertainment or system\n'
            f"{item.rule}\n"
        )
    return "\n".join(blocks)


def user_rule_for(item: Uncovered) -> tuple[str, str] | None:
    """(kind, pattern) of a user rule (`timetrace rules add`, the Rules page) that would
    categorise the item: its site by domain, its site's name in titles, or its app."""
    if item.rule is None:
        return None
    if item.rule.startswith("domain") and item.site:
        return "site", item.site
    if item.rule.startswith("title") and item.site:
        return "title", item.site
    return "app", item.app


def rule_add_command(item: Uncovered) -> str | None:
    """The `timetrace rules add` line for an item (its category left to choose)."""
    found = user_rule_for(item)
    if found is None:
        return None
    kind, pattern = found
    return f"timetrace rules add {kind} {shlex.quote(pattern)} CATEGORY"
