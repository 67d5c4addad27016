"""Tool calls for the pages and the report: a tool's result through the registry, as
the agent sees it, with an error result raised instead of rendered.

    totals = call_tool(ctx, "query_stats", metric="seconds_by_category", period="today")
"""

from __future__ import annotations

from typing import Any

from app.errors import InvalidInputError
from app.tools import ToolContext, dispatch


def call_tool(ctx: ToolContext, name: str, **arguments: Any) -> dict[str, Any]:
    """A tool's result; an error result (a bug here, or bad input) is raised."""
    result = dispatch(ctx, name, arguments)
    if "error" in result:
        raise InvalidInputError(str(result["error"]))
    return result
