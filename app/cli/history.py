"""Bringing history in and the layers up to date: imports, the back-fill, the demo.

timetrace import activitywatch aw-export.json --user me
timetrace import screenpipe ~/.screenpipe/db.sqlite --user me
timetrace backfill
timetrace demo
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import click

from app.cli.common import console, edge, settings_from_env


@click.command("backfill")
@edge
def backfill_command() -> None:
    """Bring every layer up to date, in bulk (after an import, say)."""
    from datetime import UTC, datetime

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from app.jobs.catchup import enrich
    from app.pyramid.build import backfill
    from app.runtime.services import open_services

    settings = settings_from_env()
    started = datetime.now(UTC)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with open_services(settings) as services, Progress(*columns, console=console()) as progress:
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
    console().print(
        f"{summary.days} days, {summary.episodes:,} new episodes, "
        f"{summary.day_digests} day digests, {summary.period_digests} week/month digests "
        f"in {seconds:.1f} s"
    )
    if enriched is not None:
        console().print(
            f"model layer: {enriched.summaries} summaries, {enriched.embeddings} embeddings, "
            f"{enriched.narratives} narratives, {enriched.descriptions} frame descriptions"
            + (" — the endpoint went away; the rest waits as pending" if enriched.waiting else "")
        )


@click.group("import")
def import_group() -> None:
    """Bring in history from other trackers (then the pyramid is built, in bulk)."""


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
@click.option(
    "--categories-file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="aw-webui's exported categories, instead of the server's settings.",
)
@click.option(
    "--apply-categories",
    is_flag=True,
    help="Add ActivityWatch's categories (shown first) to your rules file before importing, "
    "folded into the six kinds, instead of bringing its tree over.",
)
@click.option(
    "--categories/--no-categories",
    "bring_tree",
    default=True,
    show_default=True,
    help="Bring aw-webui's category tree over as your own categories and regex rules (from "
    "--categories-file, the export's own `classes`, or the server's settings).",
)
@click.option(
    "--top-kind",
    "top_kinds",
    multiple=True,
    metavar="NAME=KIND",
    help="The kind a top of aw-webui's tree counts under, where its name does not say "
    "(Chores=work); asked for at a terminal, else uncategorized.",
)
@_NO_BUILD
@edge
def import_activitywatch(
    export: Path | None,
    url: str | None,
    user_name: str,
    audible_is_active: bool,
    categories_file: Path | None,
    apply_categories: bool,
    bring_tree: bool,
    top_kinds: tuple[str, ...],
    no_build: bool,
) -> None:
    """Import an ActivityWatch export (EXPORT.json) or a running aw-server (--url), with
    aw-webui's category tree (names, hierarchy, regexes, colours) when it is found."""
    from app.importers.activitywatch import (
        import_activitywatch_file,
        import_activitywatch_server,
    )
    from app.importers.aw_categories import offer

    if (export is None) == (url is None):
        raise click.UsageError("give an EXPORT file or --url of a running aw-server, not both")
    tree = None
    if bring_tree and not apply_categories:
        tree = _aw_tree_plan(export, url, categories_file, top_kinds)
    if tree is None:  # none found (or not asked for): what the rules file could take
        said = offer(
            url=url,
            categories_file=categories_file,
            apply_them=apply_categories,
            rules_file=settings_from_env().rules_file,
        )
        if said:
            console().print(said, markup=False, highlight=False)

    def run(services: Any, user: Any, progress: Any) -> Any:
        if tree is not None:  # before the history: its records are sorted by the rules
            from datetime import UTC, datetime

            from app.importers.aw_tree import apply_tree

            done = apply_tree(
                services.store,
                rules=services.rules,
                settings=services.settings,
                user=user,
                plan=tree,
                now=datetime.now(UTC),
            )
            console().print(done.said(tree), markup=False, highlight=False)
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


def _aw_tree_plan(
    export: Path | None, url: str | None, categories_file: Path | None, top_kinds: tuple[str, ...]
) -> Any:
    """aw-webui's tree as it will be made, a kind asked for each top no name maps (at a
    terminal; else uncategorized); None when there is none."""
    import sys

    import httpx

    from app.importers.aw_categories import read_server_classes
    from app.importers.aw_tree import classes_of, parse_top_kinds, plan_tree
    from app.rules.categories import CATEGORIES

    server = None
    if url is not None and categories_file is None:
        with httpx.Client(timeout=30) as http:
            server = read_server_classes(http, url=url)
    classes = classes_of(export=export, categories_file=categories_file, server=server)
    if not classes:
        return None
    kinds = parse_top_kinds(top_kinds)
    plan = plan_tree(classes, top_kinds=kinds)
    if plan.unmapped and sys.stdin.isatty():
        for top in plan.unmapped:
            kinds[top] = click.prompt(
                f"ActivityWatch's {top!r} counts as",
                type=click.Choice(CATEGORIES),
                default="uncategorized",
            )
        plan = plan_tree(classes, top_kinds=kinds)
    return plan


@import_group.command("screenpipe")
@click.argument("database", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--user", "user_name", default="me", show_default=True)
@click.option("--device", default="screenpipe", show_default=True, help="The TimeTrace device.")
@click.option(
    "--audio", is_flag=True, help="Also import audio transcriptions (device DEVICE-audio)."
)
@_NO_BUILD
@edge
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

    settings = settings_from_env()
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
        with Progress(*columns, console=console(), transient=True) as bar:
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
        console().print(
            f"{summary.source}: {summary.events:,} events → {summary.records:,} records in "
            f"{seconds:.1f} s: {summary.new:,} new, {summary.duplicate:,} duplicate, "
            f"{summary.excluded:,} excluded, {summary.redacted:,} redacted"
            + (f", {summary.skipped:,} events skipped" if summary.skipped else "")
        )
        console().print(f"span {span}; devices: {', '.join(summary.devices) or 'none'}")
        if not build or not summary.new:
            if summary.new:
                console().print("the pyramid is queued for the worker (timetrace worker)")
            return
        with Progress(*columns, console=console(), transient=True) as bar:
            task = bar.add_task("pyramid", total=None, done="")

            def on_day(day: str, done: int, total: int) -> None:
                bar.update(task, description=f"day {day}", completed=done, total=total, done="")

            built = backfill(
                services.store, now=datetime.now(UTC), settings=settings, progress=on_day
            )
    console().print(
        f"pyramid: {built.days} days, {built.episodes:,} episodes, {built.day_digests} day "
        f"digests, {built.period_digests} week/month digests"
    )


@click.command()
@click.option(
    "--start",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="First day of the sample (default: so that it ends yesterday).",
)
@click.option("--days", type=click.IntRange(1, 400), default=30, show_default=True)
@click.option("--serve", "and_serve", is_flag=True, help="Then serve the web UI, signed in.")
@edge
def demo(start: Any, days: int, and_serve: bool) -> None:
    """Load a sample month through the real ingest path and print what it holds; ask it
    with --database timetrace_demo --user demo."""
    from datetime import UTC, datetime, timedelta

    from app.demo.run import run_demo, serve_demo

    settings = settings_from_env()
    if start is None:  # end yesterday, so that "yesterday" and "last week" ask about it
        from app.demo.sample import DEFAULT_CUT_HOUR, DEFAULT_TZ
        from app.timeutil import logical_day, zone

        today = logical_day(datetime.now(UTC), tz=zone(DEFAULT_TZ), cut_hour=DEFAULT_CUT_HOUR)
        first = today - timedelta(days=days)
    else:
        first = date(start.year, start.month, start.day)
    result = run_demo(settings, start=first, days=days, console=console())
    if result.mismatches:
        raise SystemExit(1)
    if and_serve:
        serve_demo(settings, day=first + timedelta(days=days - 1), console=console())


COMMANDS = (backfill_command, import_group, demo)
