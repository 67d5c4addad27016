"""The canonical query's answer from pieces kept in memory, a piece per day or so.

    cache = DayCache()
    cache.sync(edits=store.aw_edits(user_id=…), written=marks.take_written())
    result = cached_result(shape=shape, start=…, end=…, buckets=…, read=…, store=…,
                           cache=cache, name="")   # None: the engine answers it

A period is cut at one point a day: after each UTC midnight in it, the first moment
where none of the query's buckets has an event running across it, and where the events
on either side are either joined exactly there or more than flood's reach apart (and
not within a millisecond's rounding of it). Between two such cuts the canonical
query's head gives the same events whether it runs over the piece or over the whole
period (app/awdoor/canonical.py), so each piece's result is worked out once, by aw-core's
engine over that piece, and kept; a period's answer is its pieces combined. A day with
no such moment makes its piece two days long; the first and last pieces end where the
period does.

What is kept is dropped when the door writes an event starting before its end (plus a
minute: flood's reach), from the door's own marks (`DirtyMarks.take_written`), and all
of it when the database counts a deletion or an edit the door did not make
(`aw_edits`, migration 0036: retention, privacy, redaction). A door restarting starts
with nothing kept.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from aw_datastore import Datastore
from aw_query.query2 import query as run_query2

from app.awdoor.canonical import Piece, Shape, combine, json_default, piece_of
from app.awdoor.events import micros_of, moment_of
from app.awdoor.prefetch import Prefetched
from app.store.awdoor import AwEventRow

# A bucket's events: (bucket id, start, end, at most how many or None) -> rows, newest first.
EventReader = Callable[[str, datetime | None, datetime | None, int | None], list[AwEventRow]]
log = logging.getLogger("timetrace.awdoor")
_DAY_US = 86_400_000_000
_REACH_US = 10_000_000  # flood's 5 s pulsetime, twice over
_ROUND_US = 2_000  # reads round their ends to the millisecond
_LOOK_US = 20_000_000  # how far either side of a day the search for a cut reads
_STALE_US = 60_000_000  # a write this far after a piece's end drops it all the same
_KEPT = 4_096  # cuts, pieces and answers kept at most (the oldest go first)
_BYTES = 256 * 1024 * 1024  # and their JSON, at most (a day of events is ~100 KB)
_SYNC_MISSING = 2  # days missing that a query works out itself; more: the engine answers


@dataclass(frozen=True, slots=True)
class _Kept:
    buckets: tuple[str, ...]
    end_us: int  # what a write from this point on may change
    value: Any
    size: int = 0  # bytes of JSON it holds


class DayCache:
    """Cuts and pieces of the canonical query, per bucket set; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: dict[tuple[Any, ...], _Kept] = {}
        self._bytes = 0
        self._edits: int | None = None
        self._generation = 0  # counts the syncs that saw a write: a fill begun before one
        self._filling: threading.Thread | None = None  # is not kept
        self._pending: tuple[Callable[[int], object], int] | None = None

    def sync(self, *, edits: int | None, written: dict[str, int]) -> None:
        """Before a query: drop what the writes since the last one may have changed."""
        with self._lock:
            if edits != self._edits:
                self._kept.clear()
                self._edits = edits
                self._generation += 1
            if not written:
                return
            self._generation += 1
            self._kept = {
                key: kept
                for key, kept in self._kept.items()
                if all(kept.end_us + _STALE_US <= written[b] for b in kept.buckets if b in written)
            }

    def get(self, key: tuple[Any, ...]) -> _Kept | None:
        with self._lock:
            return self._kept.get(key)

    def put(self, key: tuple[Any, ...], kept: _Kept, *, generation: int | None = None) -> None:
        """Keep `kept` (from a fill: only while no write came since the fill began)."""
        with self._lock:
            if generation is not None and generation != self._generation:
                return
            before = self._kept.pop(key, None)
            self._bytes -= before.size if before is not None else 0
            while self._kept and (len(self._kept) >= _KEPT or self._bytes + kept.size > _BYTES):
                self._bytes -= self._kept.pop(next(iter(self._kept))).size
            self._kept[key] = kept
            self._bytes += kept.size

    def fill(self, job: Callable[[int], object]) -> bool:
        """Run `job(generation)` on a thread of its own, off the request, once `start`
        is called (after the request's answer, so as not to slow it), unless one is
        running or waiting (one at a time); whether it was taken."""
        with self._lock:
            if self._pending is not None or (self._filling and self._filling.is_alive()):
                return False
            self._pending = (job, self._generation)
            return True

    def start(self) -> None:
        """Start the fill taken during the request just answered, if any."""
        with self._lock:
            if self._pending is None:
                return
            self._filling = threading.Thread(
                target=_quietly, args=self._pending, name="aw-door-fill", daemon=True
            )
            self._pending = None
            self._filling.start()

    def settle(self, *, timeout: float | None = None) -> None:
        """Wait for the fill running now, if any (tests and the bench)."""
        filling = self._filling
        if filling is not None:
            filling.join(timeout)

    def kept(self) -> dict[tuple[Any, ...], object]:
        """What is kept now: key → its cut or piece."""
        with self._lock:
            return {key: kept.value for key, kept in self._kept.items()}


def _quietly(job: Callable[[int], object], generation: int) -> None:
    """A fill that fails leaves its pieces unkept (the next ask tries again): logged."""
    try:
        job(generation)
    except Exception:  # the request it was for has its answer; the door goes on
        log.exception("working out the canonical query's pieces failed")


@dataclass(frozen=True, slots=True)
class _Bucket:
    """A bucket's events near a day, in flood's order (start, then duration)."""

    starts: list[int]
    ends: list[int]
    reach: list[int]  # the latest end of the events up to each one
    bounds: list[int]  # every start and end, sorted


def _bucket(rows: Sequence[AwEventRow]) -> _Bucket:
    spans = sorted((micros_of(r.ts), micros_of(r.ts) + r.duration_us) for r in rows)
    ends = [e for _, e in spans]
    return _Bucket(
        starts=[s for s, _ in spans],
        ends=ends,
        reach=list(itertools.accumulate(ends, max)),
        bounds=sorted(itertools.chain(*spans)),
    )


def _clean(b: _Bucket, c: int) -> bool:
    """Whether a cut at `c` leaves this bucket's flooded events as they are."""
    low, high = (
        bisect.bisect_right(b.bounds, c - _ROUND_US),
        bisect.bisect_left(b.bounds, c + _ROUND_US),
    )
    if any(x != c for x in b.bounds[low:high]):
        return False
    i = bisect.bisect_left(b.starts, c)  # events starting before c
    if i == 0 or i == len(b.starts):
        return i == 0 or b.reach[i - 1] <= c
    reach, last, following = b.reach[i - 1], b.ends[i - 1], b.starts[i]
    if reach > c:
        return False  # an event runs across c
    return following - reach > _REACH_US or last == reach == following


def find_cut(*, read: EventReader, bucket_ids: Sequence[str], lo_us: int, hi_us: int) -> int | None:
    """The first clean cut in [lo_us, hi_us) for these buckets, or None."""
    start, end = moment_of(lo_us - _LOOK_US), moment_of(hi_us + _LOOK_US)
    buckets = [_bucket(read(b, start, end, None)) for b in bucket_ids]
    # On a millisecond: a read's end is rounded to one (then a millisecond added).
    candidates = sorted(
        {lo_us} | {x for b in buckets for x in b.bounds if lo_us <= x < hi_us and x % 1000 == 0}
    )
    for c in candidates:
        if all(_clean(b, c) for b in buckets):
            return c
    return None


def _resolved(shape: Shape, buckets: dict[str, dict[str, Any]]) -> tuple[str, ...] | None:
    """The bucket ids the query reads (find_bucket: the first holding the string; or
    the ids themselves)."""
    if shape.exact:
        window = shape.window if shape.window in buckets else None
        afk = shape.afk if shape.afk in buckets else None
    else:
        window = next((b for b in buckets if shape.window in b), None)
        afk = next((b for b in buckets if shape.afk in b), None)
    if window is None or afk is None or any(b not in buckets for b in shape.browsers):
        return None
    return (window, afk, *shape.browsers)


def _cuts(
    ids: tuple[str, ...], start_us: int, end_us: int, *, read: EventReader, cache: DayCache,
    gen: int | None = None,
) -> list[int]:  # fmt: skip
    cuts: list[int] = []
    day = (start_us // _DAY_US + 1) * _DAY_US
    while day < end_us:
        hi = min(day + _DAY_US, end_us)
        key = ("cut", ids, day, hi)
        kept = cache.get(key)
        if kept is None:
            cut = find_cut(read=read, bucket_ids=ids, lo_us=day, hi_us=hi)
            kept = _Kept(ids, hi + _LOOK_US, cut)
            cache.put(key, kept, generation=gen)
        if kept.value is not None and (not cuts or kept.value > cuts[-1]):
            cuts.append(kept.value)
        day += _DAY_US
    return cuts


def _pieces(
    shape: Shape, ids: tuple[str, ...], bounds: list[int], *, store: Callable[[], Datastore],
    cache: DayCache, name: str, gen: int | None = None,
) -> list[Piece]:  # fmt: skip
    pieces: list[Piece] = []
    for a, b in itertools.pairwise(bounds):
        # aw_datastore reads to the end's millisecond and one more: a piece that ends
        # at a cut asks for a millisecond less, so that it reads up to the cut.
        last = b == bounds[-1]
        key = ("piece", shape.head, ids, a, b, last)
        kept = cache.get(key)
        if kept is None:
            until = moment_of(b if last else b - 1000)
            result = run_query2(name, shape.head, moment_of(a), until, store())
            piece = piece_of(result, events_json=not shape.webui)
            kept = _Kept(ids, b, piece, len(piece.events_json))
            cache.put(key, kept, generation=gen)
        pieces.append(kept.value)
    return pieces


def _missing(
    shape: Shape, ids: tuple[str, ...], start_us: int, end_us: int, cache: DayCache
) -> int:
    """How many of the period's days have no cut kept (or, all cuts kept, pieces)."""
    cuts: list[int] = []
    unknown = 0
    for day in range((start_us // _DAY_US + 1) * _DAY_US, end_us, _DAY_US):
        kept = cache.get(("cut", ids, day, min(day + _DAY_US, end_us)))
        if kept is None:
            unknown += 1
        elif kept.value is not None and (not cuts or kept.value > cuts[-1]):
            cuts.append(kept.value)
    if unknown:
        return unknown
    bounds = [start_us, *cuts, end_us]
    return sum(
        cache.get(("piece", shape.head, ids, a, b, b == end_us)) is None
        for a, b in itertools.pairwise(bounds)
    )


def _worked_out(
    shape: Shape, ids: tuple[str, ...], start_us: int, end_us: int, *, read: EventReader,
    open_store: Callable[[EventReader], Datastore], cache: DayCache, name: str,
    gen: int | None = None,
) -> tuple[list[int], list[Piece]]:  # fmt: skip
    """The period's bounds and pieces, those missing worked out and kept. What they read
    is read once for the whole period, then sliced (app/awdoor/prefetch.py)."""
    once = Prefetched(read, lo_us=start_us - _LOOK_US, hi_us=end_us + _LOOK_US)
    cuts = _cuts(ids, start_us, end_us, read=once, cache=cache, gen=gen)
    bounds = [start_us, *cuts, end_us]
    store = functools.cache(lambda: open_store(once))
    return bounds, _pieces(shape, ids, bounds, store=store, cache=cache, name=name, gen=gen)


def cached_result(
    *,
    shape: Shape,
    start: datetime,
    end: datetime,
    buckets: dict[str, dict[str, Any]],
    read: EventReader,
    open_store: Callable[[EventReader], Datastore],
    cache: DayCache,
    name: str,
) -> orjson.Fragment | None:
    """The canonical query's result over [start, end), as JSON, from kept pieces (those
    missing worked out by aw-core's engine, over a store `open_store` makes of a reader,
    and kept); None where the engine should answer: when more than two days' pieces are
    missing, which are then worked out on a thread of their own (`DayCache.fill`). Asked
    again with the same pieces kept, the same JSON is given again."""
    ids = _resolved(shape, buckets)
    start_us, end_us = micros_of(start), micros_of(end)
    if ids is None or start_us >= end_us:
        return None
    work = functools.partial(
        _worked_out, shape, ids, start_us, end_us, read=read, open_store=open_store,
        cache=cache, name=name,
    )  # fmt: skip
    if _missing(shape, ids, start_us, end_us, cache) > _SYNC_MISSING:
        # A cold period: one engine run answers it (as fast as the engine alone), and its
        # pieces are worked out off the request, for the next ask.
        cache.fill(lambda generation: work(gen=generation))
        return None
    bounds, pieces = work()
    key = ("answer", shape, ids, tuple(bounds))
    kept = cache.get(key)
    if kept is not None and all(a is b for a, b in zip(kept.value[0], pieces, strict=True)):
        answer: orjson.Fragment = kept.value[1]
        return answer
    data = orjson.dumps(combine(pieces, shape=shape), default=json_default)
    answer = orjson.Fragment(data)
    cache.put(key, _Kept(ids, end_us, (pieces, answer), len(data)))
    return answer
