"""Reads for the resolver and the tools on things (mixed into PostgresStore)."""

from __future__ import annotations

from typing import Any

from app.db.base import Queries
from app.db.named import Params, column, rows
from app.store.records import RecordLine
from app.store.tools import (
    KnownName,
    RecordMatch,
    SiteDaySeconds,
    ThingSeconds,
    ToolStore,
    WindowSeconds,
)


def _contains(text: str) -> str:
    """An ILIKE pattern that finds `text` anywhere, with its own wildcards taken literally."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def match_params(match: RecordMatch) -> dict[str, Any]:
    """A RecordMatch as the parameters of the matching queries in sql/queries/ask.sql."""
    return {
        "apps": list(match.apps),
        "categories": list(match.categories),
        "idle": match.idle,
        "domains": list(match.domains),
        "domain_patterns": [
            "%." + d.replace("_", "\\_").replace("%", "\\%") for d in match.domains
        ],
        "browsers": list(match.browsers),
        "page_patterns": [_contains(t) for t in match.page_terms],
        "page_titles": list(match.page_titles),
        "title_pattern": _contains(match.title) if match.title else None,
    }


def _matching(params: Params) -> Params:
    return match_params(params["match"])


def _windows(params: Params) -> Params:
    windows = params["windows"]
    return {
        "days": [w[0] for w in windows],
        "starts": [w[1] for w in windows],
        "ends": [w[2] for w in windows],
        "by_day": not windows,
        "browsers": list(params["browsers"]),
        "title_pattern": _contains(params["title"]) if params["title"] else None,
    }


def _title_sites(params: Params) -> Params:
    named = params["title_sites"]
    return {
        "browsers": list(params["browsers"]),
        "known": list(params["known"]),
        "titles": list(named),
        "named_sites": list(named.values()),
        "only": None if params["only"] is None else list(params["only"]),
    }


class PostgresThingStore(Queries):
    known_names = rows(
        ToolStore.known_names,
        KnownName,
        derive=lambda p: {"title_pattern": _contains(p["title"]) if p["title"] else None},
    )
    thing_seconds = rows(ToolStore.thing_seconds, ThingSeconds, derive=_matching)
    window_seconds = rows(ToolStore.window_seconds, WindowSeconds, derive=_windows)
    page_titles = column(ToolStore.page_titles, derive=_matching)
    latest_matching = rows(ToolStore.latest_matching, RecordLine, derive=_matching)
    site_day_seconds = rows(ToolStore.site_day_seconds, SiteDaySeconds, derive=_title_sites)
