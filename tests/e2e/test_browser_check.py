"""`make test`'s first step, .ci/browser-check: with Chromium and CJK fonts it lets the
suite start; without them and without root's apt-get it stops at once with one line
that names the command (the suite used to fail test by test instead)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # tests/e2e/ -> the repository
CHECK = ROOT / ".ci" / "browser-check"


def _run(path_dir: Path) -> subprocess.CompletedProcess[str]:
    grep = shutil.which("grep")
    assert grep is not None
    (path_dir / "grep").symlink_to(grep)  # the check's one helper besides the tools
    return subprocess.run(
        ["/bin/bash", str(CHECK)],
        env={"PATH": str(path_dir)},
        capture_output=True,
        text=True,
        timeout=10,
    )


def _tool(directory: Path, name: str, body: str) -> None:
    tool = directory / name
    tool.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    tool.chmod(0o755)


def test_without_chromium_or_apt_it_stops_with_the_one_line(tmp_path: Path) -> None:
    run = _run(tmp_path)  # a PATH with grep alone: no chromium, no apt-get, no id
    assert run.returncode == 1
    assert run.stdout == ""
    (line,) = run.stderr.splitlines()
    assert "apt-get install -y chromium fonts-noto-cjk" in line


def test_chromium_without_the_cjk_fonts_is_not_enough(tmp_path: Path) -> None:
    _tool(tmp_path, "chromium", "exit 0")
    _tool(tmp_path, "fc-list", "echo 'DejaVu Sans'")
    run = _run(tmp_path)
    assert run.returncode == 1 and "fonts-noto-cjk" in run.stderr


def test_with_chromium_and_the_fonts_it_lets_the_suite_start(tmp_path: Path) -> None:
    _tool(tmp_path, "chromium", "exit 0")
    _tool(tmp_path, "fc-list", "echo 'Noto Sans CJK SC:style=Regular'")
    run = _run(tmp_path)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


def test_a_long_font_list_with_the_fonts_first_is_found(tmp_path: Path) -> None:
    # grep stopping at the first match would leave fc-list writing into a closed
    # pipe: under pipefail that read as "missing" on a machine with many fonts.
    _tool(tmp_path, "chromium", "exit 0")
    _tool(
        tmp_path,
        "fc-list",
        "echo 'Noto Sans CJK SC:style=Regular'; i=0; "
        'while [ $i -lt 20000 ]; do echo "Font $i: style=Regular"; i=$((i+1)); done',
    )
    run = _run(tmp_path)
    assert (run.returncode, run.stderr) == (0, "")
