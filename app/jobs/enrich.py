"""Model tasks: episode summaries, embeddings, digest narratives, frame descriptions.

Each item is its own job (one poisoned item never blocks the others), on the
`models` queue, which the worker serves with slots of its own
(`TIMETRACE_MODEL_SLOTS`): a slow model never delays episodes, rollups or sweeps.
When the endpoint is down the first call opens the client's circuit breaker; the
other jobs then leave their items `pending` without calling it, and the sweep
below queues them again once the breaker has closed: backoff with a ceiling,
never a tight loop against a dead server. A summary and its embedding are two
jobs: a failed embedding never costs the summary. The embedding job goes before
every waiting summary (a higher priority), so an episode is searchable by
meaning as soon as its summary is done, not after the whole summary queue.
What is owed, and the job for each item, come from the table of model-work steps
(`app/enrich/steps.py`), which the one-go catch-up (`app/jobs/catchup.py`) iterates too.
"""

from __future__ import annotations

from procrastinate import JobContext, RetryStrategy

from app.enrich import describe, narratives, summaries
from app.enrich.steps import MODEL_STEPS, Role, StepStore
from app.job_requests import (
    DESCRIBE_TASK,
    EMBED_TASK,
    MAINTENANCE_QUEUE,
    MODEL_QUEUE,
    NARRATIVE_TASK,
    SUMMARY_TASK,
    SWEEP_MODELS_TASK,
    embed_job,
    rollup_day_job,
)
from app.jobs import jobs_app, services_of
from app.runtime.services import Services
from app.store.jobs import JobRequest

RETRY = RetryStrategy(max_attempts=5, exponential_wait=3)
SWEEP_LIMIT = 500


def model_jobs(store: StepStore, *, chat: bool, embedding: bool, vision: bool) -> list[JobRequest]:
    """Everything the model layer still owes, as jobs (for the roles that are up)."""
    up: dict[Role, bool] = {"chat": chat, "embedding": embedding, "vision": vision}
    return [
        step.job(item)
        for step in MODEL_STEPS
        if up[step.role]
        for item in step.pending(store, SWEEP_LIMIT)
    ]


@jobs_app.periodic(cron="*/2 * * * *")
@jobs_app.task(
    name=SWEEP_MODELS_TASK,
    queue=MAINTENANCE_QUEUE,
    queueing_lock=SWEEP_MODELS_TASK,
    pass_context=True,
)
def sweep_models(context: JobContext, timestamp: int) -> int:
    services = services_of(context)
    models = services.models
    jobs = model_jobs(
        services.store,
        chat=models.available("chat"),
        embedding=models.available("embedding"),
        vision=models.available("vision"),
    )
    return services.store.defer(jobs)


def _waiting(services: Services, role: str) -> bool:
    """True when the role's breaker is open: leave the item pending for the sweep."""
    return not services.models.available(role)


@jobs_app.task(name=SUMMARY_TASK, queue=MODEL_QUEUE, retry=RETRY, pass_context=True)
def summarize_episode(context: JobContext, user_id: int, episode_id: int) -> str:
    services = services_of(context)
    if _waiting(services, "chat"):
        return "waiting"
    outcome = summaries.summarize_episode(
        services.store,
        services.models,
        user_id=user_id,
        episode_id=episode_id,
        settings=services.settings,
    )
    if outcome == "done":
        then = [embed_job(user_id, episode_id)] if services.models.embeddings_enabled else []
        day = services.store.episode_day(user_id=user_id, episode_id=episode_id)
        if day is not None:  # cues may add evidence to the day's signals
            then.append(rollup_day_job(user_id, day))
        services.store.defer(then)
    return outcome


@jobs_app.task(name=EMBED_TASK, queue=MODEL_QUEUE, retry=RETRY, pass_context=True)
def embed_episode(context: JobContext, user_id: int, episode_id: int) -> bool:
    services = services_of(context)
    if _waiting(services, "embedding"):
        return False
    return summaries.embed_episode(
        services.store, services.models, user_id=user_id, episode_id=episode_id
    )


@jobs_app.task(name=NARRATIVE_TASK, queue=MODEL_QUEUE, retry=RETRY, pass_context=True)
def write_narrative(context: JobContext, user_id: int, grain: str, key: str) -> str:
    services = services_of(context)
    if _waiting(services, "chat"):
        return "waiting"
    return narratives.write_narrative(
        services.store, services.models, user_id=user_id, grain=grain, scope_key=key
    )


@jobs_app.task(name=DESCRIBE_TASK, queue=MODEL_QUEUE, retry=RETRY, pass_context=True)
def describe_record(context: JobContext, user_id: int, record_id: int) -> str:
    services = services_of(context)
    if _waiting(services, "vision"):
        return "waiting"
    return describe.describe_record(
        services.store,
        services.models,
        user_id=user_id,
        record_id=record_id,
        settings=services.settings,
    )
