"""The MCP bridge: every registry tool over stdio (`timetrace mcp`) and streamable
HTTP (`/mcp` on the API server), generated from the registry, never hand-listed.

    timetrace mcp --user me                  # stdio, for a desktop client
    POST /mcp  Authorization: Bearer <token> # streamable HTTP, on `timetrace serve`
"""

from __future__ import annotations

from app.mcp.http import McpEndpoint
from app.mcp.server import build_server
from app.mcp.stdio import serve_stdio

__all__ = ["McpEndpoint", "build_server", "serve_stdio"]
