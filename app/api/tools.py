"""The tools over HTTP: the same registry the agent and MCP read."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse

from app.api.deps import RETRY_AFTER_S, ServicesDep, UserDep
from app.tools import REGISTRY, dispatch, list_tools
from app.tools.registry import to_json

router = APIRouter(prefix="/api/v1/tools", tags=["tools"])


@router.get("")
def get_tools(_: UserDep) -> list[dict[str, Any]]:
    """Every tool: name, description, JSON schema of its arguments, output cap."""
    return list_tools()


@router.post(
    "/{name}",
    openapi_extra={
        "requestBody": {
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "description": "the tool's arguments (see GET /api/v1/tools)",
                    }
                }
            }
        }
    },
)
async def call_tool(
    name: str, request: Request, services: ServicesDep, user: UserDep
) -> JSONResponse:
    """Run a tool. The body is its JSON arguments (any content type; empty means none).
    Bad arguments get a 422 with an error the caller can act on."""
    raw = await request.body()
    try:
        arguments = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return JSONResponse({"error": "the body is not valid JSON"}, status_code=422)
    ctx = services.tool_context(user=user, now=datetime.now(UTC))
    result = await run_in_threadpool(dispatch, ctx, name, arguments)
    status, headers = 200, None
    if "error" in result:
        status = 404 if name not in REGISTRY else 422
        if result.get("conflict"):
            status = 409  # the item was deleted or rebuilt meanwhile
        elif result.get("retry"):
            status, headers = 503, {"Retry-After": str(RETRY_AFTER_S)}
    return JSONResponse(content=json.loads(to_json(result)), status_code=status, headers=headers)
