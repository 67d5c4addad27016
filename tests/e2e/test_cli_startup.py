"""The command starts fast: importing `app.cli` loads none of the heavy libraries
(the model client, the web framework and its server, the job queue), and
`timetrace --version` answers at once. Each command imports what it uses when it runs.

Speed is counted in modules, not seconds (a loaded machine would fail a time limit
that an idle one passes): a fresh interpreter's `python -X importtime` writes one line
per module it imports. `bench/` is where start-up time is measured."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("openai", "fastapi", "uvicorn", "procrastinate", "starlette", "mcp", "httpx")
# Modules beyond a bare interpreter's: `import app.cli` loads 55 and `timetrace
# --version` 109 (2026-12-05); fastapi alone brings 332 and openai 772, so a bound
# with room for growth still catches any one of them.
IMPORT_BOUND_MODULES = 150
VERSION_BOUND_MODULES = 220


def _run(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True, timeout=60)


def _python(*args: str) -> subprocess.CompletedProcess[str]:
    return _run(sys.executable, *args)


def _imported(*args: str) -> tuple[list[str], str]:
    """The modules a fresh interpreter imports to run `args` beyond what it imports to
    run nothing, and what the run printed."""

    def modules(report: str) -> list[str]:
        return [ln.split("|")[-1].strip() for ln in report.splitlines() if "import time:" in ln]

    bare = set(modules(_python("-X", "importtime", "-c", "pass").stderr))
    done = _python("-X", "importtime", *args)
    return [m for m in modules(done.stderr) if m not in bare], done.stdout


def test_importing_the_command_loads_no_heavy_library() -> None:
    code = f"import sys, app.cli\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    assert _python("-c", code).stdout.strip() == ""


def test_importing_the_command_loads_few_modules() -> None:
    loaded, _ = _imported("-c", "import app.cli")
    assert "app.cli" in loaded
    assert len(loaded) <= IMPORT_BOUND_MODULES, f"import app.cli loads {len(loaded)} modules"


def test_version_answers_with_few_modules_loaded() -> None:
    """The installed entry point (`timetrace = app.cli:main`)."""
    timetrace = str(Path(sys.executable).with_name("timetrace"))
    loaded, out = _imported(timetrace, "--version")
    assert re.fullmatch(r"timetrace, version \d+\.\d+\.\d+\S*\n", out), out
    assert not {m.split(".")[0] for m in loaded} & set(HEAVY), loaded
    assert len(loaded) <= VERSION_BOUND_MODULES, f"--version loads {len(loaded)} modules"


def test_a_read_only_command_path_loads_no_model_client_web_server_or_queue() -> None:
    """What `timetrace tool` and `timetrace ask` load before they call anything: the
    services, the registry and the tools, with no endpoint configured."""
    code = (
        "import sys\n"
        "from app.cli import main\n"
        "import app.runtime.services, app.tools, app.agent\n"
        f"print(','.join(m for m in {HEAVY!r} if m in sys.modules and m != 'httpx'))\n"
    )
    assert _python("-c", code).stdout.strip() == ""
