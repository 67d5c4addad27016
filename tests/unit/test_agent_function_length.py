"""The agent's code stays in small functions: none in app/agent/ is longer than 60
lines (decorators and docstring included), measured with ast."""

from __future__ import annotations

import ast
from pathlib import Path

import app.agent

LONGEST = 60


def _lengths() -> dict[str, int]:
    root = Path(app.agent.__file__).parent
    out: dict[str, int] = {}
    for path in sorted(root.glob("*.py")):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                out[f"{path.name}:{node.name}"] = (node.end_lineno or node.lineno) - first + 1
    return out


def test_no_function_in_the_agent_is_longer_than_sixty_lines() -> None:
    lengths = _lengths()
    assert len(lengths) > 50  # the walk found the agent's functions
    too_long = {name: n for name, n in lengths.items() if n > LONGEST}
    assert not too_long, too_long
