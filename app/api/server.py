"""Running the API: in the foreground (`timetrace serve`) or in a background
thread on a loopback port (the demo and the benchmarks).

    with serve_in_thread(services) as base_url:
        httpx.post(f"{base_url}/api/v1/records", ...)
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator

import uvicorn
from fastapi import FastAPI

from app.api import create_app
from app.errors import ConfigError
from app.jobs import run_worker
from app.runtime.services import Services


def _with_worker(app: FastAPI, services: Services) -> None:
    app_lifespan = app.router.lifespan_context  # the MCP sessions: keep them

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        task = asyncio.create_task(run_worker(services, install_signal_handlers=False))
        try:
            async with app_lifespan(app):
                yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    app.router.lifespan_context = lifespan


def serve(services: Services, *, host: str, port: int, with_worker: bool) -> None:
    """Serve until stopped. A non-loopback address is refused until a token exists."""
    from app.settings import is_loopback

    if not is_loopback(host) and services.store.count_tokens() == 0:
        raise ConfigError(
            f"refusing to listen on {host} with no API token: run `timetrace token create` first"
        )
    app = create_app(services=services)
    if with_worker:
        _with_worker(app, services)
    uvicorn.run(app, host=host, port=port, log_level="info", access_log=False)


@contextlib.contextmanager
def serve_in_thread(services: Services) -> Iterator[str]:
    """Serve the API on 127.0.0.1 on a free port; yield its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_app(services=services), log_level="warning", access_log=False, lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the API server did not start")
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
