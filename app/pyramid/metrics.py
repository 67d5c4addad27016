"""Digest metrics arithmetic: week and month numbers from day digests.

Day metrics come from SQL over episodes (`period_metrics` in sql/queries.sql)
plus the signal-derived numbers; here they are only added up, so a week equals
the sum of its days and a month the sum of its days (never of weeks).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

ADDITIVE = (
    "episode_count",
    "active_seconds",
    "idle_seconds",
    "switch_count",
    "interruption_seconds",
    "focus_minutes",
    "distraction_minutes",
    "late_night_minutes",
)
ADDITIVE_MAPS = ("seconds_by_category", "seconds_by_app", "signal_counts")


def merge_day_metrics(days: Sequence[dict[str, Any]]) -> dict[str, Any]:
    merged: dict[str, Any] = {name: 0 for name in ADDITIVE}
    for name in ADDITIVE_MAPS:
        merged[name] = {}
    firsts: list[str] = []
    lasts: list[str] = []
    for metrics in days:
        for name in ADDITIVE:
            merged[name] += metrics.get(name, 0)
        for name in ADDITIVE_MAPS:
            target = merged[name]
            for key, value in metrics.get(name, {}).items():
                target[key] = target.get(key, 0) + value
        if metrics.get("first_activity"):
            firsts.append(metrics["first_activity"])
        if metrics.get("last_activity"):
            lasts.append(metrics["last_activity"])
    for name in ("focus_minutes", "distraction_minutes", "late_night_minutes"):
        merged[name] = round(merged[name], 1)
    for name in ADDITIVE_MAPS:
        merged[name] = dict(sorted(merged[name].items()))
    # ISO-8601 UTC strings of one format order like the instants they name.
    merged["first_activity"] = min(firsts) if firsts else None
    merged["last_activity"] = max(lasts) if lasts else None
    merged["days"] = len(days)
    return merged
