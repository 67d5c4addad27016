"""The pyramid's jobs as requests: task names, queues, locks and priorities.

The procrastinate tasks in `app/jobs/pyramid.py` carry these names; the builder
asks for them in the same transaction as the change that makes them due.
One waiting job per queueing lock; one running job per lock.
"""

from __future__ import annotations

from datetime import date

from app.store import JobRequest
from app.timeutil import day_key

BUILD_TASK = "build_episodes"
ROLLUP_DAY_TASK = "rollup_day"
ROLLUP_PERIOD_TASK = "rollup_period"
# Interactive work (answers, describe) outranks episodes, which outrank rollups.
EPISODE_PRIORITY = 10
ROLLUP_PRIORITY = 0


def build_job(user_id: int, device_id: str) -> JobRequest:
    return JobRequest(
        task_name=BUILD_TASK,
        queue="episodes",
        args={"user_id": user_id, "device_id": device_id},
        queueing_lock=f"build:{user_id}:{device_id}",
        lock=f"episodes:{user_id}:{device_id}",
        priority=EPISODE_PRIORITY,
    )


def rollup_day_job(user_id: int, day: date) -> JobRequest:
    return JobRequest(
        task_name=ROLLUP_DAY_TASK,
        queue="rollups",
        args={"user_id": user_id, "day": day.isoformat()},
        queueing_lock=f"rollup:{user_id}:{day_key(day)}",
        lock=f"digest:{user_id}:{day_key(day)}",
        priority=ROLLUP_PRIORITY,
    )


def rollup_period_job(user_id: int, grain: str, key: str) -> JobRequest:
    return JobRequest(
        task_name=ROLLUP_PERIOD_TASK,
        queue="rollups",
        args={"user_id": user_id, "grain": grain, "key": key},
        queueing_lock=f"rollup:{user_id}:{key}",
        lock=f"digest:{user_id}:{key}",
        priority=ROLLUP_PRIORITY,
    )
