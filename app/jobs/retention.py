"""The daily retention job: every user's tiers applied (app/pyramid/retention.py)."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

from procrastinate import JobContext

from app.job_requests import MAINTENANCE_QUEUE
from app.jobs import jobs_app, services_of
from app.pyramid.retention import apply_retention

log = logging.getLogger("timetrace.retention")


@jobs_app.periodic(cron="41 3 * * *")
@jobs_app.task(queue=MAINTENANCE_QUEUE, queueing_lock="apply_retention", pass_context=True)
async def apply_retention_tiers(context: JobContext, timestamp: int) -> None:
    """Once a day: raw records past a user's raw tier go (whole months dropped where no
    user keeps a row of them), episode text past the episode tier goes. Counts only are
    logged, never captured text. Safe to run twice: the second run finds nothing; a run
    killed anywhere is finished by the next (the expiry is saved first)."""
    store = services_of(context).store
    report = await asyncio.to_thread(apply_retention, store, now=datetime.now(UTC))
    if report.users:
        removed = report.removed
        log.info(
            "retention: %d records, %d analyses, %d door events, %d conversation turns, "
            "%d episode texts, %d digest titles; %d months dropped",
            removed.records,
            removed.analyses,
            removed.aw_events,
            removed.turns,
            removed.episodes,
            removed.digests,
            len(report.months),
        )
