"""The resolver over a user's own data, and the seconds of a thing.

    resolution = resolve_thing(ctx, mention="知乎")
    resolution.thing          # Thing(kind="site", name="zhihu.com", apps=("知乎",), ...)
    thing = require_thing(ctx, mention="Zhihu")        # or UnknownThingError + suggestions
    seconds = thing_seconds_by_day(ctx, thing, day_from=..., day_to=...)

First the names anyone's data may hold (`app/rules/things.py`: idle words,
categories, groups, nicknames, apps and their aliases, sites); then the user's own
apps and domains (a site with no rule, such as "coursera" for coursera.org, or an app
the rules do not know); then a unique partial name; then text in window titles. A
mention that matches nothing is answered with the closest names the user has, never
with zero seconds.

Seconds follow the duration rule. Apps, categories and idle time come from episodes
and digests (as query_stats counts them); sites and titles from the records
themselves: a site's time is its URLs' plus that of URL-less browser records whose title
names it (one definition for every count: app/tools/sites.py).
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Any

from app.errors import UnknownThingError
from app.rules.apps import normal_app
from app.rules.things import Thing, domain_matches, loose, vocabulary_for
from app.store.documents import DigestMetrics
from app.store.records import RecordLine
from app.store.tools import KnownName, RecordMatch, ThingSeconds
from app.tools.registry import ToolContext
from app.tools.sites import SiteDay, of_thing, page_terms, site_days, totals_of
from app.tools.user_categories import category_seconds, category_seconds_by_day, category_thing

SUGGESTIONS = 5
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True, slots=True)
class Resolution:
    """What a mention resolved to, or the closest names the user has."""

    mention: str
    thing: Thing | None
    suggestions: tuple[str, ...] = ()

    def describe(self) -> dict[str, Any]:
        if self.thing is not None:
            return {"mention": self.mention, **self.thing.describe()}
        return {"mention": self.mention, "unresolved": True, "suggestions": list(self.suggestions)}


def _long_enough(key: str) -> bool:
    """Partial and title matches need a real word: 3 letters, or 2 CJK characters."""
    return len(key) >= 3 or (len(key) >= 2 and bool(_CJK.search(key)))


def resolve_thing(ctx: ToolContext, *, mention: str) -> Resolution:
    """Map a mention to an app, site, category, idle time or title text the user has."""
    text = mention.strip()
    own = category_thing(ctx, mention=text)  # the user's own categories first ("Games")
    if own is not None:
        return Resolution(text, own)
    vocabulary = vocabulary_for(ctx.rules.apps)
    found = vocabulary.match(text)
    if found is not None:
        return Resolution(text, found)
    key = loose(text)
    if not key:
        return Resolution(text, None)
    names = ctx.store.known_names(
        user_id=ctx.user.user_id, title=text if _long_enough(key) else None
    )
    apps = _apps(names)
    domains = sorted({n.domain for n in names if n.domain})
    normal = normal_app(text)
    exact_apps = [a for a in apps if loose(a) == key or a == normal]
    if exact_apps:
        return Resolution(
            text, Thing("app", exact_apps[0], exact_apps[0], "data", apps=(exact_apps[0],))
        )
    exact_sites = [d for d in domains if loose(d) == key or key in _stems(d)]
    if exact_sites:
        return Resolution(text, _site(ctx, exact_sites, matched_by="data"))
    if _long_enough(key):
        partial_apps = [a for a in apps if key in loose(a)]
        partial_sites = [d for d in domains if key in loose(d)]
        if len(partial_apps) == 1 and not partial_sites:
            app = partial_apps[0]
            return Resolution(text, Thing("app", app, app, "partial", apps=(app,)))
        if partial_sites and not partial_apps:
            return Resolution(text, _site(ctx, partial_sites, matched_by="partial"))
        # Text in the window titles of recent records: a game, a project, a file.
        if any(n.titled for n in names):
            return Resolution(text, Thing("title", text, text, "title", title=text))
    return Resolution(text, None, _suggest(ctx, key, apps=apps, domains=domains))


def require_thing(ctx: ToolContext, *, mention: str) -> Thing:
    """The thing a mention names; UnknownThingError (with suggestions) when none."""
    resolution = resolve_thing(ctx, mention=mention)
    if resolution.thing is None:
        raise UnknownThingError(mention=resolution.mention, suggestions=resolution.suggestions)
    return resolution.thing


def _apps(names: Iterable[KnownName]) -> list[str]:
    out: dict[str, int] = {}
    for n in names:
        if n.app:
            out[n.app] = out.get(n.app, 0) + n.records
    return sorted(out, key=lambda a: -out[a])


def _stems(domain: str) -> set[str]:
    """The labels of a domain but its last: "coursera" for coursera.org."""
    return {loose(label) for label in domain.split(".")[:-1] if label}


def _site(ctx: ToolContext, domains: list[str], *, matched_by: str) -> Thing:
    if len(domains) == 1:
        return vocabulary_for(ctx.rules.apps).site(domains[0], matched_by=matched_by)
    return Thing("site", domains[0], domains[0], matched_by, domains=tuple(domains))


def _suggest(ctx: ToolContext, key: str, *, apps: list[str], domains: list[str]) -> tuple[str, ...]:
    """The user's names closest to the mention (difflib's ratio on the loose forms, a
    name containing the mention first); the most used ones when none is close."""
    labels = vocabulary_for(ctx.rules.apps).site_labels
    candidates = [*apps, *domains, *(labels[d] for d in domains if d in labels)]
    scored = []
    for name in dict.fromkeys(candidates):
        form = loose(name)
        score = difflib.SequenceMatcher(None, key, form).ratio()
        if key in form or form in key:
            score += 0.5
        scored.append((score, name))
    close = [name for score, name in sorted(scored, key=lambda s: -s[0]) if score >= 0.5]
    return tuple((close or [*apps, *domains])[:SUGGESTIONS])


# -- seconds -------------------------------------------------------------------------------


def from_records(thing: Thing) -> bool:
    """Sites, titles and the user's own categories are counted from records; apps,
    kinds and idle time from episodes and digests."""
    return bool(thing.domains or thing.title or thing.user_categories)


def record_match(ctx: ToolContext, thing: Thing) -> RecordMatch:
    """The records of a thing. For a site, URL-less browser records whose title holds
    one of the site's names are candidates (`site_confirmed` decides)."""
    browsers: tuple[str, ...] = ()
    if thing.domains:
        browsers = tuple(sorted(ctx.rules.apps.browsers))
    return RecordMatch(
        apps=thing.apps,
        categories=thing.categories,
        idle=thing.idle,
        domains=thing.domains,
        browsers=browsers,
        page_terms=page_terms(ctx.rules.apps, thing.domains),
        title=thing.title,
    )


def site_confirmed(ctx: ToolContext, thing: Thing, page_title: str) -> bool:
    """Whether a URL-less browser window's title names one of the thing's sites."""
    apps = ctx.rules.apps
    site = apps.site_of(apps.page_title(page_title))
    return site is not None and domain_matches(site, thing.domains)


def counted(ctx: ToolContext, thing: Thing, rows: Iterable[ThingSeconds]) -> list[ThingSeconds]:
    """The rows that belong to the thing (title candidates confirmed)."""
    confirmed: dict[str, bool] = {}
    out = []
    for row in rows:
        if row.page_title is not None:
            if row.page_title not in confirmed:
                confirmed[row.page_title] = site_confirmed(ctx, thing, row.page_title)
            if not confirmed[row.page_title]:
                continue
        out.append(row)
    return out


def part_of(thing: Thing, row: ThingSeconds) -> str:
    """Which part of a thing a row is: its site (in a browser), else its app."""
    if row.domain and thing.domains and domain_matches(row.domain, thing.domains):
        return row.domain
    if row.page_title is not None:
        return thing.name
    return row.app or "(unknown)"


def period_match(ctx: ToolContext, thing: Thing, *, day_from: date, day_to: date) -> RecordMatch:
    """The records of a thing in a period. When a site's title rule can match any title,
    the period's candidate titles are confirmed first, so that only the records of the
    titles that name the site are read, not every browser record without a URL."""
    match = record_match(ctx, thing)
    if "" not in match.page_terms:
        return match
    titles = ctx.store.page_titles(
        user_id=ctx.user.user_id, day_from=day_from, day_to=day_to, match=match
    )
    confirmed = tuple(t for t in titles if site_confirmed(ctx, thing, t))
    return match.model_copy(update={"page_terms": (), "page_titles": confirmed})


def _record_rows(
    ctx: ToolContext, thing: Thing, *, day_from: date, day_to: date
) -> tuple[list[SiteDay], list[ThingSeconds]]:
    """A site or title thing's records over [day_from, day_to]: its sites' seconds by the
    one definition of time on a site (app/tools/sites.py), and the rest of it (an app of
    the same name, title text) from the matching records, less what the sites counted."""
    if not thing.domains:
        rows = ctx.store.thing_seconds(
            user_id=ctx.user.user_id,
            day_from=day_from,
            day_to=day_to,
            match=period_match(ctx, thing, day_from=day_from, day_to=day_to),
            unbuilt_only=False,
        )
        return [], counted(ctx, thing, rows)
    rest: list[ThingSeconds] = []
    named: dict[str, str] | None = None
    terms = record_match(ctx, thing).page_terms
    if thing.apps or thing.categories or thing.idle or thing.title:
        match = RecordMatch(
            apps=thing.apps,
            categories=thing.categories,
            idle=thing.idle,
            domains=thing.domains,
            browsers=tuple(sorted(ctx.rules.apps.browsers)),
            page_terms=terms,
            title=thing.title,
        )
        rest = ctx.store.thing_seconds(
            user_id=ctx.user.user_id,
            day_from=day_from,
            day_to=day_to,
            match=match,
            unbuilt_only=False,
        )
        if "" not in terms:  # the same read found every candidate title: no second one
            named = _naming(ctx, thing, {r.page_title for r in rest if r.page_title})
            on_site = named or any(
                r.domain and domain_matches(r.domain, thing.domains) for r in rest
            )
            if not on_site:  # not one record on the site: none of its time to count
                return [], _not_on_site(thing, rest)
    days = site_days(
        ctx, day_from=day_from, day_to=day_to, domains=thing.domains, title_sites=named
    )
    return of_thing(days, thing.domains), _not_on_site(thing, rest)


def _not_on_site(thing: Thing, rows: list[ThingSeconds]) -> list[ThingSeconds]:
    """The rows of a site thing's other parts. A URL on the site, or a browser title that
    may name it (as `counted` drops those that do not): the sites count those."""
    return [
        row
        for row in rows
        if row.page_title is None and not (row.domain and domain_matches(row.domain, thing.domains))
    ]


def _naming(ctx: ToolContext, thing: Thing, titles: set[str]) -> dict[str, str]:
    """Those of `titles` that name one of the thing's sites, each with that site."""
    apps = ctx.rules.apps
    named = {}
    for title in titles:
        site = apps.site_of(apps.page_title(title))
        if site is not None and domain_matches(site, thing.domains):
            named[title] = site
    return named


def thing_seconds_by_day(
    ctx: ToolContext, thing: Thing, *, day_from: date, day_to: date
) -> dict[date, float]:
    """Seconds of the thing on each logical day of [day_from, day_to] that has any."""
    if thing.user_categories:
        return category_seconds_by_day(ctx, thing, day_from=day_from, day_to=day_to)
    user_id = ctx.user.user_id
    by_day: dict[date, float] = defaultdict(float)
    if from_records(thing):
        sites, rows = _record_rows(ctx, thing, day_from=day_from, day_to=day_to)
        for site in sites:
            by_day[site.day_local] += site.from_url_s + site.from_title_s
    else:
        for day in ctx.store.episode_thing_seconds(
            user_id=user_id,
            day_from=day_from,
            day_to=day_to,
            apps=thing.apps,
            categories=thing.categories,
            idle=thing.idle,
        ):
            by_day[day.day_local] += day.seconds
        # Records not in an episode yet (the open tail), as query_stats counts them.
        rows = counted(
            ctx,
            thing,
            ctx.store.thing_seconds(
                user_id=user_id,
                day_from=day_from,
                day_to=day_to,
                match=record_match(ctx, thing),
                unbuilt_only=True,
            ),
        )
    for row in rows:
        by_day[row.day_local] += row.seconds
    return {day: seconds for day, seconds in sorted(by_day.items()) if seconds > 0}


@dataclass(frozen=True, slots=True)
class RecordSeconds:
    """A site or title thing's seconds by part (each site, each app of the same name),
    and how much of its sites' time came from URLs and from titles naming them."""

    parts: dict[str, float]
    from_url_s: float = 0.0
    from_title_s: float = 0.0


def site_seconds(ctx: ToolContext, thing: Thing, *, day_from: date, day_to: date) -> RecordSeconds:
    """Seconds of a site or title thing over [day_from, day_to] from records, by part;
    of a user category, by category below it."""
    if thing.user_categories:
        return RecordSeconds(category_seconds(ctx, thing, day_from=day_from, day_to=day_to)[1])
    sites, rows = _record_rows(ctx, thing, day_from=day_from, day_to=day_to)
    parts: dict[str, float] = defaultdict(float)
    totals = totals_of(sites)
    for total in totals:
        parts[total.site] += total.seconds
    for row in rows:
        parts[part_of(thing, row)] += row.seconds
    return RecordSeconds(
        dict(parts),
        from_url_s=sum(t.from_url_s for t in totals),
        from_title_s=sum(t.from_title_s for t in totals),
    )


def metrics_seconds(thing: Thing, metrics: DigestMetrics) -> tuple[float, dict[str, float]]:
    """Seconds of an app, category or idle thing in stitched metrics, and by part."""
    parts: dict[str, float] = {}
    by_app = metrics.get("seconds_by_app", {})
    by_category = metrics.get("seconds_by_category", {})
    for app in thing.apps:
        if by_app.get(app):
            parts[app] = by_app[app]
    for category in thing.categories:
        if by_category.get(category):
            parts[category] = by_category[category]
    if thing.idle and metrics.get("idle_seconds"):
        parts["idle"] = metrics.get("idle_seconds", 0.0)
    return sum(parts.values()), parts


def belongs(ctx: ToolContext, thing: Thing, record: RecordLine) -> bool:
    """Whether one record is part of the thing (the same rule as the SQL, in Python)."""
    if thing.idle and record.is_idle:
        return True
    if record.category in thing.categories:
        return True
    if record.is_idle:
        return False
    if record.app in thing.apps:
        return True
    if thing.domains:
        if record.domain:
            if domain_matches(record.domain, thing.domains):
                return True
        elif ctx.rules.apps.is_browser(record.app) and site_confirmed(
            ctx, thing, record.window_title
        ):
            return True
    return bool(thing.title and thing.title.casefold() in record.window_title.casefold())
