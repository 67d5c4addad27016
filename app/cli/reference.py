"""The CLI and settings references in docs/, generated from the command and the
`Settings` class; a test fails when either is stale.

python -m app.cli.reference docs      # writes docs/cli.md and docs/settings.md (`make docs`)
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
from pydantic.fields import FieldInfo

from app.cli import main
from app.settings import Settings

# Fixed, so that the text does not depend on the terminal that runs the generator.
HELP_WIDTH = 88
# A constraint of `Field(ge=…)` and the like is an object with the bound's attribute.
_BOUNDS = (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<"))


def commands(
    command: click.Command = main, ctx: click.Context | None = None
) -> Iterator[tuple[str, click.Context]]:
    """Every command and group, depth first in name order, with the context of its help."""
    name = "timetrace" if ctx is None else command.name or ""
    here = click.Context(
        command, info_name=name, parent=ctx, terminal_width=HELP_WIDTH, max_content_width=HELP_WIDTH
    )
    yield here.command_path, here
    if isinstance(command, click.Group):
        for sub in sorted(command.list_commands(here)):
            child = command.get_command(here, sub)
            if child is not None and not child.hidden:
                yield from commands(child, here)


def render_cli() -> str:
    listed = list(commands())
    lines = [
        "# CLI reference",
        "",
        "Generated from each command's `--help` (`make docs`, or "
        "`python -m app.cli.reference docs`); a test fails when it drifts. Settings that "
        "every command reads are in [settings.md](settings.md).",
        "",
    ]
    lines += [f"- [`{path}`](#{_anchor(path)})" for path, _ in listed]
    for path, ctx in listed:
        lines += ["", f"## {path}", "", "```text", ctx.get_help(), "```"]
    return "\n".join(lines) + "\n"


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading made of words, spaces and hyphens."""
    return heading.lower().replace(" ", "-")


def _type(field: FieldInfo) -> str:
    annotation: Any = field.annotation
    name = getattr(annotation, "__name__", None) or str(annotation)
    text = str(annotation).replace("pathlib.", "").replace("pydantic.types.", "")
    kind = name if name in {"int", "float", "str", "bool", "Path", "SecretStr"} else text
    bounds = [
        f"{sign} {getattr(m, attr):,}"
        for m in field.metadata
        for attr, sign in _BOUNDS
        if getattr(m, attr, None) is not None
    ]
    return f"{kind} ({', '.join(bounds)})" if bounds else kind


def _default(field: FieldInfo) -> str:
    if field.default_factory is not None:
        return "(computed)"
    value = field.get_default()
    if value is None:
        return "—"
    if hasattr(value, "get_secret_value"):
        value = value.get_secret_value()
    return f"`{value}`" if value != "" else '`""`'


def render_settings() -> str:
    prefix = str(Settings.model_config.get("env_prefix", ""))
    lines = [
        "# Settings reference",
        "",
        "Generated from `app/settings.py` (`make docs`, or "
        "`python -m app.cli.reference docs`); a test fails when it drifts. Every setting "
        "is an environment variable, or a line of a `.env` file in the working directory; "
        "an empty value counts as unset. For compose, `timetrace.env.example` lists them all.",
        "",
        "| setting | environment variable | type | default | meaning |",
        "|---|---|---|---|---|",
    ]
    for name, field in Settings.model_fields.items():
        meaning = " ".join(str(field.description).split()).replace("|", "\\|")
        kind = _type(field).replace("|", "\\|")
        env = f"{prefix}{name}".upper()
        lines.append(f"| `{name}` | `{env}` | `{kind}` | {_default(field)} | {meaning} |")
    return "\n".join(lines) + "\n"


def write(folder: Path) -> list[Path]:
    written = []
    for name, text in (("cli.md", render_cli()), ("settings.md", render_settings())):
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write(Path(sys.argv[1] if len(sys.argv) > 1 else "docs")):
        print(path)
