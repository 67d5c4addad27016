"""ActivityWatch buckets grouped by host, and each host's window, afk and browser
events cut into TimeTrace records and batches (one device per host)."""

from __future__ import annotations

import functools
import heapq
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from operator import itemgetter
from typing import Any

import orjson

from app.boundary import import_text
from app.importers.aw_read import AFK, EPOCH, MAX_SPAN_US, SOURCE, US, WEB, WINDOW, Bucket, Host
from app.importers.spill import EventSpill
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
from app.importers.writer import BATCH, ImportedRecord
from app.ingest.records import (
    APP_MAX,
    MIN_YEAR,
    TITLE_MAX,
    URL_MAX,
    PreparedRecords,
)
from app.ingest.ruled import LogicalDays, Ruled, rule_text
from app.rules.categories import Rules
from app.store.accounts import UserContext
from app.store.records import NewRecords
from app.timeutil import zone

_NOT_DEVICE = re.compile(r"[^A-Za-z0-9._:-]+")
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
    latest = (now + timedelta(days=1) - EPOCH) // US
    earliest = (datetime(MIN_YEAR, 1, 1, tzinfo=UTC) - EPOCH) // US
    phone = host.is_phone
    for piece in pieces:
        app, title, url, incognito = _shown(piece.window, piece.tab, phone, piece.private)
        start, stop, idle = piece.start, piece.end, not piece.active
        while start < stop:
            end = min(stop, start + MAX_SPAN_US)
            if earliest <= start <= latest:  # what RecordIn accepts
                yield ImportedRecord(
                    f"aw:{start}",
                    EPOCH + start * US,
                    EPOCH + end * US,
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
    latest = (now + timedelta(days=1) - EPOCH) // US
    earliest = (datetime(MIN_YEAR, 1, 1, tzinfo=UTC) - EPOCH) // US
    around = (days or LogicalDays(tz=zone(user.time_zone), cut_hour=user.day_cut_hour)).around
    day_first = day_end = 0  # a stretch of time that all has the logical day `day`
    day = EPOCH.date()
    showing = _Showing(rules, phone=host.is_phone)
    seen: dict[tuple[str, str | None, bool, bool], Ruled] = {}
    rows = NewRecords()
    received = excluded = redacted = 0
    first = last = 0
    moment_us, moment = 0, EPOCH  # the last end made: most records start there
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
            end = min(stop, start + MAX_SPAN_US)
            if earliest <= start <= latest:  # what RecordIn accepts
                if not received:
                    first = start
                last = end  # pieces come in time order, and do not overlap
                received += 1
                if ruled.drop:
                    excluded += 1
                else:
                    add_start(moment if start == moment_us else EPOCH + start * US)
                    moment_us, moment = end, EPOCH + end * US
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
