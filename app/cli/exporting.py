"""Taking one's data elsewhere: a full export, and a TimeTrace export back in.

timetrace export --user me --format jsonl -o me.jsonl
timetrace export --user me --from 2026-03-01 --to 2026-03-31 --format csv --table episodes
timetrace export --user me --format activitywatch -o aw-export.json
timetrace import timetrace me.jsonl --user me
"""

from __future__ import annotations

import sys
from datetime import date, datetime
from pathlib import Path
from typing import IO, Any

import click

from app.cli.common import console, edge, settings_from_env, user_named
from app.cli.history import import_group

_DAY = click.DateTime(["%Y-%m-%d"])


def _day(value: datetime | None) -> date | None:
    return value.date() if value is not None else None


@click.command("export")
@click.option("--user", "user_name", default="me", show_default=True)
@click.option("--from", "day_from", type=_DAY, help="First logical day (default: the first).")
@click.option("--to", "day_to", type=_DAY, help="Last logical day, included (default: the last).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "activitywatch", "csv"]),
    default="jsonl",
    show_default=True,
    help="jsonl: everything, for `timetrace import timetrace`; activitywatch: aw-server's "
    "export; csv: one table for spreadsheets.",
)
@click.option(
    "--table",
    type=click.Choice(["records", "episodes"]),
    default="records",
    show_default=True,
    help="With --format csv: which table (one CSV file each).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, path_type=Path),
    help="The file to write (default: standard output).",
)
@edge
def export_command(
    user_name: str,
    day_from: datetime | None,
    day_to: datetime | None,
    fmt: Any,
    table: Any,
    output: Path | None,
) -> None:
    """Export a user's data: every layer (jsonl), ActivityWatch buckets, or a CSV table."""
    from app.db.connection import connect
    from app.db.export import ExportRequest, export_chunks, record_count
    from app.runtime.services import open_services

    settings = settings_from_env()
    with open_services(settings) as services:
        user = user_named(services.store, user_name)
        request = ExportRequest(
            user=user, fmt=fmt, day_from=_day(day_from), day_to=_day(day_to), table=table
        )
        with connect(services.url, settings=settings, autocommit=True) as conn:
            if output is None:
                _write(sys.stdout.buffer, export_chunks(conn, request=request))
                return
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            total = record_count(conn, request=request)
            columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
            with (
                output.open("wb") as out,
                Progress(*columns, console=console(), transient=True) as bar,
            ):
                task = bar.add_task("records", total=total or None)

                def progress(kind: str, done: int) -> None:
                    if kind == "records":
                        bar.update(task, completed=done, description="records")
                    else:
                        bar.update(task, description=kind)

                _write(out, export_chunks(conn, request=request, progress=progress))
    console().print(f"wrote {output} ({output.stat().st_size / 1e6:,.1f} MB)")


def _write(out: IO[bytes], chunks: Any) -> None:
    for chunk in chunks:
        out.write(chunk)
    out.flush()


@import_group.command("timetrace")
@click.argument("export", type=click.Path(dir_okay=False, exists=True, path_type=Path))
@click.option("--user", "user_name", default="me", show_default=True)
@edge
def import_timetrace(export: Path, user_name: str) -> None:
    """Restore a TimeTrace export (jsonl) into a user that holds nothing yet: every layer
    as exported, ids kept; importing the same file again adds nothing."""
    from rich.progress import BarColumn, Progress, TextColumn

    from app.db.restore import restore_file
    from app.runtime.services import open_services

    settings = settings_from_env()
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.fields[done]}"))
    with (
        open_services(settings) as services,
        Progress(*columns, console=console(), transient=True) as bar,
    ):
        task = bar.add_task("reading", total=None, done="")

        def progress(kind: str, done: int) -> None:
            bar.update(task, description=kind, done=f"{done:,}")

        summary = restore_file(
            url=services.url,
            settings=settings,
            path=export,
            user_name=user_name,
            progress=progress,
        )
        if summary.new:
            # What the old server still had to build (an open tail, marked days) is built
            # here: a build job per device, as after any import.
            from app.job_requests import build_job

            services.store.defer([build_job(summary.user_id, d) for d in summary.devices])
    added = ", ".join(f"{n:,} {kind}" for kind, n in summary.by_kind.items() if n) or "nothing"
    console().print(
        f"{summary.rows:,} rows read into user {summary.user_name!r}: added {added}",
        markup=False,
        highlight=False,
    )


COMMANDS = (export_command,)
