"""Episode boundaries: a pure function over one device's records, no I/O.

    result = segment_records(records, params=SegmentParams(), now=time.time())
    result.closed      # segments a boundary has closed: they become episodes
    result.open_from   # index of the first record still in the open tail (or None)

Rules (docs/architecture.md, "Write time"), evaluated record by record in time order:

1. **Idle gap** — more than `idle_gap_s` between one record's end and the next
   record's start closes the segment. Shorter gaps are tolerated (flood fill).
2. **Logical day** — a new logical day closes the segment, so that every
   episode belongs to one day and day sums equal record sums.
3. **Cap** — a record that would end more than `max_episode_s` after the
   segment's start closes it (a single record longer than the cap stays whole).
4. **Idle runs** — idle/locked records lasting `idle_min_s` or more together
   form a `system` episode of their own; shorter idle blips stay inside.
5. **Switch with debounce** — a record of another category than the segment's
   (its confidence-weighted majority) closes the segment only if the stream does
   not come back to that category within the debounce window (time spent in
   the other category, gaps not counted). Entertainment
   inside work or study gets the longer `interruption_max_s` window and, when it
   comes back in time, is kept as an *interruption*. A segment younger than the
   debounce window is never closed by a switch (a 2 s alt-tab splits nothing).
   The cluster key (normalised app, or the canonical domain for browsers) is what
   counts as a switch inside an episode.
6. **Embedding drift** (off by default) — cosine distance between consecutive
   embeddings above mean + γ·std of the recent window closes the segment
   (EM-LLM's surprise boundary).

A switch whose window reaches past the data stays undecided: the segment stays
open until more records arrive or `now` passes the window.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from app.store.episodes import SegmentInput

IDLE = "idle"
FOCUS_CATEGORIES = frozenset({"work", "study"})


@dataclass(frozen=True, slots=True)
class SegmentParams:
    idle_gap_s: float = 300
    max_episode_s: float = 3_600
    switch_debounce_s: float = 120
    interruption_max_s: float = 300
    idle_min_s: float = 120
    drift_enabled: bool = False
    drift_gamma: float = 2.0
    drift_window: int = 20


@dataclass(slots=True)
class Segment:
    """A run of consecutive records; `interruptions` index into `members`."""

    members: list[SegmentInput]
    kind: str  # "active" or "idle"
    category: str  # confidence-weighted majority of the active members (not interruptions)
    boundary: str = ""  # what closed it: idle_gap, day, cap, idle, switch, drift, end
    interruptions: list[tuple[int, int]] = field(default_factory=list)  # [start, stop)

    @property
    def ts_start(self) -> float:
        return self.members[0].ts

    @property
    def ts_end(self) -> float:
        return max(m.end for m in self.members)


@dataclass(slots=True)
class SegmentResult:
    closed: list[Segment]
    open_from: int | None  # first record of the open tail, None when everything closed


def cluster_key(record: SegmentInput) -> str:
    """The canonical app (normalised at ingest), or the canonical domain for a browser page."""
    if record.domain:
        return record.domain
    return record.app.strip().lower() or "(unknown)"


def _cosine_distance(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return 1.0 if na == 0 or nb == 0 else 1.0 - dot / (na * nb)


class _Segmenter:
    def __init__(self, records: Sequence[SegmentInput], params: SegmentParams, horizon: float):
        self.r = records
        self.p = params
        self.horizon = horizon  # data is complete up to here
        self.n = len(records)
        # Each field read once into a column: the loops below read them many times, and a
        # list item is cheaper to read than a row's attribute.
        self.ts = [r.ts for r in records]
        self.dur = [r.duration for r in records]
        self.end = [t + d for t, d in zip(self.ts, self.dur, strict=True)]  # SegmentInput.end
        self.day = [r.day for r in records]
        self.cat = [r.category for r in records]
        self.idle = [r.is_idle for r in records]
        self.conf = [r.confidence for r in records]

    def _breaks_between(self, a: int, b: int) -> bool:
        """True when records a and b (b = a + 1) cannot share a segment at all."""
        return self.ts[b] - self.end[a] > self.p.idle_gap_s or self.day[b] != self.day[a]

    def idle_run(self, i: int) -> tuple[int, float]:
        """End (exclusive) and length of the run of idle records starting at i (capped)."""
        j = i
        while (
            j + 1 < self.n
            and self.idle[j + 1]
            and not self._breaks_between(j, j + 1)
            and self.end[j + 1] - self.ts[i] <= self.p.max_episode_s
        ):
            j += 1
        return j + 1, self.end[j] - self.ts[i]

    def comes_back(self, i: int, category: str, window: float) -> int | None:
        """Index of the first record from i back in `category` after less than `window`
        seconds spent elsewhere; -1 when the stream does not come back; None when the
        data ends first and more may still arrive."""
        spent = 0.0
        for k in range(i, self.n):
            if k > i and self._breaks_between(k - 1, k):
                return -1
            if self.cat[k] == category and not self.idle[k]:
                return k
            spent += self.dur[k]
            if spent >= window:
                return -1
        # A record arriving after the idle gap could not come back into this segment.
        return -1 if self.horizon >= self.end[self.n - 1] + self.p.idle_gap_s else None

    def drift(self, members: list[SegmentInput], rec: SegmentInput) -> bool:
        if not self.p.drift_enabled or rec.embedding is None:
            return False
        window = [m.embedding for m in members[-self.p.drift_window :] if m.embedding is not None]
        if len(window) < 3:
            return False
        distances = [_cosine_distance(a, b) for a, b in itertools.pairwise(window)]
        mean = sum(distances) / len(distances)
        std = math.sqrt(sum((d - mean) ** 2 for d in distances) / len(distances))
        surprise = _cosine_distance(window[-1], rec.embedding)
        return surprise > mean + self.p.drift_gamma * std

    def run(self) -> SegmentResult:
        closed: list[Segment] = []
        i = 0
        while i < self.n:
            segment, nxt, decided = self.one(i)
            if not decided:
                return SegmentResult(closed, i)
            if nxt >= self.n:
                # The last segment closes once nothing more can join it.
                if self.horizon >= segment.ts_end + self.p.idle_gap_s:
                    segment.boundary = segment.boundary or "end"
                    closed.append(segment)
                    return SegmentResult(closed, None)
                return SegmentResult(closed, i)
            closed.append(segment)
            i = nxt
        return SegmentResult(closed, None)

    def one(self, i: int) -> tuple[Segment, int, bool]:
        """The segment starting at i, the index after it, and whether its end is decided."""
        p, r = self.p, self.r
        ts, end, day, cat, idle = self.ts, self.end, self.day, self.cat, self.idle
        if idle[i]:
            stop, length = self.idle_run(i)
            ended = stop >= self.n and self.horizon >= end[stop - 1] + p.idle_gap_s
            if length >= p.idle_min_s or ended:
                segment = Segment(list(r[i:stop]), IDLE, "system", "idle" if stop < self.n else "")
                return segment, stop, True
        seg = _Growing(self, i)
        absorb_until = -1
        k = i + 1
        while k < self.n:
            if ts[k] - end[k - 1] > p.idle_gap_s:
                return seg.done("idle_gap"), k, True
            if day[k] != seg.day:
                return seg.done("day"), k, True
            if end[k] - seg.start > p.max_episode_s:
                return seg.done("cap"), k, True
            if k >= absorb_until:
                if idle[k]:
                    stop, length = self.idle_run(k)
                    if length >= p.idle_min_s:
                        return seg.done("idle"), k, True
                    if stop >= self.n and self.horizon < end[stop - 1] + p.idle_gap_s:
                        return seg.done(""), k, False  # the idle run may still grow
                    absorb_until = stop
                else:
                    home = seg.category()
                    if cat[k] != home and seg.age >= p.switch_debounce_s:
                        fun = cat[k] == "entertainment" and home in FOCUS_CATEGORIES
                        window = p.interruption_max_s if fun else p.switch_debounce_s
                        back = self.comes_back(k, home, window)
                        if back is None:
                            return seg.done(""), k, False
                        if back < 0:
                            return seg.done("switch"), k, True
                        absorb_until = back
                        if fun:
                            seg.interrupt_until = back
                    elif self.drift(seg.members, r[k]):
                        return seg.done("drift"), k, True
            seg.add(k, interruption=k < seg.interrupt_until)
            k += 1
        return seg.done(""), k, True


class _Growing:
    """A segment being built, with running totals so each record costs O(1)."""

    def __init__(self, of: _Segmenter, first: int) -> None:
        self.of = of  # the records, and their columns
        self.members: list[SegmentInput] = []
        self.start = of.ts[first]
        self.day = of.day[first]
        self.age = 0.0  # active seconds so far
        self.weights: dict[str, float] = {}
        self.first_seen: dict[str, int] = {}
        self.best: str | None = None  # the majority so far (see `category`)
        self.interruptions: list[tuple[int, int]] = []
        self.interrupt_until = -1  # record index (in the input) where the current one ends
        self.add(first, interruption=False)

    def add(self, k: int, *, interruption: bool) -> None:
        """Add record k (an index into the input)."""
        of = self.of
        index = len(self.members)
        self.members.append(of.r[k])
        if of.idle[k]:
            return
        self.age += of.dur[k]
        if interruption:
            if self.interruptions and self.interruptions[-1][1] == index:
                self.interruptions[-1] = (self.interruptions[-1][0], index + 1)
            else:
                self.interruptions.append((index, index + 1))
            return
        category = of.cat[k]
        added = max(of.dur[k], 1e-9) * of.conf[k]
        weights, first_seen = self.weights, self.first_seen
        weights[category] = weights.get(category, 0.0) + added
        first_seen.setdefault(category, index)
        # The majority, kept as weights grow (it is asked for at every record): only the
        # category that grew can overtake it. A weight that shrank (a negative
        # confidence) is the one case that needs a full look.
        best = self.best
        if best is None or (category == best and added < 0):
            self.best = self._majority()
        elif category != best and (weights[category], -first_seen[category]) > (
            weights[best],
            -first_seen[best],
        ):
            self.best = category

    def _majority(self) -> str:
        return max(self.weights, key=lambda c: (self.weights[c], -self.first_seen[c]))

    def category(self) -> str:
        """Confidence-weighted majority by duration; ties go to the category seen first."""
        return "system" if self.best is None else self.best

    def done(self, boundary: str) -> Segment:
        return Segment(self.members, "active", self.category(), boundary, self.interruptions)


def segment_records(
    records: Sequence[SegmentInput], *, params: SegmentParams, now: float
) -> SegmentResult:
    """Split one device's records (time order) into closed segments and an open tail.

    `now` is the horizon up to which the data is complete: a segment whose last
    record ended more than `idle_gap_s` before it is closed even with no record
    after it.
    """
    if any(b.ts < a.ts for a, b in itertools.pairwise(records)):
        raise ValueError("records must be in time order")
    return _Segmenter(records, params, now).run()
