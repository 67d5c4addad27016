"""FastAPI dependencies as typed aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Cookie, Depends, Header, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

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


def current_user(
    services: ServicesDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> UserContext:
    return user_for_token(services.store, token=credentials.credentials if credentials else None)


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
    services: ServicesDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    cookie: Annotated[str | None, Cookie(alias=SESSION_COOKIE, include_in_schema=False)] = None,
    csrf: Annotated[str | None, Header(alias=CSRF_HEADER, include_in_schema=False)] = None,
) -> UserContext:
    """For routes the pages' script calls (the Ask panel): the bearer token, else the
    web session cookie together with its CSRF header (see `user_for_caller`)."""
    return user_for_caller(
        services.store,
        token=credentials.credentials if credentials else None,
        cookie=cookie,
        csrf=csrf,
    )


UserDep = Annotated[UserContext, Depends(current_user)]
PageOrBearerUserDep = Annotated[UserContext, Depends(page_or_bearer_user)]
DocsUserDep = Annotated[UserContext, Depends(user_for_docs)]
