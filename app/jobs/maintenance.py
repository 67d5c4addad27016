"""Keeping the queue healthy: jobs of a worker that died are retried."""

from __future__ import annotations

from procrastinate import JobContext, builtin_tasks

from app.jobs import jobs_app


@jobs_app.periodic(cron="*/5 * * * *")
@jobs_app.task(queue="maintenance", queueing_lock="retry_stalled_jobs", pass_context=True)
async def retry_stalled_jobs(context: JobContext, timestamp: int) -> int:
    """Requeue jobs whose worker stopped sending heartbeats (killed mid-job)."""
    manager = context.app.job_manager
    stalled = list(await manager.get_stalled_jobs())
    for job in stalled:
        await manager.retry_job(job)
    return len(stalled)


@jobs_app.periodic(cron="17 * * * *")
@jobs_app.task(queue="maintenance", queueing_lock="remove_old_jobs", pass_context=True)
async def remove_old_jobs(context: JobContext, timestamp: int) -> None:
    """Keep the job table small: finished jobs older than three days go (failed ones stay)."""
    await builtin_tasks.remove_old_jobs(context, max_hours=72, remove_failed=False)
