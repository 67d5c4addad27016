"""Running TimeTrace: the schema, the API, the worker, and their health.

timetrace migrate
timetrace serve --worker
timetrace serve --aw-port 5600 --aw-user me
timetrace aw-door --user me --webui ./aw-webui
timetrace status
timetrace psql --database timetrace_demo
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from app.cli.common import console, edge, settings_from_env

if TYPE_CHECKING:
    from app.runtime.services import Services


@click.command()
@edge
def migrate() -> None:
    """Create or upgrade the database schema (a no-op when up to date)."""
    from app.db.connection import database_url
    from app.runtime.services import migrate_url

    settings = settings_from_env()
    applied = migrate_url(database_url(settings), settings=settings)
    console().print(f"applied: {', '.join(applied)}" if applied else "schema is up to date")


@click.command()
@click.option("--host", envvar="TIMETRACE_HOST", help="Address to bind (default 127.0.0.1).")
@click.option("--port", type=int, envvar="TIMETRACE_PORT", help="Port (default 8787).")
@click.option("--worker", is_flag=True, help="Also run the job worker in this process.")
@click.option(
    "--processes",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    envvar="TIMETRACE_PROCESSES",
    help="Processes serving requests (each uses up to one core).",
)
@click.option(
    "--aw-port",
    type=click.IntRange(1, 65535),
    envvar="TIMETRACE_AW_PORT",
    help="Also answer ActivityWatch's watchers on this loopback port (aw-server's: 5600).",
)
@click.option(
    "--aw-user",
    default="me",
    show_default=True,
    envvar="TIMETRACE_AW_USER",
    help="The user the ActivityWatch door records for.",
)
@click.option(
    "--aw-webui",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="TIMETRACE_AW_WEBUI",
    help="With --aw-port: serve this aw-webui build (ActivityWatch's web UI) on the door.",
)
@edge
def serve(
    host: str | None,
    port: int | None,
    worker: bool,
    processes: int,
    aw_port: int | None,
    aw_user: str,
    aw_webui: Path | None,
) -> None:
    """Serve the HTTP API (and, with --aw-port, the ActivityWatch door beside it)."""
    import contextlib

    from app.api.server import bind
    from app.api.server import serve as run
    from app.runtime.services import open_services

    settings = settings_from_env(host=host, port=port)
    if aw_webui is not None and aw_port is None:
        raise click.UsageError("--aw-webui serves the UI on the door: give --aw-port too")
    sock = bind(settings.host, settings.port)  # a taken port fails before anything starts
    with contextlib.ExitStack() as stack:
        stack.enter_context(sock)
        aw_sockets = None
        if aw_port is not None:
            from app.awdoor.server import door_sockets
            from app.awdoor.webui import webui_folder

            aw_webui = webui_folder(aw_webui) if aw_webui is not None else None
            aw_sockets = door_sockets("127.0.0.1", aw_port)
        services = stack.enter_context(open_services(settings))
        if aw_sockets is not None:
            from app.awdoor.server import door_in_thread

            user = services.store.ensure_user(
                name=aw_user, time_zone=settings.time_zone, day_cut_hour=settings.day_cut_hour
            )
            stack.enter_context(
                door_in_thread(services, user=user, sockets=aw_sockets, webui=aw_webui)
            )
        _say_where(services, port=sock.getsockname()[1], aw_port=aw_port, aw_user=aw_user)
        run(services, sock=sock, host=settings.host, with_worker=worker, processes=processes)


def _say_where(services: Services, *, port: int, aw_port: int | None, aw_user: str) -> None:
    """The URLs serve answers on, then what to do next on a new install."""
    from app.runtime.where import next_steps, serve_lines

    lines = serve_lines(host=services.settings.host, port=port, aw_port=aw_port, aw_user=aw_user)
    lines += next_steps(services.store.beginnings(), aw_port=aw_port)
    for line in lines:
        click.echo(line)


@click.command("aw-door")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    envvar="TIMETRACE_AW_HOST",
    help="A loopback address (127.0.0.1 or ::1); any other is refused.",
)
@click.option(
    "--port",
    default=5600,
    show_default=True,
    type=click.IntRange(1, 65535),
    envvar="TIMETRACE_AW_PORT",
    help="aw-server's port, where watchers look by default.",
)
@click.option("--user", "user_name", default="me", show_default=True, envvar="TIMETRACE_AW_USER")
@click.option(
    "--convert-every",
    type=click.FloatRange(min=0.1),
    default=2.0,
    show_default=True,
    help="Seconds between passes that turn the watchers' events into records.",
)
@click.option(
    "--webui",
    type=click.Path(file_okay=False, path_type=Path),
    envvar="TIMETRACE_AW_WEBUI",
    help="Serve this aw-webui build (ActivityWatch's web UI) from the door's own address.",
)
@edge
def aw_door(host: str, port: int, user_name: str, convert_every: float, webui: Path | None) -> None:
    """Answer ActivityWatch's watchers (aw-server's REST API) on loopback, for one user;
    their buckets become records as they arrive (run `timetrace worker` for the rest).
    With --webui, aw-webui too, at the door's address."""
    from app.awdoor.server import door_sockets, serve_door
    from app.awdoor.webui import webui_folder
    from app.runtime.services import open_services

    settings = settings_from_env()
    folder = webui_folder(webui) if webui is not None else None
    sockets = door_sockets(host, port)  # a bad address or a taken port fails first
    with open_services(settings) as services:
        user = services.store.ensure_user(
            name=user_name, time_zone=settings.time_zone, day_cut_hour=settings.day_cut_hour
        )
        click.echo(f"ActivityWatch door for {user_name} on http://{host}:{port}", err=True)
        serve_door(
            services, user=user, sockets=sockets, convert_every_s=convert_every, webui=folder
        )


@click.command()
@click.option("--concurrency", default=2, show_default=True, type=click.IntRange(1, 64))
@click.option(
    "--once",
    is_flag=True,
    help="Drain the queues one job at a time, then stop (for scripts and back-fills).",
)
@edge
def worker(concurrency: int, once: bool) -> None:
    """Run the background job worker."""
    import asyncio

    from app.jobs import run_worker
    from app.runtime.services import open_services

    settings = settings_from_env()
    with open_services(settings) as services:
        # With several slots, one that finds only lock-held jobs would end the drain early.
        slots = 1 if once else concurrency
        asyncio.run(run_worker(services, concurrency=slots, wait=not once, exit_if_jobs_hang=True))


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the job report as JSON.")
@edge
def status(as_json: bool) -> None:
    """Whether a server answers (on TIMETRACE_HOST:TIMETRACE_PORT) and a worker is alive,
    the database and the job queue (waiting jobs and the oldest one's age, stalled jobs,
    live workers), then what the model layer owes and why something failed. Exit
    status 1 when degraded or when nothing runs (no server and no worker)."""
    import json
    from datetime import UTC, datetime

    from app.enrich.failures import model_status_lines
    from app.pyramid.retention import storage_report
    from app.runtime.health import check_health
    from app.runtime.services import open_services
    from app.runtime.where import base_url, server_answers

    settings = settings_from_env()
    url = base_url(settings.host, settings.port)
    answers = server_answers(url)
    with open_services(settings) as services:
        report = check_health(services.store, settings=settings)
        if as_json or report.database != "ok":
            models = []
        else:
            models = model_status_lines(services.store, settings=settings, models=services.models)
        storage = (  # bytes per layer and tier, and what retention frees (docs/retention.md)
            storage_report(services.store, now=datetime.now(UTC))
            if report.database == "ok"
            else None
        )
    workers = report.jobs.workers if report.jobs else 0
    idle = not answers and not workers
    if as_json:
        extra = {"storage": storage.document()} if storage else {}
        running = {"server": {"url": url, "answers": answers}, "nothing_running": idle}
        click.echo(json.dumps({**report.document(), **running, **extra}))
    else:
        for line in _running_lines(url, answers=answers, workers=workers):
            click.echo(line)
        for line in report.lines():
            click.echo(line)
        if models:
            click.echo("model layer")
        for line in models:
            click.echo(f"  {line}")
        for line in storage.lines() if storage else []:
            click.echo(line)
        if idle:
            click.echo("nothing is running: start it with `timetrace serve --worker`")
    if report.problems or idle:
        raise SystemExit(1)


def _running_lines(url: str, *, answers: bool, workers: int) -> list[str]:
    server = (
        f"server    answers on {url}"
        if answers
        else f"server    none answers on {url} (start one: timetrace serve --worker)"
    )
    worker = (
        f"worker    {workers} alive"
        if workers
        else "worker    none alive (start one: timetrace worker, or serve --worker)"
    )
    return [server, worker]


@click.command()
@edge
def compact() -> None:
    """Rewrite the tables that hold captured text, so that text erased by deletions
    leaves the data files (WAL segments and backups keep it until they age out)."""
    from app.db.compact import compact_tables
    from app.db.connection import connect, database_url

    settings = settings_from_env()
    with connect(database_url(settings), settings=settings, autocommit=True) as conn:
        notes = compact_tables(conn)
    click.echo("compacted: " + ", ".join(notes.done))
    for skipped in notes.skipped:
        click.echo(f"not done: {skipped}")


@click.command("psql", context_settings={"ignore_unknown_options": True})
@click.option(
    "--database", help="Another database on the same server (the demo's: timetrace_demo)."
)
@click.argument("psql_args", nargs=-1, type=click.UNPROCESSED)
@edge
def psql_command(database: str | None, psql_args: tuple[str, ...]) -> None:
    """Open psql on TimeTrace's database: the embedded server is started for as long as
    psql runs when no TIMETRACE_DATABASE_URL is set. Other arguments go to psql."""
    from app.db.connection import DEFAULT_DATABASE, database_url
    from app.db.psql import run_psql, with_database

    settings = settings_from_env()
    url = database_url(settings, database=database or DEFAULT_DATABASE)
    if settings.database_url:
        url = with_database(url, database)
    raise SystemExit(run_psql(url, psql_args))


@click.command("queue-age")
@click.option(
    "--max",
    "max_s",
    type=click.FloatRange(min=1),
    help="Exit 1 when the oldest job due has waited longer than this many seconds.",
)
@edge
def queue_age(max_s: float | None) -> None:
    """How long the oldest due job has waited to start: a worker's health check
    (`timetrace status` gives the whole report)."""
    from app.runtime.services import open_services

    settings = settings_from_env()
    with open_services(settings, auto_migrate=False) as services:
        jobs = services.store.job_health(stalled_after_s=settings.worker_stalled_s)
    waited = jobs.oldest_waiting_s
    click.echo("no job waiting" if waited is None else f"oldest job waiting {waited:.0f} s")
    if max_s is not None and waited is not None and waited > max_s:
        raise click.ClickException(f"the oldest job has waited more than {max_s:.0f} s")


COMMANDS = (migrate, serve, aw_door, worker, status, compact, psql_command, queue_age)
