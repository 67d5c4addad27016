"""Who a caller acts for: API tokens (random, shown once, stored only as SHA-256
digests) and the browser sessions the web pages sign in with."""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime
from typing import Protocol

from app.errors import AuthError
from app.store.accounts import AccountStore, UserContext
from app.store.scope import TokenScope
from app.store.web import WebSessionRow, WebStore

TOKEN_PREFIX = "tt_"
CSRF_HEADER = "X-CSRF-Token"


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()


def issue_token(
    store: AccountStore,
    *,
    user_id: int,
    name: str,
    scope: TokenScope | None = None,
    expires_at: datetime | None = None,
) -> str:
    """A new token for the user (with its scope and expiry, docs/scopes.md): the secret,
    shown once; only its digest is stored."""
    secret = new_token()
    store.add_token(
        user_id=user_id,
        token_hash=hash_token(secret),
        name=name,
        scope=scope,
        expires_at=expires_at,
    )
    return secret


def user_for_token(store: AccountStore, *, token: str | None) -> UserContext:
    """Who a bearer token acts for, for every door (HTTP API, MCP); `AuthError` otherwise."""
    if not token:
        raise AuthError()
    user = store.user_for_token(token_hash=hash_token(token), now=datetime.now(UTC))
    if user is None:
        raise AuthError("the API token is unknown or revoked")
    return user


def web_session(store: WebStore, *, cookie: str | None) -> WebSessionRow | None:
    """The live browser session a session cookie names, if any."""
    return store.web_session(session_hash=hash_token(cookie)) if cookie else None


class CallerStore(AccountStore, WebStore, Protocol):
    """What deciding who a caller is reads."""


def user_for_caller(
    store: CallerStore, *, token: str | None, cookie: str | None, csrf: str | None
) -> UserContext:
    """Who an API call acts for: its bearer token when it sends one; else a signed-in
    page's session cookie, but only with that session's CSRF token in a header (a
    forged cross-site request carries the cookie, never the token); `AuthError` otherwise."""
    if token or not cookie:
        return user_for_token(store, token=token)
    session = web_session(store, cookie=cookie)
    if session is None:
        raise AuthError("the browser session is unknown or has ended: sign in again")
    if not same_secret(csrf, session.csrf_token):
        raise AuthError(f"a browser session needs its CSRF token in the {CSRF_HEADER} header")
    return session.user


def same_secret(given: str | None, expected: str) -> bool:
    """A constant-time comparison that also takes what a client sent in any script."""
    return bool(given) and secrets.compare_digest(
        (given or "").encode("utf-8"), expected.encode("utf-8")
    )
