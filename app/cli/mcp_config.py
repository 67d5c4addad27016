"""`timetrace mcp config`: an MCP client's config that starts this TimeTrace's stdio
server as printed: the absolute command, and the settings in use as its environment
(a client such as Claude Desktop starts it with no shell, no PATH of ours and another
working directory, so nothing may be left to either).

timetrace mcp config --client claude --user me >> claude_desktop_config.json (merge it)
timetrace mcp config --client claude --token-file ~/.config/timetrace/claude.token

With `--token-file` the server runs as that token's caller (what the token allows), not
as the whole user: the file holds the token and nothing else.
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
    from app.store.accounts import AccountStore, UserContext

CLIENTS = ("claude", "cursor", "generic")
TOKEN_FILE_MAX = 4_096  # bytes: a token is a few dozen


class TokenFileError(click.ClickException):
    """A token file that cannot serve: one line, exit code 2 (as a usage error)."""

    exit_code = 2


def token_in_file(path: Path) -> str:
    """The token a file holds (surrounding whitespace aside); `TokenFileError` otherwise."""
    try:
        with path.open("rb") as stream:
            raw = stream.read(TOKEN_FILE_MAX + 1)
        text = raw.decode("utf-8")
    except OSError as exc:
        raise TokenFileError(f"cannot read the token file {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise TokenFileError(f"the token file {path} is not text") from None
    token = text.strip()
    if not token or len(raw) > TOKEN_FILE_MAX or any(c.isspace() for c in token):
        raise TokenFileError(f"the token file {path} must hold one API token and nothing else")
    return token


def user_of_token_file(store: AccountStore, path: Path) -> UserContext:
    """Who the token in `path` acts for, as every door resolves a token; else one line."""
    from app.errors import AuthError
    from app.runtime.auth import user_for_token

    try:
        return user_for_token(store, token=token_in_file(path))
    except AuthError as exc:
        raise TokenFileError(f"the token in {path} does not serve: {exc.message}") from None


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


def client_config(
    *,
    client: str,
    command: list[str],
    user: str,
    env: dict[str, str],
    token_file: Path | None = None,
) -> Any:
    """The JSON a client reads: Claude Desktop's and Cursor's `mcpServers` entry, or
    (generic) the server alone; with `token_file`, the server runs as that token."""
    who = ["--user", user] if token_file is None else ["--token-file", str(token_file.absolute())]
    server = {"command": command[0], "args": [*command[1:], "mcp", *who], "env": env}
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
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Serve as the API token in this file (what the token allows) instead of --user.",
)
@edge
def mcp_config(client: str, user_name: str, token_file: Path | None) -> None:
    """Print an MCP client's config that starts `timetrace mcp` as printed: the absolute
    command and the database (or the embedded server's data directory) in use."""
    from app.runtime.services import open_services

    settings = settings_from_env()
    with open_services(settings) as services:
        # A config for nobody, or for a token that does not serve, would fail at start.
        if token_file is None:
            user_named(services.store, user_name)
        else:
            user_of_token_file(services.store, token_file)
    env, secrets = settings_env(settings)
    config = client_config(
        client=client,
        command=timetrace_command(),
        user=user_name,
        env=env,
        token_file=token_file,
    )
    click.echo(json.dumps(config, indent=2))
    if secrets:
        click.echo(f"left out (secrets; add them to env yourself): {', '.join(secrets)}", err=True)
