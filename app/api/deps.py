"""FastAPI dependencies as typed aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Cookie, Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.runtime.auth import user_for_token
from app.runtime.services import Services
from app.store import UserContext

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


UserDep = Annotated[UserContext, Depends(current_user)]
DocsUserDep = Annotated[UserContext, Depends(user_for_docs)]
