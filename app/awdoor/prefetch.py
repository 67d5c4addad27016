"""A bucket's events read once for a whole period, then handed out in slices.

    read = Prefetched(read, lo_us=…, hi_us=…)   # an EventReader, as the one it wraps
    rows = read(bucket_id, start, end, limit)    # from memory when [start, end] is inside

The canonical query's pieces (app/awdoor/daycache.py) are worked out a day at a time:
the search for each day's cut, then aw-core's engine over each piece, each reading its
buckets again. Over a month that is a few hundred small reads, and the first ask of a
period is slower than one engine run over it. Wrapped in this, the first read of a
bucket reads the whole period (plus the margins the cut search looks at) in one
statement, and every later read inside it is a slice of those rows, with what the
door's read gives: the events ending at or after `start` and starting at or before
`end`, newest first (then by id), at most `limit`. A read reaching outside the period
goes to the database as before.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from app.awdoor.events import micros_of, moment_of
from app.store.awdoor import AwEventRow

# The door's read, as app/awdoor/daycache.py names it (a bucket's events in a range).
_Reader = Callable[[str, datetime | None, datetime | None, int | None], list[AwEventRow]]


@dataclass(frozen=True, slots=True)
class _Rows:
    rows: list[AwEventRow]  # oldest first (ts, then id)
    starts: list[int]
    reach: list[int]  # the latest end among the rows up to each one


def _rows(newest_first: list[AwEventRow]) -> _Rows:
    rows = newest_first[::-1]
    starts = [micros_of(r.ts) for r in rows]
    ends = [s + r.duration_us for s, r in zip(starts, rows, strict=True)]
    return _Rows(rows=rows, starts=starts, reach=list(itertools.accumulate(ends, max)))


class Prefetched:
    """An event reader that reads each bucket once over [lo_us, hi_us]."""

    def __init__(self, read: _Reader, *, lo_us: int, hi_us: int) -> None:
        self._read = read
        self._lo, self._hi = lo_us, hi_us
        self._kept: dict[str, _Rows] = {}
        self.reads = 0  # statements sent to the database

    def __call__(
        self, bucket_id: str, start: datetime | None, end: datetime | None, lim: int | None
    ) -> list[AwEventRow]:
        if start is None or end is None or lim is not None:
            return self._direct(bucket_id, start, end, lim)
        start_us, end_us = micros_of(start), micros_of(end)
        if start_us < self._lo or end_us > self._hi:
            return self._direct(bucket_id, start, end, lim)
        kept = self._kept.get(bucket_id)
        if kept is None:
            rows = self._direct(bucket_id, moment_of(self._lo), moment_of(self._hi), None)
            kept = self._kept[bucket_id] = _rows(rows)
        upto = bisect.bisect_right(kept.starts, end_us)  # rows starting at or before end
        first = bisect.bisect_left(kept.reach, start_us, 0, upto)  # none before ends at start
        found = [
            row
            for row, s in zip(kept.rows[first:upto], kept.starts[first:upto], strict=True)
            if s + row.duration_us >= start_us
        ]
        found.reverse()
        return found

    def _direct(
        self, bucket_id: str, start: datetime | None, end: datetime | None, lim: int | None
    ) -> list[AwEventRow]:
        self.reads += 1
        return self._read(bucket_id, start, end, lim)
