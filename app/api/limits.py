"""Bounded requests, before anything parses them.

    app = BoundedRequests(app)   # 413 past MAX_BODY_BYTES, 422 past MAX_JSON_DEPTH

The body is read into memory only up to the limit: a declared Content-Length
over it is answered at once, a streamed body as soon as it crosses it, and the
rest is never read. A JSON body nested deeper than MAX_JSON_DEPTH is refused
before a recursive parser (or pydantic) walks into it.
"""

from __future__ import annotations

import array
import itertools
import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.ingest.records import MAX_BATCH

# A full ingest batch whose records average 4 KiB of JSON (a typical record is ~300 bytes).
MAX_BODY_BYTES = MAX_BATCH * 4 * 1024
# No request of this API nests deeper than a handful of levels.
MAX_JSON_DEPTH = 32

_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
_STEP = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


def json_depth(body: bytes) -> int:
    """How deeply the arrays and objects of a JSON text nest (brackets inside strings
    do not count). Linear, without recursion, whatever the input."""
    # Drop escaped backslashes, then escaped quotes: every quote left opens or closes a
    # string. Keep only quotes and brackets; two adjacent quotes enclose no bracket, so
    # they can go; of what is left, every other piece between quotes is outside strings.
    unescaped = body.replace(b"\\\\", b"").replace(b'\\"', b"")
    skeleton = unescaped.translate(None, _NOT_STRUCTURE).replace(b'""', b"")
    brackets = b"".join(skeleton.split(b'"')[::2])
    steps = array.array("b", brackets.translate(_STEP))  # +1 per opening, -1 per closing
    return max(itertools.accumulate(steps), default=0)


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _reply(send: Send, status: int, body: dict[str, object]) -> None:
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                # The rest of the body is never read: the connection cannot be reused.
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def _too_large(limit: int) -> dict[str, object]:
    return {
        "error": f"the request body is larger than {limit:,} bytes: send fewer records per batch",
    }


def _too_deep(limit: int) -> dict[str, object]:
    message = f"JSON nested deeper than {limit} levels"
    return {
        "error": f"invalid input: body: {message}",
        "detail": [{"field": "body", "message": message}],
    }


class BoundedRequests:
    """ASGI middleware: read the body up to a limit, check its nesting, replay it."""

    def __init__(
        self, app: ASGIApp, *, max_body_bytes: int = MAX_BODY_BYTES, max_depth: int = MAX_JSON_DEPTH
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_depth = max_depth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _declared_length(scope)
        if declared is not None and declared > self.max_body_bytes:
            await _reply(send, 413, _too_large(self.max_body_bytes))
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left before sending its body: nobody to answer
            body += message.get("body", b"")
            if len(body) > self.max_body_bytes:
                await _reply(send, 413, _too_large(self.max_body_bytes))
                return
            if not message.get("more_body", False):
                break
        whole = bytes(body)
        del body
        # Counting brackets first keeps the scan off ordinary small bodies.
        openings = whole.count(b"[") + whole.count(b"{")
        if openings > self.max_depth and json_depth(whole) > self.max_depth:
            await _reply(send, 422, _too_deep(self.max_depth))
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # later calls wait for the disconnect
            replayed = True
            return {"type": "http.request", "body": whole, "more_body": False}

        await self.app(scope, replay, send)
