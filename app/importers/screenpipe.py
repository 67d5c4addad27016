"""screenpipe history: its SQLite database (~/.screenpipe/db.sqlite) into records.

    import_screenpipe(store, path=Path("db.sqlite"), user=user, rules=rules, device_id="mac")

Each focused frame is a record (app, window, browser URL; the monitor it came from
in `capture_reason`); its text — the first non-empty of `frames.full_text`,
`frames.accessibility_text` and `ocr_text.text` — is stored as the record's L1
description with no model call, so episodes, summaries and search see it. With
`audio`, each transcription is a record of its own on the device `<device>-audio`.
Columns are looked up, not assumed: older databases keep app and window names in
`ocr_text`; a database lacking what no version lacks is refused with the names of
the missing columns. Records are keyed by the frame's id (`sp:frame:<id>`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from app.boundary import import_text
from app.errors import InvalidInputError
from app.importers.writer import ImportedRecord, ImportSummary, Progress, RecordWriter
from app.ingest.records import APP_MAX, TITLE_MAX, URL_MAX, IngestStore, sane_time
from app.rules.categories import Rules
from app.store.accounts import UserContext

SOURCE = "screenpipe"
_DESCRIPTION_MAX = 20_000


class ScreenpipeError(InvalidInputError):
    """The screenpipe database could not be read."""


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _moment(value: object) -> datetime | None:
    """screenpipe writes RFC 3339 text (nanoseconds, `Z` or `+00:00`, a space or a T)."""
    if isinstance(value, int | float):
        return datetime.fromtimestamp(value, UTC)
    if not isinstance(value, str) or not value:
        return None
    text = value.strip().replace(" ", "T", 1)
    head, dot, rest = text.partition(".")
    if dot:  # Python reads at most 6 digits of a fraction
        digits = len(rest) - len(rest.lstrip("0123456789"))
        rest = rest[: min(digits, 6)] + rest[digits:]
        text = f"{head}.{rest}"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _frame_query(db: sqlite3.Connection) -> str:
    """The frames query for this database's version of the schema."""
    frames = _columns(db, "frames")
    ocr = _columns(db, "ocr_text")
    missing = sorted({"id", "timestamp"} - frames)
    if not frames or missing:
        raise ScreenpipeError(
            "not a screenpipe database: "
            + ("no frames table" if not frames else f"frames lacks {', '.join(missing)}")
        )

    def pick(column: str, fallback: str = "NULL") -> str:
        if column in frames:
            return f"f.{column}"
        return f"o.{column}" if column in ocr else fallback

    texts = [f"f.{c}" for c in ("full_text", "accessibility_text") if c in frames]
    texts += ["o.text"] if "text" in ocr else []
    if "app_name" not in frames and "app_name" not in ocr:
        raise ScreenpipeError(
            "this screenpipe database names no app: neither frames.app_name nor "
            "ocr_text.app_name exists"
        )
    text = ", ".join(f"nullif(trim({t}), '')" for t in texts) or "NULL"
    text = f"coalesce({text})" if len(texts) > 1 else text
    join = "LEFT JOIN ocr_text o ON o.frame_id = f.id" if ocr else ""
    return (
        f"SELECT f.id, f.timestamp, {pick('app_name')}, {pick('window_name')}, "
        f"{pick('browser_url')}, {pick('focused')}, {pick('device_name', repr(''))}, "
        f"{text} FROM frames f {join} GROUP BY f.id ORDER BY f.timestamp, f.id"
    )


def _frames(
    db: sqlite3.Connection, summary: ImportSummary, now: datetime
) -> Iterator[ImportedRecord]:
    for frame_id, stamp, app, window, url, focused, monitor, text in db.execute(_frame_query(db)):
        summary.events += 1
        moment = _moment(stamp)
        # An unfocused window's frame is not where the time went.
        if moment is None or not sane_time(moment, now=now) or focused in (0, "0", False):
            summary.skipped += 1
            continue
        yield ImportedRecord(
            client_record_id=f"sp:frame:{frame_id}",
            ts_start=moment,
            ts_end=None,  # a frame lasts until the next one (capped at the idle gap)
            app=import_text(app, limit=APP_MAX),
            window_title=import_text(window, limit=TITLE_MAX),
            url=import_text(url, limit=URL_MAX) or None,
            capture_reason=import_text(f"screenpipe:{monitor}" if monitor else SOURCE, limit=64),
            description=import_text(text, limit=_DESCRIPTION_MAX) or None,
        )


def _transcriptions(
    db: sqlite3.Connection, summary: ImportSummary, now: datetime
) -> Iterator[ImportedRecord]:
    columns = _columns(db, "audio_transcriptions")
    missing = sorted({"id", "timestamp", "transcription"} - columns)
    if missing:
        raise ScreenpipeError(f"--audio: audio_transcriptions lacks {', '.join(missing)}")
    device = "device" if "device" in columns else "''"
    query = (
        f"SELECT id, timestamp, transcription, {device} FROM audio_transcriptions "
        "ORDER BY timestamp, id"
    )
    for row_id, stamp, text, source in db.execute(query):
        summary.events += 1
        moment = _moment(stamp)
        if moment is None or not sane_time(moment, now=now) or not (text or "").strip():
            summary.skipped += 1
            continue
        yield ImportedRecord(
            client_record_id=f"sp:audio:{row_id}",
            ts_start=moment,
            ts_end=None,
            app=import_text(f"audio: {source}" if source else "audio", limit=APP_MAX),
            window_title="",
            capture_reason="audio",
            description=import_text(text, limit=_DESCRIPTION_MAX),
        )


def import_screenpipe(
    store: IngestStore,
    *,
    path: Path,
    user: UserContext,
    rules: Rules,
    device_id: str = "screenpipe",
    audio: bool = False,
    progress: Progress | None = None,
) -> ImportSummary:
    """Import a screenpipe database (see the module's docstring); read-only on it."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        db.execute("SELECT 1 FROM sqlite_master LIMIT 1")
    except sqlite3.Error as exc:
        raise ScreenpipeError(f"cannot open {path} as a SQLite database: {exc}") from exc
    now = datetime.now(UTC)
    try:
        with RecordWriter(store, user=user, rules=rules, source=SOURCE, progress=progress) as out:
            out.ensure_device(device_id, name=f"screenpipe ({device_id})", kind="desktop")
            for record in _frames(db, out.summary, now):
                out.add(device_id, record)
            if audio:
                listener = f"{device_id[:58]}-audio"
                out.ensure_device(listener, name=f"audio of {device_id}", kind="other")
                for record in _transcriptions(db, out.summary, now):
                    out.add(listener, record)
    except sqlite3.Error as exc:
        raise ScreenpipeError(f"cannot read {path}: {exc}") from exc
    finally:
        db.close()
    return out.summary
