"""aw-server's REST API (`/api/0/…`), as watchers, aw-client and aw-webui call it,
over the buckets and events of one TimeTrace user.

    app = door_app(store=store, user=user, port=5600, hostname="laptop")

Answers are aw-server's (its Python server with the default SQLite store): the same
fields, times in UTC with `+00:00`, durations in seconds, events newest first, a
range trimmed to the times asked. `/api/0/query/` runs aw-core's own query engine over
the door's events (`app/awdoor/query.py`). What is not here (`/api/0/log`) answers 501
with a word on why.
"""

from __future__ import annotations

import asyncio
import socket
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from app import __version__
from app.api.limits import BoundedRequests
from app.awdoor.classes import CLASSES_KEY, TREES_KEY, ClassesStore, DoorClasses, visible
from app.awdoor.daycache import DayCache
from app.awdoor.events import (
    AwEvent,
    AwInputError,
    NoSuchBucket,
    data_json,
    iso,
    micros_of,
    parse_event,
    parse_time,
    pulsetime_us,
)
from app.awdoor.guard import LoopbackGuard
from app.awdoor.heartbeats import Heartbeats
from app.awdoor.marks import DirtyMarks
from app.awdoor.private import Privacy
from app.awdoor.query import QueryRefused, answer_query
from app.awdoor.state import DoorState
from app.awdoor.webui import webui_mount
from app.boundary import EVENT_DATA_MAX, captured_data
from app.errors import DatabaseError
from app.rules.categories import Rules, load_rules
from app.settings import Settings, get_settings
from app.store.accounts import UserContext
from app.store.awdoor import AwBucketRow, AwEventRow, AwImportBatch

_NAME_MAX = 512
_MS = timedelta(milliseconds=1)

Handler = Callable[[Request], Awaitable[Response]]


def _json(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    return Response(
        orjson.dumps(body), status_code=status, media_type="application/json", headers=headers
    )


def _error(status: int, kind: str, message: str) -> Response:
    return _json({"type": kind, "message": message}, status)


def _answers(handler: Handler) -> Handler:
    """aw-server's error answers: 400 for bad input, 404 for a missing bucket, 503 while
    the database is away."""

    async def answer(request: Request) -> Response:
        try:
            return await handler(request)
        except QueryRefused as exc:
            return _error(400, exc.kind, exc.message)
        except AwInputError as exc:
            return _error(400, "BadRequest", exc.message)
        except NoSuchBucket as exc:
            return _error(404, "NoSuchBucket", exc.message)
        except DatabaseError:
            return _error(503, "Unavailable", "the database is busy or away; try again shortly")

    return answer


async def _body(request: Request) -> Any:
    raw = await request.body()
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise AwInputError("the body is not JSON") from exc


def _text(value: object, name: str, *, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or "\x00" in value or len(value) > _NAME_MAX:
        raise AwInputError(f"{name}: expected a string of at most {_NAME_MAX} characters")
    return value


def _bucket_data(data: dict[str, Any]) -> str:
    """A bucket's metadata as JSON, held to the cap an event's data has."""
    text = data_json(captured_data(data))
    if len(text.encode()) > EVENT_DATA_MAX:
        raise AwInputError(f"data: at most {EVENT_DATA_MAX:,} bytes of JSON")
    return text


def _bucket_document(row: AwBucketRow, *, listing: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": row.bucket_id,
        "created": row.created.astimezone(UTC).isoformat(),
        "name": row.name,
        "type": row.type,
        "client": row.client,
        "hostname": row.hostname,
        "data": orjson.loads(row.data),
    }
    if listing and row.last_updated is not None:
        out["last_updated"] = row.last_updated.astimezone(UTC).isoformat()
    return out


def _event_document(row: AwEventRow, *, with_id: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"id": row.event_id} if with_id else {}
    out["timestamp"] = iso(micros_of(row.ts))
    out["duration"] = (row.duration_us * timedelta(microseconds=1)).total_seconds()
    out["data"] = orjson.loads(row.data)
    return out


def _trimmed(row: AwEventRow, start: datetime | None, end: datetime | None) -> AwEventRow:
    """An event cut to the range asked, as aw-server's SQLite store cuts it."""
    ts, duration = row.ts, row.duration_us
    if start is not None and ts < start:
        stop = ts + duration * timedelta(microseconds=1)
        ts, duration = start, (stop - start) // timedelta(microseconds=1)
    if end is not None and ts + duration * timedelta(microseconds=1) > end:
        duration = (end - ts) // timedelta(microseconds=1)
    return AwEventRow.model_construct(
        event_id=row.event_id, ts=ts, duration_us=duration, data=row.data
    )


def _range(request: Request) -> tuple[datetime | None, datetime | None]:
    """`?start=` rounded down and `?end=` up to the millisecond, as aw-server rounds."""
    args = request.query_params
    start = parse_time(args["start"]) if "start" in args else None
    end = parse_time(args["end"]) if "end" in args else None
    if start is not None:
        start = start.replace(microsecond=start.microsecond // 1000 * 1000)
    if end is not None:
        end = end.replace(microsecond=end.microsecond // 1000 * 1000) + _MS
    return start, end


class Door:
    """The routes' shared state: the store, the user, the buckets known."""

    def __init__(
        self,
        *,
        store: ClassesStore,
        user: UserContext,
        hostname: str,
        privacy: Privacy,
        classes: DoorClasses,
        marks: DirtyMarks | None = None,
    ) -> None:
        self.store = store
        self.classes = classes
        self.user = user
        self.hostname = hostname
        self.privacy = privacy
        self.state = DoorState(store, user_id=user.user_id, marks=marks)
        self.day_cache = DayCache()  # the canonical query's pieces (app/awdoor/daycache.py)
        self.buckets: set[str] = set()
        self.device_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"timetrace:{user.name}:{hostname}"))

    async def call(self, fn: Callable[..., Any], **kwargs: Any) -> Any:
        return await asyncio.to_thread(fn, user_id=self.user.user_id, **kwargs)

    async def load(self) -> None:
        rows = await self.call(self.store.aw_buckets)
        self.buckets = {r.bucket_id for r in rows}
        await asyncio.to_thread(self.classes.converge)  # a tree write cut short

    def bucket(self, request: Request) -> str:
        bucket_id = str(request.path_params["bucket_id"])
        if bucket_id not in self.buckets:
            raise NoSuchBucket(f"There's no bucket named {bucket_id}")
        return bucket_id

    # -- info and buckets ----------------------------------------------------------------------

    async def info(self, request: Request) -> Response:
        return _json(
            {
                "hostname": self.hostname,
                "version": f"v0.12.0 (TimeTrace {__version__})",
                "testing": False,
                "device_id": self.device_id,
            }
        )

    async def list_buckets(self, request: Request) -> Response:
        await self.state.settled()
        rows = await self.call(self.store.aw_buckets)
        return _json({r.bucket_id: _bucket_document(r, listing=True) for r in rows})

    async def _metadata(self, bucket_id: str) -> dict[str, Any]:
        rows = await self.call(self.store.aw_buckets)
        for row in rows:
            if row.bucket_id == bucket_id:
                return _bucket_document(row)
        raise NoSuchBucket(f"There's no bucket named {bucket_id}")

    async def get_bucket(self, request: Request) -> Response:
        return _json(await self._metadata(self.bucket(request)))

    async def create_bucket(self, request: Request) -> Response:
        bucket_id = str(request.path_params["bucket_id"])
        _text(bucket_id, "id")
        body = await _body(request)
        if not isinstance(body, dict):
            raise AwInputError("a bucket is a JSON object with client, type and hostname")
        hostname = _text(body.get("hostname"), "hostname")
        given = body.get("data")
        data: dict[str, Any] = given if isinstance(given, dict) else {}
        if hostname == "!local":  # aw-watcher-web: the server's own host
            hostname = self.hostname
            data = {**data, "device_id": self.device_id}
        created = await self.call(
            self.store.aw_create_bucket,
            bucket_id=bucket_id,
            name=_text(body.get("name"), "name", required=False),
            type=_text(body.get("type"), "type"),
            client=_text(body.get("client"), "client"),
            hostname=hostname,
            created=datetime.now(UTC),
            data=_bucket_data(data),
        )
        self.buckets.add(bucket_id)
        return _json({}, 200 if created else 304)

    async def update_bucket(self, request: Request) -> Response:
        bucket_id = self.bucket(request)
        body = await _body(request)
        if not isinstance(body, dict):
            raise AwInputError("a bucket update is a JSON object")
        data = body.get("data")
        if data is not None and not isinstance(data, dict):
            raise AwInputError("data: expected an object")
        await self.call(
            self.store.aw_update_bucket,
            bucket_id=bucket_id,
            type=_text(body.get("type"), "type", required=False) or None,
            client=_text(body.get("client"), "client", required=False) or None,
            hostname=_text(body.get("hostname"), "hostname", required=False) or None,
            data=_bucket_data(data) if data else None,
        )
        return _json({})

    async def delete_bucket(self, request: Request) -> Response:
        bucket_id = self.bucket(request)
        if request.query_params.get("force") != "1":
            return _error(
                401,
                "DeleteBucketUnauthorized",
                "Deleting buckets is only permitted if aw-server is running in testing mode "
                "or if ?force=1",
            )
        await self.state.settled()
        await self.call(self.store.aw_delete_bucket, bucket_id=bucket_id)
        self.buckets.discard(bucket_id)
        self.state.forget(bucket_id)
        return _json({})

    # -- events --------------------------------------------------------------------------------

    async def heartbeat(self, request: Request) -> Response:
        bucket_id = self.bucket(request)
        if "pulsetime" not in request.query_params:
            raise AwInputError("Missing required parameter pulsetime")
        pulsetime = pulsetime_us(request.query_params["pulsetime"])
        event = parse_event(await _body(request), now=datetime.now(UTC), need_timestamp=True)
        return _json(await self.beat(bucket_id, event, pulsetime=pulsetime))

    async def beat(self, bucket_id: str, event: AwEvent, *, pulsetime: int) -> dict[str, Any]:
        """A heartbeat, redacted as the privacy rules say (not stored when they drop it);
        the event as stored, as aw-server answers."""
        event.event_id = None  # a heartbeat is matched by time and data, never by id
        kept = self.privacy.stored(event)
        if kept is None:  # dropped: the next heartbeat starts a new event, never merged over it
            self.state.interrupt(bucket_id)
            return event.document()
        stored = await self.state.heartbeat(bucket_id, kept, pulsetime=pulsetime)
        return stored.document()

    async def get_events(self, request: Request) -> Response:
        bucket_id = self.bucket(request)
        limit = _limit(request)
        start, end = _range(request)
        await self.state.settled()
        if limit == 0:
            return _json([])
        rows = await self.call(
            self.store.aw_events,
            bucket_id=bucket_id,
            start_at=start,
            end_at=end,
            lim=None if limit < 0 else limit,
        )
        return _json([_event_document(_trimmed(r, start, end)) for r in rows])

    async def post_events(self, request: Request) -> Response:
        bucket_id = self.bucket(request)
        body = await _body(request)
        now = datetime.now(UTC)
        if isinstance(body, dict):
            events = [parse_event(body, now=now)]
        elif isinstance(body, list):
            events = [parse_event(e, now=now) for e in body]
        else:
            raise AwInputError("Invalid POST data")
        kept = [e for e in (self.privacy.stored(e) for e in events) if e is not None]
        if kept:
            await self.state.insert(bucket_id, kept)
        return _json(events[0].document() if isinstance(body, dict) else None)

    async def count_events(self, request: Request) -> Response:
        bucket_id = self.bucket(request)
        args = request.query_params
        await self.state.settled()
        n = await self.call(
            self.store.aw_count_events,
            bucket_id=bucket_id,
            start_at=parse_time(args["start"]) if "start" in args else None,
            end_at=parse_time(args["end"]) if "end" in args else None,
        )
        return _json(int(n))

    async def get_event(self, request: Request) -> Response:
        bucket_id = self.bucket(request)
        await self.state.settled()
        row = await self.call(self.store.aw_event, bucket_id=bucket_id, event_id=_event_id(request))
        return _json(None, 404) if row is None else _json(_event_document(row))

    async def delete_event(self, request: Request) -> Response:
        bucket_id = self.bucket(request)
        await self.state.settled()
        n = await self.call(
            self.store.aw_delete_event, bucket_id=bucket_id, event_id=_event_id(request)
        )
        self.state.forget(bucket_id)
        return _json({"success": bool(n)})

    # -- export and import ---------------------------------------------------------------------

    async def _export(self, bucket_id: str, meta: dict[str, Any]) -> dict[str, Any]:
        rows = await self.call(
            self.store.aw_events, bucket_id=bucket_id, start_at=None, end_at=None, lim=None
        )
        return {**meta, "events": [_event_document(r, with_id=False) for r in rows]}

    async def export_all(self, request: Request) -> Response:
        await self.state.settled()
        buckets = await self.call(self.store.aw_buckets)
        out = {b.bucket_id: await self._export(b.bucket_id, _bucket_document(b)) for b in buckets}
        return _attachment({"buckets": out}, "aw-buckets-export.json")

    async def export_bucket(self, request: Request) -> Response:
        bucket_id = self.bucket(request)
        await self.state.settled()
        bucket = await self._export(bucket_id, await self._metadata(bucket_id))
        return _attachment({"buckets": {bucket_id: bucket}}, f"aw-bucket-export_{bucket_id}.json")

    async def import_all(self, request: Request) -> Response:
        """aw-server's import, all or nothing: every bucket and event is checked first,
        then written in one transaction; a bucket that exists already (409) or any bad
        event (400) leaves nothing written."""
        body = await _body(request)
        buckets = body.get("buckets") if isinstance(body, dict) else None
        if not isinstance(buckets, dict):
            raise AwInputError('an import is {"buckets": {bucket id: bucket, …}}')
        batch, bucket_ids = self._import_batch(buckets, now=datetime.now(UTC))
        await self.state.settled()
        taken = await self.call(self.store.aw_import, batch=batch)
        if taken is not None:
            return _error(409, "Conflict", f"bucket {taken!r} exists already")
        for bucket_id in bucket_ids:
            self.buckets.add(bucket_id)
            self.state.forget(bucket_id)
        return _json(None)

    def _import_batch(
        self, buckets: dict[Any, Any], *, now: datetime
    ) -> tuple[AwImportBatch, list[str]]:
        """An import's buckets and events, checked as the door checks each (ids
        scrubbed, redacted by the privacy rules), as the store takes them."""
        metas: list[list[Any]] = []
        events: list[list[Any]] = []
        for key, bucket in buckets.items():
            where = f"bucket {str(key)[:100]!r}"
            if not isinstance(bucket, dict) or not isinstance(bucket.get("events", []), list):
                raise AwInputError(f"{where}: expected an object with events")
            bucket_id = _text(bucket.get("id", key), "id")
            if any(m[0] == bucket_id for m in metas):
                raise AwInputError(f"{where}: bucket id {bucket_id!r} given twice")
            created = bucket.get("created")
            data = bucket["data"] if isinstance(bucket.get("data"), dict) else {}
            metas.append(
                [
                    bucket_id,
                    _text(bucket.get("name"), "name", required=False),
                    _text(bucket.get("type"), "type"),
                    _text(bucket.get("client"), "client"),
                    _text(bucket.get("hostname"), "hostname"),
                    (parse_time(created) if created else now).isoformat(),
                    _bucket_data(data),
                ]
            )
            for raw in bucket.get("events", []):
                if isinstance(raw, dict):
                    raw = {k: v for k, v in raw.items() if k != "id"}  # ids are scrubbed
                try:
                    event = self.privacy.stored(parse_event(raw, now=now))
                except AwInputError as exc:
                    raise AwInputError(f"{where}: {exc.message}") from exc
                if event is not None:
                    events.append([bucket_id, event.start, event.duration, event.data_json])
        batch = AwImportBatch(
            buckets=orjson.dumps(metas).decode(), events=orjson.dumps(events).decode()
        )
        return batch, [str(m[0]) for m in metas]

    # -- settings ------------------------------------------------------------------------------

    async def get_settings(self, request: Request) -> Response:
        rows = await self.call(self.store.aw_settings)
        key = request.path_params.get("key", "")
        settings = visible(rows)
        return _json(settings if not key else settings.get(key))

    async def set_setting(self, request: Request) -> Response:
        key = _text(request.path_params.get("key", ""), "key")
        value = await _body(request)
        if key == TREES_KEY:
            raise AwInputError(f"{key}: a setting of TimeTrace's own, not to be written")
        if key == CLASSES_KEY:  # aw-webui's category tree: the user's tree follows
            await asyncio.to_thread(self.classes.write, value)
        elif value:
            await self.call(self.store.aw_set_setting, key=key, value=orjson.dumps(value).decode())
        else:  # aw-server drops a key set to a false value
            await self.call(self.store.aw_drop_setting, key=key)
        return _json(value)

    # -- query ---------------------------------------------------------------------------------

    async def query(self, request: Request) -> Response:
        """aw-server's query2, by aw-core's engine over this user's buckets: one result
        per time period."""
        body = await _body(request)
        await self.state.settled()
        buckets = {r.bucket_id: _bucket_document(r) for r in await self.call(self.store.aw_buckets)}
        edits = await self.call(self.store.aw_edits)
        self.day_cache.sync(edits=edits, written=self.state.marks.take_written())

        def read(
            bucket_id: str, start: datetime | None, end: datetime | None, lim: int | None
        ) -> list[AwEventRow]:
            return self.store.aw_events(
                user_id=self.user.user_id, bucket_id=bucket_id, start_at=start, end_at=end, lim=lim
            )

        answer = await asyncio.to_thread(
            answer_query,
            body=body,
            name=request.query_params.get("name", ""),
            buckets=buckets,
            read=read,
            cache=self.day_cache,
        )
        return Response(answer, media_type="application/json")

    async def not_here(self, request: Request) -> Response:
        return _error(
            501,
            "NotImplemented",
            "TimeTrace's ActivityWatch door keeps no server log: `timetrace status` says "
            "how the door and its conversion are doing",
        )


def _limit(request: Request) -> int:
    value = request.query_params.get("limit", "-1")
    try:
        return int(value)
    except ValueError as exc:
        raise AwInputError("limit: expected an integer") from exc


def _event_id(request: Request) -> int:
    value = request.path_params["event_id"]
    assert isinstance(value, int)
    return value


def _attachment(body: Any, filename: str) -> Response:
    return _json(body, headers={"Content-Disposition": f"attachment; filename={filename}"})


def door_app(
    *,
    store: ClassesStore,
    user: UserContext,
    port: int,
    hostname: str | None = None,
    privacy: Privacy | None = None,
    rules: Rules | None = None,
    settings: Settings | None = None,
    marks: DirtyMarks | None = None,
    background: Callable[[Door], AsyncIterator[None]] | None = None,
    webui: Path | None = None,
) -> Any:
    """The door's ASGI app: the routes, behind the loopback guard and the body limits.
    `webui`: an aw-webui build folder served from `/` beside the API (checked by
    `webui_folder`).
    `privacy`: what redacts what it stores (the shipped rules' when None; shared with
    the conversion, which tells it the windows it finds private). `rules` and
    `settings` (the shipped rules' and the environment's when None) re-categorise the
    history when aw-webui writes its category tree.
    `background` runs beside it for as long as it serves (the live conversion, which
    takes `marks`: what the door wrote since)."""
    rules = rules if rules is not None else load_rules(user_file=None)
    door = Door(
        store=store,
        user=user,
        hostname=hostname or socket.gethostname(),
        privacy=privacy if privacy is not None else Privacy(rules),
        classes=DoorClasses(store, user=user, rules=rules, settings=settings or get_settings()),
        marks=marks,
    )
    b = "/api/0/buckets/{bucket_id}"
    routes: list[BaseRoute] = [
        Route("/api/0/info", _answers(door.info), methods=["GET"]),
        Route("/api/0/buckets/", _answers(door.list_buckets), methods=["GET"]),
        Route("/api/0/buckets", _answers(door.list_buckets), methods=["GET"]),
        Route(b, _answers(door.get_bucket), methods=["GET"]),
        Route(b, _answers(door.create_bucket), methods=["POST"]),
        Route(b, _answers(door.update_bucket), methods=["PUT"]),
        Route(b, _answers(door.delete_bucket), methods=["DELETE"]),
        Route(b + "/heartbeat", _answers(door.heartbeat), methods=["POST"]),
        Route(b + "/events", _answers(door.get_events), methods=["GET"]),
        Route(b + "/events", _answers(door.post_events), methods=["POST"]),
        Route(b + "/events/count", _answers(door.count_events), methods=["GET"]),
        Route(b + "/events/{event_id:int}", _answers(door.get_event), methods=["GET"]),
        Route(b + "/events/{event_id:int}", _answers(door.delete_event), methods=["DELETE"]),
        Route(b + "/export", _answers(door.export_bucket), methods=["GET"]),
        Route("/api/0/export", _answers(door.export_all), methods=["GET"]),
        Route("/api/0/import", _answers(door.import_all), methods=["POST"]),
        Route("/api/0/settings", _answers(door.get_settings), methods=["GET"]),
        Route("/api/0/settings/{key}", _answers(door.get_settings), methods=["GET"]),
        Route("/api/0/settings/{key}", _answers(door.set_setting), methods=["POST"]),
        Route("/api/0/query/", _answers(door.query), methods=["POST"]),
        Route("/api/0/query", _answers(door.query), methods=["POST"]),
        Route("/api/0/log", door.not_here, methods=["GET"]),
    ]
    if webui is not None:
        routes.append(webui_mount(webui))

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        await door.load()
        try:
            if background is None:
                yield
            else:
                async for _ready in background(door):
                    yield
        finally:
            await door.state.close()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.door = door
    return LoopbackGuard(Heartbeats(BoundedRequests(app), door=door), port=port)
