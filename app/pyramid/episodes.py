"""From a closed segment to an episode row: deterministic key, category, title,
breakdowns and interruptions. Pure; the builder in `app/pyramid/build.py` stores it."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

from app.pyramid.cards import rules_summary
from app.pyramid.segmenter import IDLE, Segment, cluster_key
from app.store.documents import Interruption
from app.store.episodes import EpisodeDraft, SegmentInput
from app.text import normalize_title

IDLE_TITLE = "空闲/锁屏 · idle or locked"
TITLE_MAX = 80


def _when(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, UTC)


def _add(totals: dict[str, float], key: str, seconds: float) -> None:
    totals[key] = totals.get(key, 0.0) + seconds


def _title(members: list[SegmentInput], *, cluster: str) -> tuple[str, str]:
    """Primary app and a title: the app (or site) and the longest normalised title in it."""
    in_cluster = [m for m in members if cluster_key(m) == cluster] or members
    apps: dict[str, float] = {}
    titles: dict[str, float] = {}
    for m in in_cluster:
        _add(apps, m.app, m.duration)
        normal = normalize_title(m.title)
        if normal:
            _add(titles, normal, m.duration)
    primary_app = max(apps, key=lambda a: apps[a]) if apps else ""
    label = cluster if in_cluster[0].domain else (primary_app or cluster)
    title = f"{label} · {max(titles, key=lambda t: titles[t])}" if titles else label
    return primary_app, title[:TITLE_MAX]


def draft_episode(segment: Segment, *, device_id: str) -> EpisodeDraft:
    members = segment.members
    interrupted = {i for start, stop in segment.interruptions for i in range(start, stop)}
    category_seconds: dict[str, float] = {}
    app_seconds: dict[str, float] = {}
    cluster_seconds: dict[str, float] = {}
    for i, m in enumerate(members):
        _add(category_seconds, "system" if m.is_idle else m.category, m.duration)
        if m.is_idle:
            continue  # time away is never time in an app
        _add(app_seconds, m.app or "(unknown)", m.duration)
        if i not in interrupted:
            _add(cluster_seconds, cluster_key(m), m.duration)
    active = [m for m in members if not m.is_idle]
    switches = sum(1 for a, b in itertools.pairwise(active) if cluster_key(a) != cluster_key(b))
    if segment.kind == IDLE or not cluster_seconds:
        primary_app, cluster, title = members[0].app, "(idle)", IDLE_TITLE
    else:
        cluster = max(cluster_seconds, key=lambda c: cluster_seconds[c])
        primary_app, title = _title(
            [m for i, m in enumerate(members) if i not in interrupted], cluster=cluster
        )
    interruptions = [
        Interruption(
            ts_start=_when(members[start].ts).isoformat(),
            ts_end=_when(max(m.end for m in members[start:stop])).isoformat(),
            seconds=sum(m.duration for m in members[start:stop]),
            app=members[start].app,
            title=normalize_title(members[start].title),
            record_ids=[m.record_id for m in members[start:stop]],
        )
        for start, stop in segment.interruptions
    ]
    summary = None if segment.kind == IDLE else rules_summary(members, primary_app=primary_app)
    return EpisodeDraft.model_construct(
        episode_key=f"{device_id}:{members[0].record_id}",
        device_id=device_id,
        ts_start=_when(segment.ts_start),
        first_key=members[0].key,
        last_start=_when(members[-1].ts),
        last_key=members[-1].key,
        ts_end=_when(segment.ts_end),
        day_local=members[0].day,
        primary_app=primary_app,
        cluster_key=cluster,
        category=segment.category,
        title=title,
        summary_status="idle" if segment.kind == IDLE else "pending",
        interruptions=interruptions,
        frame_count=len(members),
        duration_s=sum(m.duration for m in members),
        active_s=sum(m.duration for m in active),
        category_seconds=category_seconds,
        app_seconds=app_seconds,
        switch_count=switches,
        interruption_s=sum(i["seconds"] for i in interruptions),
        boundary=segment.boundary,
        record_ids=[m.record_id for m in members],
        summary=summary or None,
        summary_by="rules" if summary else None,
    )
