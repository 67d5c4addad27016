"""FastAPI dependencies as typed aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Cookie, Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.errors import ForbiddenError
from app.runtime.auth import CSRF_HEADER, user_for_caller, user_for_token
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.web.auth import SESSION_COOKIE

# A transient database error (busy, restarting) is a 503 to retry after this many seconds.
RETRY_AFTER_S = 2

_bearer = HTTPBearer(auto_error=False, description="An API token from `timetrace token create`.")


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


# The routes a token that may not write still posts to: a tool call (the registry refuses
# a write tool itself) and the two chat doors, which only read.
_READING_POSTS = ("/api/v1/tools/", "/api/v1/agent/chat", "/v1/chat/completions")


def refuse_writes(request: Request, user: UserContext) -> UserContext:
    """`ForbiddenError` (403) when a read-only or data-limited token asks for a change
    (docs/scopes.md); the caller otherwise."""
    scope = user.scope
    if scope is None or scope.can_write or request.method in ("GET", "HEAD", "OPTIONS"):
        return user
    if request.url.path.startswith(_READING_POSTS):
        return user
    why = "is read-only" if scope.read_only else "sees only part of your time"
    raise ForbiddenError(f"this token {why}: it may not {request.method} {request.url.path}")


def current_user(
    request: Request,
    services: ServicesDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> UserContext:
    token = credentials.credentials if credentials else None
    return refuse_writes(request, user_for_token(services.store, token=token))


# The docs pages carry their session in this cookie (HttpOnly, SameSite=Strict, Path=/docs),
# so that a browser never needs the token in an address or in the page.
DOCS_COOKIE = "timetrace_docs"


def docs_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    session: Annotated[str | None, Cookie(alias=DOCS_COOKIE, include_in_schema=False)] = None,
) -> str | None:
    """For the docs pages only: the bearer header, else the docs session cookie."""
    return credentials.credentials if credentials else session


DocsTokenDep = Annotated[str | None, Depends(docs_token)]


def user_for_docs(services: ServicesDep, token: DocsTokenDep) -> UserContext:
    return user_for_token(services.store, token=token)


def page_or_bearer_user(
    request: Request,
    services: ServicesDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    cookie: Annotated[str | None, Cookie(alias=SESSION_COOKIE, include_in_schema=False)] = None,
    csrf: Annotated[str | None, Header(alias=CSRF_HEADER, include_in_schema=False)] = None,
) -> UserContext:
    """For routes the pages' script calls (the Ask panel): the bearer token, else the
    web session cookie together with its CSRF header (see `user_for_caller`)."""
    user = user_for_caller(
        services.store,
        token=credentials.credentials if credentials else None,
        cookie=cookie,
        csrf=csrf,
    )
    return refuse_writes(request, user)


UserDep = Annotated[UserContext, Depends(current_user)]
PageOrBearerUserDep = Annotated[UserContext, Depends(page_or_bearer_user)]
DocsUserDep = Annotated[UserContext, Depends(user_for_docs)]
