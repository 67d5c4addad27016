"""Bringing the model layer up to date in one go (`timetrace backfill` and the
benchmarks): frame descriptions, episode summaries, embeddings, the rollups
that read the new cues, then narratives day → week → month. The worker does
the same job by job (app/jobs/enrich.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime

from app.enrich import describe, narratives, summaries
from app.enrich.client import ModelClient, ModelUnavailable
from app.pyramid.build import rollup_days
from app.settings import Settings
from app.store import PendingEpisode, Store

BATCH = 500


@dataclass(slots=True)
class EnrichSummary:
    descriptions: int = 0
    summaries: int = 0
    embeddings: int = 0
    narratives: int = 0
    waiting: bool = False  # an endpoint went away: the rest stays pending


def enrich(
    store: Store,
    models: ModelClient,
    *,
    settings: Settings,
    now: datetime,
    progress: Callable[[str], None] | None = None,
) -> EnrichSummary:
    done = EnrichSummary()
    try:
        if models.vision_enabled:
            while records := store.pending_descriptions(limit=BATCH):
                for record in records:
                    describe.describe_record(
                        store,
                        models,
                        user_id=record.user_id,
                        record_id=record.record_id,
                        settings=settings,
                    )
                    done.descriptions += 1
        if models.chat_enabled:
            days: set[tuple[int, date]] = set()
            seen: list[PendingEpisode] = []
            while (episodes := store.pending_summaries(limit=BATCH)) and episodes != seen:
                seen = episodes
                for ep in episodes:
                    summaries.summarize_episode(
                        store,
                        models,
                        user_id=ep.user_id,
                        episode_id=ep.episode_id,
                        settings=settings,
                    )
                    day = store.episode_day(user_id=ep.user_id, episode_id=ep.episode_id)
                    if day is not None:
                        days.add((ep.user_id, day))
                    done.summaries += 1
                    if progress and done.summaries % 50 == 0:
                        progress(f"{done.summaries} episodes summarised")
            _rollup_again(store, days, now=now, settings=settings)
        if models.embeddings_enabled:
            while unembedded := store.pending_embeddings(limit=BATCH):
                for ep in unembedded:
                    done.embeddings += summaries.embed_episode(
                        store, models, user_id=ep.user_id, episode_id=ep.episode_id
                    )
        if models.chat_enabled:
            # Days first: a week or month is ready only once its days are narrated.
            while digests := store.pending_narratives(limit=BATCH):
                for digest in digests:
                    narratives.write_narrative(
                        store,
                        models,
                        user_id=digest.user_id,
                        grain=digest.grain,
                        scope_key=digest.scope_key,
                    )
                    done.narratives += 1
    except ModelUnavailable:
        done.waiting = True
    return done


def _rollup_again(
    store: Store, days: set[tuple[int, date]], *, now: datetime, settings: Settings
) -> None:
    """Summaries bring cues: the days they belong to are rolled up again."""
    users = {user_id: store.get_user_by_id(user_id=user_id) for user_id, _ in days}
    rollup_days(
        store,
        [(user, day) for user_id, day in sorted(days) if (user := users[user_id]) is not None],
        now=now,
        settings=settings,
    )
