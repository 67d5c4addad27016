"""What the door holds between requests: each bucket's last event (what a heartbeat
merges into, as aw-server keeps it) and the writes not yet committed.

    door = DoorState(store, user_id=1)
    event = await door.heartbeat("aw-watcher-window_laptop", event, pulsetime=2_000_000)
    await door.settled()       # before anything reads or changes events in the database

Heartbeats are merged in memory and written in groups: while one group commits, the
next gathers, and each request is answered once its group has committed (so an
answer means the event is stored). One commit serves every heartbeat that arrived
during the one before it, which is what keeps a heartbeat cheap under load. A group's
commit writes its events and nothing else: each is stamped with the group's number,
and the buckets are marked for the conversion in memory once it has committed
(`app/awdoor/marks.py`). Event ids and group numbers come from the door's sequence
a batch at a time, so that most commits are one round trip.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from dataclasses import dataclass, field
from datetime import UTC, datetime

import orjson

from app.awdoor.events import AwEvent, heartbeat_merge, micros_of, stored_problem
from app.awdoor.marks import DirtyMarks
from app.store.awdoor import AwDoorStore, AwEventWrite, AwEventWriter

log = logging.getLogger("timetrace.awdoor")

_ABSENT = object()
_ID_BATCH = 1024  # ids taken from the sequence at once (those unused at a stop are skipped)


@dataclass(slots=True)
class _Group:
    events: dict[int, tuple[str, AwEvent]] = field(default_factory=dict)  # id(event) → bucket
    done: asyncio.Future[None] | None = None


class DoorState:
    def __init__(
        self, store: AwDoorStore, *, user_id: int, marks: DirtyMarks | None = None
    ) -> None:
        self.store = store
        self.user_id = user_id
        self.marks = marks if marks is not None else DirtyMarks()
        # bucket id → its last event (None: the bucket has none); absent: not read yet.
        self._last: dict[str, AwEvent | None] = {}
        self._loading: dict[str, asyncio.Future[AwEvent | None]] = {}
        self._group = _Group()
        self._writing: asyncio.Task[None] | None = None
        # Ids from the sequence, in order; only the writing thread takes from them (one
        # group at a time), so each group's number is above every earlier group's.
        self._ids: deque[int] = deque()
        self._writer: AwEventWriter | None = None  # its own connection, opened when needed

    # -- heartbeats --------------------------------------------------------------------------

    async def heartbeat(self, bucket_id: str, event: AwEvent, *, pulsetime: int) -> AwEvent:
        """aw-server's heartbeat: merged into the bucket's last event when it has the same
        data within `pulsetime`, else a new event. Returns the event as stored."""
        last = self._last.get(bucket_id, _ABSENT)
        if last is _ABSENT:
            last = await self._load(bucket_id)
        assert last is None or isinstance(last, AwEvent)
        if last is not None and heartbeat_merge(last, event, pulsetime=pulsetime):
            target = last
        else:
            self._last[bucket_id] = target = event
        await self._write(bucket_id, target)
        return target

    async def insert(self, bucket_id: str, events: list[AwEvent]) -> None:
        """Events inserted (or, with an id, replaced) as they are; the bucket's last event
        is read again before the next heartbeat."""
        for event in events:
            self._group.events[id(event)] = (bucket_id, event)
        await self._commit()
        self.forget(bucket_id)

    def forget(self, bucket_id: str) -> None:
        self._last.pop(bucket_id, None)

    def interrupt(self, bucket_id: str) -> None:
        """A heartbeat not stored (the privacy rules dropped it): the next one starts a
        new event rather than merging over the time it took."""
        self._last[bucket_id] = None

    async def _load(self, bucket_id: str) -> AwEvent | None:
        loading = self._loading.get(bucket_id)
        if loading is None:
            loading = asyncio.get_running_loop().create_future()
            self._loading[bucket_id] = loading
            try:
                found = await asyncio.to_thread(
                    self.store.aw_last_events, user_id=self.user_id, bucket_ids=[bucket_id]
                )
                last = None
                now = datetime.now(UTC)
                if found and stored_problem(found[0].ts, found[0].duration_us, now=now) is None:
                    # (one past the boundary, stored by an older door, is merged into never)
                    row = found[0]
                    last = AwEvent(
                        row.event_id,
                        micros_of(row.ts),
                        row.duration_us,
                        orjson.loads(row.data),
                        row.data,
                    )
                if bucket_id not in self._last:
                    self._last[bucket_id] = last
                loading.set_result(self._last[bucket_id])
            except BaseException as exc:
                loading.set_exception(exc)
                loading.exception()  # retrieved: the waiters raise it themselves
                raise
            finally:
                del self._loading[bucket_id]
        return await asyncio.shield(loading)

    # -- group commit --------------------------------------------------------------------------

    async def _write(self, bucket_id: str, event: AwEvent) -> None:
        self._group.events[id(event)] = (bucket_id, event)
        await self._commit()

    async def _commit(self) -> None:
        group = self._group
        if group.done is None:
            group.done = asyncio.get_running_loop().create_future()
        if self._writing is None:
            self._writing = asyncio.create_task(self._write_groups())
        await asyncio.shield(group.done)

    async def _write_groups(self) -> None:
        try:
            while self._group.events:
                group, self._group = self._group, _Group()
                assert group.done is not None
                try:
                    await self._save(group)
                except Exception as exc:
                    # What memory holds may now differ from the database: read it again.
                    # The commit may have happened all the same (an answer lost): the
                    # transaction is over either way, so marking its buckets is safe.
                    self.marks.add(((b, e.start) for b, e in group.events.values()), through=0)
                    for bucket_id, _ in group.events.values():
                        self.forget(bucket_id)
                    log.warning("the door could not store events (%s)", type(exc).__name__)
                    group.done.set_exception(exc)
                    group.done.exception()  # retrieved: every waiter raises it
                else:
                    group.done.set_result(None)
        finally:
            self._writing = None

    async def _save(self, group: _Group) -> None:
        fresh = [event for _, event in group.events.values() if event.event_id is None]
        # The values as they are now: a heartbeat may extend an event while this commits,
        # and is written by the next group.
        snapshot = [
            (bucket_id, event, event.start, event.duration, event.data_json)
            for bucket_id, event in group.events.values()
        ]

        def save() -> tuple[list[int], int]:
            if self._writer is None:
                self._writer = self.store.aw_event_writer()
            writer = self._writer
            try:
                need = len(fresh) + 1  # and the group's number
                if len(self._ids) < need:
                    self._ids.extend(sorted(writer.new_ids(n=max(need, _ID_BATCH))))
                ids = [self._ids.popleft() for _ in fresh]
                change = self._ids.popleft()
                by_event = dict(zip((id(e) for e in fresh), ids, strict=True))
                writer.save(
                    user_id=self.user_id,
                    events=AwEventWrite.model_construct(
                        bucket_ids=[s[0] for s in snapshot],
                        event_ids=[
                            s[1].event_id if s[1].event_id is not None else by_event[id(s[1])]
                            for s in snapshot
                        ],
                        starts_us=[s[2] for s in snapshot],
                        durations=[s[3] for s in snapshot],
                        datas=[s[4] for s in snapshot],
                        change=change,
                    ),
                )
            except Exception:
                self._close_writer()  # a fresh connection for the next group
                raise
            return ids, change

        ids, change = await asyncio.to_thread(save)
        for event, event_id in zip(fresh, ids, strict=True):
            event.event_id = event_id
        # Only now (committed): a pass that took the mark reads what was written.
        self.marks.add(((s[0], s[2]) for s in snapshot), through=change)

    def _close_writer(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            with contextlib.suppress(Exception):
                writer.close()

    async def close(self) -> None:
        """Once the door stops: every write settled, the writer's connection closed."""
        await self.settled()
        await asyncio.to_thread(self._close_writer)

    async def settled(self) -> None:
        """Wait until every write asked for so far has committed (or failed: its error
        went to the requests that asked for it)."""
        while self._writing is not None:
            await asyncio.shield(self._writing)
