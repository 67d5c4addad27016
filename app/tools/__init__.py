"""The tool registry: importing this package registers every tool.

from app.tools import REGISTRY, dispatch, list_tools

`dispatch` answers a tool's typed result or a `ToolError` (app/tools/results.py);
`dispatch_json` the same as the JSON object the doors send.
"""

from __future__ import annotations

from app.tools import deep_scan, episode, label, raw, reads, recall, search, stats  # noqa: F401  (register the tools)
from app.tools.registry import REGISTRY, ToolContext, dispatch, dispatch_json, list_tools
from app.tools.results import ToolError, ToolOutcome, ToolResult

__all__ = [
    "REGISTRY",
    "ToolContext",
    "ToolError",
    "ToolOutcome",
    "ToolResult",
    "dispatch",
    "dispatch_json",
    "list_tools",
]
