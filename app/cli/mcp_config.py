"""`timetrace mcp config`: an MCP client's config that starts this TimeTrace's stdio
server as printed: the absolute command, and the settings in use as its environment
(a client such as Claude Desktop starts it with no shell, no PATH of ours and another
working directory, so nothing may be left to either).

timetrace mcp config --client claude --user me >> claude_desktop_config.json (merge it)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from app.cli.common import edge, settings_from_env, user_named

if TYPE_CHECKING:
    from app.settings import Settings

CLIENTS = ("claude", "cursor", "generic")


def timetrace_command() -> list[str]:
    """The command that runs this very TimeTrace, by absolute path: the `timetrace`
    script it was started as, else the one beside this Python, else this Python with
    `-m app.cli` (never a `timetrace` found on PATH: it may be another install)."""
    started_as = Path(sys.argv[0])
    if started_as.name == "timetrace" and os.access(started_as, os.X_OK):
        return [str(started_as.absolute())]
    # Not resolved: a virtualenv's python is a link, and its target has none of our packages.
    python = Path(os.path.abspath(sys.executable))
    beside = python.with_name("timetrace")
    if os.access(beside, os.X_OK):
        return [str(beside)]
    return [str(python), "-m", "app.cli"]


def settings_env(settings: Settings) -> tuple[dict[str, str], list[str]]:
    """The settings that differ from the defaults as TIMETRACE_* variables (the database
    URL, or the data directory of the embedded server, always), and the secrets left out."""
    from pydantic import SecretStr

    env = {"TIMETRACE_DATA_DIR": str(Path(settings.data_dir).absolute())}
    secrets = []
    for name, field in type(settings).model_fields.items():
        value = getattr(settings, name)
        default = field.get_default(call_default_factory=True)
        if name == "data_dir" or value is None or value == default:
            continue
        variable = f"TIMETRACE_{name.upper()}"
        if isinstance(value, SecretStr):
            secrets.append(variable)
            continue
        env[variable] = str(Path(value).absolute()) if isinstance(value, Path) else str(value)
    return env, secrets


def client_config(*, client: str, command: list[str], user: str, env: dict[str, str]) -> Any:
    """The JSON a client reads: Claude Desktop's and Cursor's `mcpServers` entry, or
    (generic) the server alone."""
    server = {"command": command[0], "args": [*command[1:], "mcp", "--user", user], "env": env}
    return server if client == "generic" else {"mcpServers": {"timetrace": server}}


@click.command("config")
@click.option(
    "--client",
    type=click.Choice(CLIENTS),
    default="claude",
    show_default=True,
    help="claude: claude_desktop_config.json; cursor: .cursor/mcp.json; generic: the server.",
)
@click.option("--user", "user_name", default="me", show_default=True, help="Whose memory.")
@edge
def mcp_config(client: str, user_name: str) -> None:
    """Print an MCP client's config that starts `timetrace mcp` as printed: the absolute
    command and the database (or the embedded server's data directory) in use."""
    from app.runtime.services import open_services

    settings = settings_from_env()
    with open_services(settings) as services:
        user_named(services.store, user_name)  # a config for nobody would fail at start
    env, secrets = settings_env(settings)
    config = client_config(client=client, command=timetrace_command(), user=user_name, env=env)
    click.echo(json.dumps(config, indent=2))
    if secrets:
        click.echo(f"left out (secrets; add them to env yourself): {', '.join(secrets)}", err=True)
