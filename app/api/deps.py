"""FastAPI dependencies as typed aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Query, Request
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


def current_user_or_query_token(
    services: ServicesDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    token: Annotated[str | None, Query(include_in_schema=False)] = None,
) -> UserContext:
    """For the docs pages only, which a browser opens without a header."""
    return user_for_token(services.store, token=credentials.credentials if credentials else token)


UserDep = Annotated[UserContext, Depends(current_user)]
DocsUserDep = Annotated[UserContext, Depends(current_user_or_query_token)]
