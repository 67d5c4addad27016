"""Digest metrics arithmetic: week and month numbers from day digests.

Day metrics come from SQL over episodes (`period_metrics` in sql/queries/digests.sql)
plus the signal-derived numbers; here they are only added up, so a week equals
the sum of its days and a month the sum of its days (never of weeks).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.store.documents import DigestMetrics


def _add_maps(maps: Sequence[Mapping[str, float]]) -> dict[str, float]:
    total: dict[str, float] = {}
    for mapping in maps:
        for key, value in mapping.items():
            total[key] = total.get(key, 0) + value
    return dict(sorted(total.items()))


def merge_day_metrics(days: Sequence[DigestMetrics]) -> DigestMetrics:
    """The sum of some days' metrics (also of partial ones, e.g. the open tail's)."""
    signal_counts: dict[str, int] = {}
    for m in days:
        for kind, count in m.get("signal_counts", {}).items():
            signal_counts[kind] = signal_counts.get(kind, 0) + count
    # ISO-8601 UTC strings of one format order like the instants they name.
    firsts = [first for m in days if (first := m.get("first_activity"))]
    lasts = [last for m in days if (last := m.get("last_activity"))]
    merged = DigestMetrics(
        episode_count=sum(m.get("episode_count", 0) for m in days),
        active_seconds=sum(m.get("active_seconds", 0) for m in days),
        idle_seconds=sum(m.get("idle_seconds", 0) for m in days),
        switch_count=sum(m.get("switch_count", 0) for m in days),
        interruption_seconds=sum(m.get("interruption_seconds", 0) for m in days),
        focus_minutes=round(sum(m.get("focus_minutes", 0) for m in days), 1),
        distraction_minutes=round(sum(m.get("distraction_minutes", 0) for m in days), 1),
        late_night_minutes=round(sum(m.get("late_night_minutes", 0) for m in days), 1),
        seconds_by_category=_add_maps([m.get("seconds_by_category", {}) for m in days]),
        seconds_by_app=_add_maps([m.get("seconds_by_app", {}) for m in days]),
        signal_counts=dict(sorted(signal_counts.items())),
        device_overlap_seconds=sum(m.get("device_overlap_seconds", 0) for m in days),
        first_activity=min(firsts) if firsts else None,
        last_activity=max(lasts) if lasts else None,
        days=len(days),
    )
    by_user = _add_maps([m.get("seconds_by_user_category", {}) for m in days])
    if by_user:  # only a user with categories of their own has these
        merged["seconds_by_user_category"] = by_user
    return merged
