"""Browser sign-in: an API token pasted once becomes a server-side session whose
random id travels only in an HttpOnly, SameSite=Strict cookie; every write also
carries the session's CSRF token and must come from this origin.

    user = sign_in(store, token="tt_…")          # -> (cookie value, user) or None
    session = require_session(request)           # or SignInRequired
    check_form(request, session, form)           # or PageError(403)
"""

from __future__ import annotations

import secrets
from typing import Annotated
from urllib.parse import parse_qs, urlsplit

from fastapi import Depends, Request, Response

from app.errors import AuthError
from app.runtime.auth import hash_token, same_secret, user_for_token, web_session
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.store.web import WebSessionRow

SESSION_COOKIE = "tt_session"
SESSION_TTL_S = 30 * 24 * 3600
FORM_MAX_BYTES = 64 * 1024


class SignInRequired(Exception):
    """The request has no live session: pages send the browser to sign in."""


class PageError(Exception):
    """A page-level refusal, shown as an HTML page with this status."""

    def __init__(self, status: int, message_key: str, detail: str = "") -> None:
        super().__init__(message_key)
        self.status = status
        self.message_key = message_key
        self.detail = detail


def services_of(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


def sign_in(services: Services, *, token: str) -> tuple[str, UserContext] | None:
    """A new session for a valid API token: the cookie's value and the user."""
    if not token.strip():
        return None
    try:
        caller = user_for_token(services.store, token=token.strip())
    except AuthError:
        return None
    if caller.scope is not None:
        # The pages read the whole store (docs/scopes.md): a scoped token opens none.
        raise PageError(403, "scoped_token")
    secret = secrets.token_urlsafe(32)
    user = services.store.start_web_session(
        token_hash=hash_token(token.strip()),
        session_hash=hash_token(secret),
        csrf_token=secrets.token_urlsafe(32),
        ttl_s=SESSION_TTL_S,
    )
    return (secret, user) if user else None


def set_session_cookie(request: Request, response: Response, value: str) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        value,
        max_age=SESSION_TTL_S,
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def sign_out(request: Request, response: Response) -> None:
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        services_of(request).store.end_web_session(session_hash=hash_token(cookie))
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")


def current_session(request: Request) -> WebSessionRow | None:
    return web_session(services_of(request).store, cookie=request.cookies.get(SESSION_COOKIE))


def require_session(request: Request) -> WebSessionRow:
    session = current_session(request)
    if session is None:
        raise SignInRequired()
    return session


def check_origin(request: Request) -> None:
    """A write must come from a page of this site (browsers send Origin on POST)."""
    origin = request.headers.get("origin") or request.headers.get("referer")
    if origin is None:
        return  # not a browser (SameSite=Strict and the CSRF token still hold)
    parts = urlsplit(origin)
    if f"{parts.scheme}://{parts.netloc}" != f"{request.url.scheme}://{request.url.netloc}":
        raise PageError(403, "forbidden", "cross-origin form")


def check_form(request: Request, session: WebSessionRow, form: dict[str, str]) -> None:
    check_origin(request)
    if not same_secret(form.get("csrf"), session.csrf_token):
        raise PageError(403, "forbidden", "missing or wrong CSRF token")


async def read_form(request: Request) -> dict[str, str]:
    """An url-encoded form (first value of each field), at most 64 KiB."""
    body = await request.body()
    if len(body) > FORM_MAX_BYTES:
        raise PageError(413, "error", "the form is too large")
    fields = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
    return {name: values[0] for name, values in fields.items()}


Form = Annotated[dict[str, str], Depends(read_form)]
SessionDep = Annotated[WebSessionRow, Depends(require_session)]


def safe_next(target: str | None, *, default: str = "/day") -> str:
    """A local path to go back to, never another site."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default
    return target
