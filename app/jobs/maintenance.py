"""Keeping the queue small. (Jobs of a worker that died are requeued by every running
worker, see app/jobs/supervisor.py.)"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

from procrastinate import JobContext, builtin_tasks

from app.job_requests import MAINTENANCE_QUEUE
from app.jobs import jobs_app, services_of


@jobs_app.periodic(cron="17 * * * *")
@jobs_app.task(queue=MAINTENANCE_QUEUE, queueing_lock="remove_old_jobs", pass_context=True)
async def remove_old_jobs(context: JobContext, timestamp: int) -> None:
    """Keep the job table small: finished jobs older than three days go, and so do those
    that gave way to a twin (`aborted`); failed ones stay. Stops at a time limit older
    than a week go too. Next month's partition of records is made ahead."""
    await builtin_tasks.remove_old_jobs(
        context, max_hours=72, remove_failed=False, remove_aborted=True
    )
    # The record of jobs stopped at their limit: a week is plenty to read it.
    store = services_of(context).store
    await asyncio.to_thread(store.prune_job_stops, older_than_s=7 * 86_400)
    # Next month's partition of records, made before the first record needs it.
    today = datetime.now(UTC).date()
    await asyncio.to_thread(store.ensure_record_months, days=[today, today + timedelta(days=32)])
