"""The door's event model and heartbeat merge against aw-core's own (`aw_core.models.Event`,
`aw_transform.heartbeat_merge`): the same events, the same merges, over generated
heartbeat streams with equal and differing data, gaps inside and past the pulsetime,
late and out-of-order beats, fractional seconds."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from aw_core.models import Event
from aw_transform.heartbeats import heartbeat_merge as aw_merge

from app.awdoor.events import (
    AwEvent,
    heartbeat_merge,
    iso,
    micros_of,
    parse_event,
    pulsetime_us,
    seconds,
)

T0 = datetime(2005, 6, 7, 8, 9, 10, 123456, tzinfo=UTC)
NOW = datetime(2005, 6, 8, tzinfo=UTC)


def _beats(rng: random.Random, n: int) -> list[dict[str, object]]:
    at = 0.0
    out: list[dict[str, object]] = []
    for _ in range(n):
        at += rng.choice((0.0, 0.5, 1.0, 1.0, 1.9993, 2.0, 2.0004, 3.5, -0.7, 12.0))
        out.append(
            {
                "timestamp": (T0 + timedelta(seconds=at)).isoformat(),
                "duration": rng.choice((0, 0, 0.25, 1.0000004, 3)),
                "data": rng.choice(({"app": "Code"}, {"app": "Code"}, {"app": "微信", "n": 1})),
            }
        )
    return out


def _mine(beats: list[dict[str, object]], pulse: float) -> list[tuple[str, float, object]]:
    events: list[AwEvent] = []
    for beat in beats:
        event = parse_event(beat, now=NOW, need_timestamp=True)
        if not events or not heartbeat_merge(events[-1], event, pulsetime=pulsetime_us(pulse)):
            events.append(event)
    return [(iso(e.start), seconds(e.duration), e.data) for e in events]


def _theirs(beats: list[dict[str, object]], pulse: float) -> list[tuple[str, float, object]]:
    events: list[Event] = []
    for beat in beats:
        event = Event(**beat)
        merged = aw_merge(events[-1], event, pulse) if events else None
        if merged is None:
            events.append(event)
        else:
            events[-1] = merged
    return [(e.to_json_dict()["timestamp"], e.to_json_dict()["duration"], e.data) for e in events]


def test_heartbeat_streams_merge_as_aw_core_merges_them() -> None:
    rng = random.Random(26)
    for case in range(300):
        beats = _beats(rng, rng.randint(1, 40))
        pulse = rng.choice((1.0, 2.0, 2.5, 6.0, 61.0))
        assert _mine(beats, pulse) == _theirs(beats, pulse), case


def test_an_event_is_read_as_aw_core_reads_it() -> None:
    for body in (
        {"timestamp": "2005-06-07T08:09:10.123456+02:00", "duration": 1.5, "data": {"a": 1}},
        {"timestamp": "2005-06-07T08:09:10Z", "duration": 0.0000005},
        {"timestamp": "2005-06-07T08:09:10.999999", "data": None},
    ):
        theirs = Event(**body).to_json_dict()
        mine = parse_event(body, now=NOW).document()
        assert mine == {**theirs, "id": None}
    assert micros_of(T0) % 1_000 == 456  # the test's own clock keeps µs; events keep ms
