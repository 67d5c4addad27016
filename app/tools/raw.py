"""get_raw: the raw records of a narrow window, the ladder's last rung.

Records come in timeline order (start, then id). A capped answer gives a `cursor`
holding the last shown record's key: the next page is the records after it, so records
added meanwhile are shown once, in their place, and none is skipped.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated

from pydantic import Field

from app.errors import InvalidInputError, NotFoundError
from app.store.accounts import DEVICE_ID_PATTERN
from app.store.records import RecordLine
from app.timeutil import zone
from app.tools.instants import ZONED_HELP, ZonedInstant
from app.tools.paging import PagedArgs, PagedResult, pager, read_cursor
from app.tools.reads import clip_text
from app.tools.registry import ToolArgs, ToolContext, tool
from app.tools.results import Shape, Stamp, flag, opt

RAW_MAX_WINDOW = timedelta(hours=2)
RAW_LIMIT = 2_000  # records read per page


class RawArgs(ToolArgs, PagedArgs):
    ts_from: ZonedInstant = Field(description=f"start: {ZONED_HELP}")
    ts_to: ZonedInstant = Field(description="end, at most 2 hours later (the same forms)")
    device_id: Annotated[str, Field(pattern=DEVICE_ID_PATTERN)] | None = None


class RawRecord(Shape):
    at: str = Field(description="local HH:MM:SS")
    device: str
    app: str
    title: str | None
    description: str | None = opt()
    idle: bool = flag()


class RawResult(PagedResult):
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
    after = _after(args)
    rows = ctx.store.raw_records(
        user_id=ctx.user.user_id,
        ts_from=args.ts_from if after is None else max(args.ts_from, after[0]),
        ts_to=args.ts_to,
        device_id=args.device_id,
        limit=RAW_LIMIT,
    )
    full = len(rows) == RAW_LIMIT  # more may follow: the answer is a page
    if after is not None:
        rows = [r for r in rows if (r.ts_start, r.record_id) > after]
    expired = ctx.store.raw_expired_before(user_id=ctx.user.user_id)
    if expired is None or args.ts_from >= expired:
        expired = None  # the window is whole: nothing of it has expired
    if not rows and args.device_id and expired is None and after is None:
        raise NotFoundError(f"no records of device {args.device_id!r} in that window")
    tz = zone(ctx.user.time_zone)
    items = [  # written out, not a function a record: hundreds of records a call
        RawRecord(
            at=r.ts_start.astimezone(tz).strftime("%H:%M:%S"),
            device=r.device_id,
            app=r.app,
            title=clip_text(r.window_title),
            description=clip_text(r.description, 200) if r.description else None,
            idle=r.is_idle,
        )
        for r in rows
    ]
    result = RawResult(raw_expired_before=expired, items=items).paged(
        pager(tool="get_raw", args=args, now=ctx.now, position=lambda n: _key(rows[n - 1]))
    )
    if full and rows:
        result.truncated, result.cursor = True, result.cursor_after(len(rows))
    return result


def _after(args: RawArgs) -> tuple[datetime, int] | None:
    """The key of the last record a cursor's page showed."""
    if args.cursor is None:
        return None
    try:
        at, record_id = read_cursor(args.cursor, tool="get_raw").after
        key = datetime.fromisoformat(at), int(record_id)
    except (ValueError, TypeError):
        key = None
    if key is None or key[0].tzinfo is None:
        raise InvalidInputError("cursor: not a cursor of get_raw: pass it back unchanged")
    return key


def _key(r: RecordLine) -> tuple[str, int]:
    """A record's place in the timeline, as a cursor holds it."""
    return r.ts_start.isoformat(), r.record_id
