"""Running the door: on loopback only, for one user, with the live conversion beside it.

sockets = door_sockets("127.0.0.1", 5600)     # ConfigError for a non-loopback address
serve_door(services, user=user, sockets=sockets)

with door_in_thread(services, user=user) as base_url:   # tests and benchmarks
    httpx.post(f"{base_url}/api/0/buckets/…/heartbeat?pulsetime=2", json=…)

Either takes `webui=` an aw-webui build folder (`webui_folder`), served from `/`.
"""

from __future__ import annotations

import contextlib
import gc
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import uvicorn

from app.api.server import bind, running_in_thread
from app.awdoor.api import door_app
from app.awdoor.guard import check_loopback
from app.awdoor.live import LiveConversion, converting
from app.awdoor.marks import DirtyMarks
from app.awdoor.private import Privacy
from app.runtime.services import Services
from app.store.accounts import UserContext

DEFAULT_PORT = 5600  # aw-server's: watchers find the door where they look for it
CONVERT_EVERY_S = 2.0


def door_sockets(host: str, port: int) -> list[socket.socket]:
    """The door's listening sockets: `host` (loopback only), and for 127.0.0.1 also ::1
    where this machine has IPv6 (a watcher told `localhost` may try either)."""
    check_loopback(host)
    sockets = [bind(host.strip("[]"), port)]
    if host in ("127.0.0.1", "localhost") and socket.has_ipv6:
        with contextlib.suppress(Exception):
            sockets.append(bind("::1", sockets[0].getsockname()[1]))
    return sockets


def _config(
    services: Services,
    *,
    user: UserContext,
    port: int,
    convert_every_s: float,
    webui: Path | None,
) -> uvicorn.Config:
    marks = DirtyMarks()  # what the door writes, for its conversion
    privacy = Privacy(services.rules)  # the door's and its conversion's, shared
    live = LiveConversion(
        services.store, user=user, rules=services.rules, marks=marks, privacy=privacy
    )
    app = door_app(
        store=services.store,
        user=user,
        port=port,
        privacy=privacy,
        rules=services.rules,
        settings=services.settings,
        marks=marks,
        background=converting(live, every_s=convert_every_s, clock=lambda: datetime.now(UTC)),
        webui=webui,
    )
    return uvicorn.Config(
        app, log_level="warning", access_log=False, proxy_headers=False, lifespan="on"
    )


def serve_door(
    services: Services,
    *,
    user: UserContext,
    sockets: list[socket.socket],
    convert_every_s: float = CONVERT_EVERY_S,
    webui: Path | None = None,
) -> None:
    """Serve until stopped."""
    port = sockets[0].getsockname()[1]
    config = _config(services, user=user, port=port, convert_every_s=convert_every_s, webui=webui)
    # Everything loaded so far lives as long as the process: out of the cyclic
    # collector's full passes, which would otherwise stop the event loop (and every
    # heartbeat waiting on it) for tens of milliseconds now and then.
    gc.collect()
    gc.freeze()
    uvicorn.Server(config).run(sockets=sockets)


@contextlib.contextmanager
def door_in_thread(
    services: Services,
    *,
    user: UserContext,
    sockets: list[socket.socket] | None = None,
    convert_every_s: float = CONVERT_EVERY_S,
    webui: Path | None = None,
) -> Iterator[str]:
    """Serve the door in a background thread (on a free loopback port unless given
    sockets); yield its base URL."""
    sockets = sockets or [bind("127.0.0.1", 0)]
    port = sockets[0].getsockname()[1]
    config = _config(services, user=user, port=port, convert_every_s=convert_every_s, webui=webui)
    with running_in_thread(config, sockets=sockets, what="the ActivityWatch door"):
        yield f"http://127.0.0.1:{port}"
