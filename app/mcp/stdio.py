"""MCP over stdio, for one user: what Claude Desktop, Cursor and Cline spawn.

    asyncio.run(serve_stdio(services=services, user=user))

stdout carries the protocol and nothing else; logs go to stderr.
"""

from __future__ import annotations

from mcp.server.stdio import stdio_server

from app.mcp.server import build_server
from app.runtime.services import Services
from app.store.accounts import UserContext


async def serve_stdio(*, services: Services, user: UserContext) -> None:
    """Serve until the client closes stdin."""
    server = build_server(services=services, user_of=lambda _ctx: user)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())
