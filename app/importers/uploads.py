"""Imports started over HTTP: the upload is kept in the data directory, a worker job
imports it and writes its progress where every API process can read it.

    import_id = store.create_import(user_id=user.user_id, source=SOURCE)
    store.defer([import_job(user.user_id, import_id)])
    run_upload(store, user=user, import_id=import_id, path=upload_path(...), rules=rules)
"""

from __future__ import annotations

from pathlib import Path

from app.errors import TimeTraceError
from app.importers.activitywatch import import_activitywatch_file
from app.pyramid.requests import EPISODE_PRIORITY
from app.rules.categories import Rules
from app.store import ImportProgress, JobRequest, Store, UserContext

IMPORT_TASK = "import_activitywatch"


def import_job(user_id: int, import_id: int) -> JobRequest:
    """One import at a time per user: two at once would only contend for the same rows."""
    return JobRequest(
        task_name=IMPORT_TASK,
        queue="imports",
        args={"user_id": user_id, "import_id": import_id},
        lock=f"import:{user_id}",
        priority=EPISODE_PRIORITY,
    )


def upload_path(data_dir: Path, *, user_id: int, import_id: int) -> Path:
    return data_dir / "imports" / f"{user_id}-{import_id}.json"


def run_upload(
    store: Store, *, user: UserContext, import_id: int, path: Path, rules: Rules
) -> ImportProgress:
    """Import an uploaded ActivityWatch export, recording progress as it goes. A file
    that cannot be imported fails the import with the reason; either way the upload
    (captured text) is deleted once it is done with. Other errors propagate, so the
    job is retried (importing is idempotent) and the file kept for it."""

    def save(progress: ImportProgress) -> ImportProgress:
        store.update_import(user_id=user.user_id, import_id=import_id, progress=progress)
        return progress

    def on_progress(stage: str, done: int, total: int | None) -> None:
        save(ImportProgress(status="running", stage=stage, done=done, total=total))

    save(ImportProgress(status="running", stage="reading"))
    try:
        summary = import_activitywatch_file(
            store, path=path, user=user, rules=rules, progress=on_progress
        )
    except TimeTraceError as exc:
        path.unlink(missing_ok=True)
        return save(ImportProgress(status="failed", error=exc.message))
    path.unlink(missing_ok=True)
    return save(
        ImportProgress(
            status="done",
            stage="done",
            done=summary.records,
            events=summary.events,
            new=summary.new,
            duplicate=summary.duplicate,
            excluded=summary.excluded,
            redacted=summary.redacted,
        )
    )
