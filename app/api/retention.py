"""Retention tiers of the signed-in user (docs/retention.md)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import ServicesDep, UserDep
from app.api.errors import AUTHED, WITH_BODY
from app.pyramid.retention import check_tiers
from app.store.retention import RetentionRow

router = APIRouter(prefix="/api/v1/retention", tags=["retention"], responses=AUTHED)

Days = Annotated[int, Field(ge=1, le=100_000)]


class RetentionPublic(BaseModel):
    """A user's tiers (null: kept) and how far they have been applied."""

    raw_days: int | None = None
    episode_days: int | None = None
    keep_digest_titles: bool = True
    raw_expired_before: datetime | None = None
    raw_expired_day: date | None = None
    episodes_expired_day: date | None = None
    applied_at: datetime | None = None


class RetentionUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    raw_days: Days | None = None
    episode_days: Days | None = None
    keep_digest_titles: bool = Field(
        True, description="false: digests over expired raw lose their top titles and narratives"
    )


def _public(row: RetentionRow | None) -> RetentionPublic:
    if row is None:
        return RetentionPublic()
    return RetentionPublic.model_validate(row, from_attributes=True)


@router.get("", response_model=RetentionPublic)
def get_retention(services: ServicesDep, user: UserDep) -> RetentionPublic:
    """The tiers; `raw_expired_before`: every record before it has expired."""
    return _public(services.store.get_retention(user_id=user.user_id))


@router.put("", response_model=RetentionPublic, responses=WITH_BODY)
def set_retention(body: RetentionUpdate, services: ServicesDep, user: UserDep) -> RetentionPublic:
    """Set both tiers (null: kept); the daily job applies them. Episode text must be kept
    at least as long as raw records (422 otherwise)."""
    check_tiers(raw_days=body.raw_days, episode_days=body.episode_days)
    return _public(
        services.store.set_retention(
            user_id=user.user_id,
            raw_days=body.raw_days,
            episode_days=body.episode_days,
            keep_digest_titles=body.keep_digest_titles,
        )
    )
