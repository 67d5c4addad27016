"""API tokens over HTTP: list them with their scopes, and create one, scoped or not
(docs/scopes.md). The secret is in the creation's answer only."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, status
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import ServicesDep, UserDep
from app.api.errors import AUTHED, WITH_BODY
from app.errors import ForbiddenError
from app.runtime.auth import issue_token
from app.store.scope import parse_expiry, parse_scope
from app.text import StorableStr

router = APIRouter(prefix="/api/v1/tokens", tags=["account"], responses=AUTHED)


class TokenPublic(BaseModel):
    token_id: int
    name: str
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    scope: str = Field(description="the scope in `--scope` words; empty: the whole user")


class TokenCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[StorableStr, Field(max_length=200)] = ""
    scope: Annotated[StorableStr, Field(max_length=2000)] = Field(
        "", description="e.g. `read-only kinds=work hours=09:00-18:00 days=mon-fri`"
    )
    expires: Annotated[StorableStr, Field(max_length=40)] | None = Field(
        None, description="30d, 12h, a date or an ISO instant"
    )


class TokenCreated(TokenPublic):
    token: str = Field(description="the secret, shown this once")


@router.get("", response_model=list[TokenPublic])
def list_tokens(services: ServicesDep, user: UserDep) -> list[TokenPublic]:
    return [
        TokenPublic(
            token_id=t.token_id,
            name=t.name,
            created_at=t.created_at,
            expires_at=t.expires_at,
            revoked_at=t.revoked_at,
            scope=t.scope_words,
        )
        for t in services.store.list_tokens(user_id=user.user_id)
    ]


@router.post(
    "", response_model=TokenCreated, status_code=status.HTTP_201_CREATED, responses=WITH_BODY
)
def create_token(body: TokenCreate, services: ServicesDep, user: UserDep) -> TokenCreated:
    """Create a token for the caller's user; only a token without a scope may (a scoped
    one could otherwise make itself a wider one)."""
    if user.scope is not None:
        raise ForbiddenError("only a token without a scope may create tokens")
    scope = parse_scope(body.scope) if body.scope.strip() else None
    expires_at = parse_expiry(body.expires, now=datetime.now(UTC)) if body.expires else None
    secret = issue_token(
        services.store, user_id=user.user_id, name=body.name, scope=scope, expires_at=expires_at
    )
    made = services.store.list_tokens(user_id=user.user_id)[-1]
    return TokenCreated(
        token=secret,
        token_id=made.token_id,
        name=made.name,
        created_at=made.created_at,
        expires_at=made.expires_at,
        revoked_at=None,
        scope=made.scope_words,
    )
