"""The tools over HTTP: the same registry the agent and MCP read.

Each tool is its own operation, `POST /api/v1/tools/{tool}`, whose documented
body is the tool's argument schema, so the OpenAPI schema says exactly what
each tool accepts. The router is built when the app is (`tools_router()`), after
every layer has registered its tools.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from app.api.deps import RETRY_AFTER_S, ServicesDep, UserDep
from app.api.errors import AUTHED, errors
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.tools import REGISTRY, dispatch, list_tools
from app.tools.registry import Tool, dump, ordered_tools
from app.tools.results import ToolError


def _inlined(node: Any, defs: dict[str, Any]) -> Any:
    """A schema with its `#/$defs/…` references replaced by what they name: inside the
    OpenAPI document such a reference would point at the document's root."""
    if isinstance(node, list):
        return [_inlined(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _inlined(defs[ref.removeprefix("#/$defs/")], defs)
    return {k: _inlined(v, defs) for k, v in node.items() if k != "$defs"}


def _result(spec: Tool) -> dict[int | str, dict[str, Any]]:
    schema = spec.output_schema()
    return {
        200: {
            "description": "The tool's result (`truncated: true` when it was cut to its cap).",
            "content": {"application/json": {"schema": _inlined(schema, schema.get("$defs", {}))}},
        }
    }


async def _call(name: str, request: Request, services: Services, user: UserContext) -> JSONResponse:
    raw = await request.body()
    try:
        arguments = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return JSONResponse({"error": "the body is not valid JSON"}, status_code=422)
    if not isinstance(arguments, dict):
        return JSONResponse(
            {"error": "the body must be a JSON object of arguments (or empty)"}, status_code=422
        )
    ctx = services.tool_context(user=user, now=datetime.now(UTC))
    result = await run_in_threadpool(dispatch, ctx, name, arguments)
    status, headers = 200, None
    if isinstance(result, ToolError):
        status = 404 if name not in REGISTRY else 422
        if result.forbidden:
            status = 403  # the token's scope (docs/scopes.md)
        elif result.conflict:
            status = 409  # the item was deleted or rebuilt meanwhile
        elif result.retry:
            status, headers = 503, {"Retry-After": str(RETRY_AFTER_S)}
    return JSONResponse(content=dump(result), status_code=status, headers=headers)


def _operation(router: APIRouter, spec: Tool) -> None:
    async def call(request: Request, services: ServicesDep, user: UserDep) -> JSONResponse:
        return await _call(spec.name, request, services, user)

    router.add_api_route(
        f"/{spec.name}",
        call,
        methods=["POST"],
        name=f"tool_{spec.name}",
        summary=f"{spec.name} (tier {spec.tier}, at most {spec.cap_tokens:,} tokens)",
        description=spec.description,
        responses={**_result(spec), **errors(409, 413, 422)},
        openapi_extra={
            "requestBody": {
                "required": False,
                "description": "The tool's arguments; an empty body means none.",
                "content": {"application/json": {"schema": spec.input_schema()}},
            }
        },
    )


def tools_router() -> APIRouter:
    router = APIRouter(prefix="/api/v1/tools", tags=["tools"], responses=AUTHED)

    @router.get("")
    def get_tools(_: UserDep) -> list[dict[str, Any]]:
        """Every tool: name, description, JSON schema of its arguments, output cap."""
        return list_tools()

    for spec in ordered_tools():
        _operation(router, spec)

    @router.post("/{name}", include_in_schema=False)
    async def unknown_tool(
        name: str, request: Request, services: ServicesDep, user: UserDep
    ) -> JSONResponse:
        """A name that is not a tool: 404 with the list of tools."""
        return await _call(name, request, services, user)

    return router
