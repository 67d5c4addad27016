"""The tool registry as documented: every tool has a schema and a Chinese hint, and the
reference in docs/tools.md matches it."""

from __future__ import annotations

from pathlib import Path

from app.text import has_cjk
from app.tools import list_tools
from app.tools.reference import render_reference

ROOT = Path(__file__).resolve().parents[2]


def test_the_reference_in_docs_matches_the_registry() -> None:
    assert (ROOT / "docs" / "tools.md").read_text(encoding="utf-8") == render_reference()


def test_every_tool_has_a_schema_and_a_chinese_hint() -> None:
    tools = list_tools()
    assert [t["name"] for t in tools][:2] == ["get_now", "query_stats"]
    for t in tools:
        assert t["input_schema"]["type"] == "object"
        assert has_cjk(t["description"]), t["name"]
