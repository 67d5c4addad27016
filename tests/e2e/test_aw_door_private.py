"""Private means private everywhere: a private window sent by the real aw-client to the
door leaves its title and URL in no table (every text column of every table scanned),
in none of aw-client's reads, and in none of the three export formats; its records are
redacted as an import's are."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from aw_client import ActivityWatchClient
from aw_core.models import Event

from app.awdoor.server import door_in_thread
from app.db.export import ExportRequest, export_chunks
from app.pyramid.build import backfill
from app.runtime.services import Services
from app.store.accounts import UserContext
from tests.aw_day import Beat, BucketSpec
from tests.aw_real import AwServer, aw_client_for, aw_dirs, send
from tests.faults import wait_for

# The secrets: words that appear nowhere else (lower case: full-text columns fold case).
SECRETS = ("quokkasecret", "wombatprivate", "numbatnote")
T0 = datetime.now(UTC).replace(microsecond=0) - timedelta(hours=3)
WINDOW = BucketSpec("aw-watcher-window_laptop", "currentwindow", "laptop")
AFK = BucketSpec("aw-watcher-afk_laptop", "afkstatus", "laptop")
WEB = BucketSpec("aw-watcher-web-chrome", "web.tab.current", "laptop")
CODE = {"app": "Code", "title": "main.py - work"}
# Chrome's own private window (its title says so) with an incognito tab; and a window
# whose title does not say so, private only by the incognito tab shown in it.
INCOGNITO = {"app": "chrome.exe", "title": "Quokkasecret plans - Google Chrome (Incognito)"}
INCOGNITO_TAB = {
    "url": "https://quokkasecret.example/plans",
    "title": "Quokkasecret plans",
    "incognito": True,
    "audible": False,
    "tabCount": 1,
}
QUIET = {"app": "chrome.exe", "title": "Wombatprivate bank - Google Chrome"}
QUIET_TAB = {
    "url": "https://numbatnote.example/wombatprivate",
    "title": "Wombatprivate bank",
    "incognito": True,
    "audible": False,
    "tabCount": 1,
}


def _beats() -> list[Beat]:
    beats: list[Beat] = []

    def run(start: int, end: int, window: dict[str, Any], tab: dict[str, Any] | None) -> None:
        for second in range(start, end):
            at = T0 + timedelta(seconds=second)
            beats.append(Beat(WINDOW.id, Event(timestamp=at, duration=0, data=window), 2.0))
            if tab is not None:
                beats.append(Beat(WEB.id, Event(timestamp=at, duration=0, data=tab), 2.0))

    run(0, 30, CODE, None)
    run(30, 60, INCOGNITO, INCOGNITO_TAB)
    run(60, 90, CODE, None)
    run(90, 120, QUIET, QUIET_TAB)
    run(120, 150, CODE, None)
    for second in range(0, 151, 30):
        at = T0 + timedelta(seconds=second)
        beats.append(Beat(AFK.id, Event(timestamp=at, data={"status": "not-afk"}), 31.0))
    return sorted(beats, key=lambda b: b.event.timestamp)


@pytest.fixture
def user(services: Services) -> UserContext:
    return services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)


@pytest.fixture
def door_client(
    services: Services, user: UserContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ActivityWatchClient]:
    home = tmp_path / "activitywatch"
    for name, value in aw_dirs(home).items():
        monkeypatch.setenv(name, value)
    with door_in_thread(services, user=user, convert_every_s=0.2) as url:
        door = AwServer("127.0.0.1", int(url.rsplit(":", 1)[1]), home)
        with aw_client_for(door) as client:
            yield client


def _leaks(text: str) -> list[str]:
    low = text.lower()
    return [secret for secret in SECRETS if secret in low]


def _tables_holding_secrets(conn: Any) -> list[str]:
    """Every column of every table (but PostgreSQL's own) that holds a secret, read as
    text: text, json, jsonb, tsvector, arrays, whatever it is."""
    columns = conn.execute(
        """
        SELECT c.table_schema, c.table_name, c.column_name
        FROM information_schema.columns c
        JOIN information_schema.tables t USING (table_schema, table_name)
        WHERE t.table_type = 'BASE TABLE'
          AND c.table_schema NOT IN ('pg_catalog', 'information_schema')
        ORDER BY 1, 2, 3
        """
    ).fetchall()
    assert len(columns) > 100  # every table, not a few
    found = []
    for col in columns:
        where = f'"{col["table_schema"]}"."{col["table_name"]}"'
        hit = conn.execute(
            f'SELECT 1 FROM {where} WHERE lower("{col["column_name"]}"::text) '
            "~ %(secrets)s LIMIT 1",
            {"secrets": "|".join(SECRETS)},
        ).fetchone()
        if hit is not None:
            found.append(f"{col['table_name']}.{col['column_name']}")
    return found


def _export(conn: Any, user: UserContext, fmt: Any, table: Any = "records") -> str:
    request = ExportRequest(user=user, fmt=fmt, table=table)
    return b"".join(export_chunks(conn, request=request)).decode("utf-8")


def _converted(conn: Any) -> bool:
    row = conn.execute(
        """
        SELECT NOT EXISTS (SELECT 1 FROM aw_buckets WHERE dirty_from IS NOT NULL)
           AND COALESCE((SELECT max(changed) FROM aw_events), 0)
               <= COALESCE((SELECT max(through) FROM aw_converted), 0)
           AND (SELECT count(*) FROM records WHERE redacted) >= 2 AS done
        """
    ).fetchone()
    return bool(row["done"])


def test_a_private_window_through_the_door_is_private_everywhere(
    door_client: ActivityWatchClient, services: Services, user: UserContext, conn: Any
) -> None:
    beats = _beats()
    assert send(door_client, [WINDOW, AFK, WEB], beats) == len(beats)
    assert wait_for(lambda: _converted(conn), timeout=30, interval=0.1)
    # Sent again after the conversion found the quiet window private: still redacted.
    again = [
        Beat(WINDOW.id, Event(timestamp=T0 + timedelta(seconds=s), duration=0, data=QUIET), 2.0)
        for s in range(150, 160)
    ]
    assert send(door_client, [], again) == len(again)
    assert wait_for(lambda: _converted(conn), timeout=30, interval=0.1)
    backfill(services.store, now=datetime.now(UTC), settings=services.settings)

    # aw-client's reads: events, one by one, the export.
    for bucket in (WINDOW, WEB):
        events = door_client.get_events(bucket.id, limit=-1)
        assert events
        assert _leaks(repr([e.to_json_dict() for e in events])) == []
        for event in events[:5]:
            assert _leaks(repr(door_client.get_event(bucket.id, event.id))) == []
    assert _leaks(repr(door_client.export_all())) == []
    assert _leaks(repr(door_client.export_bucket(WINDOW.id))) == []
    # The private spans are there, redacted: the window's app, no title.
    private = conn.execute(
        "SELECT app_raw, window_title, url, redacted FROM records "
        "WHERE app_raw = 'chrome.exe' ORDER BY ts_start"
    ).fetchall()
    assert len(private) >= 2
    assert all(r["redacted"] and r["window_title"] == "" and r["url"] is None for r in private)
    # Every table, every column.
    assert _tables_holding_secrets(conn) == []
    # The three export formats (csv of both its tables).
    for fmt, table in [
        ("jsonl", "records"),
        ("activitywatch", "records"),
        ("csv", "records"),
        ("csv", "episodes"),
    ]:
        text = _export(conn, user, fmt, table)
        assert "chrome" in text.lower() or (fmt == "csv" and table == "episodes")
        assert _leaks(text) == [], (fmt, table)
