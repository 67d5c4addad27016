"""get_raw: the raw records of a narrow window, the ladder's last rung."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated

from pydantic import Field

from app.boundary import Instant
from app.errors import InvalidInputError, NotFoundError
from app.store.accounts import DEVICE_ID_PATTERN
from app.timeutil import zone
from app.tools.reads import clip_text
from app.tools.registry import ToolArgs, ToolContext, tool
from app.tools.results import Shape, Stamp, ToolResult, flag, opt

RAW_MAX_WINDOW = timedelta(hours=2)


class RawArgs(ToolArgs):
    ts_from: Instant = Field(description="start (ISO 8601 with zone)")
    ts_to: Instant = Field(description="end (ISO 8601 with zone), at most 2 hours later")
    device_id: Annotated[str, Field(pattern=DEVICE_ID_PATTERN)] | None = None


class RawRecord(Shape):
    at: str = Field(description="local HH:MM:SS")
    device: str
    app: str
    title: str | None
    description: str | None = opt()
    idle: bool = flag()


class RawResult(ToolResult):
    items: list[RawRecord]
    raw_expired_before: Stamp | None = opt(
        "records before this instant have expired (retention): their episodes and digests "
        "still answer"
    )


@tool(
    tier="3",
    cap_tokens=10_000,
    description="""
Raw records (app, title, description) in a narrow window of at most 2 hours. Expensive: only
when episodes do not answer. 原始记录，窗口不超过 2 小时。
""",
)
def get_raw(ctx: ToolContext, args: RawArgs) -> RawResult:
    if args.ts_to <= args.ts_from:
        raise InvalidInputError("ts_to must be after ts_from")
    if args.ts_to - args.ts_from > RAW_MAX_WINDOW:
        raise InvalidInputError(
            "get_raw reads at most a 2-hour window; use get_episodes for longer periods, or "
            "search_episodes to find the moment first"
        )
    rows = ctx.store.raw_records(
        user_id=ctx.user.user_id,
        ts_from=args.ts_from,
        ts_to=args.ts_to,
        device_id=args.device_id,
        limit=2_000,
    )
    expired = ctx.store.raw_expired_before(user_id=ctx.user.user_id)
    if expired is None or args.ts_from >= expired:
        expired = None  # the window is whole: nothing of it has expired
    if not rows and args.device_id and expired is None:
        raise NotFoundError(f"no records of device {args.device_id!r} in that window")
    tz = zone(ctx.user.time_zone)
    return RawResult(
        raw_expired_before=expired,
        items=[
            RawRecord(
                at=r.ts_start.astimezone(tz).strftime("%H:%M:%S"),
                device=r.device_id,
                app=r.app,
                title=clip_text(r.window_title),
                description=clip_text(r.description, 200) if r.description else None,
                idle=r.is_idle,
            )
            for r in rows
        ],
    )
