"""get_episode: one episode by its id, as cited by an answer, a signal's evidence or a
search result. An id that no longer exists (its day was rebuilt: a re-label, a late
record, a deletion) answers with where its time went — the episode that now covers
its start — or says its records were deleted.
"""

from __future__ import annotations

from pydantic import Field

from app.boundary import LaxId
from app.errors import NotFoundError
from app.tools.reads import Episode, episode_line
from app.tools.registry import ToolArgs, ToolContext, tool
from app.tools.results import ToolResult, gone_episode_text, opt


class EpisodeArgs(ToolArgs):
    id: LaxId = Field(description="the episode id")


class EpisodeResult(ToolResult):
    episode: Episode
    moved_from: int | None = opt(
        "the id asked for no longer exists (its day was rebuilt): this episode now covers its start"
    )


@tool(
    tier="1",
    cap_tokens=400,
    description="""
One episode by its id (from an answer, a signal's evidence or a search result). An id whose
day was rebuilt answers with the episode that now covers its time (`moved_from`).
按 id 取一个 episode；已重建的 id 给出现在覆盖它那段时间的 episode。
""",
)
def get_episode(ctx: ToolContext, args: EpisodeArgs) -> EpisodeResult:
    user_id = ctx.user.user_id
    line = ctx.store.get_episode(user_id=user_id, episode_id=args.id)
    if line is not None:
        return EpisodeResult(episode=episode_line(line, ctx))
    moved = ctx.store.episode_moved(user_id=user_id, episode_id=args.id)
    if moved is None:
        raise NotFoundError(f"no episode {args.id}")
    current = (
        None
        if moved.episode_id is None
        else ctx.store.get_episode(user_id=user_id, episode_id=moved.episode_id)
    )
    if current is None:
        raise NotFoundError(gone_episode_text(moved))
    return EpisodeResult(episode=episode_line(current, ctx), moved_from=args.id)
