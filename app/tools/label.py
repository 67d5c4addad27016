"""apply_label: the only write a tool makes — re-label a record or an episode.

The change is audited in `labels`; the episodes built from the records are
rebuilt and their days rolled up again at once (`ToolContext.rebuild`), so the
next query_stats sees it; an episode that starts where it started keeps its id. A
target deleted or rebuilt meanwhile is a conflict (HTTP 409) that says where the
episode's time went; a rebuild that loses a race leaves it to the worker.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import Field

from app.boundary import LaxId
from app.errors import ConflictError, DatabaseError, NotFoundError
from app.rules.categories import Category
from app.text import StorableStr
from app.tools.registry import ToolArgs, ToolContext, tool
from app.tools.results import ToolResult, gone_episode_text, opt


class LabelArgs(ToolArgs):
    target: Literal["record", "episode"]
    id: LaxId = Field(description="the record or episode id")
    category: Category
    note: StorableStr = Field("", max_length=500)


class LabelResult(ToolResult):
    label_id: int
    recomputed_days: list[date] = Field(description="the days recomputed at once")
    pending_days: list[date] | None = opt("days the worker recomputes in the background")
    note: str | None = opt()


@tool(
    tier="write",
    cap_tokens=300,
    description="""
Correct the category of a record or of an episode (all its records), e.g. when a video was
work. Audited; the affected days are recomputed. 修改记录或 episode 的类别（有审计）。
""",
)
def apply_label(ctx: ToolContext, args: LabelArgs) -> LabelResult:
    try:
        done = ctx.store.relabel(
            user_id=ctx.user.user_id,
            target_kind=args.target,
            target_id=args.id,
            category=args.category,
            actor="tool",
            note=args.note,
        )
    except ConflictError as exc:
        moved = (
            ctx.store.episode_moved(user_id=ctx.user.user_id, episode_id=args.id)
            if args.target == "episode"
            else None
        )
        if moved is None:
            raise
        raise ConflictError(gone_episode_text(moved)) from exc
    if done is None:
        raise NotFoundError(
            f"no {args.target} {args.id}"
            + (" with active records to re-label" if args.target == "episode" else "")
        )
    label_id = done.label_id
    device_days = [(d.device_id, d.day_local) for d in done.device_days]
    days = sorted({d.day_local for d in done.device_days})
    try:
        ctx.rebuild(user=ctx.user, device_days=device_days, now=ctx.now)
    except DatabaseError:
        # The label holds; the worker rebuilds its (stale) episodes in the background.
        return LabelResult(
            label_id=label_id,
            recomputed_days=[],
            pending_days=days,
            note="the label is saved; its days are being recomputed in the background",
        )
    return LabelResult(label_id=label_id, recomputed_days=days)
