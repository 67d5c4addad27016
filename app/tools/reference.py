"""The tool reference in docs/tools.md, generated from the registry.

python -m app.tools.reference > docs/tools.md
"""

from __future__ import annotations

import json

import app.tools  # noqa: F401  (registers the tools)
from app.tools.registry import ordered_tools


def render_reference() -> str:
    lines = [
        "# Tool reference",
        "",
        "Generated from the registry (`python -m app.tools.reference > docs/tools.md`); a test "
        "fails when it drifts. Every door — the agent, MCP, `POST /api/v1/tools/{name}` and "
        "`timetrace tool NAME --key value` — calls these same tools, and every result is capped "
        "by a CJK-aware token estimate (`truncated: true` when something was cut).",
        "",
        "| tool | tier | output cap (tokens) |",
        "|---|---|---|",
    ]
    lines += [f"| `{t.name}` | {t.tier} | {t.cap_tokens:,} |" for t in ordered_tools()]
    for t in ordered_tools():
        lines += [
            "",
            f"## `{t.name}`",
            "",
            t.description,
            "",
            "```json",
            json.dumps(t.input_schema(), ensure_ascii=False, indent=2),
            "```",
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_reference(), end="")
