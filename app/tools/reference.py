"""The tool reference in docs/tools.md, generated from the registry.

python -m app.tools.reference > docs/tools.md
"""

from __future__ import annotations

import json
from typing import Any

import app.tools  # noqa: F401  (registers the tools)
from app.tools.registry import Tool, ordered_tools


def _type(schema: dict[str, Any]) -> str:
    """A short type of a JSON schema: `Episode[]`, `{str: int}`, `string | null`."""
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in schema:
        return " | ".join(_type(s) for s in schema["anyOf"] if s.get("type") != "null")
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "string" and "format" in schema:
        return str(schema["format"])  # date, date-time
    if kind == "array":
        inner = _type(schema.get("items", {}))
        return f"({inner})[]" if " | " in inner else f"{inner}[]"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"{{str: {_type(schema['additionalProperties'])}}}"
    return {"integer": "int", "number": "float", "boolean": "bool"}.get(str(kind), str(kind))


def _fields(schema: dict[str, Any]) -> list[str]:
    required = set(schema.get("required", []))
    rows = ["| field | type | |", "|---|---|---|"]
    for name, prop in schema.get("properties", {}).items():
        note = " ".join(str(prop.get("description", "")).split())
        when = "" if name in required else "optional"
        text = "; ".join(part for part in (when, note) if part).replace("|", "\\|")
        kind = _type(prop).replace("|", "\\|")  # a pipe inside code still ends a cell
        rows.append(f"| `{name}` | `{kind}` | {text} |")
    return rows


def _output(spec: Tool) -> list[str]:
    """The result's fields, then each part it names (a `$ref`) once, in order."""
    schema = spec.output_schema()
    lines = ["Result:", "", *_fields(schema)]
    for name, part in schema.get("$defs", {}).items():
        lines += ["", f"`{name}`:", "", *_fields(part)]
    return lines


def render_reference() -> str:
    lines = [
        "# Tool reference",
        "",
        "Generated from the registry (`python -m app.tools.reference > docs/tools.md`); a test "
        "fails when it drifts. Every door — the agent, MCP, `POST /api/v1/tools/{name}` and "
        "`timetrace tool NAME --key value` — calls these same tools, and every result is capped "
        "by a CJK-aware token estimate (`truncated: true` when something was cut, `omitted` "
        "saying how many items). Each tool answers the result model below (its JSON schema is "
        "MCP's `outputSchema` and the API's response schema); an optional field is left out "
        "rather than null. A call that fails answers "
        '`{"error": …, "hint": …}` instead, with `unresolved` and `suggestions` for a name '
        "found nowhere in your data, `conflict` or `retry` where they apply.",
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
            "Arguments:",
            "",
            "```json",
            json.dumps(t.input_schema(), ensure_ascii=False, indent=2),
            "```",
            "",
            *_output(t),
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(render_reference(), end="")
