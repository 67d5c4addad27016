"""Time on a site, by one definition for every count (query_stats thing= and
seconds_by_site, compare, the week and month pages' top sites).

    totals = site_totals(ctx, day_from=date(2003, 3, 1), day_to=date(2003, 3, 31))
    totals[0].site, totals[0].from_url_s, totals[0].from_title_s, totals[0].seconds

A site's time is the time of records whose URL's domain is the site or lies under it,
plus the time of URL-less browser records whose title names the site. The sum is SQL
(`timetrace_site_seconds_v1`, sql/migrations/0040_site_seconds.sql); which site a title
names is the rules' (`AppIdentities.site_of`, as ingest categorised the record), worked
out here once per distinct title of the period and passed in.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import date

from app.rules.apps import AppIdentities
from app.rules.things import domain_matches, vocabulary_for
from app.store.tools import RecordMatch, SiteDaySeconds
from app.timeutil import read_window
from app.tools.periods import span
from app.tools.registry import ToolContext
from app.tools.results import Shape

_PLAIN = re.compile(r"[\w ]+")


class SiteTime(Shape):
    """A site inside browsers: its domain, how people say it, and (whole days) its
    seconds from URLs and from titles naming it."""

    site: str
    label: str
    seconds: int
    hours: float
    from_url_s: int | None = None
    from_title_s: int | None = None


@dataclass(frozen=True, slots=True)
class SiteDay:
    """One site's seconds on one logical day, by where they came from."""

    day_local: date
    site: str
    from_url_s: float
    from_title_s: float


@dataclass(frozen=True, slots=True)
class SiteTotal:
    """One site's seconds over a period, by where they came from."""

    site: str
    from_url_s: float
    from_title_s: float

    @property
    def seconds(self) -> float:
        return self.from_url_s + self.from_title_s


def page_terms(apps: AppIdentities, domains: tuple[str, ...]) -> tuple[str, ...]:
    """What the title of a URL-less browser record naming one of `domains` contains (one
    of their sites' names, compared case-insensitively): the candidates' filter. A title
    rule that is plain text is one more name; any other may match any title, and then
    every URL-less browser title is a candidate (the term "")."""
    terms: set[str] = set()
    for site in apps.sites:
        if domains and domain_matches(site.domain, domains):
            terms |= site.names
            if site.title is not None:
                text = _pattern_text(site.title)
                terms.add(text.casefold() if _PLAIN.fullmatch(text) is not None else "")
    return tuple(sorted(terms))


def _pattern_text(pattern: object) -> str:
    """The source text of a compiled rule pattern (Python's re calls it `pattern`, other
    engines `source`); empty when unknown, which reads every title: always correct."""
    text = getattr(pattern, "pattern", None) or getattr(pattern, "source", None)
    return text if isinstance(text, str) else ""


def named_titles(
    ctx: ToolContext, *, day_from: date, day_to: date, domains: tuple[str, ...] = ()
) -> dict[str, str]:
    """The distinct titles of the period's URL-less browser records that name a site
    (one of `domains`, or under one, when given), each with that site."""
    apps = ctx.rules.apps
    terms = page_terms(apps, domains) if domains else ("",)
    if not terms:
        return {}
    titles = ctx.store.page_titles(
        user_id=ctx.user.user_id,
        day_from=day_from,
        day_to=day_to,
        match=RecordMatch(browsers=tuple(sorted(apps.browsers)), page_terms=terms),
    )
    named = {}
    for title in titles:
        site = apps.site_of(apps.page_title(title))
        if site is not None and (not domains or domain_matches(site, domains)):
            named[title] = site
    return named


def site_days(
    ctx: ToolContext,
    *,
    day_from: date,
    day_to: date,
    domains: tuple[str, ...] = (),
    title_sites: dict[str, str] | None = None,
) -> list[SiteDay]:
    """Seconds per logical day of [day_from, day_to] and site, from URLs and from titles;
    with `domains`, only the records of those sites (and sites under them) are read.
    `title_sites`: the period's titles naming those sites, when the caller has them."""
    apps = ctx.rules.apps
    read_from, read_to = read_window(
        *span(day_from, day_to, user=ctx.user), idle_gap_s=ctx.settings.idle_gap_s
    )

    def read(named: dict[str, str]) -> list[SiteDaySeconds]:
        return ctx.store.site_day_seconds(
            user_id=ctx.user.user_id,
            day_from=day_from,
            day_to=day_to,
            read_from=read_from,
            read_to=read_to,
            browsers=sorted(apps.browsers),
            known=sorted({site.domain for site in apps.sites}),
            title_sites=named,
            only=domains or None,
        )

    if domains:
        if title_sites is None:
            title_sites = named_titles(ctx, day_from=day_from, day_to=day_to, domains=domains)
        return _days(read(title_sites))
    # Every site: the titles this process already knows to name a site are passed in, and
    # the read returns the others once each. Only when one of those names a site (a title
    # never seen before) is the period read again.
    known = _titles_of(apps)
    while True:
        rows = read({t: site for t, site in known.items() if site})
        new = {r.unnamed_title for r in rows if r.unnamed_title and r.unnamed_title not in known}
        for title in new:
            known[title] = apps.site_of(apps.page_title(title))
        if not any(known[t] for t in new):
            return _days(rows)


def _days(rows: list[SiteDaySeconds]) -> list[SiteDay]:
    return [
        SiteDay(r.day_local, r.site, r.from_url_s, r.from_title_s)
        for r in rows
        if r.day_local is not None and r.site is not None
    ]


# Per rule set (held by identity): each title seen, and the site it names (or None).
_TITLES: dict[int, tuple[AppIdentities, dict[str, str | None]]] = {}
_TITLES_MAX = 100_000


def _titles_of(apps: AppIdentities) -> dict[str, str | None]:
    found = _TITLES.get(id(apps))
    if found is None or found[0] is not apps or len(found[1]) > _TITLES_MAX:
        _TITLES.clear()  # a new rule set (or too many titles): start again
        found = _TITLES[id(apps)] = (apps, {})
    return found[1]


def of_thing(rows: list[SiteDay], domains: tuple[str, ...]) -> list[SiteDay]:
    """The rows of the sites that are one of `domains` or lie under one."""
    return [row for row in rows if domain_matches(row.site, domains)]


def site_totals(
    ctx: ToolContext, *, day_from: date, day_to: date, domains: tuple[str, ...] = ()
) -> list[SiteTotal]:
    """Every site's seconds over [day_from, day_to] (only those under `domains` when
    given), most first."""
    rows = site_days(ctx, day_from=day_from, day_to=day_to, domains=domains)
    return totals_of(of_thing(rows, domains) if domains else rows)


def totals_of(rows: list[SiteDay]) -> list[SiteTotal]:
    url: dict[str, float] = defaultdict(float)
    title: dict[str, float] = defaultdict(float)
    for row in rows:
        url[row.site] += row.from_url_s
        title[row.site] += row.from_title_s
    totals = [SiteTotal(site, url[site], title[site]) for site in url]
    return sorted(totals, key=lambda t: (-t.seconds, t.site))


def site_items(
    ctx: ToolContext, day_from: date, day_to: date, *, by_site: dict[str, float] | None, top: int
) -> list[SiteTime]:
    """The top sites of whole days [day_from, day_to] by the one definition, or of the
    seconds `by_site` already counted (inside windows of the days)."""
    labels = vocabulary_for(ctx.rules.apps).site_labels
    if by_site is None:
        return [
            SiteTime(
                site=t.site,
                label=labels.get(t.site, t.site),
                seconds=round(t.seconds),
                hours=round(t.seconds / 3600, 2),
                from_url_s=round(t.from_url_s),
                from_title_s=round(t.from_title_s),
            )
            for t in site_totals(ctx, day_from=day_from, day_to=day_to)[:top]
            if t.seconds
        ]
    ordered = sorted(((k, v) for k, v in by_site.items() if v), key=lambda kv: (-kv[1], kv[0]))
    return [
        SiteTime(site=k, label=labels.get(k, k), seconds=round(v), hours=round(v / 3600, 2))
        for k, v in ordered[:top]
    ]
