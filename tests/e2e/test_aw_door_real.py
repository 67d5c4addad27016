"""The real aw-client against the door, beside the real aw-server: the same scripted day
goes to both; aw-client's own reads (buckets, events, export) answer the same, and the
active seconds per app TimeTrace makes of the door's buckets — converted live, pass
after pass while the day arrives — equal what aw-webui's canonical query answers on
aw-server (within 1 s per app)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aw_client import ActivityWatchClient

from app.awdoor.events import AwEvent
from app.awdoor.private import Privacy
from app.awdoor.server import door_in_thread
from app.importers.activitywatch import import_activitywatch_file
from app.runtime.services import Services
from tests.aw_day import ScriptedDay, scripted_day
from tests.aw_real import AwServer, aw_client_for, canonical_app_seconds, export, send
from tests.faults import wait_for


@pytest.fixture
def door_client(services: Services, aw_server: AwServer) -> Iterator[ActivityWatchClient]:
    user = services.store.ensure_user(name="me", time_zone="Asia/Shanghai", day_cut_hour=4)
    # Converted every 0.2 s: many passes, each over the recent part, while beats arrive.
    with door_in_thread(services, user=user, convert_every_s=0.2) as url:
        port = int(url.rsplit(":", 1)[1])
        door = AwServer("127.0.0.1", port, aw_server.home / "door")
        with aw_client_for(door) as client:
            yield client


def _events(client: ActivityWatchClient, bucket: str) -> list[tuple[Any, ...]]:
    return [(e.timestamp, e.duration, e.data) for e in client.get_events(bucket, limit=-1)]


def _private(data: dict[str, Any], privacy: Privacy) -> dict[str, Any]:
    """An event's data as the door keeps it: redacted where the privacy rules say."""
    event = AwEvent(None, 0, 0, data, "")
    kept = privacy.stored(event)
    assert kept is not None  # the shipped rules redact, never drop
    return kept.data


def _redacted(events: list[tuple[Any, ...]], privacy: Privacy) -> list[tuple[Any, ...]]:
    return [(*e[:2], _private(e[2], privacy)) for e in events]


def _active_seconds_by_app(conn: Any, user: str) -> dict[str, float]:
    rows = conn.execute(
        """
        SELECT r.app_raw, sum(EXTRACT(EPOCH FROM r.ts_end - r.ts_start))::float AS s
        FROM records r JOIN users u USING (user_id)
        WHERE u.name = %(user)s AND NOT r.is_idle AND r.deleted_at IS NULL GROUP BY r.app_raw
        """,
        {"user": user},
    ).fetchall()
    return {r["app_raw"]: r["s"] for r in rows}


def _records(conn: Any, user: str) -> list[tuple[Any, ...]]:
    rows = conn.execute(
        """
        SELECT r.device_id, r.client_record_id, r.ts_end, r.app, r.window_title, r.url,
               r.is_idle, r.category, r.redacted
        FROM records r JOIN users u USING (user_id)
        WHERE u.name = %(user)s AND r.deleted_at IS NULL
        ORDER BY r.device_id, r.ts_start, r.client_record_id
        """,
        {"user": user},
    ).fetchall()
    return [tuple(r.values()) for r in rows]


def _both(
    aw_client: ActivityWatchClient, door_client: ActivityWatchClient, hours: float
) -> ScriptedDay:
    day = scripted_day(hours=hours)
    # Both at once: the door converts while its beats arrive.
    sent = threading.Thread(target=send, args=(aw_client, day.buckets, day.beats))
    sent.start()
    assert send(door_client, day.buckets, day.beats) == len(day.beats)
    sent.join()
    return day


def _caught_up(conn: Any) -> bool:
    """Every group commit of the door's converted (none numbered above what its
    conversion stored), and no mark left in the database."""
    row = conn.execute(
        """
        SELECT NOT EXISTS (SELECT 1 FROM aw_buckets WHERE dirty_from IS NOT NULL)
           AND COALESCE((SELECT max(changed) FROM aw_events), 0)
               <= COALESCE((SELECT max(through) FROM aw_converted), 0) AS done
        """
    )
    return bool(row.fetchone()["done"])


def _settled(conn: Any, services: Services) -> dict[str, float]:
    """The door's records per app once its conversion has caught up."""
    assert wait_for(lambda: _caught_up(conn), timeout=30, interval=0.1)
    return _active_seconds_by_app(conn, "me")


def test_aw_client_reads_back_what_it_sent_and_the_door_converts_as_the_importer(
    aw_client: ActivityWatchClient,
    door_client: ActivityWatchClient,
    aw_server: AwServer,
    services: Services,
    conn: Any,
    tmp_path: Path,
) -> None:
    day = _both(aw_client, door_client, hours=2)
    privacy = Privacy(services.rules)  # the door keeps a private window's events redacted
    theirs, ours = aw_client.get_buckets(), door_client.get_buckets()
    assert set(ours) == set(theirs) == {b.id for b in day.buckets}
    for bucket_id, bucket in theirs.items():
        fields = ("id", "type", "client", "hostname", "last_updated")
        assert {k: ours[bucket_id].get(k) for k in fields} == {k: bucket.get(k) for k in fields}
        assert _events(door_client, bucket_id) == _redacted(_events(aw_client, bucket_id), privacy)
        assert door_client.get_eventcount(bucket_id) == aw_client.get_eventcount(bucket_id)
    exported_theirs = aw_client.export_all()["buckets"]
    exported_ours = door_client.export_all()["buckets"]
    assert {k: v["events"] for k, v in exported_ours.items()} == {
        k: [{**e, "data": _private(e["data"], privacy)} for e in v["events"]]
        for k, v in exported_theirs.items()
    }
    # The live conversion, pass after pass, makes what one import of aw-server's export
    # of the same stream makes (the same pipeline: flood, not-afk, tabs, privacy).
    batch = services.store.ensure_user(name="batch", time_zone="Asia/Shanghai", day_cut_hour=4)
    path = tmp_path / "aw-export.json"
    path.write_bytes(export(aw_server))
    import_activitywatch_file(services.store, path=path, user=batch, rules=services.rules)
    live = _settled(conn, services)
    imported = _active_seconds_by_app(conn, "batch")
    assert live.keys() == imported.keys()
    assert {app: round(live[app] - imported[app], 3) for app in live} == dict.fromkeys(live, 0)
    assert _records(conn, "me") == _records(conn, "batch")


def test_timetrace_counts_the_door_s_day_as_aw_server_does(
    aw_client: ActivityWatchClient,
    door_client: ActivityWatchClient,
    services: Services,
    conn: Any,
) -> None:
    day = _both(aw_client, door_client, hours=2)
    expected = canonical_app_seconds(
        aw_client,
        window=day.window_bucket,
        afk=day.afk_bucket,
        browsers=day.browser_buckets,
        start=day.start,
        end=day.end,
    )
    got = _settled(conn, services)
    assert set(got) == set(expected)
    assert {app: round(got[app] - expected[app], 3) for app in expected} == {
        app: pytest.approx(0, abs=1.0) for app in expected
    }
