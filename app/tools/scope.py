"""What a scoped token may call (docs/scopes.md): the one check every door's tool call
passes through (`dispatch`). What it may *see* is the store it is given
(`Services.store_for`); this decides only whether a tool runs at all.

    refused = refusal(user.scope, tool="apply_label", writes=True)   # a ToolError, or None
"""

from __future__ import annotations

from app.store.scope import TokenScope
from app.tools.results import ToolError


def refusal(scope: TokenScope | None, *, tool: str, writes: bool) -> ToolError | None:
    """A `forbidden` error when the token may not call `tool`; None when it may."""
    if scope is None:
        return None
    if not scope.may_call(tool):
        return ToolError(
            error=f"this token may not call {tool!r}",
            forbidden=True,
            hint=f"tools this token may call: {', '.join(scope.tools or [])}",
        )
    if writes and not scope.can_write:
        why = "is read-only" if scope.read_only else "sees only part of your time"
        return ToolError(
            error=f"this token {why}: {tool} changes your data",
            forbidden=True,
            hint="ask with a token that may write (timetrace token create without read-only)",
        )
    return None


def may_list(scope: TokenScope | None, *, tool: str) -> bool:
    """Whether a tool listing shown to this token names `tool`."""
    return scope is None or scope.may_call(tool)
