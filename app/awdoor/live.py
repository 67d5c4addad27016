"""The door's events into records, continuously: each host's window, afk and web
buckets go through the importer's own pipeline (`host_records`: flood, not-afk,
focused tabs, privacy, canonical apps) and the ingest rules, and the host's door
records are made equal to what comes out.

    live = LiveConversion(store, user=user, rules=rules, marks=marks)  # the door's marks
    live.run_once(now=datetime.now(UTC))      # every few seconds, beside the door

A pass converts the buckets the door marked in memory since the last pass (and those
marked in the database: an event deleted), and then stores the highest group number
it has seen converted. The first pass of a conversion (after the door starts) also
takes every bucket written by a group numbered above what was stored: what a crash
left unconverted (`app/awdoor/marks.py`).

Only the recent part of a host's timeline is converted again: from a window event
that starts at least 10 s before the earliest event written since the last pass
(and before any earlier event of the same data it may flood into), each bucket read
from where its run of flooded neighbours begins (`chain_start`), so every record
that starts there or later is made from all the events that decide it, and no
record before it can change. A record is keyed by its start (`aw:<µs>`, as the
importer keys it), so a heartbeat that extends an event updates that event's record
in place; a record no longer made (the tail's idle stretch that a late not-afk
heartbeat covered) is removed; changes at or below the device's watermark mark
their day for a rebuild, as late records do.

An event the conversion cannot use (a time records refuse, a duration past the
boundary's bound, data it cannot read) is set aside with its reason
(`aw_events.set_aside`) and the host converted without it: one bad row never stops a
host's pipeline. `timetrace status` and /healthz count what was set aside.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

import orjson

from app.awdoor.events import micros_of, moment_of, stored_problem
from app.awdoor.marks import DirtyMarks, Taken
from app.awdoor.private import Privacy
from app.importers.aw_hosts import group_hosts, host_records
from app.importers.aw_read import Bucket, Host
from app.importers.spill import EventSpill, canonical
from app.ingest.records import MIN_YEAR, prepare_records
from app.job_requests import build_job
from app.rules.categories import Rules
from app.rules.user import rules_for_user
from app.store.accounts import AccountStore, UserContext
from app.store.awdoor import AwDoorStore, AwSpanIdRow
from app.store.user_rules import UserRuleStore

log = logging.getLogger("timetrace.awdoor")

_MARGIN = timedelta(seconds=10)  # before the earliest change: the window event there
_FLOOD = timedelta(seconds=5)  # how far flooding may move a start (ActivityWatch's 5 s)
_LOOK_BACK = 64  # window events read back while looking for where to start
_CHAIN = 256  # events read back per bucket while looking for where its flooding begins
# The earliest start a pass converts from: records begin no earlier (an event before it
# is set aside), and the margins above stay inside the calendar.
_FLOOR = datetime(MIN_YEAR, 1, 1, tzinfo=UTC)


class LiveStore(AwDoorStore, AccountStore, UserRuleStore, Protocol):
    """What the conversion uses: the door's events, the records, the device, the user's
    own category rules."""


@dataclass(slots=True)
class Converted:
    hosts: int = 0
    inserted: int = 0
    updated: int = 0
    removed: int = 0


def _start(rows: list[AwSpanIdRow]) -> datetime | None:
    """Where a host's conversion may start: the newest window event of `rows` (newest
    first), moved back over earlier events of the same data within the flood, which
    flooding would merge with it. None when that reaches past what was read."""
    if not rows:
        return None
    at = 0
    while at + 1 < len(rows):
        this, before = rows[at], rows[at + 1]
        reach = before.ts + timedelta(microseconds=before.duration_us)
        if reach < this.ts - _FLOOD or orjson.loads(before.data) != orjson.loads(this.data):
            return this.ts
        at += 1
    return None if len(rows) >= _LOOK_BACK else rows[-1].ts


def chain_start(rows: list[AwSpanIdRow]) -> datetime | None:
    """Where flooding one bucket's events may begin so that it floods the later ones as
    a flood of its whole history does: the newest of `rows` (one bucket's events up to a
    point, newest first) that starts more than the flood's reach after every earlier
    one ends. aw-core's flood moves an event's end by the part of a millisecond its
    start was cut by, and the next midpoint by half that, so one event's end depends on
    the whole run of neighbours within 5 s before it, not on the last few. The oldest
    row when none is such a start (all the bucket's history, when fewer than `_CHAIN`
    were read); None for no rows."""
    if not rows:
        return None
    reach: datetime | None = None  # the latest end of the events before the one looked at
    start = rows[-1].ts
    for r in reversed(rows):
        if reach is not None and r.ts - reach > _FLOOD:
            start = r.ts
        end = r.ts + timedelta(microseconds=r.duration_us)
        reach = end if reach is None or end > reach else reach
    return start


class LiveConversion:
    def __init__(
        self,
        store: LiveStore,
        *,
        user: UserContext,
        rules: Rules,
        marks: DirtyMarks,
        audible_is_active: bool = True,
        privacy: Privacy | None = None,
    ) -> None:
        self.store = store
        self.user = user
        self.rules = rules
        self.marks = marks
        self.audible_is_active = audible_is_active
        # The door's privacy at store time, told the windows found private here.
        self.privacy = privacy if privacy is not None else Privacy(rules)
        self._devices: set[str] = set()
        # Per device, the window data seen private: the importer redacts every later
        # event of a window once it showed an incognito tab, while a pass reads only the
        # recent events (kept for as long as the door runs).
        self._private: dict[str, set[str]] = {}
        self._stored: int | None = None  # the group number stored converted; None: unread

    def run_once(self, *, now: datetime) -> Converted:
        """Convert every host with events written since the last pass."""
        taken = self.marks.take()
        try:
            return self._pass(taken, now=now)
        except BaseException:
            self.marks.give_back(taken)  # the next pass does them again
            raise

    def _pass(self, taken: Taken, *, now: datetime) -> Converted:
        uid = self.user.user_id
        dirty = {b: max(moment_of(start), _FLOOR) for b, start in taken.starts.items()}
        through = taken.through
        stored = self._stored
        if stored is None:  # the first pass: what a crash left unconverted
            stored = self.store.aw_converted_through(user_id=uid) or 0
            for left in self.store.aw_changed_since(user_id=uid, after=stored):
                _mark(dirty, left.bucket_id, max(left.dirty_from, _FLOOR))
                through = max(through, left.changed)
        marks = self.store.aw_dirty(user_id=uid)
        deleted = {m.bucket_id: m for m in marks if m.dirty_from is not None}
        for m in deleted.values():
            assert m.dirty_from is not None
            _mark(dirty, m.bucket_id, max(m.dirty_from, _FLOOR))
        done = Converted()
        if dirty:
            buckets = [
                Bucket(index=i, id=m.bucket_id, type=m.type, hostname=m.hostname, client=m.client)
                for i, m in enumerate(marks)
            ]
            for host in group_hosts(buckets):
                members = [*host.windows, *host.afk, *host.web]
                changed = [dirty[b.id] for b in members if b.id in dirty]
                if not changed:
                    continue
                result = self.convert_host(host, members, since=min(changed), now=now)
                done.hosts += 1
                done.inserted += result.inserted
                done.updated += result.updated
                done.removed += result.removed
        # Every mark seen is cleared (a bucket of no host's has nothing to convert),
        # unless its bucket was written again meanwhile.
        if deleted:
            self.store.aw_clear_dirty(
                user_id=uid,
                bucket_ids=list(deleted),
                changes=[m.changes for m in deleted.values()],
            )
        if through > stored:
            self.store.aw_set_converted(user_id=uid, through=through)
            stored = through
        self._stored = stored
        return done

    def convert_host(
        self, host: Host, members: list[Bucket], *, since: datetime, now: datetime
    ) -> Converted:
        uid = self.user.user_id
        # Read each pass, as ingest reads them per batch: a rule saved now counts from now.
        rules = rules_for_user(self.store, self.rules, user_id=uid)
        windows = [b.id for b in host.windows]
        before = self.store.aw_events_before(
            user_id=uid, bucket_ids=windows, before_at=since - _MARGIN, n=_LOOK_BACK
        )
        anchor = _start(self._usable(before, now=now))
        ids = [b.id for b in members]
        if anchor is None:  # the host's first pass, or a change far back: all its events
            first = self.store.aw_first_event(user_id=uid, bucket_ids=ids)
            keep_from = None if first is None else max(first, _FLOOR) - _FLOOD
            read_from: list[datetime | None] = [None] * len(ids)
        else:
            keep_from = anchor - _FLOOD
            read_from = [*self._chains_from(ids, at=keep_from - _MARGIN, now=now)]
        rows = self.store.aw_events_from(user_id=uid, bucket_ids=ids, from_ats=read_from)
        rows = self._usable(rows, now=now)
        index = {b.id: b.index for b in members}
        unread: list[AwSpanIdRow] = []
        with EventSpill() as spill:
            texts: dict[str, str] = {}
            for r in rows:
                text = texts.get(r.data)
                if text is None:
                    try:
                        text = texts[r.data] = canonical(_object(orjson.loads(r.data)))
                    except (ValueError, TypeError):
                        unread.append(r)
                        continue
                spill.add_rows(
                    bucket=index[r.bucket_id], rows=[(micros_of(r.ts), r.duration_us, text)]
                )
            floor = None if keep_from is None else micros_of(keep_from)
            records = [
                rec
                for rec in host_records(
                    host,
                    spill,
                    rules=rules,
                    now=now,
                    audible_is_active=self.audible_is_active,
                    private_windows=self._private.setdefault(host.device_id, set()),
                )
                if floor is None or micros_of(rec.ts_start) >= floor
            ]
        self._set_aside({"data: not an object the conversion can read": unread})
        self._hide_private_windows(host, windows, from_at=_earliest(read_from))
        prepared = prepare_records(records, rules=rules, user=self.user)
        if host.device_id not in self._devices:
            self.store.add_device(
                user_id=uid,
                device_id=host.device_id,
                name=host.name,
                kind="phone" if host.is_phone else "desktop",
            )
            self._devices.add(host.device_id)
        result = self.store.aw_reconcile(
            user_id=uid,
            device_id=host.device_id,
            since_at=keep_from,
            records=prepared.rows,
            jobs=[build_job(uid, host.device_id)],
        )
        return Converted(1, result.inserted, result.updated, result.removed)

    def _hide_private_windows(
        self, host: Host, windows: list[str], *, from_at: datetime | None
    ) -> None:
        """The windows an incognito tab showed in, redacted in the door's own events too
        (and in what it stores from now on): every pass that reads them, since a
        heartbeat may have merged into one such event while it was found private."""
        seen = self._private.get(host.device_id)
        datas = [d for d in seen or () if orjson.loads(d).get("incognito") is not True]
        if not datas:
            return
        for data in datas:
            self.privacy.hide_window(data)
        self.store.aw_redact_windows(
            user_id=self.user.user_id, bucket_ids=windows, datas=datas, from_at=from_at
        )

    def _chains_from(self, bucket_ids: list[str], *, at: datetime, now: datetime) -> list[datetime]:
        """Where to read each bucket from: `at`, or the start of the run of flooded
        neighbours that reaches over it (`chain_start`), whichever is earlier."""
        rows = self.store.aw_events_before(
            user_id=self.user.user_id, bucket_ids=bucket_ids, before_at=at, n=_CHAIN
        )
        by_bucket: dict[str, list[AwSpanIdRow]] = defaultdict(list)
        for r in self._usable(rows, now=now):
            by_bucket[r.bucket_id].append(r)
        starts = {b: chain_start(events) for b, events in by_bucket.items()}
        return [min(at, starts.get(b) or at) for b in bucket_ids]

    def _usable(self, rows: list[AwSpanIdRow], *, now: datetime) -> list[AwSpanIdRow]:
        """`rows` without those the conversion cannot use, which are set aside."""
        bad: dict[str, list[AwSpanIdRow]] = defaultdict(list)
        kept = []
        for r in rows:
            if (reason := stored_problem(r.ts, r.duration_us, now=now)) is None:
                kept.append(r)
            else:
                bad[reason].append(r)
        self._set_aside(bad)
        return kept

    def _set_aside(self, bad: dict[str, list[AwSpanIdRow]]) -> None:
        for reason, rows in bad.items():
            if not rows:
                continue
            log.warning("the door set %d event(s) aside: %s", len(rows), reason)
            self.store.aw_set_aside(
                user_id=self.user.user_id,
                bucket_ids=[r.bucket_id for r in rows],
                event_ids=[r.event_id for r in rows],
                reason=reason,
            )


def _object(data: object) -> dict[str, object]:
    if not isinstance(data, dict):
        raise TypeError("event data is not an object")
    return data


def _earliest(starts: list[datetime | None]) -> datetime | None:
    """The earliest of the buckets' read starts (None: all of some bucket was read)."""
    return None if not starts or None in starts else min(s for s in starts if s is not None)


def _mark(dirty: dict[str, datetime], bucket_id: str, start: datetime) -> None:
    before = dirty.get(bucket_id)
    if before is None or start < before:
        dirty[bucket_id] = start


def converting(
    live: LiveConversion, *, every_s: float, clock: Callable[[], datetime]
) -> Callable[[object], AsyncIterator[None]]:
    """The conversion as a door's background: a pass every `every_s` seconds while the
    door serves, and one more once it stops serving (what it wrote last is converted
    before the door goes); a failed pass is logged and the next one tries again."""

    async def background(_: object) -> AsyncIterator[None]:
        stop = asyncio.Event()

        async def one() -> None:
            try:
                await asyncio.to_thread(live.run_once, now=clock())
            except Exception as exc:  # the next pass tries again
                log.warning("the door's conversion failed: %s", type(exc).__name__)

        async def passes() -> None:
            while not stop.is_set():
                await one()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), timeout=every_s)
            await one()

        task = asyncio.create_task(passes())
        try:
            yield
        finally:
            stop.set()
            await task

    return background
