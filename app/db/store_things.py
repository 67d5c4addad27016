"""Reads for the resolver and the tools on things (mixed into PostgresStore)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from app.db.base import Queries
from app.store import DaySeconds, KnownName, MomentRecord, RecordLine, RecordMatch, ThingSeconds


def _contains(text: str) -> str:
    """An ILIKE pattern that finds `text` anywhere, with its own wildcards taken literally."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def match_params(match: RecordMatch) -> dict[str, Any]:
    """A RecordMatch as the parameters of the matching queries in sql/queries_ask.sql."""
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


class PostgresThingStore(Queries):
    def known_names(self, *, user_id: int, title: str | None) -> list[KnownName]:
        pattern = _contains(title) if title else None
        return self._all_as(
            KnownName, "known_names", {"user_id": user_id, "title_pattern": pattern}
        )

    def thing_seconds(
        self, *, user_id: int, day_from: date, day_to: date, match: RecordMatch, unbuilt_only: bool
    ) -> list[ThingSeconds]:
        return self._all_as(
            ThingSeconds,
            "thing_seconds",
            {
                "user_id": user_id,
                "day_from": day_from,
                "day_to": day_to,
                "unbuilt_only": unbuilt_only,
                **match_params(match),
            },
        )

    def page_titles(
        self, *, user_id: int, day_from: date, day_to: date, match: RecordMatch
    ) -> list[str]:
        rows = self._all(
            "page_titles",
            {"user_id": user_id, "day_from": day_from, "day_to": day_to, **match_params(match)},
        )
        return [row["window_title"] for row in rows]

    def episode_thing_seconds(
        self,
        *,
        user_id: int,
        day_from: date,
        day_to: date,
        apps: Sequence[str],
        categories: Sequence[str],
        idle: bool,
    ) -> list[DaySeconds]:
        return self._all_as(
            DaySeconds,
            "episode_thing_seconds",
            {
                "user_id": user_id,
                "day_from": day_from,
                "day_to": day_to,
                "apps": list(apps),
                "categories": list(categories),
                "idle": idle,
            },
        )

    def latest_matching(
        self, *, user_id: int, match: RecordMatch, since: datetime, before: datetime, limit: int
    ) -> list[RecordLine]:
        return self._all_as(
            RecordLine,
            "latest_matching",
            {
                "user_id": user_id,
                "since": since,
                "before": before,
                "limit": limit,
                **match_params(match),
            },
        )

    def records_around(self, *, user_id: int, at: datetime, per_side: int) -> list[MomentRecord]:
        return self._all_as(
            MomentRecord, "records_around", {"user_id": user_id, "at": at, "per_side": per_side}
        )
