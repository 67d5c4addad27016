"""GET /api/v1/export: the caller's data, streamed (docs/export.md): every layer as jsonl,
aw-server's export format, or one CSV table. Read from one snapshot on a connection of
its own, a chunk at a time, so that a year never sits in memory."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Annotated, Any, Literal
from urllib.parse import quote

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from app.api.deps import ServicesDep, UserDep
from app.api.errors import AUTHED, errors
from app.db.export import ExportRequest, export_chunks
from app.db.scoped import reader_for
from app.runtime.services import Services

router = APIRouter(prefix="/api/v1", tags=["export"], responses=AUTHED)

_STREAMED: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The export, streamed.",
        "content": {
            "application/x-ndjson": {},
            "application/json": {},
            "text/csv": {},
        },
    }
}


@router.get("/export", response_class=StreamingResponse, responses=_STREAMED | errors(422))
def get_export(
    services: ServicesDep,
    user: UserDep,
    format: Literal["jsonl", "activitywatch", "csv"] = "jsonl",
    from_: Annotated[date | None, Query(alias="from", description="First logical day.")] = None,
    to: Annotated[date | None, Query(description="Last logical day, included.")] = None,
    table: Annotated[
        Literal["records", "episodes"], Query(description="With format=csv: which table.")
    ] = "records",
) -> StreamingResponse:
    """Everything TimeTrace holds for you (`jsonl`, for `timetrace import timetrace`),
    an ActivityWatch export (`activitywatch`) or one table for spreadsheets (`csv`),
    optionally for the logical days `from` … `to`."""
    request = ExportRequest(user=user, fmt=format, day_from=from_, day_to=to, table=table)
    return StreamingResponse(
        _stream(services, request),
        media_type=request.media_type(),
        headers={"Content-Disposition": _attachment(request.file_name())},
    )


def _attachment(name: str) -> str:
    """A download's file name: ASCII for every client, UTF-8 (RFC 6266) for the rest, so
    a user called 小明 gets a header that can be sent."""
    plain = "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else "_" for c in name)
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(name, safe='')}"


def _stream(services: Services, request: ExportRequest) -> Iterator[bytes]:
    # A scoped token exports only what it may see (docs/scopes.md).
    with reader_for(services.url, settings=services.settings, user=request.user) as conn:
        yield from export_chunks(conn, request=request)
