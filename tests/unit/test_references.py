"""docs/cli.md and docs/settings.md are generated (`make docs`): each matches what the
command and the `Settings` class say now, and lists every command and every setting."""

from __future__ import annotations

from pathlib import Path

import click

from app.cli import main
from app.cli.reference import commands, render_cli, render_settings
from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
STALE = "is stale: run `make docs` (python -m app.cli.reference docs)"


def test_the_cli_reference_is_what_the_command_says_now() -> None:
    assert (ROOT / "docs" / "cli.md").read_text(encoding="utf-8") == render_cli(), f"cli.md {STALE}"


def test_the_settings_reference_is_what_settings_say_now() -> None:
    text = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    assert text == render_settings(), f"settings.md {STALE}"


def test_the_cli_reference_has_every_command_with_its_options() -> None:
    text = render_cli()
    paths = [path for path, _ in commands()]
    leaves = [path for path, ctx in commands() if not isinstance(ctx.command, click.Group)]
    assert len(leaves) >= 29 and "timetrace rules move" in paths
    for path in paths:
        assert f"\n## {path}\n" in text
    serve = main.commands["serve"]
    for param in serve.params:
        for opt in getattr(param, "opts", []):
            assert opt in text.split("\n## timetrace serve\n", 1)[1].split("\n## ", 1)[0]


def test_the_settings_reference_has_every_setting_described() -> None:
    text = render_settings()
    assert len(Settings.model_fields) >= 42
    for name, field in Settings.model_fields.items():
        assert field.description, f"{name} has no description"
        assert f"| `{name}` | `TIMETRACE_{name.upper()}` |" in text
    assert "| `port` | `TIMETRACE_PORT` | `int (≥ 0, ≤ 65,535)` | `8787` |" in text
