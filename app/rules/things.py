"""Things by the names people use: a mention in a question ("知乎", "VS Code", "命令行",
"离开电脑", "B站", "work") matched to what activity records hold — canonical apps, sites
(domains), categories, or idle/locked time. Pure: no database; the tools add what the
user's own data holds (`app/tools/things.py`).

    vocabulary = vocabulary_for(rules.apps)
    vocabulary.match("PyCharm64.exe")   # Thing(kind="app", name="PyCharm", apps=("PyCharm",), ...)
    vocabulary.match("油管")             # Thing(kind="site", name="youtube.com", ...)

The order (first match wins) and why: idle words, then categories, then groups of
apps ("terminal" means every terminal app, not the macOS app called Terminal), then
sites and apps by name together (知乎 is a site in a browser and an app on a phone:
one thing covers both), then names with a trailing word such as "网站" or "app"
dropped. Data: `app/rules/things.toml` beside `apps.toml`.
"""

from __future__ import annotations

import functools
import re
import tomllib
import unicodedata
from dataclasses import dataclass, field
from importlib import resources
from typing import Annotated, Any, Literal, get_args

from pydantic import BeforeValidator

from app.errors import ConfigError
from app.rules.apps import AppIdentities, normal_app
from app.rules.categories import CATEGORIES, CATEGORY_LABELS_ZH, Category

ThingKind = Literal["app", "site", "category", "idle", "title"]
THING_KINDS: tuple[ThingKind, ...] = get_args(ThingKind)
IDLE_APP = "Lock screen"  # a locked screen counts as time away even when not marked idle

# Spaces, dots, dashes and the like carry no meaning in a name: "VS Code", "vscode",
# "b 站" and "B站" are one name each.
_LOOSE_DROP = re.compile(r"[\s.\-_·・/'\"“”‘’「」《》()（）]+")
# Words people add after a name ("知乎网站", "微信app", "Chrome 浏览器"): tried without.
# Verbs people put before a name ("刷抖音", "看B站", "用VS Code"): tried without.
_LEADERS = ("打开", "使用", "在", "用", "看", "刷", "玩", "逛", "上", "using", "watching", "on")
_TRAILERS = (
    "视频",
    "上",
    "里",
    "网页版",
    "客户端",
    "网站",
    "网页",
    "官网",
    "应用",
    "软件",
    "浏览器",
    "website",
    "browser",
    "site",
    "app",
    "web",
)


def loose(name: str) -> str:
    """The comparison form of a name: NFKC (full width → normal), case-folded, with
    spaces and punctuation dropped."""
    return _LOOSE_DROP.sub("", unicodedata.normalize("NFKC", name).casefold())


@dataclass(frozen=True, slots=True)
class Thing:
    """What a mention was matched to. A record belongs to the thing when it is idle
    (`idle`), of one of `categories`, of one of `apps`, of a browser showing one of
    `domains` (or a sub-domain; a title naming the site when there is no URL), or its
    window title contains `title`."""

    kind: ThingKind
    name: str  # canonical: an app, a domain, a category, "idle", or the title text
    label: str  # how to say it
    matched_by: str  # idle | category | group | nickname | app | alias | site | domain | ...
    apps: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    idle: bool = False
    title: str | None = None
    # A category of the user's own (migration 0034): it and the categories below it.
    user_categories: tuple[int, ...] = ()

    def describe(self) -> dict[str, Any]:
        """The thing as tools show it: small, and enough to say what was counted."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "name": self.name,
            "label": self.label,
            "matched_by": self.matched_by,
        }
        # A group's apps are many (every terminal there is): its parts are in the numbers.
        if self.matched_by != "group" and (
            len(self.apps) > 1 or (self.apps and self.kind != "app")
        ):
            out["apps"] = list(self.apps)
        if self.domains and (len(self.domains) > 1 or self.kind != "site"):
            out["domains"] = list(self.domains)
        return out


@dataclass(frozen=True, slots=True)
class _Group:
    label: str
    apps: tuple[str, ...]
    browsers: bool


@dataclass(slots=True)
class Vocabulary:
    """Every name the resolver knows without looking at a user's data, by loose form."""

    apps: AppIdentities
    idle: set[str] = field(default_factory=set)
    categories: dict[str, Category] = field(default_factory=dict)
    groups: dict[str, _Group] = field(default_factory=dict)
    app_names: dict[str, str] = field(default_factory=dict)  # loose name -> canonical app
    app_by: dict[str, str] = field(default_factory=dict)  # loose name -> how it matched
    site_names: dict[str, str] = field(default_factory=dict)  # loose name -> domain
    site_by: dict[str, str] = field(default_factory=dict)
    site_labels: dict[str, str] = field(default_factory=dict)  # domain -> how to say it
    site_apps: dict[str, tuple[str, ...]] = field(default_factory=dict)  # domain -> same-named apps

    def match(self, mention: str) -> Thing | None:
        """The thing a mention names, or None. Tries the mention, then without a leading
        verb such as 看 or 刷 and without a trailing word such as 网站 or app."""
        key = loose(mention)
        if not key:
            return None
        for candidate in _shorter(key):
            found = self._match(candidate, mention)
            if found is not None:
                return found
        return None

    def _match(self, key: str, mention: str) -> Thing | None:
        if key in self.idle:
            return idle_thing("idle")
        if key in self.categories:
            return category_thing(self.categories[key], matched_by="category")
        if key in self.groups:
            group = self.groups[key]
            apps = group.apps + (tuple(sorted(self.apps.browsers)) if group.browsers else ())
            return Thing("app", group.label, group.label, "group", apps=apps)
        app = self._app(key, mention)
        domain = self.site_names.get(key)
        if domain is not None:
            return self.site(domain, matched_by=self.site_by[key])
        if app is not None:
            by = self.app_by.get(key, "alias")
            return Thing("app", app, app, by, apps=(app,))
        return None

    def site(self, domain: str, *, matched_by: str) -> Thing:
        """A site, with the apps of the same name (知乎 the site and 知乎 the phone app)."""
        apps = self.site_apps.get(domain, ())
        label = self.site_labels.get(domain) or (apps[0] if apps else domain)
        return Thing("site", domain, label, matched_by, apps=apps, domains=(domain,))

    def _app(self, key: str, mention: str) -> str | None:
        if key in self.app_names:
            return self.app_names[key]
        # A reported name as capture tools send it ("C:\\…\\pycharm64.exe", "Code.exe").
        normal = normal_app(mention)
        found = self.apps.aliases.get(normal) or self.apps.aliases.get(normal.replace(" ", ""))
        if found is not None:
            self.app_by.setdefault(key, "alias")
        return found


def _shorter(key: str) -> list[str]:
    """The key, then without a leading verb, a trailing word, or both."""
    heads = [key] + [key[len(v) :] for v in _LEADERS if key.startswith(v) and len(key) > len(v)]
    out = list(heads)
    for head in heads:
        out += [head[: -len(t)] for t in _TRAILERS if head.endswith(t) and len(head) > len(t)]
    return out


def idle_thing(matched_by: str) -> Thing:
    return Thing("idle", "idle", "idle", matched_by, apps=(IDLE_APP,), idle=True)


def category_thing(category: Category, *, matched_by: str) -> Thing:
    return Thing(
        "category",
        category,
        f"{category} ({CATEGORY_LABELS_ZH[category]})",
        matched_by,
        categories=(category,),
    )


def _strings(raw: dict[str, Any], key: str, *, what: str) -> list[str]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"things: {what}: {key} must be a list of names")
    return value


def load_vocabulary(apps: AppIdentities) -> Vocabulary:
    """The vocabulary over these app identities (the shipped ones and a user's)."""
    text = resources.files("app").joinpath("rules/things.toml").read_text("utf-8")
    data = tomllib.loads(text)
    vocabulary = Vocabulary(apps=apps)
    for raw in data.get("idle", []):
        vocabulary.idle |= {loose(n) for n in _strings(raw, "names", what="idle")}
    for raw in data.get("category", []):
        category = raw.get("category")
        if category not in CATEGORIES:
            raise ConfigError(f"things: category {category!r} is not one of {list(CATEGORIES)}")
        names = [category, CATEGORY_LABELS_ZH[category], *_strings(raw, "names", what=category)]
        vocabulary.categories.update({loose(n): category for n in names})
    for raw in data.get("group", []):
        label = str(raw.get("label", ""))
        group = _Group(
            label=label,
            apps=tuple(_strings(raw, "apps", what=f"group {label!r}")),
            browsers=bool(raw.get("browsers", False)),
        )
        vocabulary.groups.update({loose(n): group for n in [label, *raw.get("names", [])]})
    # Apps: canonical names and every alias, in the loose form too ("VSCode" → "vscode").
    for alias, canonical in apps.aliases.items():
        vocabulary.app_names.setdefault(loose(alias), canonical)
        vocabulary.app_by.setdefault(loose(alias), "alias")
    for canonical in set(apps.aliases.values()):
        vocabulary.app_names[loose(canonical)] = canonical
        vocabulary.app_by[loose(canonical)] = "app"
    # Sites: the names page titles carry, then their domains ("zhihu.com", "zhihu").
    for site in apps.sites:
        for name in site.names:
            vocabulary.site_names.setdefault(loose(name), site.domain)
            vocabulary.site_by.setdefault(loose(name), "site")
        labels = site.domain.split(".")
        # "zhihu" for zhihu.com; never "qq" for mail.qq.com (QQ is an app of its own).
        for name in (site.domain, labels[0] if len(labels) == 2 else ""):
            if name:
                vocabulary.site_names.setdefault(loose(name), site.domain)
                vocabulary.site_by.setdefault(loose(name), "domain")
    for raw in data.get("nickname", []):
        names = _strings(raw, "names", what="nickname")
        if isinstance(raw.get("app"), str):
            for n in names:
                vocabulary.app_names[loose(n)] = raw["app"]
                vocabulary.app_by[loose(n)] = "nickname"
        elif isinstance(raw.get("site"), str):
            vocabulary.site_labels.setdefault(raw["site"], names[0])
            for n in names:
                vocabulary.site_names[loose(n)] = raw["site"]
                vocabulary.site_by[loose(n)] = "nickname"
        else:
            raise ConfigError(f"things: nickname {names!r} needs an app or a site")
    # A site and an app of the same name are one thing: time in either counts.
    site_apps: dict[str, set[str]] = {}
    for key, domain in vocabulary.site_names.items():
        app = vocabulary.app_names.get(key)
        if app is not None and not apps.is_browser(app):
            site_apps.setdefault(domain, set()).add(app)
    vocabulary.site_apps = {d: tuple(sorted(a)) for d, a in site_apps.items()}
    return vocabulary


@functools.cache
def _category_words() -> dict[str, Category]:
    data = tomllib.loads(resources.files("app").joinpath("rules/things.toml").read_text("utf-8"))
    words: dict[str, Category] = {}
    for raw in data.get("category", []):
        category = raw["category"]
        names = [category, CATEGORY_LABELS_ZH[category], *raw.get("names", [])]
        words.update({loose(n): category for n in names})
    return words


def category_word(value: object) -> object:
    """A category in words ("娱乐", "Entertainment", "摸鱼") as its key; anything else is
    left for validation to judge."""
    if isinstance(value, str):
        return _category_words().get(loose(value), value)
    return value


# A category argument that also takes the words people use for it.
CategoryName = Annotated[Category, BeforeValidator(category_word)]

_CACHE: dict[int, tuple[AppIdentities, Vocabulary]] = {}


def vocabulary_for(apps: AppIdentities) -> Vocabulary:
    """One vocabulary per loaded set of app identities (rules load once per process)."""
    cached = _CACHE.get(id(apps))
    if cached is None or cached[0] is not apps:
        if len(_CACHE) > 16:
            _CACHE.clear()
        cached = _CACHE[id(apps)] = (apps, load_vocabulary(apps))
    return cached[1]


def domain_matches(domain: str, wanted: tuple[str, ...]) -> bool:
    """A record's domain is a site's domain or one under it (m.zhihu.com is zhihu.com)."""
    return any(domain == w or domain.endswith("." + w) for w in wanted)
