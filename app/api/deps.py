"""FastAPI dependencies as typed aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Cookie, Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.errors import AuthError
from app.runtime.auth import hash_token
from app.runtime.services import Services
from app.store import UserContext

_bearer = HTTPBearer(auto_error=False, description="An API token from `timetrace token create`.")


def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


def authenticate(services: Services, token: str | None) -> UserContext:
    """The user a token acts for; AuthError when it is missing, unknown or revoked."""
    if not token:
        raise AuthError()
    user = services.store.user_for_token(token_hash=hash_token(token))
    if user is None:
        raise AuthError("the API token is unknown or revoked")
    return user


def current_user(
    services: ServicesDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> UserContext:
    return authenticate(services, credentials.credentials if credentials else None)


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
    return authenticate(services, token)


UserDep = Annotated[UserContext, Depends(current_user)]
DocsUserDep = Annotated[UserContext, Depends(user_for_docs)]
