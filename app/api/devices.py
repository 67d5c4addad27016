"""Devices: a capture client registers its device once, then ingests."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Response, status
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import ServicesDep, UserDep
from app.api.errors import AUTHED, WITH_BODY
from app.store.accounts import DEVICE_ID_PATTERN, DeviceKind, DeviceRow
from app.text import StorableStr

router = APIRouter(prefix="/api/v1/devices", tags=["devices"], responses=AUTHED)


class DevicePublic(DeviceRow):
    """A device as the API returns it: the store's row (FastAPI's `XBase`/`XPublic`)."""


class DeviceCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    device_id: Annotated[str, Field(pattern=DEVICE_ID_PATTERN)]
    name: Annotated[StorableStr, Field(max_length=200)] = ""
    kind: DeviceKind = "desktop"


@router.post(
    "",
    response_model=DevicePublic,
    status_code=status.HTTP_201_CREATED,
    responses={200: {"model": DevicePublic, "description": "Already registered"}, **WITH_BODY},
)
def add_device(
    body: DeviceCreate, services: ServicesDep, user: UserDep, response: Response
) -> DevicePublic:
    """Register a device (idempotent: 200 with the existing device when it is known)."""
    created = services.store.add_device(
        user_id=user.user_id, device_id=body.device_id, name=body.name, kind=body.kind
    )
    if not created:
        response.status_code = status.HTTP_200_OK
    device = next(
        d
        for d in services.store.list_devices(user_id=user.user_id)
        if d.device_id == body.device_id
    )
    return DevicePublic.model_validate(device, from_attributes=True)


@router.get("", response_model=list[DevicePublic])
def list_devices(services: ServicesDep, user: UserDep) -> list[DevicePublic]:
    return [
        DevicePublic.model_validate(d, from_attributes=True)
        for d in services.store.list_devices(user_id=user.user_id)
    ]
