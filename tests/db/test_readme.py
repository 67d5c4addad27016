"""Every code block of the README runs, or is checked as far as this machine allows.

- `make demo` / `make test`: both targets exist and `make -n` plans them (the demo
  itself runs in tests/e2e/test_demo.py, the suite is this run);
- "Record now": the `export` and `token create` lines run against the test database
  and make a user in that zone; the watchers' lines start `timetrace serve` with
  options it accepts, and tests/e2e/test_readme_recording.py runs the Linux block's
  serve line fed with the watchers' REST calls (the watchers themselves need a
  desktop session, which this machine lacks);
- "Ask": the `ask` lines run in tests/e2e/test_demo.py; the Python block runs here
  with the official `openai` client against the door; `mcp config` runs here, and
  tests/e2e/test_mcp_config.py starts what it prints with the official MCP client.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.api.server import serve_in_thread
from app.cli import main
from app.runtime.services import Services
from app.settings import Settings
from tests.helpers import new_token_for
from tests.readme_blocks import ROOT, Block, parse_timetrace, readme_blocks, timetrace_args

BLOCKS = readme_blocks()
_START_PROCESS = re.compile(r'Start-Process (\S+)(?: -ArgumentList "(.*)")?')


def _blocks(*, lang: str) -> list[Block]:
    return [block for block in BLOCKS if block.lang == lang]


def _command_lines(block: Block) -> list[list[str]]:
    """Each line of an sh or PowerShell block as words (PowerShell's Start-Process
    unwrapped into the command and its arguments)."""
    lines = []
    for line in block.lines:
        started = _START_PROCESS.match(line)
        if started:
            lines.append([started.group(1), *shlex.split(started.group(2) or "")])
        else:
            lines.append(shlex.split(line))
    return lines


def test_the_readme_is_a_front_page_that_starts_with_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    first = BLOCKS[0]
    assert [words[:2] for words in _command_lines(first)] == [["make", "demo"], ["make", "test"]]
    # Nothing but the title comes before them.
    assert text.index("```") < text.index("\n## ")


def test_every_block_is_of_a_kind_a_test_below_covers() -> None:
    assert {block.lang for block in BLOCKS} <= {"sh", "python", "powershell"}
    assert len(_blocks(lang="python")) == 1 and len(_blocks(lang="powershell")) == 1


def test_the_make_targets_exist_and_plan() -> None:
    plan = subprocess.run(
        ["make", "-n", "demo", "test"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert plan.returncode == 0, plan.stderr
    assert "timetrace demo" in plan.stdout or "app.cli demo" in plan.stdout


def test_every_timetrace_line_is_a_command_with_options_it_accepts() -> None:
    checked = 0
    for block in BLOCKS:
        for words in _command_lines(block) if block.lang != "python" else []:
            args = timetrace_args(shlex.join(words)) if words else None
            if args is not None:
                parse_timetrace(args)  # raises click's own error if not
                checked += 1
    assert checked >= 7  # token create, three serves, two asks, mcp config


def test_the_watchers_lines_start_activitywatch_watchers_for_each_os() -> None:
    heads = [block.heading for block in BLOCKS]
    for os_name in ("Linux", "macOS", "Windows"):
        block = BLOCKS[next(i for i, h in enumerate(heads) if h.startswith(os_name))]
        programs = [
            Path(words[0].strip('"').replace("\\", "/")).name for words in _command_lines(block)
        ]
        assert programs[0] == "timetrace"
        assert {p.removesuffix(".exe") for p in programs[1:]} == {
            "aw-watcher-window",
            "aw-watcher-afk",
        }


def test_the_record_now_lines_make_a_user_in_the_zone_chosen_first(
    db_url: str, tmp_path: Path, services: Services
) -> None:
    block = next(b for b in _blocks(lang="sh") if "token create" in b.text)
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path)}
    runner = CliRunner()
    for words in _command_lines(block):
        if words[0] == "export":
            name, value = words[1].split("=", 1)
            env[name] = value
            assert name.removeprefix("TIMETRACE_").lower() in Settings.model_fields
            continue
        result = runner.invoke(main, timetrace_args(shlex.join(words)), env=env)
        assert result.exit_code == 0, result.output
        assert result.output.strip().startswith("tt_")
    user = services.store.get_user(name="me")
    assert user is not None and user.time_zone == env["TIMETRACE_TIME_ZONE"]


@pytest.fixture
def door(services: Services) -> Iterator[tuple[str, str]]:
    user = services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)
    with serve_in_thread(services) as base:
        yield base, new_token_for(services, user)


def test_the_python_block_answers_through_the_official_openai_client(
    door: tuple[str, str],
) -> None:
    base, token = door
    (block,) = _blocks(lang="python")
    assert "http://127.0.0.1:8787" in block.text
    code = block.text.replace("http://127.0.0.1:8787", base)
    printed = io.StringIO()
    scope: dict[str, Any] = {"TOKEN": token}
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), scope)
    answer = printed.getvalue().strip()
    assert answer and "error" not in answer.lower()
    assert "娱乐" in answer  # answered about the question, in its language


def test_the_mcp_config_line_prints_a_config_for_the_user(
    db_url: str, tmp_path: Path, services: Services
) -> None:
    services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)
    (line,) = [
        words
        for block in _blocks(lang="sh")
        for words in _command_lines(block)
        if words[:3] == ["timetrace", "mcp", "config"]
    ]
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path)}
    result = CliRunner().invoke(main, line[1:], env=env)
    assert result.exit_code == 0, result.output
    config = json.loads(result.stdout)
    (server,) = config["mcpServers"].values()
    assert Path(server["command"]).is_absolute() and "mcp" in server["args"]
