"""Importing a screenpipe database: focused frames become records whose own text is
their L1 description (no model call), transcriptions become records of their own
device with --audio, older schemas are read by their columns, a schema lacking what
every version has is refused by name, and importing again adds nothing."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.cli import main
from app.importers.screenpipe import ScreenpipeError, import_screenpipe
from app.importers.writer import ImportSummary
from app.runtime.services import Services
from app.settings import Settings
from app.store.accounts import UserContext
from tests.helpers import FIXTURES

SCHEMA = (FIXTURES / "screenpipe" / "schema.sql").read_text(encoding="utf-8")
# (id, timestamp as screenpipe writes it, app, window, url, focused, full_text,
#  accessibility_text, ocr text)
FRAMES = [
    (
        1,
        "2026-04-01T02:00:00.123456789+00:00",
        "Code",
        "main.py — timetrace",
        None,
        1,
        "def import_screenpipe(): 导入屏幕记录",
        None,
        "ocr: def import_screenpipe",
    ),
    (
        2,
        "2026-04-01T02:00:02.5+00:00",
        "Google Chrome",
        "支付回调 - 知乎",
        "https://www.zhihu.com/question/1",
        1,
        "",
        "支付回调怎么做幂等",
        "ocr: 支付回调",
    ),
    (
        3,
        "2026-04-01 02:00:05.000000000 UTC",
        "Slack",
        "#general",
        None,
        0,
        "unfocused window text",
        None,
        None,
    ),
    (
        4,
        "2026-04-01T02:00:07Z",
        "1Password",
        "Vault — 1Password",
        None,
        1,
        None,
        None,
        "password hunter2",
    ),
    (5, "2026-04-01T02:00:09Z", "iTerm2", "pytest -q", None, None, None, None, "12 passed in 3.1s"),
]


def _database(path: Path, *, old: bool = False) -> Path:
    db = sqlite3.connect(path)
    if old:  # before 2025-02 the app and window names lived in ocr_text only
        db.executescript(
            "CREATE TABLE frames (id INTEGER PRIMARY KEY AUTOINCREMENT, video_chunk_id INTEGER,"
            " offset_index INTEGER, timestamp TIMESTAMP NOT NULL, name TEXT);"
            "CREATE TABLE ocr_text (frame_id INTEGER NOT NULL, text TEXT NOT NULL, text_json TEXT,"
            " app_name TEXT NOT NULL DEFAULT '', ocr_engine TEXT, window_name TEXT,"
            " focused BOOLEAN DEFAULT FALSE);"
        )
        for fid, ts, app, window, _, focused, _, _, ocr in FRAMES:
            db.execute("INSERT INTO frames VALUES (?, 1, 0, ?, NULL)", (fid, ts))
            db.execute(
                "INSERT INTO ocr_text (frame_id, text, app_name, window_name, focused) "
                "VALUES (?, ?, ?, ?, ?)",
                (fid, ocr or "", app, window, focused if focused is not None else 1),
            )
    else:
        db.executescript(SCHEMA)
        db.execute(
            "INSERT INTO video_chunks (id, file_path, device_name) VALUES (1, 'a.mp4', 'm1')"
        )
        for fid, ts, app, window, url, focused, full, access, ocr in FRAMES:
            db.execute(
                "INSERT INTO frames (id, video_chunk_id, offset_index, timestamp, device_name,"
                " browser_url, app_name, window_name, focused, full_text, accessibility_text)"
                " VALUES (?, 1, 0, ?, 'monitor_1', ?, ?, ?, ?, ?, ?)",
                (fid, ts, url, app, window, focused, full, access),
            )
            if ocr:
                db.execute("INSERT INTO ocr_text (frame_id, text) VALUES (?, ?)", (fid, ocr))
        db.execute("INSERT INTO audio_chunks (id, file_path) VALUES (1, 'a.mp4')")
        db.execute(
            "INSERT INTO audio_transcriptions (id, audio_chunk_id, offset_index, timestamp,"
            " transcription, device) VALUES (1, 1, 0, '2026-04-01T02:00:03Z',"
            " '我们明天上线支付回调', 'MacBook Pro Microphone (input)')"
        )
    db.commit()
    db.close()
    return path


def _user(services: Services) -> UserContext:
    return services.store.ensure_user(name="me", time_zone="Asia/Shanghai", day_cut_hour=4)


def _run(services: Services, path: Path, **extra: Any) -> ImportSummary:
    return import_screenpipe(
        services.store, path=path, user=_user(services), rules=services.rules, **extra
    )


def _texts(conn: Any) -> list[tuple[str, str, str | None, bool, str | None]]:
    rows = conn.execute(
        "SELECT r.client_record_id, r.app, r.url, r.redacted, a.description FROM records r "
        "LEFT JOIN record_analyses a USING (user_id, record_id) ORDER BY r.ts_start"
    ).fetchall()
    return [
        (r["client_record_id"], r["app"], r["url"], r["redacted"], r["description"]) for r in rows
    ]


def test_focused_frames_become_records_with_their_own_text_as_description(
    services: Services, conn: Any, tmp_path: Path
) -> None:
    summary = _run(services, _database(tmp_path / "db.sqlite"), device_id="mac")
    assert (summary.events, summary.skipped, summary.new, summary.redacted) == (5, 1, 4, 1)
    assert _texts(conn) == [
        ("sp:frame:1", "Visual Studio Code", None, False, "def import_screenpipe(): 导入屏幕记录"),
        (
            "sp:frame:2",
            "Google Chrome",
            "https://www.zhihu.com/question/1",
            False,
            "支付回调怎么做幂等",
        ),
        # A password manager is redacted as at HTTP ingest: its text goes with its title.
        ("sp:frame:4", "1Password", None, True, None),
        ("sp:frame:5", "iTerm2", None, False, "12 passed in 3.1s"),
    ]
    row = conn.execute(
        "SELECT device_id, capture_reason, ts_start::text AS ts FROM records "
        "WHERE client_record_id = 'sp:frame:1'"
    ).fetchone()
    assert (row["device_id"], row["capture_reason"]) == ("mac", "screenpipe:monitor_1")
    assert row["ts"] == "2026-04-01 02:00:00.123456+00"  # nanoseconds cut to microseconds
    # The description is searchable text, and no model was asked for it.
    hits = conn.execute(
        "SELECT count(*) AS n FROM record_analyses WHERE fts @@ to_tsquery('simple', '回调')"
    ).fetchone()
    assert hits["n"] == 1
    assert {r["model"] for r in conn.execute("SELECT model FROM record_analyses")} == {"screenpipe"}

    again = _run(services, tmp_path / "db.sqlite", device_id="mac", audio=True)
    assert (again.new, again.duplicate) == (1, 4)  # only the transcription is new
    audio = conn.execute(
        "SELECT r.device_id, r.app, r.capture_reason, a.description FROM records r "
        "JOIN record_analyses a USING (user_id, record_id) WHERE r.capture_reason = 'audio'"
    ).fetchone()
    assert dict(audio) == {
        "device_id": "mac-audio",
        "app": "audio: macbook pro microphone (input)",
        "capture_reason": "audio",
        "description": "我们明天上线支付回调",
    }


def test_an_older_schema_is_read_by_its_columns_and_a_broken_one_is_refused_by_name(
    services: Services, conn: Any, tmp_path: Path
) -> None:
    summary = _run(services, _database(tmp_path / "old.sqlite", old=True))
    assert (summary.new, summary.skipped) == (4, 1)
    apps = [r["app"] for r in conn.execute("SELECT app FROM records ORDER BY ts_start")]
    assert apps == ["Visual Studio Code", "Google Chrome", "1Password", "iTerm2"]
    broken = tmp_path / "broken.sqlite"
    db = sqlite3.connect(broken)
    db.execute("CREATE TABLE frames (id INTEGER PRIMARY KEY, app_name TEXT)")
    db.close()
    with pytest.raises(ScreenpipeError, match="not a screenpipe database: frames lacks timestamp"):
        _run(services, broken)
    with pytest.raises(ScreenpipeError, match="no frames table"):
        _run(services, _empty(tmp_path / "empty.sqlite"))


def _empty(path: Path) -> Path:
    sqlite3.connect(path).close()
    return path


def test_cli_imports_a_screenpipe_database(
    settings: Settings, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIMETRACE_DATABASE_URL", db_url)
    monkeypatch.setenv("TIMETRACE_DATA_DIR", str(settings.data_dir))
    path = _database(tmp_path / "db.sqlite")
    args = ["import", "screenpipe", str(path), "--user", "me", "--no-build"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    printed = " ".join(result.output.split())
    assert "screenpipe: 5 events → 4 records" in printed
    assert "4 new, 0 duplicate, 0 excluded, 1 redacted, 1 events skipped" in printed
    assert "queued for the worker" in printed
