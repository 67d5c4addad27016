"""ActivityWatch history: an export file or a running aw-server, into records.

    import_activitywatch_file(store, path=Path("aw-export.json"), user=user, rules=rules)
    import_activitywatch_server(store, url="http://localhost:5600", user=user, rules=rules)

Both server formats are read: buckets as an object keyed by id (what aw-server and
aw-server-rust export) or as an array (the published schema), timestamps with
`+00:00` or `Z`. Events are set aside on disk and read back per bucket in time
order (`spill.py`), so memory stays flat whatever the size of the export.

Each host becomes one TimeTrace device (created if missing). Its window events
are cut (`timeline.host_pieces`) into records that are active where the afk
bucket says not-afk — ActivityWatch's own definition of active time — and idle
for the rest; where a browser window was focused, the browser bucket's tab
gives the record its URL and page title. Records are keyed by where they start
on the device's timeline (`aw:<µs>`), so importing the same history again, or an
export that overlaps one already imported, adds nothing twice.
"""

from __future__ import annotations

import functools
import heapq
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from operator import itemgetter
from pathlib import Path
from typing import IO, Any
from urllib.parse import quote

import httpx
import msgspec
import orjson

from app.boundary import import_text
from app.errors import InvalidInputError
from app.importers.jsonstream import JsonStream, NoRun
from app.importers.spill import EventSpill, canonical
from app.importers.timeline import (
    Cursor,
    Event,
    Piece,
    PieceRow,
    Span,
    StretchCursor,
    WebStream,
    WebStretches,
    active_spans,
    active_stretches,
    clip,
    clip_stretches,
    event_data,
    flood,
    flood_rows,
    host_pieces,
    piece_rows,
)
from app.importers.writer import BATCH, ImportedRecord, ImportSummary, Progress, RecordWriter
from app.ingest.records import (
    APP_MAX,
    MAX_RECORD_SPAN,
    MIN_YEAR,
    TITLE_MAX,
    URL_MAX,
    IngestStore,
    PreparedRecords,
)
from app.ingest.ruled import LogicalDays, Ruled, rule_text
from app.rules.categories import Rules
from app.rules.user import rules_for_user
from app.store.accounts import UserContext
from app.store.records import NewRecords
from app.timeutil import zone

SOURCE = "activitywatch"
WINDOW, AFK, WEB = "currentwindow", "afkstatus", "web.tab.current"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
_MAX_SPAN_US = MAX_RECORD_SPAN // _US
_NOT_DEVICE = re.compile(r"[^A-Za-z0-9._:-]+")
_NAME_MAX = 200  # a bucket's id, type, hostname or client
# The canonical apps of each browser ActivityWatch's web watcher reports (its bucket
# is aw-watcher-web-<name>); other names go through the app aliases. A window of one
# of them shows its browser's tab.
_BROWSERS = {
    "chrome": ("Google Chrome", "Chromium"),
    "chromium": ("Chromium", "Google Chrome"),
    "edge": ("Microsoft Edge",),
    "firefox": ("Firefox",),
}
# aw-webui's own pairing (aw-client's `browser_appnames`, in its order): a browser bucket
# is the first name its id contains, and that browser's audible tabs count as active
# time only in windows whose app is exactly one of these.
AW_BROWSER_APPS: dict[str, frozenset[str]] = {
    "chrome": frozenset(
        {
            "Google Chrome", "Google-chrome", "chrome.exe", "google-chrome-stable",
            "Chromium", "Chromium-browser", "Chromium-browser-chromium", "chromium.exe",
            "Google-chrome-beta", "Google-chrome-unstable", "Brave-browser",
        }
    ),
    "firefox": frozenset(
        {
            "Firefox", "Firefox.exe", "firefox", "firefox.exe", "Firefox Developer Edition",
            "firefoxdeveloperedition", "Firefox-esr", "Firefox Beta", "Nightly",
            "org.mozilla.firefox",
        }
    ),
    "opera": frozenset({"opera.exe", "Opera"}),
    "brave": frozenset({"brave.exe"}),
    "edge": frozenset({"msedge.exe", "Microsoft Edge"}),
    "vivaldi": frozenset({"Vivaldi-stable", "Vivaldi-snapshot", "vivaldi.exe"}),
}  # fmt: skip


class ActivityWatchError(InvalidInputError):
    """The ActivityWatch history could not be read."""


@dataclass(slots=True)
class Bucket:
    index: int
    id: str
    type: str = ""
    hostname: str = ""
    client: str = ""
    events: int = 0


@dataclass(slots=True)
class Host:
    """One machine's buckets: it becomes one TimeTrace device."""

    name: str
    device_id: str
    windows: list[Bucket] = field(default_factory=list)
    afk: list[Bucket] = field(default_factory=list)
    web: list[Bucket] = field(default_factory=list)

    @property
    def is_phone(self) -> bool:
        return any("android" in b.id.lower() or "android" in b.client for b in self.windows)


# -- reading ------------------------------------------------------------------------------------


class _FastEvent(msgspec.Struct):
    """An event as `_Reader.decode_run` takes it (other fields are left unread)."""

    timestamp: str
    data: msgspec.Raw
    duration: float | None = None


_decode_events = msgspec.json.Decoder(list[_FastEvent]).decode
_CANONICALS_MAX = 16_384
_decode_data = msgspec.json.Decoder().decode


def _data(raw: bytes) -> Any:
    """An event's data object as the standard decoder reads it: by msgspec's decoder
    where that one takes it, as they agree on all it takes (a shallow object: one
    nested deeper than the standard decoder's recursion allows is left to it)."""
    if raw.count(b"{") + raw.count(b"[") <= 64:
        try:
            return _decode_data(raw)
        except msgspec.DecodeError:
            pass  # an infinity, a lone surrogate: what only the standard one reads
    return json.loads(raw.decode("utf-8"))


_SLOW_EVENTS = 1_000  # after a refused run, events read one by one (about a run's worth)


def _micros(value: object) -> int:
    if not isinstance(value, str):
        raise ValueError("timestamp is not a string")
    moment = datetime.fromisoformat(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # ActivityWatch stores UTC
    return (moment - _EPOCH) // _US


class _Reader:
    """Puts every event of every bucket into the spill, keeping the buckets' metadata."""

    def __init__(self, spill: EventSpill, progress: Progress | None, total: int | None) -> None:
        self.spill = spill
        self.buckets: list[Bucket] = []
        self.skipped = 0
        self._progress = progress
        self._total = total
        self.measure: Callable[[], int] = lambda: spill.count  # progress: events, or bytes
        # Event data as read -> its canonical text (`spill.canonical`): the same data
        # comes back event after event, and one text object for it keeps the spill small.
        self._canonicals: dict[bytes, str] = {}

    def bucket(self, bucket_id: str) -> Bucket:
        found = Bucket(index=len(self.buckets), id=import_text(bucket_id, limit=_NAME_MAX))
        self.buckets.append(found)
        return found

    def describe(self, bucket: Bucket, meta: dict[str, Any]) -> None:
        # Names from the file are captured text too: no NUL, bounded (a hostname
        # becomes a device's name).
        bucket.id = import_text(meta.get("id") or bucket.id, limit=_NAME_MAX)
        bucket.type = import_text(meta.get("type") or "", limit=_NAME_MAX)
        bucket.hostname = import_text(meta.get("hostname") or "", limit=_NAME_MAX)
        bucket.client = import_text(meta.get("client") or "", limit=_NAME_MAX)

    def decode_run(self, text: str) -> list[tuple[int, int, str]]:
        """A run of events as spill rows (start, duration, canonical data), when each
        is one `event` stores without a word: an object with a data object, a time it
        reads, a duration of zero or more. Otherwise a ValueError (nothing is kept),
        and `event` reads them one by one."""
        rows = []
        canonicals = self._canonicals
        for event in _decode_events(text.encode("utf-8")):
            raw = bytes(event.data)
            data = canonicals.get(raw)
            if data is None:
                if not raw.startswith(b"{"):
                    raise ValueError("data is not an object")
                if len(canonicals) >= _CANONICALS_MAX:
                    canonicals.clear()
                data = canonicals[raw] = canonical(_data(raw))
            duration = round((event.duration or 0) * 1_000_000)
            if duration < 0:
                raise ValueError("negative duration")
            rows.append((_micros(event.timestamp), duration, data))
        return rows

    def add_rows(self, bucket: Bucket, rows: list[tuple[int, int, str]]) -> None:
        """What `decode_run` made of a run of events."""
        before = self.spill.count
        bucket.events += len(rows)
        self.spill.add_rows(bucket=bucket.index, rows=rows)
        if self._progress and self.spill.count // 50_000 > before // 50_000:
            self._progress("reading", self.measure(), self._total)

    def event(self, bucket: Bucket, event: object, where: Callable[[], int]) -> None:
        if not isinstance(event, dict) or not isinstance(event.get("data"), dict):
            raise ActivityWatchError(
                f"event {bucket.events + 1:,} of bucket {bucket.id!r} is not an event object "
                f"(near byte {where():,})"
            )
        try:
            start = _micros(event.get("timestamp"))
            duration = round(float(event.get("duration") or 0) * 1_000_000)
        except (TypeError, ValueError):
            self.skipped += 1
            return
        bucket.events += 1
        if duration < 0:
            self.skipped += 1
            return
        self.spill.add(bucket=bucket.index, start=start, duration=duration, data=event["data"])
        if self._progress and self.spill.count % 50_000 == 0:
            self._progress("reading", self.measure(), self._total)


def read_export(source: IO[bytes], reader: _Reader, *, name: str, size: int | None = None) -> None:
    """Stream an export into the reader's spill. A file that is cut off or corrupt stops
    here, before anything is written, with where it stopped."""
    stream = JsonStream(source, name=name)

    def where() -> int:
        return stream.position()

    reader.measure = lambda: stream.bytes_read
    seen_buckets = False
    try:
        stream.expect("{")
        more = stream.first_item("}")
        while more:
            key = stream.string()
            stream.expect(":")
            if key == "buckets":
                seen_buckets = True
                _read_buckets(stream, reader, where)
            else:
                stream.value()
            more = stream.next_item("}")
        if stream.peek():
            raise stream.error("goes on after the end of the export")
    except InvalidInputError as exc:  # the stream's and the reader's own
        raise ActivityWatchError(f"{exc.message}; {_got(reader)} — nothing was imported") from exc
    if not seen_buckets:
        raise ActivityWatchError(f'{name} is not an ActivityWatch export (no "buckets")')


def _got(reader: _Reader) -> str:
    if not reader.buckets:
        return "no bucket was read"
    last = reader.buckets[-1]
    return (
        f"read {reader.spill.count + reader.skipped:,} events of {len(reader.buckets)} "
        f"bucket(s), the last {last.id!r} after {last.events:,}"
    )


def _read_buckets(stream: JsonStream, reader: _Reader, where: Callable[[], int]) -> None:
    opening = stream.peek()
    if opening not in "{[" or not opening:
        raise stream.error('has "buckets" that is neither an object nor an array')
    close = "}" if opening == "{" else "]"
    stream.expect(opening)
    more = stream.first_item(close)
    while more:
        bucket_id = ""
        if close == "}":
            bucket_id = stream.string()
            stream.expect(":")
        _read_bucket(stream, reader, reader.bucket(bucket_id), where)
        more = stream.next_item(close)


def _read_bucket(
    stream: JsonStream, reader: _Reader, bucket: Bucket, where: Callable[[], int]
) -> None:
    meta: dict[str, Any] = {}
    stream.expect("{")
    more = stream.first_item("}")
    while more:
        key = stream.string()
        stream.expect(":")
        if key == "events":
            _read_events(stream, reader, bucket, where)
        else:
            meta[key] = stream.value()
            if key in ("id", "type", "hostname", "client"):
                reader.describe(bucket, {**meta, "id": meta.get("id") or bucket.id})
        more = stream.next_item("}")
    reader.describe(bucket, {**meta, "id": meta.get("id") or bucket.id})


def _read_events(
    stream: JsonStream, reader: _Reader, bucket: Bucket, where: Callable[[], int]
) -> None:
    """A bucket's events: runs of them decoded at once (`_FastEvent`), and one by one
    (`reader.event`) for a while where a run is refused (an odd value, a `}` in a
    title where the run would end, the end of the bucket)."""
    stream.expect("[")
    if not stream.first_item("]"):
        return
    slow = 0
    while True:
        if slow == 0:
            run = stream.array_run(reader.decode_run)
            if not isinstance(run, NoRun):
                rows, ended = run
                reader.add_rows(bucket, rows)
                if ended:
                    return
                continue
            slow = 1 if run is NoRun.SHORT else _SLOW_EVENTS
        slow -= 1
        reader.event(bucket, stream.value(), where)
        if not stream.next_item("]"):
            return


def read_server(client: httpx.Client, reader: _Reader, *, url: str, page: int = 5_000) -> None:
    """Every bucket of a running aw-server (`GET /api/0/buckets/`), events paged back
    in time (`?end=` the oldest one seen, newest first as the server lists them)."""
    base = url.rstrip("/")
    try:
        listing = _get_json(client, f"{base}/api/0/buckets/", {})
        if not isinstance(listing, dict):
            raise ActivityWatchError(f"{base} did not list buckets as aw-server does")
        for bucket_id, meta in listing.items():
            bucket = reader.bucket(str(bucket_id))
            reader.describe(bucket, meta if isinstance(meta, dict) else {})
            end: str | None = None
            at_end: set[str] = set()
            while True:
                params: dict[str, str | int] = {"limit": page}
                if end is not None:
                    params["end"] = end
                events = _get_json(
                    client, f"{base}/api/0/buckets/{quote(bucket.id, safe='')}/events", params
                )
                if not isinstance(events, list):
                    raise ActivityWatchError(f"{base} sent events of {bucket.id!r} as no list")
                fresh = [e for e in events if _event_key(e) not in at_end]
                for event in fresh:
                    reader.event(bucket, event, lambda: 0)
                if len(events) < page or not fresh:
                    break
                end = min(str(e.get("timestamp")) for e in events if isinstance(e, dict))
                oldest = _micros(end)
                at_end = {_event_key(e) for e in events if _starts_at(e, oldest)}
    except httpx.HTTPError as exc:
        raise ActivityWatchError(f"cannot read {base}: {exc}") from exc


def _get_json(client: httpx.Client, url: str, params: dict[str, str | int]) -> Any:
    response = client.get(url, params=params)
    if response.status_code != 200:
        raise ActivityWatchError(f"{url} answered HTTP {response.status_code}")
    try:
        return response.json()
    except ValueError as exc:
        raise ActivityWatchError(f"{url} did not answer JSON") from exc


def _event_key(event: object) -> str:
    """An event seen on the page before: by its id where the server gives one, since
    aw-server-rust clips events to the range asked (one starting at `end` comes back
    with duration 0)."""
    if not isinstance(event, dict):
        return ""
    if event.get("id") is not None:
        return f"id:{event['id']}"
    return f"{event.get('timestamp')}|{event.get('duration')}|{event.get('data')}"


def _starts_at(event: object, moment: int) -> bool:
    try:
        return isinstance(event, dict) and _micros(event.get("timestamp")) == moment
    except ValueError:
        return False


# -- hosts and records ------------------------------------------------------------------------


def device_id_for(name: str) -> str:
    """A device id from a hostname (letters, digits and . _ : - only, at most 64)."""
    cleaned = _NOT_DEVICE.sub("-", name).strip("-._:")[:64]
    return cleaned or "activitywatch"


def group_hosts(buckets: list[Bucket]) -> list[Host]:
    """Window and afk buckets by hostname; a browser bucket goes with its host, or with
    every host when it names none (the web watcher often reports `unknown`): it only
    counts where that host's browser window was focused."""
    hosts: dict[str, Host] = {}
    for bucket in buckets:
        if bucket.type == WINDOW:
            name = bucket.hostname if bucket.hostname.lower() not in ("", "unknown") else bucket.id
            host = hosts.setdefault(name, Host(name=name, device_id=device_id_for(name)))
            host.windows.append(bucket)
    for bucket in buckets:
        if bucket.type == AFK and bucket.hostname in hosts:
            hosts[bucket.hostname].afk.append(bucket)
        elif bucket.type == WEB:
            mine = [h for name, h in hosts.items() if name == bucket.hostname]
            for host in mine or [h for h in hosts.values() if not h.is_phone]:
                host.web.append(bucket)
    return list(hosts.values())


def _browser_name(bucket: Bucket) -> str:
    name = bucket.id.removeprefix("aw-watcher-web-").split("_", 1)[0]
    return name.lower()


def _is_one_of(
    canonical: Callable[[str], str], apps: frozenset[str], raw: frozenset[str], app: str
) -> bool:
    return app in raw or canonical(app) in apps


def aw_browser_apps(bucket_id: str) -> frozenset[str]:
    """The window apps whose audible tabs of this browser bucket aw-webui counts."""
    for name, apps in AW_BROWSER_APPS.items():
        if name in bucket_id:
            return apps
    return frozenset()


@functools.lru_cache(maxsize=16_384)
def _shown(
    window: str, tab: str | None, phone: bool, private: bool
) -> tuple[str, str, str | None, bool]:
    """What a piece shows, as an importer's text: app, title, URL, incognito (titles and
    tabs repeat piece after piece: worked out once). A private window's pieces are all
    incognito, whatever tab (or none) covers each."""
    data = event_data(window)
    app = str(data.get("package") or data.get("app") or "")
    title = data.get("title") or (data.get("app") if phone else "") or ""
    url = data.get("url")
    incognito = private or data.get("incognito") is True
    if tab is not None:
        shown = event_data(tab)
        url, title = shown.get("url"), shown.get("title") or ""
        incognito = incognito or shown.get("incognito") is True
    return (
        import_text(app, limit=APP_MAX),
        import_text(title, limit=TITLE_MAX),
        import_text(url, limit=URL_MAX) if url else None,
        incognito,
    )


def _records(host: Host, pieces: Iterator[Piece], now: datetime) -> Iterator[ImportedRecord]:
    latest = (now + timedelta(days=1) - _EPOCH) // _US
    earliest = (datetime(MIN_YEAR, 1, 1, tzinfo=UTC) - _EPOCH) // _US
    phone = host.is_phone
    for piece in pieces:
        app, title, url, incognito = _shown(piece.window, piece.tab, phone, piece.private)
        start, stop, idle = piece.start, piece.end, not piece.active
        while start < stop:
            end = min(stop, start + _MAX_SPAN_US)
            if earliest <= start <= latest:  # what RecordIn accepts
                yield ImportedRecord(
                    f"aw:{start}",
                    _EPOCH + start * _US,
                    _EPOCH + end * _US,
                    app,
                    title,
                    url,
                    idle,
                    incognito,
                    SOURCE,
                )
            start = end


def _browsers(
    host: Host, rules: Rules
) -> list[tuple[Bucket, Callable[[str], bool], Callable[[str], bool]]]:
    """Each web bucket of a host, with whether a window's app is this browser (by our
    names and by aw-webui's) and whether an app's audible tab counts as active (aw-webui
    counts only the browser it pairs with the bucket)."""

    @functools.lru_cache(maxsize=4_096)
    def canonical(app: str) -> str:
        return rules.apps.canonical(app)

    found: list[tuple[Bucket, Callable[[str], bool], Callable[[str], bool]]] = []
    for bucket in host.web:
        name = _browser_name(bucket)
        apps = frozenset(_BROWSERS.get(name, (canonical(name),)))
        aw_apps = aw_browser_apps(bucket.id)
        is_this_browser = functools.partial(_is_one_of, canonical, apps, aw_apps)
        found.append((bucket, is_this_browser, aw_apps.__contains__))
    return found


def host_records(
    host: Host,
    spill: EventSpill,
    *,
    rules: Rules,
    now: datetime,
    audible_is_active: bool,
    private_windows: set[str] | None = None,
) -> Iterator[ImportedRecord]:
    """A host's window events as records, in time order. `private_windows`: the window
    data already seen private, kept across calls by a caller that reads a host's
    events a part at a time (see `timeline.host_pieces`)."""

    web = [
        WebStream(
            spans=Cursor(
                Span(e.start, e.end, e.data) for e in flood(spill.events(bucket=bucket.index))
            ),
            is_this_browser=is_this_browser,
            counts_audible=counts_audible,
        )
        for bucket, is_this_browser, counts_audible in _browsers(host, rules)
    ]
    not_afk = None
    if host.afk:
        afk = [flood(spill.events(bucket=b.index)) for b in host.afk]
        not_afk = active_spans(afk[0] if len(afk) == 1 else heapq.merge(*afk, key=_start))
    # Several window buckets on one host (a second watcher) make one timeline.
    floods = [flood(spill.events(bucket=b.index)) for b in host.windows]
    windows = floods[0] if len(floods) == 1 else clip(heapq.merge(*floods, key=_start))
    pieces = host_pieces(
        windows,
        not_afk=not_afk,
        web=web,
        audible_is_active=audible_is_active,
        private_windows=private_windows,
    )
    return _records(host, pieces, now)


def _start(event: Event) -> int:
    return event.start


def _host_streams(
    host: Host, spill: EventSpill, *, rules: Rules, audible_is_active: bool
) -> Iterator[PieceRow]:
    """`host_records`' pieces, over tuples (`timeline.piece_rows`)."""

    web = [
        WebStretches(
            spans=StretchCursor(flood_rows(spill.rows(bucket=bucket.index))),
            is_this_browser=is_this_browser,
            counts_audible=counts_audible,
        )
        for bucket, is_this_browser, counts_audible in _browsers(host, rules)
    ]
    not_afk = None
    if host.afk:
        afk = [flood_rows(spill.rows(bucket=b.index)) for b in host.afk]
        not_afk = active_stretches(
            afk[0] if len(afk) == 1 else heapq.merge(*afk, key=itemgetter(0))
        )
    floods = [flood_rows(spill.rows(bucket=b.index)) for b in host.windows]
    windows = (
        floods[0] if len(floods) == 1 else clip_stretches(heapq.merge(*floods, key=itemgetter(0)))
    )
    return piece_rows(windows, not_afk=not_afk, web=web, audible_is_active=audible_is_active)


@dataclass(slots=True)
class Batch:
    """Up to `BATCH` records of one host made into columns (what `prepare_records`
    makes of `host_records`' records, batch for batch), with the first start and the
    last end of the records received (µs)."""

    prepared: PreparedRecords
    first: int
    last: int


_SHOWN_MAX = 16_384


class _Showing:
    """`_shown`, then the rules, in parts: a window's data and a tab's data are each
    decoded once, and the rules run once per distinct text. (A tab's data is new on
    nearly every tab event, its counter of tabs changing; what it shows rarely is.)"""

    def __init__(self, rules: Rules, *, phone: bool) -> None:
        self._rules = rules
        self._phone = phone
        self._windows: dict[str, tuple[str, str, str | None, bool]] = {}
        self._tabs: dict[str, tuple[str, str | None, bool]] = {}
        self._texts: dict[tuple[str, str, str | None, bool, bool], Ruled] = {}

    def ruled(self, window: str, tab: str | None, *, private: bool, idle: bool) -> Ruled:
        app, title, url, incognito = self._window(window)
        incognito = incognito or private
        if tab is not None:
            title, url, tab_incognito = self._tab(tab)
            incognito = incognito or tab_incognito
        text = (app, title, url, idle, incognito)
        found = self._texts.get(text)
        if found is None:
            if len(self._texts) >= _SHOWN_MAX:
                self._texts.clear()
            found = self._texts[text] = rule_text(
                self._rules, app=app, title=title, url=url, idle=idle, incognito=incognito
            )
        return found

    def _window(self, window: str) -> tuple[str, str, str | None, bool]:
        found = self._windows.get(window)
        if found is None:
            if len(self._windows) >= _SHOWN_MAX:
                self._windows.clear()
            data = event_data(window)
            app = data.get("package") or data.get("app") or ""
            title = data.get("title") or (data.get("app") if self._phone else "") or ""
            url = data.get("url")
            found = self._windows[window] = (
                import_text(str(app), limit=APP_MAX),
                import_text(title, limit=TITLE_MAX),
                import_text(url, limit=URL_MAX) if url else None,
                data.get("incognito") is True,
            )
        return found

    def _tab(self, tab: str) -> tuple[str, str | None, bool]:
        found = self._tabs.get(tab)
        if found is None:
            if len(self._tabs) >= _SHOWN_MAX:
                self._tabs.clear()
            shown = orjson.loads(tab)
            url = shown.get("url")
            found = self._tabs[tab] = (
                import_text(shown.get("title") or "", limit=TITLE_MAX),
                import_text(url, limit=URL_MAX) if url else None,
                shown.get("incognito") is True,
            )
        return found


def host_batches(
    host: Host,
    spill: EventSpill,
    *,
    rules: Rules,
    user: UserContext,
    now: datetime,
    audible_is_active: bool,
    days: LogicalDays | None = None,
) -> Iterator[Batch]:
    """A host's records in batches of `BATCH`, as columns: `host_records` followed by
    `prepare_records` per batch, without a record object or a rule lookup per record
    (what a piece shows is ruled once per distinct window, tab and state)."""
    latest = (now + timedelta(days=1) - _EPOCH) // _US
    earliest = (datetime(MIN_YEAR, 1, 1, tzinfo=UTC) - _EPOCH) // _US
    around = (days or LogicalDays(tz=zone(user.time_zone), cut_hour=user.day_cut_hour)).around
    day_first = day_end = 0  # a stretch of time that all has the logical day `day`
    day = _EPOCH.date()
    showing = _Showing(rules, phone=host.is_phone)
    seen: dict[tuple[str, str | None, bool, bool], Ruled] = {}
    rows = NewRecords()
    received = excluded = redacted = 0
    first = last = 0
    moment_us, moment = 0, _EPOCH  # the last end made: most records start there
    (
        add_key, add_start, add_end, add_day, add_app, add_app_raw, add_title, add_url,
        add_domain, add_idle, add_category, add_source, add_redacted,
    ) = _appends(rows)  # fmt: skip
    for start, stop, window, active, tab, private in _host_streams(
        host, spill, rules=rules, audible_is_active=audible_is_active
    ):
        key = (window, tab, private, active)
        ruled = seen.get(key)
        if ruled is None:
            if len(seen) >= _SHOWN_MAX:
                seen.clear()
            ruled = seen[key] = showing.ruled(window, tab, private=private, idle=not active)
        while start < stop:
            end = min(stop, start + _MAX_SPAN_US)
            if earliest <= start <= latest:  # what RecordIn accepts
                if not received:
                    first = start
                last = end  # pieces come in time order, and do not overlap
                received += 1
                if ruled.drop:
                    excluded += 1
                else:
                    add_start(moment if start == moment_us else _EPOCH + start * _US)
                    moment_us, moment = end, _EPOCH + end * _US
                    add_end(moment)
                    add_key(f"aw:{start}")
                    if not day_first <= start < day_end:
                        day_first, day_end, day = around(start)
                    add_day(day)
                    add_app(ruled.app)
                    add_app_raw(ruled.app_raw)
                    add_title(ruled.window_title)
                    add_url(ruled.url)
                    add_domain(ruled.domain)
                    add_idle(not active)
                    add_category(ruled.category)
                    add_source(ruled.category_source)
                    add_redacted(ruled.redacted)
                    redacted += ruled.redacted
                if received == BATCH:
                    yield _batch(rows, received, excluded, redacted, first, last)
                    rows = NewRecords()
                    received = excluded = redacted = 0
                    (
                        add_key, add_start, add_end, add_day, add_app, add_app_raw, add_title,
                        add_url, add_domain, add_idle, add_category, add_source, add_redacted,
                    ) = _appends(rows)  # fmt: skip
            start = end
    if received:
        yield _batch(rows, received, excluded, redacted, first, last)


# The columns a piece's record fills (bound once per batch: a batch is 20,000 records);
# the rest are the same for every record of an ActivityWatch import.
_FILLED = (
    "client_record_id", "ts_start", "ts_end", "day_local", "app", "app_raw", "window_title",
    "url", "domain", "is_idle", "category", "category_source", "redacted",
)  # fmt: skip


def _appends(rows: NewRecords) -> tuple[Callable[[Any], None], ...]:
    return tuple(getattr(rows, name).append for name in _FILLED)


def _batch(
    rows: NewRecords, received: int, excluded: int, redacted: int, first: int, last: int
) -> Batch:
    kept = len(rows)
    rows.capture_reason.extend([SOURCE] * kept)
    rows.screenshot_ref.extend([None] * kept)
    rows.screenshot_sha256.extend([None] * kept)
    rows.description.extend([None] * kept)
    return Batch(PreparedRecords(rows, received, excluded, redacted), first, last)


# -- the whole import ---------------------------------------------------------------------


def import_buckets(
    store: IngestStore,
    reader: _Reader,
    *,
    user: UserContext,
    rules: Rules,
    progress: Progress | None,
    audible_is_active: bool,
) -> ImportSummary:
    hosts = group_hosts(reader.buckets)
    if not hosts:
        raise ActivityWatchError(
            "no window bucket (type currentwindow) in this ActivityWatch history: nothing to import"
        )
    now = datetime.now(UTC)
    days = LogicalDays(tz=zone(user.time_zone), cut_hour=user.day_cut_hour)
    rules = rules_for_user(store, rules, user_id=user.user_id)  # as they stand at the start
    with RecordWriter(store, user=user, rules=rules, source=SOURCE, progress=progress) as writer:
        for host in hosts:
            writer.ensure_device(
                host.device_id, name=host.name, kind="phone" if host.is_phone else "desktop"
            )
            for batch in host_batches(
                host,
                reader.spill,
                rules=rules,
                user=user,
                now=now,
                audible_is_active=audible_is_active,
                days=days,
            ):
                writer.add_prepared(
                    host.device_id,
                    batch.prepared,
                    first=_EPOCH + batch.first * _US,
                    last=_EPOCH + batch.last * _US,
                )
    summary = writer.summary
    summary.events = sum(b.events for b in reader.buckets)
    summary.skipped = reader.skipped
    return summary


def import_activitywatch_file(
    store: IngestStore,
    *,
    path: Path,
    user: UserContext,
    rules: Rules,
    progress: Progress | None = None,
    audible_is_active: bool = True,
    spill_dir: Path | None = None,
) -> ImportSummary:
    """Import an ActivityWatch export file (see the module's docstring)."""
    try:
        source = path.open("rb")
    except OSError as exc:
        raise ActivityWatchError(f"cannot read {path}: {exc.strerror}") from exc
    with source, EventSpill(spill_dir) as spill:
        reader = _Reader(spill, progress, path.stat().st_size)
        read_export(source, reader, name=path.name)
        return import_buckets(
            store,
            reader,
            user=user,
            rules=rules,
            progress=progress,
            audible_is_active=audible_is_active,
        )


def import_activitywatch_server(
    store: IngestStore,
    *,
    url: str,
    user: UserContext,
    rules: Rules,
    progress: Progress | None = None,
    audible_is_active: bool = True,
    client: httpx.Client | None = None,
    page: int = 5_000,
) -> ImportSummary:
    """Import everything a running aw-server holds (see the module's docstring)."""
    with EventSpill() as spill, client or httpx.Client(timeout=60) as http:
        reader = _Reader(spill, progress, None)
        read_server(http, reader, url=url, page=page)
        return import_buckets(
            store,
            reader,
            user=user,
            rules=rules,
            progress=progress,
            audible_is_active=audible_is_active,
        )
