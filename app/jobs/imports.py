"""Import tasks: an ActivityWatch export uploaded over HTTP (app/importers/uploads.py)."""

from __future__ import annotations

from procrastinate import JobContext, RetryStrategy

from app.importers.uploads import run_upload, upload_path
from app.job_requests import IMPORT_QUEUE, IMPORT_TASK
from app.jobs import jobs_app, services_of

RETRY = RetryStrategy(max_attempts=3, exponential_wait=5)


@jobs_app.task(name=IMPORT_TASK, queue=IMPORT_QUEUE, retry=RETRY, pass_context=True)
def import_activitywatch(context: JobContext, user_id: int, import_id: int) -> str:
    services = services_of(context)
    user = services.store.get_user_by_id(user_id=user_id)
    if user is None:
        return "gone"
    path = upload_path(services.settings.data_dir, user_id=user_id, import_id=import_id)
    progress = run_upload(
        services.store,
        user=user,
        import_id=import_id,
        path=path,
        rules=services.rules,
        settings=services.settings,
    )
    return progress.status
