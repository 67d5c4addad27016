"""The `timetrace` command: a thin shell over functions that live elsewhere, one module
per group of commands. Each command imports what it uses when it runs, so that
`timetrace --version`, `--help` and the commands that need no model, web server or
job queue start without loading them.

timetrace migrate
timetrace token create --user me --time-zone Asia/Shanghai
timetrace user set --user me --time-zone Europe/Berlin
timetrace device add laptop --kind laptop
timetrace device list
timetrace serve --worker
timetrace status
timetrace rules check --period last_week
timetrace category add Games --under entertainment
timetrace import activitywatch aw-export.json --user me
timetrace import screenpipe ~/.screenpipe/db.sqlite --user me
timetrace export --user me --format jsonl -o me.jsonl
timetrace import timetrace me.jsonl --user me
timetrace mcp --user me
timetrace mcp config --client claude --user me
timetrace demo
timetrace psql --database timetrace_demo
timetrace retention set --user me --raw-days 30
"""

from __future__ import annotations

import logging

import click

from app import __version__
from app.cli import (
    accounts,
    asking,
    categories,
    exporting,
    history,
    retention,
    server,
)


@click.group()
@click.version_option(version=__version__, prog_name="timetrace")
def main() -> None:
    """TimeTrace: a self-hosted activity memory in PostgreSQL."""
    from app.db.embedded import install_sigterm_exit

    install_sigterm_exit()
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    # Ours at INFO: breaker openings, capability fall-backs and rejected answers, once each.
    logging.getLogger("timetrace").setLevel(logging.INFO)


for _command in (
    *server.COMMANDS,
    *accounts.COMMANDS,
    *history.COMMANDS,
    *asking.COMMANDS,
    *categories.COMMANDS,
    *exporting.COMMANDS,
    *retention.COMMANDS,
):
    main.add_command(_command)
