"""What the door has written that its conversion has not yet seen, kept in memory.

    marks = DirtyMarks()
    marks.add([("aw-watcher-window_laptop", start_us)], through=group_number)  # after a commit
    taken = marks.take()          # a conversion pass: every bucket's earliest start written
    marks.give_back(taken)        # the pass failed: the next one does it again

The door is the only writer of its buckets' events, so it can keep the marks itself
rather than in the database, where marking a bucket inside the heartbeat's commit
made that commit and the conversion's clearing of the marks wait on each other's row
locks. A crash loses these marks, not the work: each group commit stamps its events
with its number (increasing), `through` is the highest number committed and marked,
and the pass stores it once converted, so that the first pass after a start finds
every event written by a group numbered above it (`aw_changed_since`).

The canonical query's kept results (app/awdoor/canonical.py) read the same writes
through `take_written()`, a second, separate accumulation.

Shared by the door's event loop and the conversion's thread: every call holds a lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(slots=True)
class Taken:
    """The marks a pass took: bucket id → earliest start written (µs since the epoch),
    and the highest group number committed before them (0: none since the start)."""

    starts: dict[str, int] = field(default_factory=dict)
    through: int = 0


class DirtyMarks:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._starts: dict[str, int] = {}
        self._through = 0
        self._written: dict[str, int] = {}  # the same, for the canonical query's results

    def add(self, written: Iterable[tuple[str, int]], *, through: int) -> None:
        """Events written (bucket id, start in µs) by the group numbered `through`, once
        it has committed (never before: a pass that took the mark might read the
        database before the commit)."""
        with self._lock:
            starts, seen = self._starts, self._written
            for bucket_id, start in written:
                before = starts.get(bucket_id)
                if before is None or start < before:
                    starts[bucket_id] = start
                before = seen.get(bucket_id)
                if before is None or start < before:
                    seen[bucket_id] = start
            self._through = max(self._through, through)

    def take(self) -> Taken:
        with self._lock:
            taken = Taken(self._starts, self._through)
            self._starts = {}
        return taken

    def take_written(self) -> dict[str, int]:
        """Bucket id → earliest start written since the last call (µs since the epoch),
        for the canonical query's kept results; apart from `take`."""
        with self._lock:
            written, self._written = self._written, {}
        return written

    def give_back(self, taken: Taken) -> None:
        """A pass that failed: its marks are marks again."""
        self.add(taken.starts.items(), through=0)

    def __bool__(self) -> bool:
        with self._lock:
            return bool(self._starts)
