"""The door's heartbeat route as plain ASGI: watchers send thousands a second, so it
skips the framework's layers (routing, request objects, exception middleware) and
answers as `Door.heartbeat` does."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, Protocol
from urllib.parse import parse_qsl

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.limits import MAX_BODY_BYTES
from app.awdoor.events import AwEvent, AwInputError, NoSuchBucket, parse_event, pulsetime_us
from app.errors import DatabaseError


class Beating(Protocol):
    """What the route needs of the door: its buckets, and a heartbeat into one."""

    buckets: set[str]

    async def beat(self, bucket_id: str, event: AwEvent, *, pulsetime: int) -> dict[str, Any]: ...


_HEARTBEAT = re.compile(r"^/api/0/buckets/([^/]+)/heartbeat$")


class Heartbeats:
    """ASGI: the heartbeat route without the framework's layers (routing, request
    objects, exception middleware), as the door answers thousands a second; the same
    answers as `Door.heartbeat`. A compressed body takes the ordinary route."""

    def __init__(self, app: ASGIApp, *, door: Beating) -> None:
        self.app = app
        self.door = door

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = (
            _HEARTBEAT.match(scope["path"])
            if scope["type"] == "http" and scope["method"] == "POST"
            else None
        )
        headers = dict(scope["headers"]) if found else {}
        if found is None or b"content-encoding" in headers:
            await self.app(scope, receive, send)
            return
        status, answer = await self._beat(found.group(1), scope, headers, receive)
        body = orjson.dumps(answer)
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def _beat(
        self, bucket_id: str, scope: Scope, headers: dict[bytes, bytes], receive: Receive
    ) -> tuple[int, Any]:
        declared = headers.get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            return 413, {"type": "TooLarge", "message": "the body is too large"}
        raw = bytearray()
        while True:
            message = await receive()
            raw += message.get("body", b"")
            if len(raw) > MAX_BODY_BYTES:
                return 413, {"type": "TooLarge", "message": "the body is too large"}
            if not message.get("more_body", False):
                break
        try:
            if bucket_id not in self.door.buckets:
                raise NoSuchBucket(f"There's no bucket named {bucket_id}")
            query = dict(parse_qsl(scope["query_string"].decode("latin-1")))
            if "pulsetime" not in query:
                raise AwInputError("Missing required parameter pulsetime")
            pulsetime = pulsetime_us(query["pulsetime"])
            try:
                body = orjson.loads(raw)
            except orjson.JSONDecodeError as exc:
                raise AwInputError("the body is not JSON") from exc
            event = parse_event(body, now=datetime.now(UTC), need_timestamp=True)
            return 200, await self.door.beat(bucket_id, event, pulsetime=pulsetime)
        except AwInputError as exc:
            return 400, {"type": "BadRequest", "message": exc.message}
        except NoSuchBucket as exc:
            return 404, {"type": "NoSuchBucket", "message": exc.message}
        except DatabaseError:
            return 503, {
                "type": "Unavailable",
                "message": "the database is busy or away; try again shortly",
            }
