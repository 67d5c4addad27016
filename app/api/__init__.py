"""The HTTP API (FastAPI). Every route but /healthz needs a bearer token.

app = create_app(services=services)
uvicorn.run(app, host=settings.host, port=settings.port)
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Route
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from app import __version__, web
from app.api import (
    agent,
    devices,
    docs,
    export,
    imports,
    openai_compat,
    records,
    reports,
    retention,
    rules,
    tokens,
    tools,
)
from app.api.deps import RETRY_AFTER_S, ServicesDep, UserDep
from app.api.doors import HostCheck
from app.api.errors import AUTHED
from app.api.limits import BoundedRequests
from app.api.openai_errors import is_door_path, openai_error, unknown_route
from app.errors import (
    AuthError,
    ConflictError,
    DatabaseError,
    ForbiddenError,
    InvalidInputError,
    NotFoundError,
    TimeTraceError,
    UnknownDeviceError,
)
from app.mcp import McpEndpoint
from app.runtime.health import check_health
from app.runtime.services import Services
from app.store.scope import describe_scope
from app.tools.calendar import Calendar, user_calendar

log = logging.getLogger("timetrace.api")


def _field_name(loc: tuple[Any, ...]) -> str:
    parts = list(loc[1:] if loc and loc[0] in ("body", "query", "path") else loc)
    name = ""
    for part in parts:
        if isinstance(part, int):
            name += f"[{part}]"
        else:
            name += ("." if name else "") + str(part)
    return name or "body"


def _validation_errors(exc: RequestValidationError) -> list[dict[str, str]]:
    details = []
    for error in exc.errors():
        message = str(error.get("msg", "invalid")).removeprefix("Value error, ")
        details.append({"field": _field_name(tuple(error.get("loc", ()))), "message": message})
    return details


def _error(
    request: Request,
    status: int,
    message: str,
    *,
    headers: Mapping[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    if status == 401:
        headers = {**(headers or {}), "WWW-Authenticate": "Bearer"}
    elif status == 503:
        headers = {**(headers or {}), "Retry-After": str(RETRY_AFTER_S)}
    if is_door_path(request.url.path):  # OpenAI's clients read only OpenAI's shape
        fields = [d["field"] for d in extra.get("detail", [])]
        return openai_error(status, message, param=fields[0] if fields else None, headers=headers)
    return JSONResponse({"error": message, **extra}, status_code=status, headers=headers)


def _methods_on(request: Request) -> list[str]:
    """The methods some route answers on this request's path."""
    routes = request.app.router.routes
    return [
        method
        for method in ("DELETE", "GET", "PATCH", "POST", "PUT")
        if any(r.matches({**request.scope, "method": method})[0] == Match.FULL for r in routes)
    ]


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def on_validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        details = _validation_errors(exc)
        summary = "; ".join(f"{d['field']}: {d['message']}" for d in details[:5])
        return _error(request, 422, f"invalid input: {summary}", detail=details)

    @app.exception_handler(TimeTraceError)
    async def on_domain(request: Request, exc: TimeTraceError) -> JSONResponse:
        if isinstance(exc, UnknownDeviceError):
            return _error(
                request,
                422,
                f"invalid input: device_id: {exc.message}",
                detail=[{"field": "device_id", "message": exc.message}],
            )
        status = 400
        if isinstance(exc, AuthError):
            status = 401
        elif isinstance(exc, ForbiddenError):
            status = 403
        elif isinstance(exc, NotFoundError):
            status = 404
        elif isinstance(exc, InvalidInputError):
            status = 422
        elif isinstance(exc, ConflictError):
            status = 409
        elif isinstance(exc, DatabaseError):
            log.warning("database error: %s", exc.message)
            return _error(request, 503, "the database is busy or not available; try again shortly")
        return _error(request, status, exc.message)

    @app.exception_handler(StarletteHTTPException)
    async def on_http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            # Starlette names only the methods of the first route on the path.
            headers["Allow"] = ", ".join(_methods_on(request))
        message = str(exc.detail)
        if exc.status_code == 404 and is_door_path(request.url.path):
            message = unknown_route(request.url.path)
        return _error(request, exc.status_code, message, headers=headers)

    @app.exception_handler(Exception)
    async def on_crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error")  # the traceback stays in the server log
        return _error(request, 500, "internal error")


health = APIRouter(tags=["health"])


@health.get(
    "/healthz",
    responses={503: {"description": "Degraded: the body is the same report, with its problems"}},
)
def healthz(services: ServicesDep, response: Response) -> dict[str, Any]:
    """Liveness, database reachability and the job queue (waiting, the age of the oldest
    waiting job, stalled jobs, live workers, jobs past their time limit, users whose
    queue has not moved, jobs stopped at their limit): HTTP 503 and `degraded` with the
    problems when the database does not answer, a job is stalled or past its limit, a
    user's queue is stuck, or jobs wait too long. The only route without a token."""
    report = check_health(services.store, settings=services.settings)
    if report.status != "ok":
        response.status_code = 503
    return {**report.document(), "version": __version__}


me = APIRouter(prefix="/api/v1", tags=["account"], responses=AUTHED)


@me.get("/me")
def whoami(user: UserDep) -> dict[str, Any]:
    return {
        "user": user.name,
        "time_zone": user.time_zone,
        "day_cut_hour": user.day_cut_hour,
        "scope": describe_scope(user.scope),  # "" for the whole user (docs/scopes.md)
    }


@me.get("/context", response_model=Calendar)
def context(user: UserDep) -> Calendar:
    """Now in your zone, the zone, the hour your day starts, and today, yesterday, this
    and last week and month as [from, to) instants with their logical days: what MCP's
    `timetrace://context` resource reads."""
    return user_calendar(user=user, now=datetime.now(UTC))


def _mount_mcp(app: FastAPI, services: Services) -> None:
    """MCP over streamable HTTP at /mcp, behind the same tokens; its sessions live with the app."""
    endpoint = McpEndpoint(services=services)
    app.router.routes.append(Route("/mcp", endpoint=endpoint, include_in_schema=False))
    app.router.lifespan_context = lambda _: endpoint.running()


def create_app(*, services: Services) -> FastAPI:
    app = FastAPI(
        title="TimeTrace",
        version=__version__,
        summary="Activity memory: records -> episodes -> digests -> signals",
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.state.services = services
    app.add_middleware(BoundedRequests, streamed=imports.STREAMED)
    # Outermost last: the Host is checked first, then a trusted proxy's https is believed.
    app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=services.settings.trusted_proxy_list)
    app.add_middleware(HostCheck, names=services.settings.host_names)
    _install_error_handlers(app)
    app.include_router(health)
    app.include_router(me)
    app.include_router(records.router)
    app.include_router(devices.router)
    app.include_router(tokens.router)
    app.include_router(tools.tools_router())
    app.include_router(agent.router)
    app.include_router(openai_compat.router)
    app.include_router(docs.router)
    app.include_router(imports.router)
    app.include_router(imports.progress_router)
    _mount_mcp(app, services)
    app.include_router(reports.router)
    app.include_router(rules.router)
    app.include_router(export.router)
    app.include_router(retention.router)
    web.mount(app)  # the pages at /, behind their own sign-in

    @app.get("/openapi.json", include_in_schema=False)
    def openapi(_: UserDep) -> JSONResponse:
        return JSONResponse(app.openapi())

    return app
