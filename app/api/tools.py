"""The tools over HTTP: the same registry the agent and MCP read."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Body
from fastapi.responses import JSONResponse

from app.api.deps import ServicesDep, UserDep
from app.tools import REGISTRY, ToolContext, dispatch, list_tools
from app.tools.registry import to_json

router = APIRouter(prefix="/api/v1/tools", tags=["tools"])


@router.get("")
def get_tools(_: UserDep) -> list[dict[str, Any]]:
    """Every tool: name, description, JSON schema of its arguments, output cap."""
    return list_tools()


@router.post("/{name}")
def call_tool(
    name: str,
    services: ServicesDep,
    user: UserDep,
    arguments: dict[str, Any] | None = Body(default=None),  # noqa: B008
) -> JSONResponse:
    """Run a tool. Bad arguments get a 422 with an error the caller can act on."""
    ctx = ToolContext(
        store=services.store,
        models=services.models,
        settings=services.settings,
        user=user,
        now=datetime.now(UTC),
    )
    result = dispatch(ctx, name, arguments)
    status = 200
    if "error" in result:
        status = 404 if name not in REGISTRY else 422
    return JSONResponse(content=json.loads(to_json(result)), status_code=status)
