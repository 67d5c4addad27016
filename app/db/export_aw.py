"""A user's records as an ActivityWatch export (`timetrace export --format activitywatch`):
the JSON aw-server's `GET /api/0/export` gives and `POST /api/0/import` takes, with a
window, an afk and web buckets per device, whose hostname is the device.

Built so that aw-webui's canonical query (window events flooded, intersected with
not-afk) gives each app the active seconds TimeTrace counts for it:

- window events are the live, non-idle records with their effective span (the duration
  rule: never overlapping on a device), data `{app, title}` with the canonical app;
- the afk bucket covers each device's timeline without a gap from its first record to
  the end of its last: `not-afk` exactly where a window event is, `afk` everywhere else
  (idle records, and the gaps between records), so flooding changes nothing there and
  the intersection cuts whatever flooding added to the window events;
- a record with a URL is also a `web.tab.current` event in its browser's bucket
  (`aw-watcher-web-<browser>_<device>`), never audible: it adds no active time;
- the user's own category tree comes first, as aw-webui's `classes` (`classes_from`),
  so that an import of the file brings the same tree back.

Written a device and a bucket at a time from the records' stream (one pass per bucket),
never holding more than a chunk of output.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from app.db.connection import Connection
from app.db.queries import QUERIES
from app.store.user_categories import UserCategoryRow
from app.store.user_rules import UserRuleRow

# Output is handed on in pieces of about this size (a file write, an HTTP chunk).
CHUNK_BYTES = 256 * 1024
# Told the kind being written and how many of its rows so far.
Progress = Callable[[str, int], None]

# Rows fetched at a time from the server-side cursor.
FETCH_ROWS = 5_000
UNKNOWN_APP = "(unknown)"  # what episodes call a record with no app


def _iso(ts: datetime) -> str:
    return ts.astimezone(UTC).isoformat(timespec="microseconds")


def _event(start: datetime, seconds: float, data: dict[str, Any]) -> bytes:
    return json.dumps(
        {"timestamp": _iso(start), "duration": seconds, "data": data},
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()


def browser_key(app: str) -> str:
    """The browser's name in a web bucket's id, as aw-client looks browsers up (`chrome`,
    `firefox`, `edge`, …): the app's letters and digits, lower-cased."""
    return re.sub(r"[^a-z0-9]+", "", app.lower()) or "browser"


def _spans(
    conn: Connection, *, window: dict[str, Any], device_id: str, url_app: str | None = None
) -> Iterator[dict[str, Any]]:
    """The device's live records in the window with their effective seconds, in timeline
    order (server-side cursor); with `url_app`, that app's records with a URL only."""
    params = {**window, "device_id": device_id}
    name = f"aw_{device_id}_{url_app or ''}"[:60]
    with conn.cursor(name=re.sub(r"\W", "_", name)) as cur:
        cur.itersize = FETCH_ROWS
        cur.execute(QUERIES["export_record_spans"], params)
        for row in cur:
            if url_app is None or (row["app"] == url_app and row["url"]):
                yield row


def _bucket_head(bucket_id: str, *, kind: str, client: str, host: str, first: bool) -> bytes:
    head = json.dumps(
        {
            "id": bucket_id,
            "created": _iso(datetime.now(UTC)),
            "name": None,
            "type": kind,
            "client": client,
            "hostname": host,
            "data": {},
        },
        ensure_ascii=False,
        separators=(",", ":"),
    )
    # The bucket object, left open for its events.
    return (b"" if first else b",") + json.dumps(bucket_id).encode() + b":" + head[:-1].encode()


class _Out:
    """Pieces of output gathered into chunks of about CHUNK_BYTES."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.size = 0

    def add(self, piece: bytes) -> bytes | None:
        self.parts.append(piece)
        self.size += len(piece)
        if self.size < CHUNK_BYTES:
            return None
        return self.take()

    def take(self) -> bytes:
        chunk = b"".join(self.parts)
        self.parts.clear()
        self.size = 0
        return chunk


def _events(out: _Out, events: Iterator[bytes]) -> Iterator[bytes]:
    """A bucket's events list, then the bucket's end."""
    first = True
    if chunk := out.add(b',"events":['):
        yield chunk
    for event in events:
        if chunk := out.add(event if first else b"," + event):
            yield chunk
        first = False
    if chunk := out.add(b"]}"):
        yield chunk


def _window_events(rows: Iterator[dict[str, Any]], counted: list[int]) -> Iterator[bytes]:
    for row in rows:
        counted[0] += 1
        if row["is_idle"] or row["duration_s"] <= 0:
            continue
        yield _event(
            row["ts_start"],
            row["duration_s"],
            {"app": row["app"] or UNKNOWN_APP, "title": row["window_title"]},
        )


def _afk_events(rows: Iterator[dict[str, Any]]) -> Iterator[bytes]:
    """`not-afk` over each run of active records that touch, `afk` over everything
    between them: one unbroken cover of the device's timeline."""
    run: tuple[datetime, datetime, bool] | None = None  # start, end, active
    for row in rows:
        start = row["ts_start"]
        end = start + timedelta(seconds=row["duration_s"])
        pieces = []
        if run is not None:
            start = max(start, run[1])  # spans never overlap on a device; be sure
            if start > run[1]:
                pieces.append((run[1], start, False))  # a gap between records
        if end > start:
            pieces.append((start, end, not row["is_idle"]))
        for piece in pieces:
            if run is not None and run[2] == piece[2]:
                run = (run[0], piece[1], run[2])
                continue
            if run is not None:
                yield _afk(*run)
            run = piece
    if run is not None:
        yield _afk(*run)


def _afk(start: datetime, end: datetime, active: bool) -> bytes:
    seconds = (end - start).total_seconds()
    return _event(start, seconds, {"status": "not-afk" if active else "afk"})


def _web_events(rows: Iterator[dict[str, Any]]) -> Iterator[bytes]:
    for row in rows:
        if row["duration_s"] <= 0:
            continue
        data = {
            "url": row["url"],
            "title": row["window_title"],
            "audible": False,
            "incognito": False,
            "tabCount": 1,
        }
        yield _event(row["ts_start"], row["duration_s"], data)


def _as_regex(rule: UserRuleRow) -> tuple[str, bool]:
    """A rule as an ActivityWatch regex and whether it ignores case (aw-core searches it
    in every text of an event: app, title, URL)."""
    if rule.kind == "regex":
        ic = rule.pattern.startswith("(?i)")
        return (rule.pattern[4:] if ic else rule.pattern), ic
    if rule.kind == "app":
        return f"^{re.escape(rule.pattern)}$", False
    if rule.kind == "site":
        return re.escape(rule.pattern), True
    return ".*".join(re.escape(p) for p in rule.pattern.split("*")), True


def classes_from(
    rows: Sequence[UserCategoryRow], rules: Sequence[UserRuleRow]
) -> list[dict[str, Any]]:
    """The user's tree as aw-webui's `classes` (its settings): each category with its
    path of names, its colour and one rule, its rules' regexes joined (none: a parent
    with no rule of its own). A tree imported from ActivityWatch goes back as it came."""
    by_id = {r.category_id: r for r in rows}
    out = []
    for row in rows:
        names: list[str] = []
        at: UserCategoryRow | None = row
        while at is not None:
            names.insert(0, at.name or at.name_zh or str(at.category_id))
            at = by_id.get(at.parent_id) if at.parent_id is not None else None
        own = [_as_regex(r) for r in rules if r.category_id == row.category_id]
        rule: dict[str, Any] = {"type": "none"}
        if own:
            joined = own[0][0] if len(own) == 1 else "|".join(f"(?:{p})" for p, _ in own)
            rule = {"type": "regex", "regex": joined, "ignore_case": all(ic for _, ic in own)}
        item: dict[str, Any] = {"name": names, "rule": rule}
        if row.color:
            item["data"] = {"color": row.color}
        out.append(item)
    return out


def _classes(conn: Connection, user_id: int) -> bytes:
    user = {"user_id": user_id}
    rows = [
        UserCategoryRow.model_construct(**r)
        for r in conn.execute(QUERIES["list_user_categories"], user)
    ]
    rules = [
        UserRuleRow.model_construct(**r) for r in conn.execute(QUERIES["list_user_rules"], user)
    ]
    return json.dumps(classes_from(rows, rules), ensure_ascii=False).encode()


def activitywatch_chunks(
    conn: Connection, *, user_id: int, lo: datetime, hi: datetime, progress: Progress
) -> Iterator[bytes]:
    """The user's records starting in [lo, hi) as an ActivityWatch export, as bytes."""
    out = _Out()
    # aw-webui's categories first (its settings' `classes`): the user's own tree, so
    # that an import reads them before the history (app/importers/aw_tree.py).
    out.add(b'{"classes":' + _classes(conn, user_id) + b',"buckets":{')
    window = {"user_id": user_id, "ts_from": lo, "ts_to": hi}
    devices = [r["device_id"] for r in conn.execute(QUERIES["export_devices"], window)]
    first = True
    counted = [0]
    for device in devices:
        common = {"host": device}
        out.add(
            _bucket_head(
                f"aw-watcher-window_{device}",
                kind="currentwindow",
                client="aw-watcher-window",
                first=first,
                **common,
            )
        )
        first = False
        yield from _events(
            out, _window_events(_spans(conn, window=window, device_id=device), counted)
        )
        progress("records", counted[0])
        out.add(
            _bucket_head(
                f"aw-watcher-afk_{device}",
                kind="afkstatus",
                client="aw-watcher-afk",
                first=False,
                **common,
            )
        )
        yield from _events(out, _afk_events(_spans(conn, window=window, device_id=device)))
        browsers = [
            r["app"]
            for r in conn.execute(
                QUERIES["export_url_apps"],
                {**window, "device_id": device},
            )
        ]
        for app in browsers:
            out.add(
                _bucket_head(
                    f"aw-watcher-web-{browser_key(app)}_{device}",
                    kind="web.tab.current",
                    client="aw-client-web",
                    first=False,
                    **common,
                )
            )
            rows = _spans(conn, window=window, device_id=device, url_app=app)
            yield from _events(out, _web_events(rows))
    out.add(b"}}")
    yield out.take()
