"""The MCP server, generated from the tool registry: one MCP tool per registry tool,
with the registry's name, description and input schema, called through `dispatch`.

    server = build_server(services=services, user_of=lambda ctx: user)

Nothing here names a tool: a tool registered anywhere appears over MCP as it is.
`dispatch` validates a call's arguments against the tool's argument model, whose
JSON schema is the one listed, checks the result against the tool's result model,
whose JSON schema is the listed `outputSchema`, and caps the output. A result comes
back twice, as MCP asks: structured content and the same JSON as text. The one thing
MCP adds is the annotations, read from the tool's tier (`write` is a destructive
write; every other tier reads only), and one resource, `timetrace://context`
(app/mcp/context.py): now, the user's zone and day cut, and ready date ranges.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from mcp import types
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError
from starlette.concurrency import run_in_threadpool

from app import __version__
from app.mcp.context import CONTEXT_RESOURCE, CONTEXT_URI, read_context
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.tools import REGISTRY, dispatch
from app.tools.registry import Tool, dump, ordered_tools, to_json
from app.tools.results import ToolError, ToolOutcome
from app.tools.scope import may_list

SERVER_NAME = "timetrace"
# Arguments are a few dates and a query; anything near this size is a mistake or abuse.
MAX_ARGUMENTS_BYTES = 16_384

UserOf = Callable[[ServerRequestContext[Any, Any]], UserContext]
"""Who a request acts for: fixed for stdio, the bearer token's user over HTTP."""


@functools.cache
def _schema(spec: Tool) -> dict[str, Any]:
    # Building a JSON schema costs milliseconds, and a tool's never changes once registered.
    return spec.input_schema()


def annotations_for(spec: Tool) -> types.ToolAnnotations:
    writes = spec.tier == "write"
    return types.ToolAnnotations(read_only_hint=not writes, destructive_hint=writes)


def mcp_tool(spec: Tool) -> types.Tool:
    return types.Tool(
        name=spec.name,
        description=spec.description,
        input_schema=_schema(spec),
        output_schema=spec.output_schema(),
        annotations=annotations_for(spec),
    )


def tool_result(result: ToolOutcome) -> types.CallToolResult:
    """A dispatch result as MCP: the object structured (valid against the tool's
    `outputSchema`), the same JSON as text for any client; a `ToolError` is a tool
    error the model can correct."""
    data = dump(result)
    return types.CallToolResult(
        content=[types.TextContent(text=to_json(data))],
        structured_content=data,
        is_error=isinstance(result, ToolError),
    )


def _too_large(name: str, arguments: dict[str, Any]) -> ToolError | None:
    size = len(to_json(arguments).encode("utf-8"))
    if size <= MAX_ARGUMENTS_BYTES:
        return None
    return ToolError(
        error=f"arguments for {name} are {size:,} bytes; the limit is {MAX_ARGUMENTS_BYTES:,}",
        hint="send only the fields of the tool's input schema, with short values",
    )


def _input_schema(name: str) -> dict[str, Any] | None:
    spec = REGISTRY.get(name)
    return _schema(spec) if spec else None


def build_server(*, services: Services, user_of: UserOf) -> Server[Any]:
    """A low-level MCP server over the registry as it is at each request."""

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], __: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        scope = user_of(ctx).scope
        return types.ListToolsResult(
            tools=[mcp_tool(s) for s in ordered_tools() if may_list(scope, tool=s.name)]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        user = user_of(ctx)
        arguments = params.arguments or {}
        refused = _too_large(params.name, arguments)
        if refused is not None:
            return tool_result(refused)
        tool_ctx = services.tool_context(user=user, now=datetime.now(UTC))
        # Tools are synchronous (a pooled psycopg connection): keep them off the event loop.
        result = await run_in_threadpool(dispatch, tool_ctx, params.name, arguments)
        return tool_result(result)

    async def list_resources(
        _: ServerRequestContext[Any, Any], __: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[CONTEXT_RESOURCE])

    async def read_resource(
        ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        if str(params.uri) != CONTEXT_URI:
            raise MCPError(
                types.INVALID_PARAMS, f"no resource {params.uri}: the one resource is {CONTEXT_URI}"
            )
        return read_context(user=user_of(ctx), now=datetime.now(UTC))

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=(
            "TimeTrace answers questions about the user's own screen activity. "
            "Tools are listed cheapest first: use the first one that answers. "
            f"Read {CONTEXT_URI} for now, the user's zone and ready date ranges."
        ),
        # Lets the SDK check a call's Mcp-Param headers without listing every tool per call.
        get_tool_input_schema=_input_schema,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )
