"""Running the API: in the foreground (`timetrace serve`) or in a background
thread on a loopback port (the demo and the benchmarks).

    sock = bind("127.0.0.1", 8787)          # first: a taken port fails before anything starts
    serve(services, sock=sock, host="127.0.0.1", with_worker=True)
    serve(services, sock=sock, host="127.0.0.1", with_worker=True, processes=2)

    with serve_in_thread(services) as base_url:
        httpx.post(f"{base_url}/api/v1/records", ...)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator

import uvicorn
from fastapi import FastAPI

from app.api import create_app
from app.errors import ConfigError
from app.jobs import run_worker
from app.runtime.services import Services

log = logging.getLogger("timetrace.api")


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before the database or the worker starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, or asyncio leaves Nagle on for the connections it accepts (it sets
    # TCP_NODELAY only when proto says TCP): each keep-alive answer would wait ~40 ms.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc} "
            "(another server there? set TIMETRACE_PORT or --port)"
        ) from exc
    return sock


def _signalled_code(server: uvicorn.Server) -> int:
    """The exit status uvicorn gives after the signal that stopped it (it re-raises it on
    the way out), for a process that must leave early: 128 + the signal, 0 if none."""
    captured: list[int] = getattr(server, "_captured_signals", [])
    return 128 + captured[-1] if captured else 0


def _with_worker(
    app: FastAPI, services: Services, server: uvicorn.Server, failures: list[BaseException]
) -> None:
    """Run the worker beside the API; a worker that gives up stops the server, so that the
    process exits non-zero and its supervisor restarts it."""

    app_lifespan = app.router.lifespan_context  # the MCP sessions: keep them

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        stop = asyncio.Event()
        task = asyncio.create_task(
            run_worker(
                services,
                install_signal_handlers=False,
                stop=stop,
                exit_if_jobs_hang=True,
                hung_exit_code=lambda: _signalled_code(server),
            )
        )

        def on_done(done: asyncio.Task[None]) -> None:
            if not done.cancelled() and (error := done.exception()) is not None:
                log.error("the worker stopped: %s; stopping the server", error)
                failures.append(error)
                server.should_exit = True

        task.add_done_callback(on_done)
        try:
            async with app_lifespan(app):
                yield
        finally:
            stop.set()
            with contextlib.suppress(Exception):  # already in `failures`
                await task

    app.router.lifespan_context = lifespan


def wait_for_token(
    services: Services,
    *,
    host: str,
    poll_s: float = 2.0,
    announce: Callable[[str], None] = log.warning,
) -> None:
    """Return once `host` is loopback or an API token exists. Until then it says so once
    and waits, rather than exit: under a supervisor (compose's `restart`), exiting would
    only restart the server in a loop until someone runs `timetrace token create`."""
    from app.settings import is_loopback

    if is_loopback(host) or services.store.count_tokens() > 0:
        return
    announce(
        f"not serving on {host} until an API token exists: "
        "run `timetrace token create --user NAME` (waiting for it)"
    )
    while services.store.count_tokens() == 0:
        time.sleep(poll_s)


def serve(
    services: Services, *, sock: socket.socket, host: str, with_worker: bool, processes: int = 1
) -> None:
    """Serve until stopped. On an address other than loopback, nothing is served until an
    API token exists (`wait_for_token`). With several `processes`, each serves requests
    with its own interpreter (the request path is CPU-bound Python: one process uses one
    core) and this one supervises them."""
    wait_for_token(services, host=host)
    if processes > 1:
        _serve_processes(services, sock=sock, with_worker=with_worker, processes=processes)
        return
    app = create_app(services=services)
    # Forwarded headers are read by the app itself, from TIMETRACE_TRUSTED_PROXIES only.
    config = uvicorn.Config(app, log_level="info", access_log=False, proxy_headers=False)
    server = uvicorn.Server(config)
    failures: list[BaseException] = []
    if with_worker:
        _with_worker(app, services, server, failures)
    server.run(sockets=[sock])
    if failures:
        raise failures[0]


def process_app() -> FastAPI:
    """The app of one of several server processes (uvicorn calls this in each): services
    of its own, on the database the supervising process opened, closed at shutdown."""
    from app.runtime.services import open_services
    from app.settings import Settings

    stack = contextlib.ExitStack()
    services = stack.enter_context(open_services(Settings(), auto_migrate=False))
    app = create_app(services=services)
    app_lifespan = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        try:
            async with app_lifespan(app):
                yield
        finally:
            stack.close()

    app.router.lifespan_context = lifespan
    return app


def _serve_processes(
    services: Services, *, sock: socket.socket, with_worker: bool, processes: int
) -> None:
    from uvicorn.supervisors import Multiprocess

    # The processes are started fresh: they find the database this one resolved (the
    # embedded server stays up while this process lives).
    os.environ["TIMETRACE_DATABASE_URL"] = services.url
    config = uvicorn.Config(
        f"{__name__}:process_app",
        factory=True,
        workers=processes,
        log_level="info",
        access_log=False,
        proxy_headers=False,
    )
    supervisor = Multiprocess(config, sockets=[sock])
    failures: list[BaseException] = []
    loop, stop = asyncio.new_event_loop(), asyncio.Event()

    def work() -> None:  # the job worker, beside the supervisor
        try:
            loop.run_until_complete(
                run_worker(
                    services, install_signal_handlers=False, stop=stop, exit_if_jobs_hang=True
                )
            )
        except Exception as exc:  # a worker that gives up stops the server
            log.error("the worker stopped: %s; stopping the server", exc)
            failures.append(exc)
            supervisor.should_exit.set()
        finally:
            loop.close()

    worker = threading.Thread(target=work, name="timetrace-worker", daemon=True)
    if with_worker:
        worker.start()
    supervisor.run()
    if worker.is_alive():
        loop.call_soon_threadsafe(stop.set)
        worker.join(timeout=60)
    if failures:
        raise failures[0]


@contextlib.contextmanager
def serve_in_thread(services: Services) -> Iterator[str]:
    """Serve the API on 127.0.0.1 on a free port; yield its base URL."""
    sock = bind("127.0.0.1", 0)
    config = uvicorn.Config(
        create_app(services=services),
        log_level="warning",
        access_log=False,
        lifespan="on",
        proxy_headers=False,
    )
    with running_in_thread(config, sockets=[sock], what="the API server"):
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"


@contextlib.contextmanager
def running_in_thread(
    config: uvicorn.Config, *, sockets: list[socket.socket], what: str
) -> Iterator[None]:
    """Run a uvicorn server on a background thread while the block runs (tests and
    benchmarks); the sockets are closed after it stops."""
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": sockets}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError(f"{what} did not start")
        time.sleep(0.01)
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        for sock in sockets:
            sock.close()
