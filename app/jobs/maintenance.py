"""Keeping the queue small. (Jobs of a worker that died are requeued by every running
worker, see app/jobs/supervisor.py.)"""

from __future__ import annotations

from procrastinate import JobContext, builtin_tasks

from app.jobs import jobs_app


@jobs_app.periodic(cron="17 * * * *")
@jobs_app.task(queue="maintenance", queueing_lock="remove_old_jobs", pass_context=True)
async def remove_old_jobs(context: JobContext, timestamp: int) -> None:
    """Keep the job table small: finished jobs older than three days go, and so do those
    that gave way to a twin (`aborted`); failed ones stay."""
    await builtin_tasks.remove_old_jobs(
        context, max_hours=72, remove_failed=False, remove_aborted=True
    )
