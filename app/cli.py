"""The `timetrace` command: a thin shell over functions that live elsewhere.

timetrace migrate
timetrace token create --user me
timetrace device add laptop --kind laptop
timetrace serve --worker
timetrace status
timetrace rules check --period last_week
timetrace import activitywatch aw-export.json --user me
timetrace import screenpipe ~/.screenpipe/db.sqlite --user me
timetrace mcp --user me
timetrace demo
timetrace psql --database timetrace_demo
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, get_args

import click
from pydantic import ValidationError
from rich.console import Console

from app.db.embedded import install_sigterm_exit
from app.errors import TimeTraceError
from app.settings import Settings
from app.store import DEVICE_KINDS
from app.tools.periods import Period

if TYPE_CHECKING:
    from app.tools.results import ToolOutcome

F = TypeVar("F", bound=Callable[..., Any])
console = Console(width=max(Console().width, 100))


def _settings(**overrides: Any) -> Settings:
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        problems = "; ".join(
            f"TIMETRACE_{'_'.join(str(p) for p in e['loc']).upper()}: {e['msg']}"
            for e in exc.errors()
        )
        raise click.ClickException(f"bad configuration: {problems}") from exc


def _database_url(settings: Settings, database: str | None) -> str | None:
    """The URL of another database on the same server (the demo's: timetrace_demo), or
    None for the configured one."""
    if database is None:
        return None
    from app.db.connection import database_url
    from app.db.psql import with_database

    if settings.database_url:
        return with_database(settings.database_url, database)
    return database_url(settings, database=database)


DATABASE_HELP = "Another database on the same server (the demo's: timetrace_demo)."


def _edge(func: F) -> F:
    """Translate TimeTrace errors into one-line CLI errors."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except TimeTraceError as exc:
            raise click.ClickException(exc.message) from exc

    return wrapper  # type: ignore[return-value]


@click.group()
@click.version_option(package_name="timetrace")
def main() -> None:
    """TimeTrace: a self-hosted activity memory in PostgreSQL."""
    install_sigterm_exit()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    # Ours at INFO: breaker openings, capability fall-backs and rejected answers, once each.
    logging.getLogger("timetrace").setLevel(logging.INFO)


@main.command()
@_edge
def migrate() -> None:
    """Create or upgrade the database schema (a no-op when up to date)."""
    from app.db.connection import database_url
    from app.runtime.services import migrate_url

    settings = _settings()
    applied = migrate_url(database_url(settings), settings=settings)
    console.print(f"applied: {', '.join(applied)}" if applied else "schema is up to date")


@main.command()
@click.option("--host", envvar="TIMETRACE_HOST", help="Address to bind (default 127.0.0.1).")
@click.option("--port", type=int, envvar="TIMETRACE_PORT", help="Port (default 8787).")
@click.option("--worker", is_flag=True, help="Also run the job worker in this process.")
@_edge
def serve(host: str | None, port: int | None, worker: bool) -> None:
    """Serve the HTTP API."""
    from app.api.server import bind
    from app.api.server import serve as run
    from app.runtime.services import open_services

    settings = _settings(host=host, port=port)
    sock = bind(settings.host, settings.port)  # a taken port fails before anything starts
    with sock, open_services(settings) as services:
        run(services, sock=sock, host=settings.host, with_worker=worker)


@main.command()
@click.option("--concurrency", default=2, show_default=True, type=click.IntRange(1, 64))
@click.option(
    "--once",
    is_flag=True,
    help="Drain the queues one job at a time, then stop (for scripts and back-fills).",
)
@_edge
def worker(concurrency: int, once: bool) -> None:
    """Run the background job worker."""
    from app.jobs import run_worker
    from app.runtime.services import open_services

    settings = _settings()
    with open_services(settings) as services:
        # With several slots, one that finds only lock-held jobs would end the drain early.
        slots = 1 if once else concurrency
        asyncio.run(run_worker(services, concurrency=slots, wait=not once, exit_if_jobs_hang=True))


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print the job report as JSON.")
@_edge
def status(as_json: bool) -> None:
    """The database and the job queue (waiting jobs and the oldest one's age, stalled
    jobs, live workers), then what the model layer owes and why something failed.
    Exit status 1 when degraded (for health checks)."""
    import json

    from app.enrich.failures import model_status_lines
    from app.runtime.health import check_health
    from app.runtime.services import open_services

    settings = _settings()
    with open_services(settings) as services:
        report = check_health(services.store, settings=settings)
        if as_json or report.database != "ok":
            models = []
        else:
            models = model_status_lines(services.store, settings=settings, models=services.models)
    if as_json:
        click.echo(json.dumps(report.document()))
    else:
        for line in report.lines():
            click.echo(line)
        if models:
            click.echo("model layer")
        for line in models:
            click.echo(f"  {line}")
    if report.problems:
        raise SystemExit(1)


@main.command()
@_edge
def compact() -> None:
    """Rewrite the tables that hold captured text, so that text erased by deletions
    leaves the data files (WAL segments and backups keep it until they age out)."""
    from app.db.compact import compact_tables
    from app.db.connection import connect, database_url

    settings = _settings()
    with connect(database_url(settings), settings=settings, autocommit=True) as conn:
        notes = compact_tables(conn)
    click.echo("compacted: " + ", ".join(notes.done))
    for skipped in notes.skipped:
        click.echo(f"not done: {skipped}")


@main.group()
def token() -> None:
    """API tokens."""


@token.command("create")
@click.option(
    "--user", "user_name", default="me", show_default=True, help="User the token acts for."
)
@click.option("--name", default="", help="A label to recognise the token by.")
@_edge
def token_create(user_name: str, name: str) -> None:
    """Create an API token (the user too, if new). The token is shown only once."""
    from app.runtime.auth import hash_token, new_token
    from app.runtime.services import open_services

    settings = _settings()
    with open_services(settings) as services:
        user = services.store.ensure_user(
            name=user_name, time_zone=settings.time_zone, day_cut_hour=settings.day_cut_hour
        )
        secret = new_token()
        services.store.add_token(user_id=user.user_id, token_hash=hash_token(secret), name=name)
    click.echo(secret)


@main.group()
def device() -> None:
    """Capture devices."""


@device.command("add")
@click.argument("device_id")
@click.option("--user", "user_name", default="me", show_default=True)
@click.option("--name", default="")
@click.option(
    "--kind",
    type=click.Choice(DEVICE_KINDS),
    default="desktop",
    show_default=True,
)
@_edge
def device_add(device_id: str, user_name: str, name: str, kind: str) -> None:
    """Register a device so its records can be ingested."""
    import re

    from app.runtime.services import open_services
    from app.store import DEVICE_ID_PATTERN

    if not re.match(DEVICE_ID_PATTERN, device_id):
        raise click.BadParameter(
            "letters, digits and . _ : - only, at most 64", param_hint="DEVICE_ID"
        )
    settings = _settings()
    with open_services(settings) as services:
        user = services.store.get_user(name=user_name)
        if user is None:
            raise click.ClickException(
                f"no user {user_name!r}: "
                f"create one with `timetrace token create --user {user_name}`"
            )
        created = services.store.add_device(
            user_id=user.user_id, device_id=device_id, name=name, kind=kind
        )
    click.echo(f"device {device_id} {'added' if created else 'already registered'}")


@main.command("psql", context_settings={"ignore_unknown_options": True})
@click.option(
    "--database", help="Another database on the same server (the demo's: timetrace_demo)."
)
@click.argument("psql_args", nargs=-1, type=click.UNPROCESSED)
@_edge
def psql_command(database: str | None, psql_args: tuple[str, ...]) -> None:
    """Open psql on TimeTrace's database: the embedded server is started for as long as
    psql runs when no TIMETRACE_DATABASE_URL is set. Other arguments go to psql."""
    from app.db.connection import DEFAULT_DATABASE, database_url
    from app.db.psql import run_psql, with_database

    settings = _settings()
    url = database_url(settings, database=database or DEFAULT_DATABASE)
    if settings.database_url:
        url = with_database(url, database)
    raise SystemExit(run_psql(url, psql_args))


@main.command("queue-age")
@click.option(
    "--max",
    "max_s",
    type=click.FloatRange(min=1),
    help="Exit 1 when the oldest job due has waited longer than this many seconds.",
)
@_edge
def queue_age(max_s: float | None) -> None:
    """How long the oldest due job has waited to start: a worker's health check
    (`timetrace status` gives the whole report)."""
    from app.runtime.services import open_services

    settings = _settings()
    with open_services(settings, auto_migrate=False) as services:
        jobs = services.store.job_health(stalled_after_s=settings.worker_stalled_s)
    waited = jobs.oldest_waiting_s
    click.echo("no job waiting" if waited is None else f"oldest job waiting {waited:.0f} s")
    if max_s is not None and waited is not None and waited > max_s:
        raise click.ClickException(f"the oldest job has waited more than {max_s:.0f} s")


@main.command("backfill")
@_edge
def backfill_command() -> None:
    """Bring every layer up to date, newest day first (after an import, say)."""
    from datetime import UTC, datetime

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from app.enrich.catchup import enrich
    from app.pyramid.build import backfill
    from app.runtime.services import open_services

    settings = _settings()
    started = datetime.now(UTC)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with open_services(settings) as services, Progress(*columns, console=console) as progress:
        task = progress.add_task("days", total=None)

        def on_day(day: str, done: int, total: int) -> None:
            progress.update(task, total=total, completed=done, description=f"day {day}")

        summary = backfill(services.store, now=started, settings=settings, progress=on_day)
        enriched = None
        if services.models.chat_enabled or services.models.vision_enabled:
            progress.update(task, description="model layer")
            enriched = enrich(
                services.store,
                services.models,
                settings=settings,
                now=started,
                progress=lambda text: progress.update(task, description=text),
            )
    seconds = (datetime.now(UTC) - started).total_seconds()
    console.print(
        f"{summary.days} days, {summary.episodes:,} new episodes, "
        f"{summary.day_digests} day digests, {summary.period_digests} week/month digests "
        f"in {seconds:.1f} s"
    )
    if enriched is not None:
        console.print(
            f"model layer: {enriched.summaries} summaries, {enriched.embeddings} embeddings, "
            f"{enriched.narratives} narratives, {enriched.descriptions} frame descriptions"
            + (" — the endpoint went away; the rest waits as pending" if enriched.waiting else "")
        )


@main.group("import")
def import_group() -> None:
    """Bring in history from other trackers (then the pyramid is built, newest day first)."""


_NO_BUILD = click.option(
    "--no-build",
    is_flag=True,
    help="Leave the pyramid to the worker (jobs are queued) instead of building it now.",
)


@import_group.command("activitywatch")
@click.argument("export", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--url", help="Read a running aw-server instead, e.g. http://localhost:5600.")
@click.option("--user", "user_name", default="me", show_default=True)
@click.option(
    "--audible-is-active/--audible-is-not-active",
    default=True,
    show_default=True,
    help="Count a focused browser tab playing sound as active, as ActivityWatch's UI does.",
)
@_NO_BUILD
@_edge
def import_activitywatch(
    export: Path | None, url: str | None, user_name: str, audible_is_active: bool, no_build: bool
) -> None:
    """Import an ActivityWatch export (EXPORT.json) or a running aw-server (--url)."""
    from app.importers.activitywatch import (
        import_activitywatch_file,
        import_activitywatch_server,
    )

    if (export is None) == (url is None):
        raise click.UsageError("give an EXPORT file or --url of a running aw-server, not both")

    def run(services: Any, user: Any, progress: Any) -> Any:
        common = {"user": user, "rules": services.rules, "progress": progress}
        if export is not None:
            return import_activitywatch_file(
                services.store, path=export, audible_is_active=audible_is_active, **common
            )
        assert url is not None  # one of the two, checked above
        return import_activitywatch_server(
            services.store, url=url, audible_is_active=audible_is_active, **common
        )

    _import(user_name, run, build=not no_build)


@import_group.command("screenpipe")
@click.argument("database", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--user", "user_name", default="me", show_default=True)
@click.option("--device", default="screenpipe", show_default=True, help="The TimeTrace device.")
@click.option(
    "--audio", is_flag=True, help="Also import audio transcriptions (device DEVICE-audio)."
)
@_NO_BUILD
@_edge
def import_screenpipe(
    database: Path, user_name: str, device: str, audio: bool, no_build: bool
) -> None:
    """Import a screenpipe database (~/.screenpipe/db.sqlite): frames, their text, and audio."""
    from app.importers.screenpipe import import_screenpipe as run_import

    def run(services: Any, user: Any, progress: Any) -> Any:
        return run_import(
            services.store,
            path=database,
            user=user,
            rules=services.rules,
            device_id=device,
            audio=audio,
            progress=progress,
        )

    _import(user_name, run, build=not no_build)


def _import(user_name: str, run: Callable[..., Any], *, build: bool) -> None:
    """Run an importer with a progress bar, print its summary, then build the pyramid."""
    from datetime import UTC, datetime

    from rich.progress import (
        BarColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    from app.pyramid.build import backfill
    from app.runtime.services import open_services

    settings = _settings()
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[done]}"),
        TimeElapsedColumn(),
    )
    started = datetime.now(UTC)
    with open_services(settings) as services:
        user = services.store.ensure_user(
            name=user_name, time_zone=settings.time_zone, day_cut_hour=settings.day_cut_hour
        )
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task("reading", total=None, done="")

            def progress(stage: str, done: int, total: int | None) -> None:
                unit = f"{done / 1e6:,.0f} MB" if stage == "reading" and total else f"{done:,}"
                bar.update(task, description=stage, completed=done, total=total, done=unit)

            summary = run(services, user, progress)
        seconds = (datetime.now(UTC) - started).total_seconds()
        span = (
            f"{summary.first:%Y-%m-%d %H:%M} – {summary.last:%Y-%m-%d %H:%M} UTC"
            if summary.first and summary.last
            else "nothing"
        )
        console.print(
            f"{summary.source}: {summary.events:,} events → {summary.records:,} records in "
            f"{seconds:.1f} s: {summary.new:,} new, {summary.duplicate:,} duplicate, "
            f"{summary.excluded:,} excluded, {summary.redacted:,} redacted"
            + (f", {summary.skipped:,} events skipped" if summary.skipped else "")
        )
        console.print(f"span {span}; devices: {', '.join(summary.devices) or 'none'}")
        if not build or not summary.new:
            if summary.new:
                console.print("the pyramid is queued for the worker (timetrace worker)")
            return
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task("pyramid", total=None, done="")

            def on_day(day: str, done: int, total: int) -> None:
                bar.update(task, description=f"day {day}", completed=done, total=total, done="")

            built = backfill(
                services.store, now=datetime.now(UTC), settings=settings, progress=on_day
            )
    console.print(
        f"pyramid: {built.days} days, {built.episodes:,} episodes, {built.day_digests} day "
        f"digests, {built.period_digests} week/month digests (newest day first)"
    )


@main.command("report")
@click.argument("grain", type=click.Choice(["day", "week", "month"]))
@click.argument("scope")
@click.option("--user", "user_name", default="me", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["md", "html"]), default="md", show_default=True)
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None)
@click.option("--database", help=DATABASE_HELP)
@_edge
def report_command(
    grain: str,
    scope: str,
    user_name: str,
    fmt: str,
    lang: str,
    output: Path | None,
    database: str | None,
) -> None:
    """A period from its digests and signals: timetrace report week 2026-W23 --format html."""
    from datetime import UTC, datetime

    from app.runtime.services import open_services
    from app.web.i18n import Translator
    from app.web.report import build_report, render_html, render_markdown

    settings = _settings()
    with open_services(settings, url=_database_url(settings, database)) as services:
        user = services.store.get_user(name=user_name)
        if user is None:
            raise click.ClickException(f"no user {user_name!r}")
        report = build_report(
            services.tool_context(user=user, now=datetime.now(UTC)), grain=grain, key=scope
        )
    t = Translator("zh" if lang == "zh" else "en")
    text = render_html(report, t=t) if fmt == "html" else render_markdown(report, t=t)
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {output}", err=True)


@main.group()
def rules() -> None:
    """Category and privacy rules."""


@rules.command("check")
@click.option("--user", "user_name", default="me", show_default=True)
@click.option(
    "--period",
    type=click.Choice([p for p in get_args(Period) if p != "custom"]),
    default="last_week",
    show_default=True,
)
@click.option("--top", type=click.IntRange(1, 50), default=10, show_default=True)
@_edge
def rules_check(user_name: str, period: str, top: int) -> None:
    """The apps and sites with the most uncategorized time, and a rule for each."""
    from app.tools.coverage import Uncovered, rules_snippet
    from app.tools.results import ToolError
    from app.tools.stats import StatsResult

    result = _run_tool(
        user_name, "query_stats", {"period": period, "metric": "uncategorized", "top_n": top}
    )
    if isinstance(result, ToolError):
        raise click.ClickException(result.error)
    assert isinstance(result, StatsResult)  # query_stats answers its own model
    active = result.active_seconds or 0
    uncategorized = result.uncategorized_seconds or 0
    share = uncategorized / active if active else 0.0
    click.echo(
        f"{result.from_} – {result.to}: {uncategorized / 3600:.2f} h "
        f"uncategorized of {active / 3600:.2f} h active ({share:.1%})"
    )
    items = [i for i in result.items or [] if isinstance(i, Uncovered)]
    for item in items:
        where = f"{item.app} · {item.site}" if item.site else item.app
        note = "" if item.rule else "  (private or untitled windows: no rule to suggest)"
        click.echo(f"{item.hours:>8.2f} h  {where}{note}")
    snippet = rules_snippet(items)
    if snippet:
        click.echo(
            "\nAdd these to your rules file (TIMETRACE_RULES_FILE), each with its category:\n"
        )
        click.echo(snippet)


@main.command("tool", context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("name", required=False)
@click.option("--user", "user_name", default="me", show_default=True)
@click.option("--list", "show_list", is_flag=True, help="List the tools and their arguments.")
@click.option("--database", help=DATABASE_HELP)
@click.pass_context
@_edge
def tool_command(
    ctx: click.Context, name: str | None, user_name: str, show_list: bool, database: str | None
) -> None:
    """Run a tool and print its JSON: timetrace tool query_stats --period this_month."""
    import json

    from app.tools import list_tools
    from app.tools.registry import dump
    from app.tools.results import ToolError

    if show_list or not name:
        for spec in list_tools():
            args = ", ".join(spec["input_schema"].get("properties", {}))
            click.echo(f"{spec['name']:<16} tier {spec['tier']:<5} {args}")
        return
    result = _run_tool(user_name, name, _parse_tool_args(ctx.args), database=database)
    click.echo(json.dumps(dump(result), ensure_ascii=False, indent=2))
    if isinstance(result, ToolError):
        raise SystemExit(1)


def _run_tool(
    user_name: str, name: str, arguments: dict[str, Any], *, database: str | None = None
) -> ToolOutcome:
    """One tool call for a user, now, through the registry (never raises: errors are data)."""
    from datetime import UTC, datetime

    from app.runtime.services import open_services
    from app.tools import dispatch

    settings = _settings()
    with open_services(settings, url=_database_url(settings, database)) as services:
        user = services.store.get_user(name=user_name)
        if user is None:
            raise click.ClickException(f"no user {user_name!r}")
        context = services.tool_context(user=user, now=datetime.now(UTC))
        return dispatch(context, name, arguments)


@main.command("ask")
@click.argument("question")
@click.option("--user", "user_name", default="me", show_default=True)
@click.option("--conversation", "conversation_id", type=int, help="Continue this conversation.")
@click.option("--json", "as_json", is_flag=True, help="Print only the done event, as JSON.")
@click.option("--database", help=DATABASE_HELP)
@_edge
def ask_command(
    question: str,
    user_name: str,
    conversation_id: int | None,
    as_json: bool,
    database: str | None,
) -> None:
    """Ask the memory in words: timetrace ask "这个月娱乐花了多少小时？"."""
    import json
    from datetime import UTC, datetime

    from app.agent import ask, start_conversation
    from app.runtime.services import open_services

    def show(kind: str, data: dict[str, Any]) -> None:
        if as_json:
            return
        if kind == "token":
            click.echo(data["text"], nl=False)
        elif kind == "step" and data["phase"] == "result":
            failed = f", error: {data['error']}" if "error" in data else ""
            click.echo(f"· {data['tool']} ({data['tokens']} tokens{failed})", err=True)

    settings = _settings()
    with open_services(settings, url=_database_url(settings, database)) as services:
        user = services.store.get_user(name=user_name)
        if user is None:
            raise click.ClickException(f"no user {user_name!r}")
        conversation_id, history = start_conversation(
            services.store, user_id=user.user_id, question=question, conversation_id=conversation_id
        )
        done = ask(
            ctx=services.tool_context(user=user, now=datetime.now(UTC)),
            question=question,
            history=history,
            emit=show,
            cancelled=lambda: False,
            conversations=services.store,
            conversation_id=conversation_id,
        )
    if as_json:
        click.echo(json.dumps(done, ensure_ascii=False, indent=2))
        return
    tools = ", ".join(done["tools_called"]) or "none"
    click.echo(
        f"\n— tools: {tools} · {done['tool_tokens']:,} tokens read · "
        f"{done['model_calls']} model calls · {done['elapsed_ms'] / 1000:.2f} s · {done['mode']} · "
        f"conversation {conversation_id}"
    )


def _parse_tool_args(extra: list[str]) -> dict[str, Any]:
    """--key value pairs; values are JSON when they parse as JSON (numbers, true), else text."""
    import json

    out: dict[str, Any] = {}
    items = iter(extra)
    for item in items:
        if not item.startswith("--"):
            raise click.UsageError(f"expected --key value, got {item!r}")
        key = item[2:].replace("-", "_")
        value = next(items, None)
        if value is None:
            raise click.UsageError(f"--{key} needs a value")
        try:
            out[key] = json.loads(value)
        except (ValueError, RecursionError):  # not JSON (or absurdly nested): the text
            out[key] = value
    return out


@main.command("mcp")
@click.option("--user", "user_name", help="Serve this user's memory.")
@click.option(
    "--token",
    envvar="TIMETRACE_TOKEN",
    help="Or serve the user of this API token (best set as TIMETRACE_TOKEN).",
)
@click.option("--database", help=DATABASE_HELP)
@_edge
def mcp_command(user_name: str | None, token: str | None, database: str | None) -> None:
    """Serve every tool over MCP on stdio, for Claude Desktop, Cursor or Cline."""
    from app.mcp import serve_stdio
    from app.runtime.auth import user_for_token
    from app.runtime.services import open_services

    if user_name is None and token is None:
        raise click.UsageError("say whose memory to serve: --user NAME or TIMETRACE_TOKEN")
    settings = _settings()
    with open_services(settings, url=_database_url(settings, database)) as services:
        if user_name is None:
            user = user_for_token(services.store, token=token)
        else:
            found = services.store.get_user(name=user_name)
            if found is None:
                raise click.ClickException(f"no user {user_name!r}")
            user = found
        asyncio.run(serve_stdio(services=services, user=user))


@main.command()
@click.option(
    "--start",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="First day of the sample (default: so that it ends yesterday).",
)
@click.option("--days", type=click.IntRange(1, 400), default=30, show_default=True)
@click.option("--serve", "and_serve", is_flag=True, help="Then serve the web UI, signed in.")
@_edge
def demo(start: Any, days: int, and_serve: bool) -> None:
    """Load a sample month through the real ingest path and print what it holds; ask it
    with --database timetrace_demo --user demo."""
    from datetime import UTC, datetime, timedelta

    from app.demo.run import run_demo, serve_demo

    settings = _settings()
    if start is None:  # end yesterday, so that "yesterday" and "last week" ask about it
        from app.demo.sample import DEFAULT_CUT_HOUR, DEFAULT_TZ
        from app.timeutil import logical_day, zone

        today = logical_day(datetime.now(UTC), tz=zone(DEFAULT_TZ), cut_hour=DEFAULT_CUT_HOUR)
        first = today - timedelta(days=days)
    else:
        first = date(start.year, start.month, start.day)
    result = run_demo(settings, start=first, days=days, console=console)
    if result.mismatches:
        raise SystemExit(1)
    if and_serve:
        serve_demo(settings, day=first + timedelta(days=days - 1), console=console)


if __name__ == "__main__":
    main()
