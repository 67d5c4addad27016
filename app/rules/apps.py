"""App identities: one canonical name per application, whatever the capture tool
reported (a Windows executable, a macOS app name or bundle id, a Linux WM_CLASS,
an Android package), and the site a browser window shows when there is no URL.

    apps = load_app_identities(user_data=None)
    apps.canonical("Code.exe")                      # "Visual Studio Code"
    apps.canonical("com.ss.android.ugc.aweme")     # "抖音"
    apps.page_title("ChatGPT — Mozilla Firefox")    # "ChatGPT"
    apps.site_of("lofi hip hop radio - YouTube")    # "youtube.com"

The data is `app/rules/apps.toml`; a user's rules file may add tables of the same
shape, read first.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from app.errors import ConfigError
from app.patterns import LinearPattern, PatternSyntaxError, capped, encoded

_PATH = re.compile(r"^.*[\\/]")
_BUNDLE_SUFFIX = re.compile(r"\.(exe|app)$", re.IGNORECASE)
# Separators real sites put between a page's own title and the site's name: spaced
# ("… - YouTube", "… | Coursera", "… · GitHub") or tight ("…_哔哩哔哩_bilibili", "…-腾讯视频").
# Starts only where a run of spaces starts: no start rescans a run another scanned.
_SPACED = re.compile(r"(?<!\s)\s+[-—–|·/]\s+")
_TIGHT = re.compile(r"[_｜]|-")
# "(3) YouTube": unread counters in front of a page title.
_COUNTER = re.compile(r"^[(（]\d+[)）]\s*")


@lru_cache(maxsize=65_536)  # a device reports a few dozen apps, record after record
def normal_app(raw: str) -> str:
    """The lookup form of a reported name: no folder, no .exe/.app, case-folded."""
    name = _PATH.sub("", capped(raw).strip().strip('"'))
    return _BUNDLE_SUFFIX.sub("", name).strip().casefold()


@dataclass(frozen=True, slots=True)
class Site:
    domain: str
    names: frozenset[str]  # case-folded
    title: LinearPattern | None


def _ends(page: str) -> set[str]:
    """The whole page title and its first and last parts, case-folded: where sites put
    their names. Set lookups, not a regex per site: most browser titles are new ones."""
    text = page.strip().casefold()
    out = {text}
    for splitter in (_SPACED, _TIGHT):
        parts = [p for p in (part.strip() for part in splitter.split(text)) if p]
        if len(parts) > 1:
            out |= {parts[0], parts[-1]}
    return out


@dataclass(frozen=True, slots=True)
class AppIdentities:
    """Alias table, browsers, browser title suffixes and sites named in titles."""

    aliases: dict[str, str]  # normal form -> canonical name
    browsers: frozenset[str]  # canonical names
    suffixes: tuple[LinearPattern, ...]
    sites: tuple[Site, ...]

    def canonical(self, raw: str) -> str:
        """The one name of an application, or the normal form of an unknown one."""
        normal = normal_app(raw)
        return self.aliases.get(normal, normal)

    def is_browser(self, canonical: str) -> bool:
        return canonical in self.browsers

    def page_title(self, title: str) -> str:
        """A browser window title without the browser's own suffix and unread counter."""
        title = capped(title)
        data = encoded(title)  # once for all the suffixes
        for suffix in self.suffixes:
            span = suffix.span_encoded(data)
            if span is not None:
                title = title[: span[0]]
                break
        return _COUNTER.sub("", title.strip())

    def site_of(self, page_title: str) -> str | None:
        """The domain of the site a page title names, if a [[site]] rule knows it."""
        page_title = capped(page_title)
        ends = _ends(page_title)
        data: bytes | None = None  # encoded once, for the first site with a title pattern
        for site in self.sites:
            if not site.names.isdisjoint(ends):
                return site.domain
            if site.title is not None:
                data = encoded(page_title) if data is None else data
                if site.title.matches_encoded(data):
                    return site.domain
        return None

    def site_label(self, page_title: str) -> str:
        """What a page title shows of its site, for people to write a rule from: the
        last part after a spaced separator (`… - Slack`), or the whole title."""
        page_title = capped(page_title)
        parts = [p for p in (part.strip() for part in _SPACED.split(page_title)) if p]
        return parts[-1] if len(parts) > 1 else page_title.strip()


def _compile(pattern: Any, *, origin: str, what: str) -> LinearPattern:
    if not isinstance(pattern, str) or not pattern:
        raise ConfigError(f"{origin}: every [[{what}]] needs a pattern")
    try:
        return LinearPattern.compile(pattern)
    except PatternSyntaxError as exc:
        raise ConfigError(f"{origin}: bad [[{what}]] regex {pattern!r}: {exc}") from exc


def _strings(value: Any, *, origin: str, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{origin}: {what} must be a list of strings")
    return value


def _parse(
    data: dict[str, Any], *, origin: str
) -> tuple[dict[str, str], set[str], list[LinearPattern], list[Site]]:
    aliases: dict[str, str] = {}
    browsers: set[str] = set()
    for raw in data.get("app", []):
        name = raw.get("name")
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"{origin}: every [[app]] needs a name")
        unknown = set(raw) - {"name", "aliases", "browser"}
        if unknown:
            raise ConfigError(f"{origin}: app {name!r}: unknown keys {sorted(unknown)}")
        aliases_given = _strings(
            raw.get("aliases", []), origin=origin, what=f"app {name!r}: aliases"
        )
        for alias in [name, *aliases_given]:
            # The first [[app]] to claim a name keeps it (the user's file is read first).
            aliases.setdefault(normal_app(alias), name)
        if raw.get("browser", False):
            browsers.add(name)
    suffixes = [
        _compile(raw.get("pattern"), origin=origin, what="browser_suffix")
        for raw in data.get("browser_suffix", [])
    ]
    sites = []
    for raw in data.get("site", []):
        domain = raw.get("domain")
        if not isinstance(domain, str) or not domain:
            raise ConfigError(f"{origin}: every [[site]] needs a domain")
        names = _strings(raw.get("names", []), origin=origin, what=f"site {domain!r}: names")
        title = raw.get("title")
        if not names and title is None:
            raise ConfigError(f"{origin}: site {domain!r} needs names or a title")
        pattern = _compile(title, origin=origin, what="site") if title is not None else None
        sites.append(Site(domain.lower(), frozenset(n.casefold() for n in names), pattern))
    return aliases, browsers, suffixes, sites


def load_app_identities(
    *, user_data: dict[str, Any] | None, user_origin: str = ""
) -> AppIdentities:
    """The user's tables (already parsed from their rules file) before the shipped ones."""
    text = resources.files("app").joinpath("rules/apps.toml").read_text("utf-8")
    shipped = tomllib.loads(text)
    aliases: dict[str, str] = {}
    browsers: set[str] = set()
    suffixes: list[LinearPattern] = []
    sites: list[Site] = []
    sources = [(user_data, user_origin)] if user_data else []
    for data, origin in [*sources, (shipped, "app identities")]:
        more_aliases, more_browsers, more_suffixes, more_sites = _parse(data, origin=origin)
        for alias, name in more_aliases.items():
            aliases.setdefault(alias, name)
        browsers |= more_browsers
        suffixes += more_suffixes
        sites += more_sites
    return AppIdentities(aliases, frozenset(browsers), tuple(suffixes), tuple(sites))
