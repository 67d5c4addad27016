"""The canonical query's kept pieces (app/awdoor/daycache.py): where a period may be cut,
and what a write or an edit drops."""

from __future__ import annotations

from datetime import datetime

import orjson
import pytest

from app.awdoor import daycache
from app.awdoor.daycache import DayCache, _Kept, find_cut
from app.awdoor.events import moment_of
from app.store.awdoor import AwEventRow

S = 1_000_000  # µs
DAY = 86_400 * S
LO = 100 * DAY  # a UTC midnight


def _reader(buckets: dict[str, list[tuple[int, int]]]) -> daycache.EventReader:
    def read(
        bucket_id: str, start: datetime | None, end: datetime | None, lim: int | None
    ) -> list[AwEventRow]:
        assert start is not None and end is not None
        return [
            AwEventRow.model_construct(
                event_id=n, ts=moment_of(a), duration_us=d, data=orjson.dumps({}).decode()
            )
            for n, (a, d) in enumerate(buckets[bucket_id])
            if moment_of(a + d) >= start and moment_of(a) <= end
        ]

    return read


def _cut(buckets: dict[str, list[tuple[int, int]]]) -> int | None:
    return find_cut(read=_reader(buckets), bucket_ids=list(buckets), lo_us=LO, hi_us=LO + DAY)


def test_midnight_itself_when_nothing_is_near_it() -> None:
    assert _cut({"w": [(LO - 3600 * S, 60 * S), (LO + 3600 * S, 60 * S)]}) == LO


def test_not_across_an_event_nor_within_floods_reach_of_one() -> None:
    night = (LO - 3600 * S, 9 * 3600 * S)  # afk until 08:00
    morning = LO + 8 * 3600 * S
    # The next window event 3 s after the last one ends: flood joins them, no cut there.
    window = [(morning + 3 * S, 60 * S), (morning + 66 * S, 60 * S)]
    afk = [night, (morning, 3600 * S)]  # afk, then not-afk from 08:00, joined exactly
    assert _cut({"afk": afk, "w": window}) == morning
    # Flood's reach: 08:00 is 3 s from a window event ending before it; the first
    # moment after it clear of every bucket is the end of the not-afk hour.
    late = [(morning - 63 * S, 60 * S), *window]
    assert _cut({"afk": afk, "w": late}) == morning + 3600 * S


def test_none_when_a_bucket_never_quiets() -> None:
    assert _cut({"afk": [(LO - S, DAY + 2 * S)]}) is None


def test_not_within_a_millisecond_of_another_event() -> None:
    morning = LO + 8 * 3600 * S
    afk = [(LO - 3600 * S, 9 * 3600 * S), (morning, 3600 * S)]
    window = [(morning + 500, 60 * S)]  # half a millisecond after the cut: read with it
    assert _cut({"afk": afk, "w": window}) != morning


def test_a_write_drops_what_ends_after_it_and_an_edit_drops_everything() -> None:
    cache = DayCache()
    cache.put(("a",), _Kept(("w",), LO, "before"))
    cache.put(("b",), _Kept(("w",), LO + DAY, "after"))
    cache.put(("c",), _Kept(("x",), LO + DAY, "other bucket"))
    cache.sync(edits=None, written={"w": LO + 3600 * S})
    assert set(cache.kept()) == {("a",), ("c",)}
    cache.sync(edits=1, written={})
    assert cache.kept() == {}


def test_the_oldest_go_first_past_the_byte_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(daycache, "_BYTES", 100)
    cache = DayCache()
    for n in range(4):
        cache.put((n,), _Kept(("w",), LO, n, 40))
    assert set(cache.kept()) == {(2,), (3,)}


def test_a_fill_that_a_write_overtakes_keeps_nothing() -> None:
    """Pieces worked out from what was read before a write are not kept after it."""
    cache = DayCache()
    cache.sync(edits=None, written={})
    started: list[int] = []
    assert cache.fill(started.append)
    assert not cache.fill(started.append)  # one at a time
    assert started == []  # not before the request's answer
    cache.start()
    cache.settle()
    (generation,) = started
    cache.sync(edits=None, written={"w": 1})  # a write, seen by a query meanwhile
    cache.put(("piece", 1), _Kept(("w",), 0, "stale"), generation=generation)
    assert cache.kept() == {}
    cache.put(("piece", 1), _Kept(("w",), 0, "fresh"))
    assert cache.kept() == {("piece", 1): "fresh"}
