"""The version has one source, `app.__version__`: pyproject.toml reads it, the installed
package's metadata carries it, `timetrace --version` prints it, and CHANGELOG.md's
newest release is it."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import version
from pathlib import Path

from click.testing import CliRunner

from app import __version__
from app.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_pyproject_reads_the_version_from_the_package() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"]
    assert pyproject["project"]["dynamic"] == ["version"]
    dynamic = pyproject["tool"]["setuptools"]["dynamic"]
    assert dynamic == {"version": {"attr": "app.__version__"}}


def test_the_installed_metadata_and_the_command_say_the_same_version() -> None:
    # A stale editable install (the version changed since `make install`) fails here.
    assert version("timetrace") == __version__
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"timetrace, version {__version__}\n"


def test_the_changelog_starts_with_unreleased_then_this_version() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## (\S+)", text, flags=re.MULTILINE)
    assert sections[:2] == ["Unreleased", __version__]
    assert len(sections) == len(set(sections)), "a release has two sections"
