"""The model layer's work as one table of steps, in the order it is best done:
frame descriptions, episode summaries, embeddings, then narratives (a narrative
reads the summaries; a week or month waits for its days').

Both drivers iterate this table and nothing else: the worker's sweep turns what each
step still owes into jobs (`app/jobs/enrich.py`), and the catch-up runs it in one go
(`app/jobs/catchup.py`).

    for step in MODEL_STEPS:
        jobs += [step.job(item) for item in step.pending(store, 500)]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Generic, Literal, TypeVar

from app.enrich import describe, narratives, summaries
from app.enrich.client import ModelClient
from app.enrich.narratives import NarrativeStore
from app.job_requests import (
    DESCRIBE_TASK,
    EMBED_TASK,
    NARRATIVE_TASK,
    SUMMARY_TASK,
    describe_job,
    embed_job,
    narrative_job,
    summary_job,
)
from app.settings import Settings
from app.store.jobs import JobRequest
from app.store.model import ModelStore, PendingDescription, PendingEpisode, PendingNarrative

Role = Literal["chat", "vision", "embedding"]
# What every step reads and writes: the model role, and the digest a narrative reads.
StepStore = NarrativeStore
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class ModelStep(Generic[T]):
    """One kind of model work: what is still owed, how one item is done, and the job
    that does it on the worker. `run` returns False when it did nothing with the item
    (an embedding it could not use), anything else when it handled it."""

    task: str
    role: Role
    pending: Callable[[StepStore, int], Sequence[T]]
    run: Callable[[StepStore, ModelClient, T, Settings], object]
    job: Callable[[T], JobRequest]
    # The logical day whose signals the item's result may change (a summary's cues).
    day_of: Callable[[ModelStore, T], date | None] | None = None


DESCRIBE: ModelStep[PendingDescription] = ModelStep(
    task=DESCRIBE_TASK,
    role="vision",
    pending=lambda store, limit: store.pending_descriptions(limit=limit),
    run=lambda store, models, r, settings: describe.describe_record(
        store, models, user_id=r.user_id, record_id=r.record_id, settings=settings
    ),
    job=lambda r: describe_job(r.user_id, r.record_id),
)
SUMMARIZE: ModelStep[PendingEpisode] = ModelStep(
    task=SUMMARY_TASK,
    role="chat",
    pending=lambda store, limit: store.pending_summaries(limit=limit),
    run=lambda store, models, e, settings: summaries.summarize_episode(
        store, models, user_id=e.user_id, episode_id=e.episode_id, settings=settings
    ),
    job=lambda e: summary_job(e.user_id, e.episode_id),
    day_of=lambda store, e: store.episode_day(user_id=e.user_id, episode_id=e.episode_id),
)
EMBED: ModelStep[PendingEpisode] = ModelStep(
    task=EMBED_TASK,
    role="embedding",
    pending=lambda store, limit: store.pending_embeddings(limit=limit),
    run=lambda store, models, e, settings: summaries.embed_episode(
        store, models, user_id=e.user_id, episode_id=e.episode_id
    ),
    job=lambda e: embed_job(e.user_id, e.episode_id),
)
NARRATE: ModelStep[PendingNarrative] = ModelStep(
    task=NARRATIVE_TASK,
    role="chat",
    pending=lambda store, limit: store.pending_narratives(limit=limit),
    run=lambda store, models, d, settings: narratives.write_narrative(
        store, models, user_id=d.user_id, grain=d.grain, scope_key=d.scope_key
    ),
    job=lambda d: narrative_job(d.user_id, d.grain, d.scope_key),
)

MODEL_STEPS: tuple[ModelStep[Any], ...] = (DESCRIBE, SUMMARIZE, EMBED, NARRATE)
