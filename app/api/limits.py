"""Bounded requests, before anything parses them.

    app = BoundedRequests(app)   # 413 past MAX_BODY_BYTES, 422 past MAX_JSON_DEPTH

The body is read into memory only up to the limit: a declared Content-Length
over it is answered at once, a streamed body as soon as it crosses it, and the
rest is never read. A JSON body nested deeper than MAX_JSON_DEPTH is refused
before a recursive parser (or pydantic) walks into it.

Uploads (`streamed={path: limit}`) are the exception: their bodies go through
unread, counted against their own, larger limit, for the route to spool to disk.

A body sent with `Content-Encoding: gzip` is decoded here, and its decoded size is
held to the same limit (a small bomb that inflates past it is a 413, not a full
memory); any other encoding is a 415, and so is any encoding on an upload.
"""

from __future__ import annotations

import array
import itertools
import json
import zlib
from collections.abc import Mapping

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.openai_errors import error_body, is_door_path
from app.ingest.records import MAX_BATCH

# A full ingest batch whose records average 4 KiB of JSON (a typical record is ~300 bytes).
MAX_BODY_BYTES = MAX_BATCH * 4 * 1024
# No request of this API nests deeper than a handful of levels.
MAX_JSON_DEPTH = 32
# An uploaded ActivityWatch export: ~10 M events, years of three busy buckets (an
# export of 1.2 M events over a year is 226 MB). Never in memory: spooled to disk.
MAX_UPLOAD_BYTES = 2 * 1024**3

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


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value)
    return None


def _encoding(scope: Scope) -> str:
    value = _header(scope, b"content-encoding")
    return value.decode("latin-1").strip().lower() if value else "identity"


class _Undecodable(Exception):
    """The body is not the gzip stream its Content-Encoding says."""


class _Inflated(Exception):
    """The decoded body crosses the limit."""


def gunzip(body: bytes, *, limit: int) -> bytes:
    """A gzip body decoded, never to more than `limit` bytes."""
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        out = inflater.decompress(body, limit + 1)
    except zlib.error as exc:
        raise _Undecodable from exc
    if len(out) > limit or inflater.unconsumed_tail:
        raise _Inflated
    if not inflater.eof:
        raise _Undecodable
    return out


def _unsupported(encoding: str) -> dict[str, object]:
    return {
        "error": f"Content-Encoding {encoding!r} is not accepted: send the body as is, "
        "or gzip it (not for uploads)"
    }


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _reply(scope: Scope, send: Send, status: int, body: dict[str, object]) -> None:
    if is_door_path(scope["path"]):  # the OpenAI-compatible door answers in OpenAI's shape
        body = error_body(status, str(body["error"]))
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


def _too_large(limit: int, advice: str = "send fewer records per batch") -> dict[str, object]:
    return {"error": f"the request body is larger than {limit:,} bytes: {advice}"}


_UPLOAD_ADVICE = "import it with `timetrace import activitywatch` where the file is"


def _too_deep(limit: int) -> dict[str, object]:
    message = f"JSON nested deeper than {limit} levels"
    return {
        "error": f"invalid input: body: {message}",
        "detail": [{"field": "body", "message": message}],
    }


class _UploadTooLarge(Exception):
    """Raised out of an upload's receive once its body crosses the limit."""


class BoundedRequests:
    """ASGI middleware: read the body up to a limit, check its nesting, replay it."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        max_body_bytes: int = MAX_BODY_BYTES,
        max_depth: int = MAX_JSON_DEPTH,
        streamed: Mapping[str, int] | None = None,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_depth = max_depth
        self.streamed = dict(streamed or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        encoding = _encoding(scope)
        if scope["path"] in self.streamed:
            if encoding != "identity":
                await _reply(scope, send, 415, _unsupported(encoding))
                return
            await self._stream(scope, receive, send, limit=self.streamed[scope["path"]])
            return
        if encoding not in ("identity", "gzip", "x-gzip"):
            await _reply(scope, send, 415, _unsupported(encoding))
            return
        declared = _declared_length(scope)
        if declared is not None and declared > self.max_body_bytes:
            await _reply(scope, send, 413, _too_large(self.max_body_bytes))
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return  # the client left before sending its body: nobody to answer
            body += message.get("body", b"")
            if len(body) > self.max_body_bytes:
                await _reply(scope, send, 413, _too_large(self.max_body_bytes))
                return
            if not message.get("more_body", False):
                break
        whole = bytes(body)
        del body
        if encoding != "identity" and whole:
            try:
                whole = gunzip(whole, limit=self.max_body_bytes)
            except _Inflated:
                await _reply(scope, send, 413, _too_large(self.max_body_bytes, "even once decoded"))
                return
            except _Undecodable:
                await _reply(
                    scope, send, 400, {"error": "the body is not the gzip its encoding says"}
                )
                return
            # What the app sees is the decoded body, as if it had been sent so.
            scope = {
                **scope,
                "headers": [
                    (k, v)
                    for k, v in scope.get("headers", ())
                    if k not in (b"content-encoding", b"content-length")
                ]
                + [(b"content-length", str(len(whole)).encode())],
            }
        # Counting brackets first keeps the scan off ordinary small bodies.
        openings = whole.count(b"[") + whole.count(b"{")
        if openings > self.max_depth and json_depth(whole) > self.max_depth:
            await _reply(scope, send, 422, _too_deep(self.max_depth))
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()  # later calls wait for the disconnect
            replayed = True
            return {"type": "http.request", "body": whole, "more_body": False}

        await self.app(scope, replay, send)

    async def _stream(self, scope: Scope, receive: Receive, send: Send, *, limit: int) -> None:
        """Pass an upload's body through as it comes, refusing it past `limit`: at once
        when declared larger, else when the route reads past it (before it answers)."""
        declared = _declared_length(scope)
        if declared is not None and declared > limit:
            await _reply(scope, send, 413, _too_large(limit, _UPLOAD_ADVICE))
            return
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > limit:
                raise _UploadTooLarge
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except _UploadTooLarge:
            if started:
                raise
            await _reply(scope, send, 413, _too_large(limit, _UPLOAD_ADVICE))
