"""Pyramid tasks: episodes per device, day digests, week and month digests, and
the periodic sweep that catches anything a crash or a stopped worker left behind.

Tasks take ids, never objects, and are safe to run twice (see app/pyramid/build.py).
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from procrastinate import JobContext

from app import job_requests as requests
from app.jobs import jobs_app, services_of
from app.jobs.limits import BoundedRetry, JobClock, stops_recorded
from app.pyramid import build as pyramid

# Backoff with a ceiling: a failing job is retried, never in a tight loop; one stopped at
# its time limit is not (it is recorded instead), one stopped by a shutdown at once.
RETRY = BoundedRetry(max_attempts=8, exponential_wait=2)


def _now() -> datetime:
    return datetime.now(UTC)


@jobs_app.task(
    name=requests.BUILD_TASK, queue=requests.EPISODE_QUEUE, retry=RETRY, pass_context=True
)
def build_episodes(context: JobContext, user_id: int, device_id: str) -> int:
    """Build a device's episodes, a day at a time; after a step (`job_step_s`) the rest is
    queued as a new job, behind other users' work, and this one ends."""
    services = services_of(context)
    user = services.store.get_user_by_id(user_id=user_id)
    if user is None:
        return 0
    clock = JobClock.start(context, settings=services.settings, queue=requests.EPISODE_QUEUE)
    with stops_recorded(services.store, clock, context=context, user_id=user_id):
        result = pyramid.build_and_enqueue(
            services.store,
            user=user,
            device_id=device_id,
            now=_now(),
            settings=services.settings,
            checkpoint=clock.at,
            step_over=clock.step_over,
        )
    if result.rollups:  # a batch build's days (see build_and_enqueue)
        services.store.defer(result.rollups)
    if result.more:
        services.store.defer([requests.build_job(user_id, device_id)])
    return result.episodes


@jobs_app.task(
    name=requests.ROLLUP_DAY_TASK, queue=requests.ROLLUP_QUEUE, retry=RETRY, pass_context=True
)
def rollup_day(context: JobContext, user_id: int, day: str) -> int:
    services = services_of(context)
    user = services.store.get_user_by_id(user_id=user_id)
    if user is None:
        return 0
    clock = JobClock.start(context, settings=services.settings, queue=requests.ROLLUP_QUEUE)
    with stops_recorded(services.store, clock, context=context, user_id=user_id):
        return pyramid.rollup_day_and_enqueue(
            services.store,
            user=user,
            day=date.fromisoformat(day),
            now=_now(),
            settings=services.settings,
            checkpoint=clock.at,
        )


@jobs_app.task(
    name=requests.ROLLUP_PERIOD_TASK, queue=requests.ROLLUP_QUEUE, retry=RETRY, pass_context=True
)
def rollup_period(context: JobContext, user_id: int, grain: str, key: str) -> int:
    services = services_of(context)
    user = services.store.get_user_by_id(user_id=user_id)
    if user is None:
        return 0
    return pyramid.rollup_period(
        services.store, user=user, grain=grain, key=key, now=_now(), settings=services.settings
    )


@jobs_app.periodic(cron="* * * * *")
@jobs_app.task(
    name=requests.SWEEP_PYRAMID_TASK,
    queue=requests.MAINTENANCE_QUEUE,
    queueing_lock=requests.SWEEP_PYRAMID_TASK,
    pass_context=True,
)
def sweep_pyramid(context: JobContext, timestamp: int) -> int:
    """Every minute: close episodes that time has closed, and redo missed rollups."""
    services = services_of(context)
    return services.store.defer(pyramid.pending_jobs(services.store))
