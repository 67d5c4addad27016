"""Re-categorising a user's history after their rules changed, when it is too long to do
in the request (app/pyramid/user_rules.py): the records move here, their device-days
are marked, and the build jobs rebuild them. Safe to run twice (a second run moves
nothing)."""

from __future__ import annotations

from procrastinate import JobContext

from app import job_requests as requests
from app.jobs import jobs_app, services_of
from app.jobs.pyramid import RETRY
from app.pyramid.user_rules import recategorize_history as recategorize


@jobs_app.task(
    name=requests.RECATEGORIZE_TASK, queue=requests.EPISODE_QUEUE, retry=RETRY, pass_context=True
)
def recategorize_history(context: JobContext, user_id: int) -> int:
    services = services_of(context)
    if services.store.get_user_by_id(user_id=user_id) is None:
        return 0
    return recategorize(services.store, rules=services.rules, user_id=user_id)
