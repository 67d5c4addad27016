"""MCP over streamable HTTP, behind the API's own bearer tokens.

    endpoint = McpEndpoint(services=services)
    app.router.routes.append(Route("/mcp", endpoint=endpoint))   # an ASGI app
    async with endpoint.running(): ...                           # in the app's lifespan

A request is authenticated before the MCP layer sees it: without a valid token
it raises `AuthError`, which the API answers with a 401, and nothing runs. Each
tool call acts for the user of the token on that very request, and a stateful
session only answers the user that opened it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from mcp.server import ServerRequestContext
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.types import Receive, Scope, Send

from app.errors import AuthError
from app.mcp.server import build_server
from app.runtime.auth import user_for_token
from app.runtime.services import Services
from app.settings import Settings
from app.store.accounts import UserContext


class TokenUser(AuthenticatedUser):
    """The starlette user of an authenticated /mcp request; the SDK binds sessions to it."""

    def __init__(self, user: UserContext) -> None:
        # The principal is the user, not the token: a user's tokens share their sessions.
        super().__init__(AccessToken(token="", client_id=f"user:{user.user_id}", scopes=[]))
        self.context = user


def _user_of(ctx: ServerRequestContext[Any, Any]) -> UserContext:
    user = ctx.request.scope.get("user") if ctx.request is not None else None
    if not isinstance(user, TokenUser):  # unreachable behind McpEndpoint, but never guess a user
        raise AuthError()
    return user.context


def _bearer(scope: Scope) -> str | None:
    scheme, _, credentials = Headers(scope=scope).get("authorization", "").partition(" ")
    return credentials.strip() if scheme.lower() == "bearer" else None


def transport_security(settings: Settings) -> TransportSecuritySettings:
    """The SDK's DNS-rebinding guard: the Host must be one of the server's names (any
    port) and a browser's `Origin`, when sent, a page of one of them (403 otherwise)."""
    hosts = [f"[{n}]" if ":" in n else n for n in settings.host_names]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[form for h in hosts for form in (h, f"{h}:*")],
        allowed_origins=[
            form
            for h in hosts
            for scheme in ("http", "https")
            for form in (f"{scheme}://{h}", f"{scheme}://{h}:*")
        ],
    )


class McpEndpoint:
    """The ASGI app served at /mcp."""

    def __init__(self, *, services: Services) -> None:
        self.services = services
        # JSON answers, not an SSE stream per POST: the tools send no progress, and it is faster.
        self.sessions = StreamableHTTPSessionManager(
            app=build_server(services=services, user_of=_user_of),
            json_response=True,
            security_settings=transport_security(services.settings),
        )

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """The session manager's task group; enter once, in the app's lifespan."""
        async with self.sessions.run():
            yield

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        token = _bearer(scope)
        # An AuthError here is the API's 401, before the MCP layer reads a byte of the body.
        user = await run_in_threadpool(user_for_token, self.services.store, token=token)
        scope["user"] = TokenUser(user)
        await self.sessions.handle_request(scope, receive, send)
