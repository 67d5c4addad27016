"""Imports over HTTP: upload an ActivityWatch export, then follow its job's progress."""

from __future__ import annotations

import shutil
from dataclasses import asdict
from typing import Any

from fastapi import APIRouter, UploadFile
from pydantic import BaseModel

from app.api.deps import ServicesDep, UserDep
from app.errors import NotFoundError
from app.importers.activitywatch import SOURCE
from app.importers.uploads import import_job, upload_path

router = APIRouter(prefix="/api/v1/import", tags=["import"])


class ImportAccepted(BaseModel):
    import_id: int
    status: str
    progress: str  # where to follow it


@router.post("/activitywatch", status_code=202, response_model=ImportAccepted)
def upload_activitywatch(file: UploadFile, services: ServicesDep, user: UserDep) -> ImportAccepted:
    """Upload an ActivityWatch export (multipart, field `file`); the worker imports it
    as `timetrace import activitywatch` does. Follow it at `progress`."""
    import_id = services.store.create_import(user_id=user.user_id, source=SOURCE)
    path = upload_path(services.settings.data_dir, user_id=user.user_id, import_id=import_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        shutil.copyfileobj(file.file, out, 1 << 20)
    services.store.defer([import_job(user.user_id, import_id)])
    return ImportAccepted(
        import_id=import_id, status="queued", progress=f"/api/v1/import/{import_id}"
    )


@router.get("/{import_id}")
def import_progress(import_id: int, services: ServicesDep, user: UserDep) -> dict[str, Any]:
    """An import's status (queued, running, done, failed), its stage and counts."""
    row = services.store.get_import(user_id=user.user_id, import_id=import_id)
    if row is None:
        raise NotFoundError(f"no import {import_id}")
    return asdict(row)
