"""The real ActivityWatch server and client, for tests that compare TimeTrace with them.

`aw-server` (the Python server, pinned in requirements-aw-server.lock) runs from its own
virtualenv, `.aw-venv`, which `make install` builds: it needs Flask < 2.3, which nothing
else here may pin. `aw-client` and `aw-core` (requirements-aw.lock) are imported here
in-process: they are the very code ActivityWatch's watchers and web UI run.

    with aw_server(home) as server, aw_client_for(server) as client:  # or the fixtures
        send(client, day.buckets, day.beats)
        seconds = canonical_app_seconds(client, window=..., afk=..., browsers=[...], ...)

Each server keeps its events in memory (`--storage memory`, nothing on disk) and its
configuration and logs under the directory it is given, as does the client.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
from aw_client import ActivityWatchClient
from aw_client.queries import (
    AndroidQueryParams,
    DesktopQueryParams,
    canonicalEvents,
    default_limit,
    fullDesktopQuery,
)
from aw_core.models import Event

from tests.aw_day import Beat, BucketSpec
from tests.faults import wait_for

ROOT = Path(__file__).resolve().parents[1]
AW_VENV = ROOT / ".aw-venv"
AW_SERVER = AW_VENV / "bin" / "aw-server"
AW_PYTHON = AW_VENV / "bin" / "python"
# aw-server with its web UI taken from another folder: the wheel's `static` (index.html
# without the scripts it loads) swapped for an aw-webui build before the app is made.
_WITH_STATIC = (
    "import sys, aw_server.server as s; s.static_folder = sys.argv.pop(1); "
    "from aw_server import main; sys.argv[0] = 'aw-server'; sys.exit(main())"
)
START_TIMEOUT_S = 30.0  # about a second on an idle machine; much more on a loaded one

# aw-webui's categories have this shape in the server's settings; `canonicalEvents`
# reads them from the default server unless given, so tests always pass their own.
Classes = list[tuple[list[str], dict[str, Any]]]
CLASSES: Classes = [
    (["Work", "Programming"], {"type": "regex", "regex": "Code|GitHub|PowerShell"}),
    (["Media", "Video"], {"type": "regex", "regex": "YouTube|bilibili", "ignore_case": True}),
    (["Comms"], {"type": "regex", "regex": "微信|Slack"}),
]


@dataclass(frozen=True, slots=True)
class AwServer:
    host: str
    port: int
    home: Path  # its configuration, cache and log directories (and the client's)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"


def aw_dirs(home: Path) -> dict[str, str]:
    """Environment variables that put ActivityWatch's directories (configuration, data,
    cache, logs) under `home`: for the server's process and the test's own (aw-client
    writes its configuration file on first use)."""
    names = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")
    return {name: str(home / name.lower()) for name in names}


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/api/0/info", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def aw_server(
    home: Path, *, storage: str = "memory", webui: Path | None = None
) -> Iterator[AwServer]:
    """A real aw-server on a free loopback port, in memory, stopped when the block ends.
    `storage="peewee"`: its default SQLite store under `home` instead (memory inserts
    are quadratic: a year of history needs a database). `webui`: an aw-webui build it
    serves from `/` in place of its own static files."""
    if not AW_SERVER.exists():
        raise RuntimeError(f"{AW_SERVER.relative_to(ROOT)} is missing: run `make install`")
    home.mkdir(parents=True, exist_ok=True)
    log = home / "aw-server.log"
    for attempt in range(3):  # a port taken between choosing and binding: another one
        server = AwServer("127.0.0.1", _free_port(), home)
        command = [str(AW_SERVER)]
        if webui is not None:
            command = [str(AW_PYTHON), "-c", _WITH_STATIC, str(webui)]
        with log.open("ab") as out:
            process = subprocess.Popen(
                [*command, "--testing", "--storage", storage, *_address(server)],
                env={**os.environ, **aw_dirs(home)},
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            if _started(process, server):
                yield server
                return
            if attempt == 2:
                tail = log.read_text(encoding="utf-8", errors="replace")[-2_000:]
                raise RuntimeError(f"aw-server did not start:\n{tail}")
        finally:
            process.terminate()
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


def _address(server: AwServer) -> list[str]:
    return ["--host", server.host, "--port", str(server.port)]


def _started(process: subprocess.Popen[bytes], server: AwServer) -> bool:
    """True once the server answers; False when it exits first (its port taken)."""
    wait_for(
        lambda: process.poll() is not None or _answers(server.url),
        timeout=START_TIMEOUT_S,
        interval=0.05,
    )
    return process.poll() is None and _answers(server.url)


@contextmanager
def aw_client_for(
    server: AwServer, *, name: str = "timetrace-test"
) -> Iterator[ActivityWatchClient]:
    """`aw-client` as a watcher uses it, pointed at `server` (the caller's environment
    puts its files under the server's home: `aw_dirs`)."""
    client = ActivityWatchClient(name, testing=True, host=server.host, port=server.port)
    try:
        yield client
    finally:
        client.instance.fp.close()  # its single-instance lock, else closed by the GC


def send(client: ActivityWatchClient, buckets: Sequence[BucketSpec], beats: Iterable[Beat]) -> int:
    """Create the buckets (with their own hostnames, as each watcher reports its own) and
    send the heartbeats one by one, unqueued, as aw-client's watchers do. How many sent."""
    own = client.client_hostname
    for bucket in buckets:
        client.client_hostname = bucket.hostname
        client.create_bucket(bucket.id, event_type=bucket.type, queued=False)
    client.client_hostname = own
    sent = 0
    for beat in beats:
        client.heartbeat(beat.bucket, beat.event, pulsetime=beat.pulsetime, queued=False)
        sent += 1
    return sent


def activity_query(
    *, window: str, afk: str, browsers: Sequence[str], classes: Classes | None = None
) -> str:
    """aw-webui's Activity view query, with categories: aw-client's `fullDesktopQuery`
    (a copy of aw-webui's `queries.ts`), whose browser part leaves `{default_limit}`
    unfilled (a query2 syntax error on every server), filled in as aw-webui fills it.
    Its answer: `window.app_events` (seconds per app), `window.cat_events` (per
    category), `events`, `browser.domains`, ..."""
    params = DesktopQueryParams(
        bid_window=window,
        bid_afk=afk,
        bid_browsers=list(browsers),
        classes=list(CLASSES if classes is None else classes),
    )
    return fullDesktopQuery(params).replace("{default_limit}", str(default_limit))


def seconds_by(events: Iterable[dict[str, Any]], key: str) -> dict[str, float]:
    """Seconds per value of `key` in merged events (a category's name parts joined by >)."""
    seconds: dict[str, float] = {}
    for event in events:
        value = event["data"].get(key, "")
        name = " > ".join(value) if isinstance(value, list) else str(value)
        seconds[name] = seconds.get(name, 0.0) + float(event["duration"])
    return seconds


def canonical_app_seconds(
    client: ActivityWatchClient,
    *,
    window: str,
    afk: str,
    browsers: Sequence[str],
    start: datetime,
    end: datetime,
    classes: Classes | None = None,
    audible: bool = True,
) -> dict[str, float]:
    """Active seconds per app as aw-webui shows them: `canonicalEvents` (window events
    flooded, intersected with not-afk ∪ audible focused tabs, categorised) summed by app
    with `merge_events_by_keys`, run by the server's own query engine."""
    params = DesktopQueryParams(
        bid_window=window,
        bid_afk=afk,
        bid_browsers=list(browsers),
        classes=list(CLASSES if classes is None else classes),
        include_audible=audible,
    )
    query = canonicalEvents(params) + '\nRETURN = merge_events_by_keys(events, ["app"]);'
    (result,) = client.query(query, [(start, end)])
    seconds: dict[str, float] = {}
    for event in result:
        app = event["data"].get("app", "")
        seconds[app] = seconds.get(app, 0.0) + float(event["duration"])
    return seconds


def canonical_app_seconds_in_process(
    buckets: dict[str, dict[str, Any]],
    *,
    window: str,
    afk: str | None,
    browsers: Sequence[str],
    start: datetime,
    end: datetime,
    classes: Classes | None = None,
    audible: bool = True,
) -> dict[str, float]:
    """`canonical_app_seconds`, run by aw-core's own query engine (`aw_query`, over the
    in-memory `aw_datastore` aw-server uses with `--storage memory`) in this process:
    the very code behind aw-server's `/api/0/query/`, with no server to start, for
    tests of many generated histories. `buckets` is an export's `buckets` object. With
    no afk bucket (`afk=None`), the query aw-webui runs for a phone."""
    from aw_datastore import Datastore
    from aw_datastore.storages import MemoryStorage
    from aw_query.query2 import query

    store = Datastore(storage_strategy=MemoryStorage, testing=True)
    for bucket_id, bucket in buckets.items():
        made = store.create_bucket(
            bucket_id, type=bucket["type"], client="test", hostname=bucket["hostname"]
        )
        made.insert(
            [
                Event(timestamp=e["timestamp"], duration=e["duration"], data=e["data"])
                for e in bucket["events"]
            ]
        )
    chosen = list(CLASSES if classes is None else classes)
    params: DesktopQueryParams | AndroidQueryParams
    if afk is None:
        params = AndroidQueryParams(bid_android=window, classes=chosen)
    else:
        params = DesktopQueryParams(
            bid_window=window,
            bid_afk=afk,
            bid_browsers=list(browsers),
            classes=chosen,
            include_audible=audible,
        )
    text = canonicalEvents(params) + '\nRETURN = merge_events_by_keys(events, ["app"]);'
    seconds: dict[str, float] = {}
    for event in query("canonical", text, start, end, store):
        app = event.data.get("app", "")
        seconds[app] = seconds.get(app, 0.0) + event.duration.total_seconds()
    return seconds


def export(server: AwServer) -> bytes:
    """The server's whole history as `GET /api/0/export` gives it (what a user saves)."""
    response = httpx.get(f"{server.url}/api/0/export", timeout=60)
    response.raise_for_status()
    return response.content
