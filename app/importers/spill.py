"""Events set aside on disk while an export is read, then read back per bucket in
time order: a host's window, afk and tab events sit far apart in an export (and a
server lists them newest first), so they are sorted in runs written to a temporary
file, never held in memory whole.

    with EventSpill() as spill:
        spill.add(bucket=0, start=..., duration=..., data={...})
        for event in spill.events(bucket=0): ...

Each run (up to `run` events of one bucket) is sorted and written in marshal blocks;
reading a bucket back chains its runs when they follow one another in time (an
export lists events newest first, so they do) and merges them otherwise.
"""

from __future__ import annotations

import heapq
import json
import marshal
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson

from app.importers.timeline import Event

_RUN = 50_000  # events sorted in memory at a time (~12 MB)
_BLOCK = 4_096  # events read back at a time, per run being merged
_json_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode

Pending = tuple[int, int, int, str]  # start, duration, order added, data


def canonical(data: dict[str, Any]) -> str:
    """An event's data as canonical JSON (sorted keys, no spaces): equal data, equal text."""
    try:
        return orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONEncodeError:  # what orjson refuses (a lone surrogate, a huge integer)
        return _json_dumps(data)


@dataclass(frozen=True, slots=True)
class _Run:
    first: tuple[int, int, int]  # (start, duration, order added) of its first and last event
    last: tuple[int, int, int]
    blocks: list[tuple[int, int]]  # (offset, length) in the file


class EventSpill:
    def __init__(self, directory: Path | None = None, *, run: int = _RUN) -> None:
        # Closed (and so deleted) by close(), when the import is done with it.
        self._file = tempfile.TemporaryFile(prefix="tt-import-", dir=directory)  # noqa: SIM115
        self._run = run
        self._pending: dict[int, list[Pending]] = {}
        self._runs: dict[int, list[_Run]] = {}
        self.count = 0

    def __enter__(self) -> EventSpill:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._file.close()

    def add(self, *, bucket: int, start: int, duration: int, data: dict[str, Any]) -> None:
        pending = self._pending.setdefault(bucket, [])
        pending.append((start, duration, self.count, canonical(data)))
        self.count += 1
        if len(pending) >= self._run:
            self._write_run(bucket)

    def add_rows(self, *, bucket: int, rows: list[tuple[int, int, str]]) -> None:
        """Events as (start, duration, canonical data): `add` for each, in order."""
        pending = self._pending.setdefault(bucket, [])
        count = self.count
        for start, duration, data in rows:
            pending.append((start, duration, count, data))
            count += 1
            if len(pending) >= self._run:
                self.count = count
                self._write_run(bucket)
                pending = self._pending.setdefault(bucket, [])
        self.count = count

    def _write_run(self, bucket: int) -> None:
        pending = self._pending.pop(bucket, None)
        if not pending:
            return
        # By (start, duration) as aw-core's flood sorts them, ties in the order added
        # (the server's own order): the three never tie.
        pending.sort()
        self._file.seek(0, 2)
        blocks = []
        for at in range(0, len(pending), _BLOCK):
            block = marshal.dumps(pending[at : at + _BLOCK])
            blocks.append((self._file.tell(), len(block)))
            self._file.write(block)
        run = _Run(first=pending[0][:3], last=pending[-1][:3], blocks=blocks)
        self._runs.setdefault(bucket, []).append(run)

    def _read(self, run: _Run) -> Iterator[Pending]:
        for offset, length in run.blocks:
            self._file.seek(offset)
            block: list[Pending] = marshal.loads(self._file.read(length))
            yield from block

    def rows(self, *, bucket: int) -> Iterator[Pending]:
        """The bucket's events by start time, then duration (ties in the order they were
        added), as (start, duration, order added, data) tuples."""
        self._write_run(bucket)
        runs = sorted(self._runs.get(bucket, []), key=lambda r: r.first)
        if all(a.last < b.first for a, b in pairwise(runs)):
            for run in runs:
                yield from self._read(run)
        else:
            yield from heapq.merge(*(self._read(run) for run in runs))

    def events(self, *, bucket: int) -> Iterator[Event]:
        """The bucket's events by start time, then duration (ties in the order added)."""
        for start, duration, _, data in self.rows(bucket=bucket):
            yield Event(start, duration, data)
