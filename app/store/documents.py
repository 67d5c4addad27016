"""The JSON documents stored in jsonb columns (digest metrics, signal evidence,
interruptions), typed so that their stored shape is exactly what the code reads."""

from __future__ import annotations

from typing_extensions import TypedDict


class TitleTime(TypedDict):
    title: str
    seconds: float


class DigestMetrics(TypedDict, total=False):
    """The numbers of a day, week or month digest (`digests.metrics`). Day digests
    come from SQL over closed episodes plus the signal-derived numbers; weeks and
    months are sums of their days (`days` counts them)."""

    seconds_by_category: dict[str, float]
    seconds_by_app: dict[str, float]
    episode_count: int
    active_seconds: float
    idle_seconds: float
    switch_count: int
    interruption_seconds: float
    top_titles: list[TitleTime]
    first_activity: str | None  # ISO-8601 UTC
    last_activity: str | None
    focus_minutes: float
    distraction_minutes: float
    late_night_minutes: float
    signal_counts: dict[str, int]
    device_overlap_seconds: float  # two or more devices active at once (each counts its own)
    days: int
    # Seconds per user category (migration 0034), by its id: its own records, not its
    # children's (app/rules/tree.py adds them up the tree).
    seconds_by_user_category: dict[str, float]


class Interruption(TypedDict):
    """A short entertainment break kept inside a work episode (`episodes.interruptions`)."""

    ts_start: str  # ISO-8601 UTC
    ts_end: str
    seconds: float
    app: str
    title: str
    record_ids: list[int]


class Evidence(TypedDict, total=False):
    """What shows a signal (`signals.evidence`)."""

    episode_ids: list[int]
    cues: list[str]


SignalMetrics = dict[str, str | int | float]  # e.g. {"pattern": "undo_storm", "undos": 12}
