"""Tools on things by the names people use: when one was last seen, on which days it
took time, several side by side, and what was on the screen at a given moment.

    dispatch(ctx, "last_seen", {"thing": "Steam"})
    dispatch(ctx, "days_with", {"thing": "B站", "period": "this_month", "min_minutes": 30})
    dispatch(ctx, "compare", {"things": ["娱乐", "work"], "period": "last_week"})
    dispatch(ctx, "get_moment", {"at": "2026-06-30T15:04"})

Every name goes through the resolver (`app/tools/things.py`); a name it cannot find is
an error with the closest names the user has. Answers are exact: from records by the
duration rule, or from episodes and digests that equal them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Self

from pydantic import Field, model_validator

from app.rules.things import Thing
from app.store.accounts import DEVICE_ID_PATTERN
from app.store.records import RecordLine
from app.store.tools import MomentRecord, RecordMatch
from app.text import StorableStr
from app.timeutil import logical_day, zone
from app.tools.instants import LOCAL_HELP, LocalInstant
from app.tools.periods import (
    DayWindowArgs,
    Window,
    WindowArgs,
    resolve_window,
    today_of,
    window_text,
    windowed,
)
from app.tools.registry import ToolArgs, ToolContext, tool
from app.tools.results import Period, Shape, Stamp, ThingInfo, ToolResult, flag, opt, thing_info
from app.tools.stats import stitched_metrics, thing_total
from app.tools.things import belongs, record_match, require_thing, thing_seconds_by_day
from app.tools.windows import thing_by_day, thing_parts, window_rows

TITLE_MAX = 100
LAST_SEEN_BATCH = 200
LAST_SEEN_BATCHES = 25  # at most 5,000 candidate records read before giving up
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)  # before any record (their days start in 1970)
# Instants a question may name: inside the days tools accept, and far from the calendar's
# ends, so that a day before or after them always exists.
FIRST_INSTANT = datetime(1970, 1, 2)
LAST_INSTANT = datetime(2999, 12, 30)

THING = (
    "an app, site, category or idle time by the name people use: Steam, VS Code, PyCharm, 微信, "
    "终端/命令行, 浏览器, YouTube, 知乎, B站, github.com, 娱乐, work, 离开电脑, away"
)


def _clip(text: str | None, limit: int = TITLE_MAX) -> str | None:
    if not text:
        return text
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _in_range(ts: datetime | None) -> datetime | None:
    """Refuse instants outside 1970..2999 (naive ones compared as written)."""
    if ts is not None and not FIRST_INSTANT <= ts.replace(tzinfo=None) <= LAST_INSTANT:
        raise ValueError(
            f"{ts.isoformat()} is outside {FIRST_INSTANT:%Y-%m-%d}..{LAST_INSTANT:%Y-%m-%d}"
        )
    return ts


def _aware(ctx: ToolContext, ts: datetime) -> datetime:
    """A time without a zone is the user's local time."""
    return ts if ts.tzinfo is not None else ts.replace(tzinfo=zone(ctx.user.time_zone))


def _site(ctx: ToolContext, record: RecordLine | MomentRecord) -> str | None:
    if record.domain:
        return record.domain
    apps = ctx.rules.apps
    if apps.is_browser(record.app):
        return apps.site_of(apps.page_title(record.window_title))
    return None


# -- last_seen ----------------------------------------------------------------------------


class LastSeenArgs(ToolArgs):
    thing: StorableStr | None = Field(None, min_length=1, max_length=200, description=THING)
    title: StorableStr | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="text in the window title (a file, a page, a project, a game), alone or "
        "with thing",
    )
    before: LocalInstant | None = Field(
        None, description=f"only records that start before this: {LOCAL_HELP}; default: now"
    )

    @model_validator(mode="after")
    def _something(self) -> Self:
        if not self.thing and not self.title:
            raise ValueError("give thing, title or both")
        _in_range(self.before)
        return self


def _newest(
    ctx: ToolContext, match: RecordMatch, accept: Callable[[RecordLine], bool], before: datetime
) -> RecordLine | None:
    """The newest record the store matches and `accept` keeps, read in batches."""
    cursor = before
    for _ in range(LAST_SEEN_BATCHES):
        rows = ctx.store.latest_matching(
            user_id=ctx.user.user_id,
            match=match,
            since=EARLIEST,
            before=cursor,
            limit=LAST_SEEN_BATCH,
        )
        for row in rows:
            if accept(row):
                return row
        if len(rows) < LAST_SEEN_BATCH:
            return None
        cursor = rows[-1].ts_start
    return None


class LastSeenResult(ToolResult):
    thing: ThingInfo | None = opt()
    title_contains: str | None = opt()
    found: bool
    before: Stamp | None = opt()
    note: str | None = opt()
    at: str | None = opt("local YYYY-MM-DD HH:MM of the newest record")
    day: date | None = opt()
    days_ago: int | None = opt()
    device: str | None = opt()
    app: str | None = opt()
    site: str | None = opt()
    title: str | None = opt()
    category: str | None = opt()
    idle: bool = flag()
    episode_id: int | None = opt()
    record_id: int | None = opt()


@tool(
    tier="0",
    cap_tokens=300,
    description="""
When a thing was last used or seen: the newest record of an app, a site (inside browsers
too), a category or idle time — and/or a record whose window title contains some text —
over all history, exactly (not a search over episodes). Gives its time, day, device, app,
site, title and the episode around it. For "when did I last …" / "上次…是什么时候".
某个应用/网站/类别（或标题含某文字）最后一次出现的时间，精确取自全部记录。
""",
)
def last_seen(ctx: ToolContext, args: LastSeenArgs) -> LastSeenResult:
    thing = require_thing(ctx, mention=args.thing) if args.thing else None
    before = _aware(ctx, args.before) if args.before else ctx.now
    title = args.title
    if thing is not None and title is None:
        match = record_match(ctx, thing)
        site_candidates = bool(match.page_terms)

        def accept(r: RecordLine) -> bool:
            return not site_candidates or belongs(ctx, thing, r)
    else:
        # With a title, the title narrows the records fastest; the thing is checked on each.
        match = RecordMatch(title=title)

        def accept(r: RecordLine) -> bool:
            return thing is None or belongs(ctx, thing, r)

    found = _newest(ctx, match, accept, before)
    tz = zone(ctx.user.time_zone)
    described = thing_info(thing) if thing else None
    asked_before = before if args.before else None
    if found is None:
        what = thing.label if thing else repr(title)
        return LastSeenResult(
            thing=described,
            title_contains=title or None,
            found=False,
            before=asked_before,
            note=f"no record of {what} before {before.astimezone(tz):%Y-%m-%d %H:%M}",
        )
    day = logical_day(found.ts_start, tz=tz, cut_hour=ctx.user.day_cut_hour)
    return LastSeenResult(
        thing=described,
        title_contains=title or None,
        found=True,
        before=asked_before,
        at=found.ts_start.astimezone(tz).strftime("%Y-%m-%d %H:%M"),
        day=day,
        days_ago=(today_of(ctx.user, ctx.now) - day).days,
        device=found.device_id,
        app=found.app,
        site=_site(ctx, found),
        title=_clip(found.window_title),
        category=found.category,
        idle=found.is_idle,
        episode_id=found.episode_id,
        record_id=found.record_id,
    )


# -- days_with ----------------------------------------------------------------------------


class DaysWithArgs(DayWindowArgs):
    thing: StorableStr = Field(min_length=1, max_length=200, description=THING)
    min_minutes: float = Field(
        1, ge=0, le=1440, description="a day counts with at least this many minutes (default 1)"
    )


class DayMinutes(Shape):
    day: date
    minutes: float


class DaySeconds(Shape):
    day: date
    seconds: int


class DaysWithResult(ToolResult, Period):
    thing: ThingInfo
    min_minutes: float
    count: int = Field(description="how many days reached min_minutes")
    days_in_period: int
    total_seconds: int = Field(description="the thing's seconds over the whole period")
    items: list[DayMinutes] = Field(description="the days that reached min_minutes")
    days_without: int = Field(
        description="how many days did not reach min_minutes (days with none included)"
    )
    series: list[DaySeconds] = Field(
        description="every day of the period in order with the thing's seconds, 0 included: "
        "averages per day, days without and thresholds come from it exactly"
    )
    window: str | None = opt("the window inside each day counted")


@tool(
    tier="0",
    cap_tokens=10_000,
    description="""
The days in a period with at least min_minutes of a thing (an app, a site inside browsers, a
category, idle time), each with its minutes, and how many; days_without counts the days
under min_minutes, and series gives every day of the period with its seconds (0 included),
for averages per day, "days without", thresholds and streaks. time_from/time_to (HH:MM)
count only a window inside each day (22:00-02:00: the night after each day). For "how many
days did I …", "on which days …", "every day?", "on average per day", "days without".
Exact, by the duration rule.
某段时间内某应用/网站/类别达到 min_minutes 分钟的日子：逐日分钟数和天数；
days_without 为未达到的天数，series 为每天的秒数（含 0），用于日均、「有几天没」、阈值。
time_from/time_to 只算每天的某个时段。
""",
)
def days_with(ctx: ToolContext, args: DaysWithArgs) -> DaysWithResult:
    thing = require_thing(ctx, mention=args.thing)
    day_from, day_to, windows = resolve_window(args, user=ctx.user, now=ctx.now)
    if windowed(args):
        rows = window_rows(
            ctx, windows=windows, day_from=day_from, day_to=day_to, title=thing.title
        )
        by_day = thing_by_day(ctx, thing, rows)
    else:
        by_day = thing_seconds_by_day(ctx, thing, day_from=day_from, day_to=day_to)
    least = args.min_minutes * 60
    days = [(d, s) for d, s in by_day.items() if s >= least and s > 0]
    every = [day_from + timedelta(days=i) for i in range((day_to - day_from).days + 1)]
    return DaysWithResult(
        thing=thing_info(thing),
        from_=day_from,
        to=day_to,
        min_minutes=args.min_minutes,
        count=len(days),
        days_in_period=len(every),
        total_seconds=round(sum(by_day.values())),
        items=[DayMinutes(day=d, minutes=round(s / 60, 1)) for d, s in days],
        days_without=len(every) - len(days),
        series=[DaySeconds(day=d, seconds=round(by_day.get(d, 0.0))) for d in every],
        window=window_text(args),
    )


# -- compare ------------------------------------------------------------------------------


class CompareArgs(WindowArgs):
    things: list[StorableStr] = Field(
        min_length=2,
        max_length=6,
        description="2 to 6 names to put side by side: apps, sites, categories or idle time, "
        'mixed, e.g. ["娱乐", "工作"], ["YouTube", "B站"], ["VS Code", "PyCharm"]',
    )

    @model_validator(mode="after")
    def _names(self) -> Self:
        for name in self.things:
            if not name.strip() or len(name) > 200:
                raise ValueError("every name has 1 to 200 characters")
        return self


class Compared(ThingInfo):
    mention: str
    seconds: int
    hours: float


class CompareResult(ToolResult, Period):
    items: list[Compared]
    most: str
    least: str
    max_minus_min_s: int
    first_minus_second_s: int | None = opt("with two things")
    first_minus_second_hours: float | None = opt("with two things")
    window: str | None = opt("the window inside each day, or the instants, counted")


@tool(
    tier="0",
    cap_tokens=600,
    description="""
Two to six things side by side over one period: seconds and hours of each (apps, sites
inside browsers, categories, idle time, mixed), which is most and least, and the difference
(first minus second when there are two). time_from/time_to (HH:MM) count only a window
inside each day; ts_from/ts_to (instants with their zone) replace the period. For "X or Y,
which more", "X vs Y", "比较", "哪个多", "分别". 对比多个应用/网站/类别在同一时段的时长，
并给出差值；time_from/time_to 只算每天的某个时段，ts_from/ts_to 为起止时刻。
""",
)
def compare(ctx: ToolContext, args: CompareArgs) -> CompareResult:
    things = [require_thing(ctx, mention=name) for name in args.things]
    day_from, day_to, windows = resolve_window(args, user=ctx.user, now=ctx.now)
    seconds = _compared_seconds(ctx, things, day_from=day_from, day_to=day_to, windows=windows)
    items = [
        Compared(
            mention=mention.strip(),
            **thing_info(thing).model_dump(),
            seconds=round(total),
            hours=round(total / 3600, 2),
        )
        for mention, thing, total in zip(args.things, things, seconds, strict=True)
    ]
    most = max(items, key=lambda i: i.seconds)
    least = min(items, key=lambda i: i.seconds)
    diff = items[0].seconds - items[1].seconds if len(items) == 2 else None
    return CompareResult(
        from_=day_from,
        to=day_to,
        items=items,
        most=most.label,
        least=least.label,
        max_minus_min_s=most.seconds - least.seconds,
        first_minus_second_s=diff,
        first_minus_second_hours=round(diff / 3600, 2) if diff is not None else None,
        window=window_text(args),
    )


def _compared_seconds(
    ctx: ToolContext, things: list[Thing], *, day_from: date, day_to: date, windows: list[Window]
) -> list[float]:
    """Each thing's seconds: inside the windows from records (one read for every thing
    but those by title text), else as query_stats counts them (one stitched read)."""
    out = []
    if windows:
        shared = window_rows(ctx, windows=windows, day_from=day_from, day_to=day_to)
        for thing in things:
            rows = shared
            if thing.title:
                rows = window_rows(
                    ctx, windows=windows, day_from=day_from, day_to=day_to, title=thing.title
                )
            out.append(sum(thing_parts(ctx, thing, rows).values()))
        return out
    stitched = None
    for thing in things:
        if stitched is None and not (thing.domains or thing.title):
            stitched = stitched_metrics(
                ctx.store, user=ctx.user, day_from=day_from, day_to=day_to, settings=ctx.settings
            )
        total = thing_total(ctx, thing, day_from=day_from, day_to=day_to, stitched=stitched)[0]
        out.append(total)
    return out


# -- the moment ---------------------------------------------------------------------------


class MomentArgs(ToolArgs):
    at: LocalInstant = Field(description=f"the instant: {LOCAL_HELP}")
    neighbours: int = Field(2, ge=0, le=5, description="records to show before and after")
    device_id: str | None = Field(None, pattern=DEVICE_ID_PATTERN, description="only this device")

    @model_validator(mode="after")
    def _instant(self) -> Self:
        _in_range(self.at)
        return self


class MomentItem(Shape):
    from_: str = Field(alias="from", description="local HH:MM:SS")
    to: str
    app: str
    site: str | None = opt()
    title: str | None
    category: str
    idle: bool = flag()
    description: str | None = opt()
    episode_id: int | None
    record_id: int


class DeviceMoment(Shape):
    device: str
    covering: MomentItem | None = Field(description="the record covering the instant")
    before: list[MomentItem]
    after: list[MomentItem]


class MomentResult(ToolResult):
    at: str = Field(description="local YYYY-MM-DD HH:MM:SS")
    day: date
    items: list[DeviceMoment] = Field(description="one per device, those in use first")
    note: str | None = opt()


def _moment_item(ctx: ToolContext, r: MomentRecord) -> MomentItem:
    tz = zone(ctx.user.time_zone)
    end = r.ts_start + timedelta(seconds=r.duration_s)
    return MomentItem(
        from_=r.ts_start.astimezone(tz).strftime("%H:%M:%S"),
        to=end.astimezone(tz).strftime("%H:%M:%S"),
        app=r.app,
        site=_site(ctx, r),
        title=_clip(r.window_title),
        category=r.category,
        idle=r.is_idle,
        description=_clip(r.description, 160) if r.description else None,
        episode_id=r.episode_id,
        record_id=r.record_id,
    )


@tool(
    tier="1",
    cap_tokens=1_200,
    description="""
What was on the screen at one instant: on each device, the record covering that moment first
(by the duration rule), then the records just before and after it. For "what was I doing at
3pm yesterday / at 14:05 on June 3". 某一时刻屏幕上是什么：各设备覆盖该时刻的记录及其前后。
""",
)
def get_moment(ctx: ToolContext, args: MomentArgs) -> MomentResult:
    at = _aware(ctx, args.at)
    rows = ctx.store.records_around(user_id=ctx.user.user_id, at=at, per_side=args.neighbours)
    by_device: dict[str, list[MomentRecord]] = {}
    for r in rows:
        if args.device_id is None or r.device_id == args.device_id:
            by_device.setdefault(r.device_id, []).append(r)
    devices = []
    for device, records in by_device.items():
        before = [r for r in records if r.ts_start <= at]
        after = [r for r in records if r.ts_start > at]
        covering = None
        if before and at < before[-1].ts_start + timedelta(seconds=before[-1].duration_s):
            covering = before.pop()
        # A device not in use at that instant shows only its nearest record on each side.
        keep = args.neighbours if covering else min(args.neighbours, 1)
        before = before[-keep:] if keep else []
        after = after[:keep]
        devices.append(
            DeviceMoment(
                device=device,
                covering=_moment_item(ctx, covering) if covering else None,
                before=[_moment_item(ctx, r) for r in before],
                after=[_moment_item(ctx, r) for r in after],
            )
        )
    # Devices that were in use at that instant first.
    devices.sort(key=lambda d: (d.covering is None, d.device))
    tz = zone(ctx.user.time_zone)
    return MomentResult(
        at=at.astimezone(tz).strftime("%Y-%m-%d %H:%M:%S"),
        day=logical_day(at, tz=tz, cut_hour=ctx.user.day_cut_hour),
        items=devices,
        note=None
        if any(d.covering for d in devices)
        else "no record covers that instant (away, or nothing recorded)",
    )
