"""Records (L0): ingest and deletion."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Annotated, Any, Self

from fastapi import APIRouter, Request, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError, model_validator

from app.api.deps import ServicesDep, UserDep
from app.api.errors import AUTHED, WITH_BODY
from app.boundary import Id, Instant
from app.errors import UnknownDeviceError
from app.ingest import records as ingest
from app.ingest.fast import as_record_batch, decode_batch
from app.ingest.records import IngestResult, RecordBatch, ingest_batch
from app.store import DEVICE_ID_PATTERN

router = APIRouter(prefix="/api/v1/records", tags=["records"], responses=AUTHED)


class _BatchRequest(Request):
    """A request whose JSON body is a `RecordBatch`: decoded by msgspec's fast path when
    it is well-formed (app/ingest/fast.py), else parsed and validated from its bytes in
    one pass of pydantic-core. A body that does not validate goes back to FastAPI as
    plain JSON, which then says what is wrong with it, field by field, as for any other
    route."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            decoded = decode_batch(body, now=datetime.now(UTC))
            if decoded is not None:
                self._json = as_record_batch(decoded)
                return self._json
            try:
                self._json = RecordBatch.model_validate_json(body)
            except ValidationError:
                self._json = json.loads(body)
        return self._json


class _BatchRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def batch_handler(request: Request) -> Response:
            return await handler(_BatchRequest(request.scope, request.receive))

        return batch_handler


def post_records(batch: RecordBatch, services: ServicesDep, user: UserDep) -> IngestResult:
    """Ingest up to 5,000 records of one device. Replaying a batch adds nothing:
    records are keyed by (device_id, ts_start, client_record_id)."""
    return ingest_batch(services.store, user=user, batch=batch, rules=services.rules)


router.add_api_route(
    "",
    post_records,
    methods=["POST"],
    response_model=IngestResult,
    responses=WITH_BODY,
    route_class_override=_BatchRoute,
)


RecordId = Id  # a strict integer up to bigint's largest: `true` is no id


class DeleteRequest(BaseModel):
    """Either record ids, or a time range [ts_from, ts_to) optionally of one device."""

    model_config = ConfigDict(extra="forbid")
    record_ids: Annotated[list[RecordId], Field(min_length=1, max_length=100_000)] | None = None
    device_id: Annotated[StrictStr, Field(pattern=DEVICE_ID_PATTERN)] | None = None
    ts_from: Instant | None = None
    ts_to: Instant | None = None

    @model_validator(mode="after")
    def _one_selector(self) -> Self:
        has_range = self.ts_from is not None or self.ts_to is not None
        if self.record_ids is None and not has_range:
            raise ValueError("give record_ids, or ts_from and ts_to")
        if self.record_ids is not None and has_range:
            raise ValueError("give record_ids or a time range, not both")
        if has_range and (self.ts_from is None or self.ts_to is None):
            raise ValueError("a time range needs both ts_from and ts_to")
        if self.ts_from and self.ts_to and self.ts_to <= self.ts_from:
            raise ValueError("ts_to must be after ts_from")
        return self


class DeleteResult(BaseModel):
    deleted: int


@router.delete("", response_model=DeleteResult, responses=WITH_BODY)
def delete_records(request: DeleteRequest, services: ServicesDep, user: UserDep) -> DeleteResult:
    """Delete records: when this answers, their captured text is gone from every layer
    (episodes, digests, signals, label notes built from them stop serving it), and the
    layers are rebuilt without them in the background. `timetrace compact` then rewrites
    the table files; what it cannot reach (WAL, backups) is in docs/operations.md."""
    if request.device_id is not None and not services.store.device_exists(
        user_id=user.user_id, device_id=request.device_id
    ):
        # Answering `deleted: 0` would hide a typo in a request meant to erase data.
        raise UnknownDeviceError(f"unknown device {request.device_id!r}")
    deleted = ingest.delete_records(
        services.store,
        user=user,
        record_ids=request.record_ids,
        device_id=request.device_id,
        ts_from=request.ts_from,
        ts_to=request.ts_to,
    )
    return DeleteResult(deleted=deleted)
