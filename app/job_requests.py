"""Every job as a request: task names, queues, locks and priorities, in one place.

The procrastinate tasks in `app/jobs/` carry these names and queues; the builder,
ingest, the importers and the model sweep ask for jobs with these functions, in the
same transaction as the change that makes them due. One waiting job per queueing
lock; one running job per lock.

    store.defer([build_job(user_id, "laptop"), rollup_day_job(user_id, day)])
"""

from __future__ import annotations

from datetime import date

from app.store.jobs import JobRequest
from app.timeutil import day_key

# Queues. The worker serves the pyramid's and the imports on one set of slots and the
# model queue on its own (`app/jobs/__init__.py`).
EPISODE_QUEUE = "episodes"
ROLLUP_QUEUE = "rollups"
MAINTENANCE_QUEUE = "maintenance"
IMPORT_QUEUE = "imports"
MODEL_QUEUE = "models"

# Task names.
BUILD_TASK = "build_episodes"
ROLLUP_DAY_TASK = "rollup_day"
ROLLUP_PERIOD_TASK = "rollup_period"
IMPORT_TASK = "import_activitywatch"
DESCRIBE_TASK = "describe_record"
SUMMARY_TASK = "summarize_episode"
EMBED_TASK = "embed_episode"
NARRATIVE_TASK = "write_narrative"
RECATEGORIZE_TASK = "recategorize_history"  # after a user's rules changed (app/jobs/user_rules.py)
# Periodic sweeps: each is its own queueing lock (one waiting tick at most).
SWEEP_PYRAMID_TASK = "sweep_pyramid"
SWEEP_MODELS_TASK = "sweep_models"

# Interactive work (answers, describe) outranks episodes, which outrank rollups. On the
# model queue an embedding (one short call, on its own endpoint) goes before every
# waiting summary, so an episode is searchable by meaning as soon as it is summarised.
EPISODE_PRIORITY = 10
ROLLUP_PRIORITY = 0
SUMMARY_PRIORITY = 5
DESCRIBE_PRIORITY = 6
EMBED_PRIORITY = 7
NARRATIVE_PRIORITY = 0


def build_job(user_id: int, device_id: str) -> JobRequest:
    return JobRequest(
        task_name=BUILD_TASK,
        queue=EPISODE_QUEUE,
        args={"user_id": user_id, "device_id": device_id},
        queueing_lock=f"build:{user_id}:{device_id}",
        lock=f"episodes:{user_id}:{device_id}",
        priority=EPISODE_PRIORITY,
    )


def rollup_day_job(user_id: int, day: date) -> JobRequest:
    return JobRequest(
        task_name=ROLLUP_DAY_TASK,
        queue=ROLLUP_QUEUE,
        args={"user_id": user_id, "day": day.isoformat()},
        queueing_lock=f"rollup:{user_id}:{day_key(day)}",
        lock=f"digest:{user_id}:{day_key(day)}",
        priority=ROLLUP_PRIORITY,
    )


def rollup_period_job(user_id: int, grain: str, key: str) -> JobRequest:
    return JobRequest(
        task_name=ROLLUP_PERIOD_TASK,
        queue=ROLLUP_QUEUE,
        args={"user_id": user_id, "grain": grain, "key": key},
        queueing_lock=f"rollup:{user_id}:{key}",
        lock=f"digest:{user_id}:{key}",
        priority=ROLLUP_PRIORITY,
    )


def import_job(user_id: int, import_id: int) -> JobRequest:
    """One import at a time per user: two at once would only contend for the same rows."""
    return JobRequest(
        task_name=IMPORT_TASK,
        queue=IMPORT_QUEUE,
        args={"user_id": user_id, "import_id": import_id},
        lock=f"import:{user_id}",
        priority=EPISODE_PRIORITY,
    )


def describe_job(user_id: int, record_id: int) -> JobRequest:
    return JobRequest(
        task_name=DESCRIBE_TASK,
        queue=MODEL_QUEUE,
        args={"user_id": user_id, "record_id": record_id},
        queueing_lock=f"describe:{user_id}:{record_id}",
        priority=DESCRIBE_PRIORITY,
    )


def summary_job(user_id: int, episode_id: int) -> JobRequest:
    return JobRequest(
        task_name=SUMMARY_TASK,
        queue=MODEL_QUEUE,
        args={"user_id": user_id, "episode_id": episode_id},
        queueing_lock=f"summary:{user_id}:{episode_id}",
        priority=SUMMARY_PRIORITY,
    )


def embed_job(user_id: int, episode_id: int) -> JobRequest:
    return JobRequest(
        task_name=EMBED_TASK,
        queue=MODEL_QUEUE,
        args={"user_id": user_id, "episode_id": episode_id},
        queueing_lock=f"embed:{user_id}:{episode_id}",
        priority=EMBED_PRIORITY,
    )


def narrative_job(user_id: int, grain: str, key: str) -> JobRequest:
    return JobRequest(
        task_name=NARRATIVE_TASK,
        queue=MODEL_QUEUE,
        args={"user_id": user_id, "grain": grain, "key": key},
        queueing_lock=f"narrative:{user_id}:{key}",
        priority=NARRATIVE_PRIORITY,
    )


def recategorize_job(user_id: int) -> JobRequest:
    """Re-categorise a user's history by their rules as they stand when it runs: one
    waiting per user (a second change is seen by it), one running per user."""
    return JobRequest(
        task_name=RECATEGORIZE_TASK,
        queue=EPISODE_QUEUE,
        args={"user_id": user_id},
        queueing_lock=f"recategorize:{user_id}",
        lock=f"rules:{user_id}",
        priority=EPISODE_PRIORITY,
    )
