"""Events set aside on disk while an export is read, then read back per bucket in
time order: a host's window, afk and tab events sit far apart in an export (and a
server lists them newest first), so they are sorted in a temporary SQLite file,
never in memory.

    with EventSpill() as spill:
        spill.add(bucket=0, start=..., duration=..., data={...})
        for event in spill.events(bucket=0): ...
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import orjson

from app.importers.timeline import Event

_BATCH = 20_000
_json_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode


def canonical(data: dict[str, Any]) -> str:
    """An event's data as canonical JSON (sorted keys, no spaces): equal data, equal text."""
    try:
        return orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONEncodeError:  # what orjson refuses (a lone surrogate, a huge integer)
        return _json_dumps(data)


class EventSpill:
    def __init__(self, directory: Path | None = None) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="tt-import-", dir=directory)
        self._db = sqlite3.connect(Path(self._dir.name) / "events.db")
        self._db.executescript(
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = FILE;"
            "CREATE TABLE events (bucket INTEGER, start INTEGER, duration INTEGER, data TEXT);"
        )
        self._rows: list[tuple[int, int, int, str]] = []
        self._indexed = False
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
        self._db.close()
        self._dir.cleanup()

    def add(self, *, bucket: int, start: int, duration: int, data: dict[str, Any]) -> None:
        self._rows.append((bucket, start, duration, canonical(data)))
        self.count += 1
        if len(self._rows) >= _BATCH:
            self._flush()

    def _flush(self) -> None:
        self._db.executemany("INSERT INTO events VALUES (?, ?, ?, ?)", self._rows)
        self._rows.clear()

    def events(self, *, bucket: int) -> Iterator[Event]:
        """The bucket's events by start time (ties in the order they were added)."""
        if not self._indexed:
            self._flush()
            self._db.execute("CREATE INDEX events_order ON events (bucket, start)")
            self._indexed = True
        rows = self._db.execute(
            "SELECT start, duration, data FROM events WHERE bucket = ? ORDER BY start, rowid",
            (bucket,),
        )
        for start, duration, data in rows:
            yield Event(start, duration, data)
