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
        "**Instants.** Every argument that takes an instant (`ts_from`, `ts_to`, `at`, "
        "`before`) takes ISO 8601 or relative words, read in the user's time zone and "
        "logical day (never the server's): `now`, `2h ago`, `30 min ago`, `yesterday 3pm`, "
        "`today 09:00`, `3小时前`, `昨天下午3点`, `昨晚8点`. A day word alone is the start of "
        "that logical day; a clock time alone is the latest one not after now; a clock time "
        "before the day's cut hour lies on the next date. Words it cannot read are refused "
        "with the forms it takes.",
        "",
        "**Pages.** A tool with a `cursor` argument (`get_raw`, `search_episodes`, `get_episodes`) "
        "answers a `cursor` when its cap cut the result: call the same tool with it (alone, "
        "or with the same arguments) for the next page, until an answer has no cursor. The "
        "pages hold the items of one uncapped call, in order, none twice and none skipped: "
        "the cursor keeps the first call's arguments and clock; `get_raw` goes on after the "
        "last record shown, `get_episodes` after the last episode shown, and "
        "`search_episodes` ranks only episodes that started before the first call, so "
        "records arriving meanwhile cannot shift a page. A cursor that is not the tool's "
        "own, or is sent with other arguments, is refused.",
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
