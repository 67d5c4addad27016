"""The README's code blocks, and the command lines in them, for the tests that run or
check each one (tests/unit/test_readme.py says which test covers which block).

    for block in readme_blocks(): block.lang, block.text, block.heading
    parse_timetrace(["serve", "--worker"])   # the click context, or a click error
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import click

from app.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    lang: str
    text: str
    heading: str  # the nearest line before it that ends with ':' or starts with '#'

    @property
    def lines(self) -> list[str]:
        """Its lines without comment lines and with trailing comments and `&` cut off."""
        kept = []
        for line in self.text.splitlines():
            code = line.split(" #", 1)[0].rstrip().removesuffix("&").rstrip()
            if code and not code.lstrip().startswith("#"):
                kept.append(code)
        return kept


def readme_blocks(path: Path = README) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    blocks = []
    for match in _FENCE.finditer(text):
        before = [
            line
            for line in text[: match.start()].splitlines()
            if line.strip() and (line.startswith("#") or line.rstrip().endswith(":"))
        ]
        blocks.append(Block(match.group(1), match.group(2), before[-1] if before else ""))
    return blocks


def timetrace_args(line: str) -> list[str] | None:
    """The arguments of a `timetrace …` (or `.venv/bin/timetrace …`) line, else None."""
    words = shlex.split(line)
    if words and Path(words[0]).name == "timetrace":
        return words[1:]
    return None


def parse_timetrace(args: list[str]) -> click.Context:
    """Parse a command line as `timetrace` would, without running it: an unknown command
    or option, or a missing argument, raises click's own error. Groups are walked by
    name (no README line gives a group an option of its own)."""
    ctx = main.make_context("timetrace", [], resilient_parsing=True)
    command: click.Command = main
    rest = list(args)
    while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        name, rest = rest[0], rest[1:]
        sub = command.get_command(ctx, name)
        if sub is None:
            raise click.UsageError(f"no command {name!r}", ctx)
        command = sub
        ctx = click.Context(command, info_name=name, parent=ctx)
    return command.make_context(ctx.info_name or "", rest, parent=ctx.parent)
