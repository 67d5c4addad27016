"""ActivityWatch's event arithmetic, streamed: flooding, clipping, and one host's
timeline cut into pieces of one state (pure, no I/O).

Exactly what aw-webui shows (aw-client's `canonicalEvents`, run by aw-core 0.5.18):
each bucket is flooded (`flood`: a gap of up to 5 s between differing events split at
its midpoint, equal-data neighbours merged, a later overlapping event taking
precedence), and a window event counts as active where a not-afk event or an audible
tab of the focused browser covers it. `host_pieces` cuts each window event where that,
or the focused browser tab, changes, so the records it yields sum to the same seconds
per app. Times are integer microseconds since the epoch, so every sum is exact.

    windows = flood(window_events)
    for piece in host_pieces(windows, not_afk=active_spans(flood(afk_events)), web=[...]):
        ...
"""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import orjson

PULSETIME_US = 5_000_000  # ActivityWatch's flood: gaps up to 5 s are filled
_TRIM_US = 100_000  # overlaps shorter than 0.1 s are flooded as gaps are


@dataclass(slots=True)
class Event:
    """One ActivityWatch event: its start and duration (µs) and its data object as
    canonical JSON (sorted keys, no spaces: equal text is ActivityWatch's equal data)."""

    start: int
    duration: int
    data: str

    @property
    def end(self) -> int:
        return self.start + self.duration


def half(gap: int) -> int:
    """`gap / 2` as aw-core's `timedelta` division rounds it: to the nearest microsecond,
    a half to the even one."""
    quotient, odd = divmod(gap, 2)
    return quotient + (odd & quotient)


def to_ms(moment: int) -> int:
    """A start as aw-core's `Event` keeps it: cut down to the millisecond (each time a
    start is set; a duration keeps its microseconds)."""
    return moment - moment % 1_000


def flood(events: Iterable[Event], *, pulsetime: int = PULSETIME_US) -> Iterator[Event]:
    """aw-core 0.5.18's `flood`, streamed, over events sorted by (start, duration) (ties
    in the order the server lists them): neighbour by neighbour, a gap of at most
    `pulsetime` (or an overlap under 0.1 s) between equal data goes to the longer one
    and the two merge, between differing data each extends to the gap's midpoint, and
    overlapping equal data merges; then `_Normal` makes the stream non-overlapping, a
    later event taking precedence. Each start it sets is cut to the millisecond as
    aw-core's `Event` cuts it (what aw-server stores already is). The events are
    changed in place (a spill's, made for this one pass)."""
    normal = _Normal()
    held: Event | None = None
    for e2 in events:
        e1, held, held_start = held, e2, e2.start
        if e1 is None:
            continue
        gap = e2.start - e1.end
        if gap < 0 and e1.data == e2.data:
            start, end = min(e1.start, e2.start), max(e1.end, e2.end)
            e1.start, e1.duration = to_ms(start), end - start
            e2.start, e2.duration = to_ms(end), 0
        elif -_TRIM_US < gap <= pulsetime and gap != 0:
            e2_end = e2.end
            if e1.data == e2.data:
                if e1.duration >= e2.duration:
                    e1.duration = e2_end - e1.start
                    e2.start, e2.duration = to_ms(e2_end), 0
                else:
                    e2.start = to_ms(e1.start)
                    e2.duration = e2_end - e2.start
                    e1.duration = 0
            else:
                midpoint = e1.end + half(gap)
                e1.duration = midpoint - e1.start
                e2.start, e2.duration = to_ms(midpoint), e2_end - midpoint
        # e1 is final now. No later event will start before this bound (the next one's
        # start or its start as read, whichever is earlier: it may yet merge back).
        yield from normal.add(e1, bound=to_ms(min(e2.start, held_start)))
    if held is not None:
        yield from normal.add(held, bound=None)


class _Normal:
    """aw-core's final pass of `flood`, streamed: events in flooding's order, each
    cutting short the ones before it that it overlaps (dropping those left with no
    time), or merging into the last when its data is equal. An event is let go once
    no later one can reach it: it ends by the bound, or the event after it starts
    before the bound (and so can no longer be dropped)."""

    def __init__(self) -> None:
        self._held: deque[Event] = deque()

    def add(self, event: Event, *, bound: int | None) -> Iterator[Event]:
        held = self._held
        if event.duration > 0:
            while held and held[-1].end > event.start:
                previous = held[-1]
                if previous.data == event.data:
                    previous.duration = max(previous.end, event.end) - previous.start
                    break
                previous.duration = event.start - previous.start
                if previous.duration <= 0:
                    held.pop()
                    continue
                held.append(event)
                break
            else:
                held.append(event)
        while held and (
            bound is None or held[0].end <= bound or (len(held) > 1 and held[1].start < bound)
        ):
            yield held.popleft()


def clip(events: Iterable[Event]) -> Iterator[Event]:
    """End each event at the next one's start: the flooded events of several buckets of
    one kind (two window watchers on one host), merged by start, never count twice.
    Changes the events in place, as `flood` does."""
    held: Event | None = None
    for event in events:
        if held is not None:
            end = min(held.end, max(event.start, held.start))
            if end > held.start:
                held.duration = end - held.start
                yield held
        held = event
    if held is not None:
        yield held


@dataclass(frozen=True, slots=True)
class Span:
    start: int
    end: int
    data: str = ""


NOT_AFK = '"status":"not-afk"'
AUDIBLE = '"audible":true'
INCOGNITO = '"incognito":true'


def active_spans(afk_events: Iterable[Event]) -> Iterator[Span]:
    """The not-afk periods of an afk bucket (already flooded), merged where they touch."""
    held: Span | None = None
    for event in afk_events:
        if NOT_AFK not in event.data:
            continue
        if held is not None and event.start <= held.end:
            held = Span(held.start, max(held.end, event.end))
            continue
        if held is not None:
            yield held
        held = Span(event.start, event.end)
    if held is not None:
        yield held


class Cursor:
    """Spans sorted by start, read forward by a window that only moves forward: holds
    just the spans that may still overlap it."""

    def __init__(self, spans: Iterable[Span]) -> None:
        self._spans = iter(spans)
        self._next = next(self._spans, None)
        self._held: list[Span] = []

    def overlapping(self, start: int, end: int) -> list[Span]:
        """The spans overlapping [start, end) (the list is not to be changed)."""
        following = self._next
        if len(self._held) == 1 and (following is None or following.start >= end):
            only = self._held[0]  # most windows: inside the one not-afk span held
            if only.end > start:
                return self._held if only.start < end else []
        held = [s for s in self._held if s.end > start]
        while following is not None and following.start < end:
            if following.end > start:
                held.append(following)
            following = next(self._spans, None)
        self._next, self._held = following, held
        return [s for s in held if s.start < end]


@dataclass(slots=True)
class WebStream:
    """One browser's tab events (flooded), which windows are that browser (their tab
    is shown), and for which of them an audible tab counts as active time (aw-webui's
    own pairing of browser buckets and window apps, `counts_audible`)."""

    spans: Cursor
    is_this_browser: Callable[[str], bool]  # from the window's app
    counts_audible: Callable[[str], bool] = lambda _app: False


@dataclass(slots=True)
class Piece:
    """A stretch of one window event in one state: active or away, and the browser tab
    shown (when the window is a browser whose tab events cover it)."""

    start: int
    end: int
    window: str  # the window event's data (JSON)
    active: bool
    tab: str | None  # the tab event's data (JSON)
    private: bool = False  # the window showed an incognito tab at some point


def host_pieces(
    windows: Iterable[Event],
    *,
    not_afk: Iterable[Span] | None,
    web: Sequence[WebStream] = (),
    audible_is_active: bool = True,
    private_windows: set[str] | None = None,
) -> Iterator[Piece]:
    """One host's window events (flooded, clipped) cut where activity or the focused tab
    changes. With no afk bucket (a phone) every window is active. As in ActivityWatch's
    UI, a focused browser tab playing sound counts as active (`audible_is_active`).

    Privacy is decided per window event, not per piece: a window that shows an incognito
    tab is private in every piece (the seconds flooded before the tab's first event
    included), and so is one that shows no tab at all but starts or ends within
    `pulsetime` of an incognito one, and any later event of the same window data (its
    title names the private page). `private_windows` carries the private window data
    across calls (the live door's passes each read only recent events); it grows here."""
    afk = Cursor(not_afk) if not_afk is not None else None
    if private_windows is None:
        private_windows = set()
    for window in windows:
        start, end, data = window.start, window.end, window.data
        active = afk.overlapping(start, end) if afk is not None else [Span(start, end)]
        tabs: list[Span] = []
        loud: list[Span] = []  # audible tabs that make the window active
        private = data in private_windows
        if web:
            app = window_app(data)
            near: list[Span] = []
            for stream in web:
                if stream.is_this_browser(app):
                    found = stream.spans.overlapping(start - PULSETIME_US, end + PULSETIME_US)
                    near += found
                    if audible_is_active and stream.counts_audible(app):
                        loud += [s for s in found if AUDIBLE in s.data]
            tabs = [s for s in near if s.end > start and s.start < end]
            private = private or any(INCOGNITO in s.data for s in (tabs or near))
        if private:
            private_windows.add(data)
        if not tabs and len(active) == 1 and active[0].start <= start and active[0].end >= end:
            yield Piece(start, end, data, True, None, private)  # most: active throughout
            continue
        cuts = {start, end}
        for span in (*active, *tabs):
            cuts.update(t for t in (span.start, span.end) if start < t < end)
        held: Piece | None = None
        for t0, t1 in pairwise(sorted(cuts)):
            tab = _covering(tabs, t0)
            is_active = _covering(active, t0) is not None or _covering(loud, t0) is not None
            tab_data = tab.data if tab is not None else None
            if held is not None and held.active == is_active and held.tab == tab_data:
                held.end = t1
                continue
            if held is not None:
                yield held
            held = Piece(t0, t1, data, is_active, tab_data, private)
        if held is not None:
            yield held


@functools.lru_cache(maxsize=4_096)
def event_data(data: str) -> dict[str, Any]:
    """An event's data decoded (titles and tabs repeat event after event: decoded once)."""
    decoded: dict[str, Any] = orjson.loads(data)
    return decoded


def window_app(data: str) -> str:
    return str(event_data(data).get("app", ""))


def _covering(spans: list[Span], t: int) -> Span | None:
    """The span covering t that started last (tabs of two windows of one browser
    may overlap: the newer one is the one in front)."""
    found: Span | None = None
    for span in spans:
        if span.start <= t < span.end and (found is None or span.start >= found.start):
            found = span
    return found


# -- the same arithmetic over tuples ------------------------------------------------------------
# What an import runs: the functions above, over plain tuples held in local variables
# (no object per event, no property per read), one pass per bucket. A stretch is
# (start, end, data). `tests/unit/test_import_fast_paths.py` holds each equal to its
# counterpart above.

Stretch = tuple[int, int, str]
PieceRow = tuple[int, int, str, bool, str | None, bool]  # start, end, window, active, tab, private


def flood_rows(
    rows: Iterable[tuple[int, int, int, str]], *, pulsetime: int = PULSETIME_US
) -> Iterator[Stretch]:
    """`flood` over a spill's rows (start, duration, order added, data), as stretches."""
    it = iter(rows)
    first = next(it, None)
    if first is None:
        return
    s1, d1, _, x1 = first
    held: deque[list[Any]] = deque()  # `_Normal`'s: [start, end, data]
    append, pop, popleft = held.append, held.pop, held.popleft

    def settle(s1: int, e1_end: int, x1: str) -> None:
        """Hold [s1, e1_end) of x1: a later event takes precedence over the held ones it
        overlaps (cut short, or dropped when it covers them), equal data merges."""
        while held:
            last = held[-1]
            if last[1] <= s1:
                break
            if last[2] == x1:
                if e1_end > last[1]:
                    last[1] = e1_end
                return
            last[1] = s1
            if s1 <= last[0]:
                pop()
                continue
            break
        append([s1, e1_end, x1])

    for s2, d2, _, x2 in it:
        o2 = s2
        gap = s2 - s1 - d1
        if gap < 0 and x1 == x2:
            end = max(s1 + d1, s2 + d2)
            start = min(s1, s2)
            s1, d1 = start - start % 1_000, end - start  # `to_ms`, inline
            s2, d2 = end - end % 1_000, 0
        elif -_TRIM_US < gap <= pulsetime and gap != 0:
            e2_end = s2 + d2
            if x1 == x2:
                if d1 >= d2:
                    d1 = e2_end - s1
                    s2, d2 = e2_end - e2_end % 1_000, 0
                else:
                    s2 = s1 - s1 % 1_000
                    d2 = e2_end - s2
                    d1 = 0
            else:
                quotient, odd = divmod(gap, 2)
                midpoint = s1 + d1 + quotient + (odd & quotient)  # `half`
                d1 = midpoint - s1
                s2, d2 = midpoint - midpoint % 1_000, e2_end - midpoint
        if d1 > 0:
            settle(s1, s1 + d1, x1)
        bound = s2 if s2 < o2 else o2
        bound -= bound % 1_000
        while held and (held[0][1] <= bound or (len(held) > 1 and held[1][0] < bound)):
            first_held = popleft()
            yield first_held[0], first_held[1], first_held[2]
        s1, d1, x1 = s2, d2, x2
    if d1 > 0:
        settle(s1, s1 + d1, x1)
    for start, end, data in held:
        yield start, end, data


def clip_stretches(stretches: Iterable[Stretch]) -> Iterator[Stretch]:
    """`clip` over stretches."""
    it = iter(stretches)
    first = next(it, None)
    if first is None:
        return
    hs, he, hx = first
    for s, e, x in it:
        end = min(he, max(s, hs))
        if end > hs:
            yield hs, end, hx
        hs, he, hx = s, e, x
    yield hs, he, hx


def active_stretches(afk: Iterable[Stretch]) -> Iterator[Stretch]:
    """`active_spans` over (flooded) stretches; the stretches it yields carry no data."""
    held = False
    hs = he = 0
    for s, e, x in afk:
        if NOT_AFK not in x:
            continue
        if held and s <= he:
            he = max(he, e)
            continue
        if held:
            yield hs, he, ""
        hs, he, held = s, e, True
    if held:
        yield hs, he, ""


class StretchCursor:
    """`Cursor` over stretches."""

    def __init__(self, stretches: Iterable[Stretch]) -> None:
        self._stretches = iter(stretches)
        self._next = next(self._stretches, None)
        self._held: list[Stretch] = []

    def overlapping(self, start: int, end: int) -> list[Stretch]:
        """The stretches overlapping [start, end) (the list is not to be changed)."""
        following = self._next
        held = self._held
        if len(held) == 1 and (following is None or following[0] >= end):
            only = held[0]
            if only[1] > start:
                return held if only[0] < end else []
        held = [s for s in held if s[1] > start]
        while following is not None and following[0] < end:
            if following[1] > start:
                held.append(following)
            following = next(self._stretches, None)
        self._next, self._held = following, held
        return [s for s in held if s[0] < end]


@dataclass(slots=True)
class WebStretches:
    """`WebStream` over stretches."""

    spans: StretchCursor
    is_this_browser: Callable[[str], bool]
    counts_audible: Callable[[str], bool] = lambda _app: False


_BROWSERS_SEEN_MAX = 16_384


def piece_rows(
    windows: Iterable[Stretch],
    *,
    not_afk: Iterable[Stretch] | None,
    web: Sequence[WebStretches] = (),
    audible_is_active: bool = True,
    private_windows: set[str] | None = None,
) -> Iterator[PieceRow]:
    """`host_pieces` over stretches, each piece as (start, end, window, active, tab,
    private)."""
    afk = StretchCursor(not_afk) if not_afk is not None else None
    if private_windows is None:
        private_windows = set()
    # Per window data, the tab cursors of the browsers it is (none for most windows),
    # each with whether its audible tabs make the window active.
    browsers: dict[str, list[tuple[StretchCursor, bool]]] = {}
    for start, end, data in windows:
        active = afk.overlapping(start, end) if afk is not None else [(start, end, "")]
        tabs: list[Stretch] = []
        loud: list[Stretch] = []
        private = data in private_windows
        if web:
            cursors = browsers.get(data)
            if cursors is None:
                if len(browsers) >= _BROWSERS_SEEN_MAX:
                    browsers.clear()
                app = window_app(data)
                cursors = browsers[data] = [
                    (s.spans, audible_is_active and s.counts_audible(app))
                    for s in web
                    if s.is_this_browser(app)
                ]
            if cursors:
                near: list[Stretch] = []
                for cursor, counts in cursors:
                    found = cursor.overlapping(start - PULSETIME_US, end + PULSETIME_US)
                    near += found
                    if counts:
                        loud += [s for s in found if AUDIBLE in s[2]]
                tabs = [s for s in near if s[1] > start and s[0] < end]
                private = private or any(INCOGNITO in s[2] for s in (tabs or near))
        if private:
            private_windows.add(data)
        if not tabs and len(active) == 1 and active[0][0] <= start and active[0][1] >= end:
            yield start, end, data, True, None, private  # most: active throughout
            continue
        cuts = {start, end}
        for first, last, _ in (*active, *tabs):
            if start < first < end:
                cuts.add(first)
            if start < last < end:
                cuts.add(last)
        held: list[Any] | None = None  # [start, end, active, tab]
        for t0, t1 in pairwise(sorted(cuts)):
            tab = _covering_stretch(tabs, t0)
            is_active = (
                _covering_stretch(active, t0) is not None or _covering_stretch(loud, t0) is not None
            )
            tab_data = tab[2] if tab is not None else None
            if held is not None and held[2] == is_active and held[3] == tab_data:
                held[1] = t1
                continue
            if held is not None:
                yield held[0], held[1], data, held[2], held[3], private
            held = [t0, t1, is_active, tab_data]
        if held is not None:
            yield held[0], held[1], data, held[2], held[3], private


def _covering_stretch(stretches: list[Stretch], t: int) -> Stretch | None:
    found: Stretch | None = None
    for s in stretches:
        if s[0] <= t < s[1] and (found is None or s[0] >= found[0]):
            found = s
    return found
