"""The tool registry: importing this package registers every tool.

from app.tools import REGISTRY, dispatch, list_tools
"""

from __future__ import annotations

from app.tools import deep_scan, label, reads, recall, search, stats  # noqa: F401  (register the tools)
from app.tools.registry import REGISTRY, ToolContext, dispatch, list_tools

__all__ = ["REGISTRY", "ToolContext", "dispatch", "list_tools"]
