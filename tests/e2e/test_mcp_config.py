"""`timetrace mcp config` prints a config that works as printed: the official MCP client
starts exactly its command, arguments and environment (nothing of the test's added, run
from another directory as a desktop client would) and lists every registry tool."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters

from app.cli import main
from app.cli.mcp_config import client_config, settings_env, timetrace_command
from app.runtime.services import Services
from app.settings import Settings
from tests.e2e.test_mcp import assert_listing_is_the_registry


def _config(settings: Settings, *args: str) -> Any:
    env = {
        "TIMETRACE_DATABASE_URL": str(settings.database_url),
        "TIMETRACE_DATA_DIR": str(settings.data_dir),
    }
    result = CliRunner().invoke(main, ["mcp", "config", *args], env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _listed(server: dict[str, Any]) -> Any:
    """The tool listing from the server the config starts, exactly as configured."""
    params = StdioServerParameters(
        command=server["command"],
        args=server["args"],
        env=server["env"],
        cwd=tempfile.gettempdir(),  # not the repository: a desktop client's directory
    )

    async def listing() -> Any:
        async with Client(params) as client:
            return await client.list_tools()

    return asyncio.run(listing())


def test_the_printed_config_starts_the_server_and_lists_every_tool(
    services: Services, settings: Settings
) -> None:
    services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)
    config = _config(settings, "--client", "claude")
    server = config["mcpServers"]["timetrace"]
    assert Path(server["command"]).is_absolute() and os.access(server["command"], os.X_OK)
    assert server["args"][-3:] == ["mcp", "--user", "me"]
    assert server["env"]["TIMETRACE_DATABASE_URL"] == settings.database_url
    assert_listing_is_the_registry(_listed(server))


def test_each_client_gets_its_shape_and_an_unknown_user_gets_no_config(
    services: Services, settings: Settings
) -> None:
    services.store.ensure_user(name="ana", time_zone="UTC", day_cut_hour=4)
    cursor = _config(settings, "--client", "cursor", "--user", "ana")
    generic = _config(settings, "--client", "generic", "--user", "ana")
    assert cursor == {"mcpServers": {"timetrace": generic}}
    assert generic["args"][-3:] == ["mcp", "--user", "ana"]
    env = {"TIMETRACE_DATABASE_URL": str(settings.database_url)}
    nobody = CliRunner().invoke(main, ["mcp", "config", "--user", "zed"], env=env)
    assert nobody.exit_code == 1
    assert "no user 'zed': create one with `timetrace token create --user zed`" in nobody.output


def test_the_embedded_server_is_named_by_its_data_directory_and_secrets_are_left_out(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    settings = Settings(
        _env_file=None, data_dir=Path("relative-data"), port=9999, llm_api_key="sk-secret"
    )
    env, secrets = settings_env(settings)
    assert env == {
        "TIMETRACE_DATA_DIR": str(tmp_path / "relative-data"),  # absolute, for any directory
        "TIMETRACE_PORT": "9999",
    }
    assert secrets == ["TIMETRACE_LLM_API_KEY"]
    command = timetrace_command()
    assert Path(command[0]).is_absolute()
    server = client_config(client="generic", command=command, user="me", env=env)
    assert server["args"] == [*command[1:], "mcp", "--user", "me"]
