"""Bringing the model layer up to date in one go (`timetrace backfill` and the
benchmarks): the steps of `app/enrich/steps.py` in order — frame descriptions,
episode summaries (then the rollups that read their cues), embeddings, narratives
day → week → month. The worker does the same job by job (app/jobs/enrich.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Protocol

from app.enrich.client import ModelClient, ModelUnavailable
from app.enrich.narratives import NarrativeStore
from app.enrich.steps import DESCRIBE, EMBED, MODEL_STEPS, NARRATE, SUMMARIZE, ModelStep
from app.pyramid.build import PyramidStore, rollup_days
from app.settings import Settings

BATCH = 500
PROGRESS_EVERY = 50


class CatchupStore(NarrativeStore, PyramidStore, Protocol):
    """The model layer's steps, and the rollups that read what they add."""


@dataclass(slots=True)
class EnrichSummary:
    """How many items each step handled; `waiting` when an endpoint went away (the
    rest stays pending)."""

    done: Counter[str] = field(default_factory=Counter)
    waiting: bool = False

    @property
    def descriptions(self) -> int:
        return self.done[DESCRIBE.task]

    @property
    def summaries(self) -> int:
        return self.done[SUMMARIZE.task]

    @property
    def embeddings(self) -> int:
        return self.done[EMBED.task]

    @property
    def narratives(self) -> int:
        return self.done[NARRATE.task]


def enrich(
    store: CatchupStore,
    models: ModelClient,
    *,
    settings: Settings,
    now: datetime,
    progress: Callable[[str], None] | None = None,
) -> EnrichSummary:
    summary = EnrichSummary()
    try:
        for step in MODEL_STEPS:
            if models.enabled(step.role):
                days = _run_step(store, models, step, summary, settings=settings, progress=progress)
                _rollup_again(store, days, now=now, settings=settings)
    except ModelUnavailable:
        summary.waiting = True
    return summary


def _run_step(
    store: CatchupStore,
    models: ModelClient,
    step: ModelStep[Any],
    summary: EnrichSummary,
    *,
    settings: Settings,
    progress: Callable[[str], None] | None,
) -> set[tuple[int, date]]:
    """Every item the step owes, batch by batch, until none is left or a batch comes back
    unchanged (items a failure leaves pending); the days whose signals may have changed."""
    days: set[tuple[int, date]] = set()
    seen: list[Any] = []
    while (items := list(step.pending(store, BATCH))) and items != seen:
        seen = items
        for item in items:
            if step.run(store, models, item, settings) is not False:
                summary.done[step.task] += 1
                if progress and summary.done[step.task] % PROGRESS_EVERY == 0:
                    progress(f"{step.task}: {summary.done[step.task]} done")
            if step.day_of is not None and (day := step.day_of(store, item)) is not None:
                days.add((item.user_id, day))
    return days


def _rollup_again(
    store: CatchupStore, days: set[tuple[int, date]], *, now: datetime, settings: Settings
) -> None:
    """Summaries bring cues: the days they belong to are rolled up again."""
    users = {user_id: store.get_user_by_id(user_id=user_id) for user_id, _ in days}
    rollup_days(
        store,
        [(user, day) for user_id, day in sorted(days) if (user := users[user_id]) is not None],
        now=now,
        settings=settings,
    )
