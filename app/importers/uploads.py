"""Imports started over HTTP: the upload is kept in the data directory, a worker job
imports it and writes its progress where every API process can read it.

    import_id = store.create_import(user_id=user.user_id, source=SOURCE)
    store.defer([import_job(user.user_id, import_id)])  # from app.job_requests
    run_upload(store, user=user, import_id=import_id, path=upload_path(...), rules=rules,
               settings=settings)
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from app.errors import DatabaseBusyError, TimeTraceError
from app.importers.activitywatch import import_activitywatch_file
from app.importers.aw_tree import apply_tree, classes_of_export, plan_tree
from app.ingest.records import IngestStore
from app.pyramid.user_categories import TreeStore
from app.rules.categories import Rules
from app.settings import Settings
from app.store.accounts import UserContext
from app.store.records import ImportProgress, ImportStore

ERROR_MAX = 1_000  # characters of a failure's reason kept on the import
log = logging.getLogger("timetrace.imports")


class UploadStore(ImportStore, IngestStore, TreeStore, Protocol):
    """An upload's progress, the ingest path its records take, and the user's category
    tree its `classes` come into."""


def upload_path(data_dir: Path, *, user_id: int, import_id: int) -> Path:
    return data_dir / "imports" / f"{user_id}-{import_id}.json"


def run_upload(
    store: UploadStore,
    *,
    user: UserContext,
    import_id: int,
    path: Path,
    rules: Rules,
    settings: Settings,
) -> ImportProgress:
    """Import an uploaded ActivityWatch export, recording progress as it goes; the
    category tree it carries (`classes`, as TimeTrace's activitywatch export writes it)
    first becomes the user's, as `timetrace import activitywatch` brings it. An
    import that fails for any reason — a file that cannot be imported, or a bug it
    runs into — ends `failed` with the reason, at once (retrying would only hold the
    user's imports back), and the upload (captured text) is deleted. Only a busy or
    restarting database propagates, so the job is retried (importing is idempotent)
    with the file kept for it."""

    def save(progress: ImportProgress) -> ImportProgress:
        store.update_import(user_id=user.user_id, import_id=import_id, progress=progress)
        return progress

    def on_progress(stage: str, done: int, total: int | None) -> None:
        save(ImportProgress(status="running", stage=stage, done=done, total=total))

    save(ImportProgress(status="running", stage="reading"))
    try:
        _bring_tree(store, user=user, path=path, rules=rules, settings=settings)
        summary = import_activitywatch_file(
            store, path=path, user=user, rules=rules, progress=on_progress
        )
    except DatabaseBusyError:
        raise
    except TimeTraceError as exc:
        return _failed(save, path, exc.message)
    except Exception as exc:  # a bug, or input no check foresaw: one line, no traceback
        log.warning("import %s failed: %s", import_id, type(exc).__name__)
        return _failed(save, path, f"the import failed inside TimeTrace ({type(exc).__name__})")
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


def _bring_tree(
    store: UploadStore, *, user: UserContext, path: Path, rules: Rules, settings: Settings
) -> None:
    """Before the history, so that its records are sorted by the tree's rules. A top no
    name maps to a kind counts as uncategorized (no one is there to ask); a retried
    job finds its categories and rules in place and changes nothing."""
    classes = classes_of_export(path)
    if classes:
        plan = plan_tree(classes, top_kinds={})
        apply_tree(
            store, rules=rules, settings=settings, user=user, plan=plan, now=datetime.now(UTC)
        )


def _failed(
    save: Callable[[ImportProgress], ImportProgress], path: Path, reason: str
) -> ImportProgress:
    path.unlink(missing_ok=True)
    # The reason may quote the file: storable, and short.
    return save(ImportProgress(status="failed", error=reason.replace("\x00", "")[:ERROR_MAX]))
