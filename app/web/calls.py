"""Tool calls for the pages and the report: a tool's result through the registry, as
the agent sees it, with an error result raised instead of rendered.

    totals = call_tool(ctx, "query_stats", StatsResult, period="today")
"""

from __future__ import annotations

from typing import Any, TypeVar

from app.errors import InvalidInputError
from app.tools import ToolContext, dispatch
from app.tools.results import ToolError, ToolResult

R = TypeVar("R", bound=ToolResult)


def call_tool(ctx: ToolContext, name: str, answer: type[R], **arguments: Any) -> R:
    """A tool's result, of the model it answers; an error result (a bug here, or bad
    input) is raised."""
    result = dispatch(ctx, name, arguments)
    if isinstance(result, ToolError):
        raise InvalidInputError(result.error)
    if not isinstance(result, answer):
        raise TypeError(f"{name} answered {type(result).__name__}, not {answer.__name__}")
    return result
