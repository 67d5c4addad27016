"""Every tool's published schemas (name, arguments, result, description, cap, tier) as
the doors list them, held to a snapshot: a tool's name, parameters and result come
from its signature (app/tools/registry.py: `tool`), so a change to a function or its
models shows here. When a tool really changes, regenerate the snapshot on purpose:

    .venv/bin/python -m tests.unit.test_tool_schemas
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.tools import REGISTRY, list_tools
from app.tools.registry import tool

SNAPSHOT = Path(__file__).resolve().parents[1] / "snapshots" / "tools.json"


def published() -> str:
    schemas: dict[str, Any] = {
        "tools": list_tools(),
        "outputs": {name: t.output_schema() for name, t in REGISTRY.items()},
    }
    return json.dumps(schemas, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def test_the_published_schemas_equal_the_snapshot() -> None:
    assert len(REGISTRY) >= 14
    assert published() == SNAPSHOT.read_text(encoding="utf-8"), (
        "a tool's schema changed: if on purpose, run python -m tests.unit.test_tool_schemas"
    )


def test_a_tool_is_named_after_its_function_and_typed_by_its_signature() -> None:
    for name, registered in REGISTRY.items():
        assert registered.run.__name__ == name
        hints = registered.run.__annotations__
        assert hints["args"] in (registered.params.__name__, registered.params)
        assert hints["return"] in (registered.result.__name__, registered.result)


def test_a_tool_without_its_models_in_the_signature_is_refused() -> None:
    def unannotated(ctx, args):  # type: ignore[no-untyped-def]
        return None

    with pytest.raises(TypeError, match="annotate `args`"):
        tool(description="x", cap_tokens=10, tier="0")(unannotated)
    assert "unannotated" not in REGISTRY


if __name__ == "__main__":
    SNAPSHOT.write_text(published(), encoding="utf-8")
