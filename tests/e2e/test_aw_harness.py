"""The real aw-server harness (tests/aw_real.py) and the scripted day (tests/aw_day.py)
do what the tests comparing TimeTrace with ActivityWatch rely on."""

from __future__ import annotations

import json

from aw_client import ActivityWatchClient

from tests.aw_day import AFK_BUCKET, FIREFOX_BUCKET, WINDOW_BUCKET, scripted_day
from tests.aw_real import AwServer, canonical_app_seconds, export, send


def test_the_scripted_day_goes_through_aw_client_and_comes_back(
    aw_server: AwServer, aw_client: ActivityWatchClient
) -> None:
    day = scripted_day()
    assert send(aw_client, day.buckets, day.beats) == len(day.beats) > 300
    buckets = aw_client.get_buckets()
    assert {b.id for b in day.buckets} <= set(buckets)
    assert buckets[FIREFOX_BUCKET]["hostname"] == "unknown"
    assert buckets[WINDOW_BUCKET]["type"] == "currentwindow"
    # aw-server merged the beats it could (same data within the pulsetime): fewer events.
    stored = aw_client.get_events(WINDOW_BUCKET, limit=-1)
    beats = [b for b in day.beats if b.bucket == WINDOW_BUCKET]
    assert 0 < len(stored) < len(beats)
    titles = {e.data["title"] for e in stored}
    assert "Mozilla Firefox Private Browsing" in titles
    assert "微信" in titles
    exported = json.loads(export(aw_server))["buckets"]
    assert len(exported[AFK_BUCKET]["events"]) == aw_client.get_eventcount(AFK_BUCKET)


def test_the_canonical_query_counts_a_focused_audible_tab_while_away(
    aw_client: ActivityWatchClient,
) -> None:
    """The day ends with YouTube playing in a focused Firefox while the user is away
    (540 s past the last not-afk minute), then behind the editor (not counted): what
    aw-webui's `include_audible` adds is that time, for Firefox alone."""
    day = scripted_day(hours=0.5)
    send(aw_client, day.buckets, day.beats)

    def seconds(*, audible: bool) -> dict[str, float]:
        return canonical_app_seconds(
            aw_client,
            window=WINDOW_BUCKET,
            afk=AFK_BUCKET,
            browsers=day.browser_buckets,
            start=day.music,
            end=day.end,
            audible=audible,
        )

    seen, blind = seconds(audible=True), seconds(audible=False)
    assert seen == {"firefox.exe": 600.0}
    assert blind == {"firefox.exe": 60.0}
