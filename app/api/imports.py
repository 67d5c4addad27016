"""Imports over HTTP: upload an ActivityWatch export, then follow its job's progress.

The upload's body is not held in memory (app/api/limits.py passes it through up to
MAX_UPLOAD_BYTES); the token is checked before any of it is read.
"""

from __future__ import annotations

import shutil
from pathlib import Path as FilePath
from typing import IO, Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel
from starlette.datastructures import UploadFile

from app.api.deps import ServicesDep, UserDep
from app.api.errors import AUTHED, WITH_BODY, errors
from app.api.limits import MAX_UPLOAD_BYTES
from app.errors import NotFoundError
from app.importers.aw_read import SOURCE
from app.importers.uploads import upload_path
from app.job_requests import import_job
from app.runtime.services import Services
from app.store.accounts import ID_MAX, UserContext

router = APIRouter(prefix="/api/v1/import", tags=["import"], responses=AUTHED)
# Apart from the upload's path, which would otherwise also match `/{import_id}`.
progress_router = APIRouter(prefix="/api/v1/imports", tags=["import"], responses=AUTHED)
UPLOAD_PATH = "/api/v1/import/activitywatch"
# The bodies app/api/limits.py streams through to their route, with their limits.
STREAMED = {UPLOAD_PATH: MAX_UPLOAD_BYTES}
_UPLOAD_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {"file": {"type": "string", "format": "binary"}},
                }
            }
        },
    }
}


class ImportAccepted(BaseModel):
    import_id: int
    status: str
    progress: str  # where to follow it


def _refuse(message: str) -> RequestValidationError:
    problem = {"loc": ("body", "file"), "msg": message, "type": "value_error"}
    return RequestValidationError([problem])


def _looks_like_json(upload: IO[bytes]) -> bool:
    """An export is a JSON object or array: its first non-blank byte says so."""
    head = upload.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    upload.seek(0)
    return head[:1] in (b"{", b"[")


def _queue(services: Services, user: UserContext, upload: IO[bytes]) -> int:
    import_id = services.store.create_import(user_id=user.user_id, source=SOURCE)
    path: FilePath = upload_path(
        services.settings.data_dir, user_id=user.user_id, import_id=import_id
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        shutil.copyfileobj(upload, out, 1 << 20)
    services.store.defer([import_job(user.user_id, import_id)])
    return import_id


@router.post(
    "/activitywatch",
    status_code=202,
    response_model=ImportAccepted,
    responses=WITH_BODY,
    openapi_extra=_UPLOAD_BODY,
)
async def upload_activitywatch(
    request: Request, services: ServicesDep, user: UserDep
) -> ImportAccepted:
    """Upload an ActivityWatch export (multipart, field `file`, up to 2 GiB); the
    worker imports it as `timetrace import activitywatch` does. Follow it at `progress`."""
    form = await request.form(max_files=1, max_fields=1)
    try:
        upload = form.get("file")
        if not isinstance(upload, UploadFile):
            raise _refuse("an ActivityWatch export is required (a multipart file field `file`)")
        if not await run_in_threadpool(_looks_like_json, upload.file):
            raise _refuse("not an ActivityWatch export: it does not begin a JSON object or array")
        import_id = await run_in_threadpool(_queue, services, user, upload.file)
    finally:
        await form.close()
    return ImportAccepted(
        import_id=import_id, status="queued", progress=f"/api/v1/imports/{import_id}"
    )


@progress_router.get("/{import_id}", responses=errors(404, 422))
def import_progress(
    import_id: Annotated[int, Path(ge=1, le=ID_MAX)], services: ServicesDep, user: UserDep
) -> dict[str, Any]:
    """An import's status (queued, running, done, failed), its stage and counts."""
    row = services.store.get_import(user_id=user.user_id, import_id=import_id)
    if row is None:
        raise NotFoundError(f"no import {import_id}")
    return row.model_dump()
