"""The checks at the door, before any route: the Host header must name this server,
and forwarded headers are believed only from a configured proxy.

    app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxy_list)
    app.add_middleware(HostCheck, names=settings.host_names)

A page answered under any Host would let a site whose name an attacker points at this
machine (DNS rebinding) read it with the browser's cookies; /mcp checks `Origin` too
(`app.mcp.http`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.openai_errors import error_body, is_door_path


def host_name(host_header: str) -> str:
    """The name in a Host header, without its port, lower-cased (IPv6 unbracketed)."""
    host = host_header.strip().lower()
    if host.startswith("["):  # [::1]:8787
        end = host.find("]")
        return host[1:end] if end > 0 else host
    name, _, port = host.rpartition(":")
    return name if name and port.isdigit() else host


class HostCheck:
    """ASGI middleware: 400 for a request whose Host is not one of `names`."""

    def __init__(self, app: ASGIApp, *, names: Sequence[str]) -> None:
        self.app = app
        self.names = frozenset(n.lower() for n in names)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = Headers(scope=scope).get("host", "")
            if host_name(host) not in self.names:
                message = (
                    f"Host {host_name(host)!r} is not a name of this server "
                    "(its names are set by TIMETRACE_ALLOWED_HOSTS)"
                )
                error = (
                    error_body(400, message) if is_door_path(scope["path"]) else {"error": message}
                )
                body = json.dumps(error)
                await send(
                    {
                        "type": "http.response.start",
                        "status": 400,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body.encode()})
                return
        await self.app(scope, receive, send)
