"""The door is unauthenticated, as aw-server is, so it answers only this machine.

    check_loopback(host)                       # ConfigError for any address but loopback
    app = LoopbackGuard(app, port=5600)        # 403 for a foreign Host or a web page's Origin

A web page can reach a loopback port from the user's browser: by its own origin
(refused: only browser extensions, such as aw-watcher-web, and the door's own pages
may send an Origin), or by a name of its own pointed at 127.0.0.1 (DNS rebinding:
refused, the Host must be a loopback name). Answers to extension origins carry the
CORS headers aw-server gives them.
"""

from __future__ import annotations

import ipaddress
import json

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import ConfigError

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
EXTENSION_SCHEMES = ("moz-extension://", "chrome-extension://", "safari-web-extension://")


def check_loopback(host: str) -> None:
    """Refuse to listen anywhere but on a loopback address."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(name).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ConfigError(
            f"the ActivityWatch door listens on loopback only (127.0.0.1 or ::1), not {host!r}: "
            "it has no tokens, as aw-server has none; watchers run on the same machine"
        )


def _host_name(header: str) -> str:
    host = header.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[1:end] if end > 0 else host
    name, _, port = host.rpartition(":")
    return name if name and port.isdigit() else host


class LoopbackGuard:
    """ASGI middleware: 403 unless the Host is a loopback name and the Origin, if any,
    is a browser extension or the door itself."""

    def __init__(self, app: ASGIApp, *, port: int) -> None:
        self.app = app
        self.port = port
        self.own = frozenset(
            f"http://{name}:{port}" for name in ("localhost", "127.0.0.1", "[::1]")
        )

    def refusal(self, headers: Headers) -> str | None:
        host = headers.get("host")
        if host is None or _host_name(host) not in LOOPBACK_NAMES:
            return f"Host {host!r} is not a loopback name: this door answers this machine only"
        origin = headers.get("origin")
        if origin is not None and not (
            origin.startswith(EXTENSION_SCHEMES) or origin.lower() in self.own
        ):
            return f"Origin {origin[:100]!r} may not call this door (browser extensions may)"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        problem = self.refusal(headers)
        if problem is not None:
            await _answer(send, 403, {"message": problem})
            return
        origin = headers.get("origin")
        if origin is None or not origin.startswith(EXTENSION_SCHEMES):
            await self.app(scope, receive, send)
            return
        cors = [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"vary", b"Origin"),
        ]
        if scope["method"] == "OPTIONS":  # a preflight
            await _answer(
                send,
                200,
                None,
                extra=[
                    *cors,
                    (b"access-control-allow-methods", b"GET, POST, PUT, DELETE, OPTIONS"),
                    (b"access-control-allow-headers", b"Content-Type, Authorization"),
                    (b"access-control-max-age", b"600"),
                ],
            )
            return

        async def with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *cors]}
            await send(message)

        await self.app(scope, receive, with_cors)


async def _answer(
    send: Send,
    status: int,
    body: dict[str, object] | None,
    *,
    extra: list[tuple[bytes, bytes]] | None = None,
) -> None:
    payload = json.dumps(body).encode() if body is not None else b""
    headers = [(b"content-length", str(len(payload)).encode()), *(extra or [])]
    if body is not None:
        headers.append((b"content-type", b"application/json"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
