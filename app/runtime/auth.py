"""API tokens: random, shown once, stored only as SHA-256 digests."""

from __future__ import annotations

import hashlib
import secrets

from app.errors import AuthError
from app.store import AccountStore, UserContext

TOKEN_PREFIX = "tt_"


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def user_for_token(store: AccountStore, *, token: str | None) -> UserContext:
    """Who a bearer token acts for, for every door (HTTP API, MCP); `AuthError` otherwise."""
    if not token:
        raise AuthError()
    user = store.user_for_token(token_hash=hash_token(token))
    if user is None:
        raise AuthError("the API token is unknown or revoked")
    return user
