"""ActivityWatch's categories as TimeTrace category rules: read, shown, then (if asked)
added to the user's rules file.

    found = read_server_classes(client, url="http://localhost:5600")   # None: it keeps none
    proposal = propose(found)            # the rules, and what could not be turned into one
    print(proposal.preview())            # shown before anything is applied
    apply(proposal, rules_file=path)     # appended after the user's own rules

aw-webui keeps its categories as regex classes in the server's settings (`classes`:
`GET /api/0/settings/classes` on aw-server-rust and aw-server 0.13+; the Python
aw-server 0.12 has no settings and aw-webui kept them in the browser, from where
its Settings page exports them as a file, which `read_export_classes` reads).

A class names a path (["Work", "Programming"]) and a rule: a Python regex searched in
every text of an event (app and title), case-sensitive unless `ignore_case`; of the
classes that match, aw-core takes the deepest (or the highest `priority`), so the
rules are written deepest first (TimeTrace's first matching rule wins).
TimeTrace's categories are a fixed few, so a class becomes one by the first name on
its path, deepest first, that says which (`_CATEGORY_WORDS`); it becomes two rules,
one on the app and one on the title (TimeTrace's patterns of one rule must all
match), kept case-sensitive where ActivityWatch's was (`(?-i:…)`). A class whose path
names none of the categories, or whose regex RE2 cannot run, is listed as skipped,
with the reason.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from app.errors import InvalidInputError
from app.patterns import LinearPattern, PatternSyntaxError
from app.rules.categories import CATEGORIES, Category, load_rules

# Category names of aw-webui's defaults and common ones users make, English and
# Chinese, lower case -> TimeTrace's category.
_CATEGORY_WORDS: dict[str, Category] = {
    "work": "work",
    "programming": "work",
    "coding": "work",
    "development": "work",
    "工作": "work",
    "编程": "work",
    "study": "study",
    "learning": "study",
    "education": "study",
    "school": "study",
    "reading": "study",
    "学习": "study",
    "阅读": "study",
    "comms": "social",
    "communication": "social",
    "email": "social",
    "im": "social",
    "chat": "social",
    "social": "social",
    "社交": "social",
    "沟通": "social",
    "media": "entertainment",
    "games": "entertainment",
    "video": "entertainment",
    "music": "entertainment",
    "entertainment": "entertainment",
    "social media": "entertainment",
    "娱乐": "entertainment",
    "游戏": "entertainment",
    "视频": "entertainment",
    "system": "system",
    "系统": "system",
}
CATEGORY_WORDS = _CATEGORY_WORDS  # also how a top of aw-webui's tree maps to a kind (aw_tree)
_MARK = "# From ActivityWatch's categories"
_NAME_PREFIX = "aw:"


class AwCategoriesError(InvalidInputError):
    """ActivityWatch's categories could not be read or applied."""


@dataclass(frozen=True, slots=True)
class AwClass:
    """One of aw-webui's categories: its path of names and its regex (None: no rule)."""

    path: tuple[str, ...]
    regex: str | None
    ignore_case: bool = False
    rank: int = 0  # aw-core picks the matching class of highest rank: priority, or depth × 10
    color: str | None = None  # aw-webui's `data.color`


@dataclass(frozen=True, slots=True)
class ProposedRule:
    name: str  # "aw:Work/Programming"
    category: Category
    field: str  # "app" or "title"
    pattern: str

    def toml(self) -> str:
        return (
            "[[category]]\n"
            f"name = {json.dumps(self.name, ensure_ascii=False)}\n"
            f'category = "{self.category}"\n'
            f"{self.field} = {_toml_literal(self.pattern)}\n"
        )


@dataclass(slots=True)
class Proposal:
    source: str
    rules: list[ProposedRule] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why)

    def snippet(self) -> str:
        head = f"{_MARK} ({self.source}): first match wins, after your own rules above.\n"
        return head + "\n".join(rule.toml() for rule in self.rules)

    def preview(self) -> str:
        lines = [f"ActivityWatch categories from {self.source}: {len(self.rules)} rules"]
        lines += [f"  {r.name} -> {r.category} ({r.field} ~ {r.pattern})" for r in self.rules]
        lines += [f"  skipped {path}: {why}" for path, why in self.skipped]
        return "\n".join(lines)


def _toml_literal(text: str) -> str:
    """A TOML string holding `text` exactly: a literal string where it can be one (a
    regex's backslashes stay as written), a basic one otherwise."""
    if "'" not in text and "\n" not in text and "\r" not in text:
        return f"'{text}'"
    return json.dumps(text, ensure_ascii=False)


def parse_classes(value: Any, *, source: str) -> list[AwClass]:
    """aw-webui's `classes` setting (a list of {name, rule}) or its categories export
    ({"categories": [...]})."""
    if isinstance(value, dict) and "categories" in value:
        value = value["categories"]
    if not isinstance(value, list):
        raise AwCategoriesError(f"{source} holds no list of ActivityWatch categories")
    found = []
    for item in value:
        if not isinstance(item, dict) or not isinstance(item.get("name"), list):
            raise AwCategoriesError(f"{source}: a category without a name list: {item!r:.80}")
        given = item.get("rule")
        rule: dict[str, Any] = given if isinstance(given, dict) else {}
        regex = rule.get("regex") if rule.get("type") == "regex" else None
        path = tuple(str(n) for n in item["name"])
        priority = rule.get("priority", rule.get("weight"))
        data = item.get("data") if isinstance(item.get("data"), dict) else {}
        color = data.get("color") if isinstance(data, dict) else None
        found.append(
            AwClass(
                path=path,
                regex=regex if isinstance(regex, str) and regex else None,
                ignore_case=rule.get("ignore_case") is True,
                rank=priority if isinstance(priority, int) else len(path) * 10,
                color=color if isinstance(color, str) else None,
            )
        )
    return found


def read_server_classes(client: httpx.Client, *, url: str) -> list[AwClass] | None:
    """The categories a running aw-server keeps in its settings; None when it keeps
    none (no `classes` setting, or a server without settings, as aw-server 0.12)."""
    base = url.rstrip("/")
    try:
        response = client.get(f"{base}/api/0/settings/classes")
        if response.status_code == 404:
            response = client.get(f"{base}/api/0/settings")
            if response.status_code == 404:
                return None
            settings = _json(response, base)
            if not isinstance(settings, dict) or settings.get("classes") is None:
                return None
            return parse_classes(settings["classes"], source=base)
        value = _json(response, base)
    except httpx.HTTPError as exc:
        raise AwCategoriesError(f"cannot read {base} (its categories): {exc}") from exc
    return None if value is None else parse_classes(value, source=base)


def _json(response: httpx.Response, base: str) -> Any:
    if response.status_code != 200:
        raise AwCategoriesError(f"{base} answered HTTP {response.status_code} for its settings")
    try:
        return response.json()
    except ValueError as exc:
        raise AwCategoriesError(f"{base} did not answer JSON for its settings") from exc


def read_export_classes(path: Path) -> list[AwClass]:
    """The categories aw-webui's Settings page exports as a file."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise AwCategoriesError(f"cannot read {path}: {exc.strerror}") from exc
    except ValueError as exc:
        raise AwCategoriesError(f"{path} is not JSON: {exc}") from exc
    return parse_classes(value, source=str(path))


def _category_of(path: tuple[str, ...]) -> Category | None:
    for name in reversed(path):
        found = _CATEGORY_WORDS.get(name.strip().lower())
        if found is not None:
            return found
    return None


def propose(classes: list[AwClass], *, source: str) -> Proposal:
    """TimeTrace rules for ActivityWatch's classes (see the module's docstring)."""
    proposal = Proposal(source=source)
    # TimeTrace's first matching rule wins; aw-core's highest rank does, the later of
    # equal ranks: so the highest rank first, the later of equal ones first.
    ordered = sorted(enumerate(classes), key=lambda pair: (-pair[1].rank, -pair[0]))
    for _, item in ordered:
        shown = "/".join(item.path)
        if item.regex is None:
            continue  # a category with no rule of its own (a parent): nothing to match
        category = _category_of(item.path)
        if category is None:
            known = ", ".join(c for c in CATEGORIES if c != "uncategorized")
            proposal.skipped.append((shown, f"names none of TimeTrace's categories ({known})"))
            continue
        pattern = item.regex if item.ignore_case else f"(?-i:{item.regex})"
        try:
            LinearPattern.compile(pattern)
        except PatternSyntaxError as exc:
            proposal.skipped.append((shown, f"RE2 cannot run its regex: {exc}"))
            continue
        name = _NAME_PREFIX + shown
        for field_name in ("app", "title"):
            proposal.rules.append(ProposedRule(name, category, field_name, pattern))
    return proposal


def apply(proposal: Proposal, *, rules_file: Path) -> int:
    """Append the proposal's rules that the file does not hold yet (by name and field)
    after the user's own rules; the file is checked as TimeTrace loads it before it is
    replaced. How many rules were added."""
    try:
        text = rules_file.read_text(encoding="utf-8") if rules_file.exists() else ""
    except OSError as exc:
        raise AwCategoriesError(f"cannot read {rules_file}: {exc.strerror}") from exc
    try:
        held = tomllib.loads(text).get("category", [])
    except tomllib.TOMLDecodeError as exc:
        raise AwCategoriesError(f"{rules_file} is not valid TOML: {exc}") from exc
    have = {(r.get("name"), f) for r in held for f in ("app", "title") if f in r}
    fresh = [r for r in proposal.rules if (r.name, r.field) not in have]
    if not fresh:
        return 0
    added = Proposal(source=proposal.source, rules=fresh)
    joined = text + ("\n" if text and not text.endswith("\n") else "") + "\n" + added.snippet()
    staged = rules_file.with_name(rules_file.name + ".new")
    try:
        staged.write_text(joined, encoding="utf-8")
        load_rules(user_file=staged)  # a ConfigError here leaves the user's file as it was
        staged.replace(rules_file)
    except OSError as exc:
        raise AwCategoriesError(f"cannot write {rules_file}: {exc.strerror}") from exc
    finally:
        staged.unlink(missing_ok=True)
    return len(fresh)


def offer(
    *,
    url: str | None,
    categories_file: Path | None,
    apply_them: bool,
    rules_file: Path | None,
    client: httpx.Client | None = None,
) -> str:
    """What an import says about ActivityWatch's categories, from a running server
    (`url`) or aw-webui's export file: the proposed rules, then either how to apply
    them or, with `apply_them`, that they were added to `rules_file` (before the
    import reads its rules, so the imported records are categorised by them)."""
    if categories_file is not None:
        source, classes = str(categories_file), read_export_classes(categories_file)
    elif url is not None:
        with client or httpx.Client(timeout=30) as http:
            found = read_server_classes(http, url=url)
        if found is None:
            return (
                f"{url.rstrip('/')} keeps no categories in its settings (aw-server 0.12 has "
                "none; aw-webui kept them in the browser): export them from aw-webui's "
                "Settings and give the file with --categories-file"
            )
        source, classes = url.rstrip("/"), found
    else:
        return ""
    proposal = propose(classes, source=source)
    shown = proposal.preview()
    if not proposal.rules:
        return shown
    if not apply_them:
        return shown + "\nnot applied: run again with --apply-categories to add them to your rules"
    if rules_file is None:
        raise AwCategoriesError(
            "--apply-categories needs a rules file of yours: set TIMETRACE_RULES_FILE"
        )
    added = apply(proposal, rules_file=rules_file)
    return (
        shown
        + f"\napplied: {added} rules added to {rules_file}"
        + ("" if added else " (all were there already)")
    )
