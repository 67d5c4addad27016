"""aw-webui's Activity view on the door: the real aw-client sends the same scripted day
to a real aw-server and to the door, then asks both aw-webui's canonical query (with
categories): the seconds per app and per category agree within 1 s."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from aw_client import ActivityWatchClient

from app.awdoor.server import door_in_thread
from app.runtime.services import Services
from tests.aw_day import scripted_day
from tests.aw_real import AwServer, activity_query, aw_client_for, seconds_by, send


@pytest.fixture
def door_client(services: Services, aw_server: AwServer) -> Iterator[ActivityWatchClient]:
    user = services.store.ensure_user(name="me", time_zone="Asia/Shanghai", day_cut_hour=4)
    with door_in_thread(services, user=user) as url:
        port = int(url.rsplit(":", 1)[1])
        door = AwServer("127.0.0.1", port, aw_server.home / "door")
        with aw_client_for(door) as client:
            yield client


def test_aw_webui_s_activity_query_answers_on_the_door_as_on_aw_server(
    aw_client: ActivityWatchClient, door_client: ActivityWatchClient
) -> None:
    day = scripted_day(hours=1.5)
    sent = threading.Thread(target=send, args=(aw_client, day.buckets, day.beats))
    sent.start()
    assert send(door_client, day.buckets, day.beats) == len(day.beats)
    sent.join()
    query = activity_query(
        window=day.window_bucket, afk=day.afk_bucket, browsers=day.browser_buckets
    )
    (theirs,) = aw_client.query(query, [(day.start, day.end)])
    (ours,) = door_client.query(query, [(day.start, day.end)])
    for key, part in (("app", "app_events"), ("$category", "cat_events")):
        expected = seconds_by(theirs["window"][part], key)
        got = seconds_by(ours["window"][part], key)
        assert len(expected) >= 3, expected  # the day has apps and categories to compare
        assert got.keys() == expected.keys()
        assert {k: round(got[k] - expected[k], 3) for k in expected} == {
            k: pytest.approx(0, abs=1.0) for k in expected
        }
    assert ours["window"]["duration"] == pytest.approx(theirs["window"]["duration"], abs=1.0)
    # Two periods at once (aw-webui's timeline asks for several): one answer each.
    half = day.start + (day.end - day.start) / 2
    both = door_client.query(query, [(day.start, half), (half, day.end)])
    assert len(both) == 2
    split = sum(p["window"]["duration"] for p in both)
    assert split == pytest.approx(ours["window"]["duration"], abs=1.0)
