"""query_stats: exact numbers for any period, stitched across the pyramid.

Finalized month, week and day digests cover what they can (largest first);
the days they do not cover are computed live by SQL over closed episodes, and
records not yet in an episode (the open tail) by the duration rule. The answer
says where it came from (`source`: digest, live or mixed), how far it goes
(`computed_through_ts`) and how much time two or more devices were active at once
(`device_overlap_s`: each device's time is counted, so sums across devices include
it twice).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Literal

from pydantic import Field

from app.errors import InvalidInputError, UnknownThingError
from app.pyramid.metrics import merge_day_metrics
from app.rules.things import CategoryName, Thing
from app.settings import Settings
from app.store.accounts import UserContext
from app.store.documents import DigestMetrics
from app.store.tools import TailSeconds, ToolStore
from app.text import StorableStr
from app.timeutil import period_days, read_window, scope_keys
from app.tools.coverage import Uncovered, coverage_items
from app.tools.periods import WindowArgs, resolve, resolve_window, span, window_text, windowed
from app.tools.registry import ToolContext, tool
from app.tools.results import Period, Shape, Stamp, ThingInfo, ToolResult, opt, thing_info
from app.tools.sites import SiteTime as SiteTime  # re-exported: the agent reads it here
from app.tools.sites import site_items
from app.tools.things import (
    RecordSeconds,
    from_records,
    metrics_seconds,
    require_thing,
    resolve_thing,
    site_seconds,
)
from app.tools.user_categories import UserCategoryTime, user_category_items
from app.tools.windows import thing_parts, window_rows, window_totals

Metric = Literal[
    "seconds_by_category",
    "seconds_by_app",
    "episode_count",
    "active_seconds",
    "top_titles",
    "signal_counts",
    "uncategorized",
    "seconds_by_site",
    "seconds_by_user_category",
]


Source = Literal["digest", "live", "mixed"]

# The grains of scope_keys' keys, and the order digests cover a period in.
_GRAINS = ("day", "week", "month")
_GRAINS_LARGEST_FIRST = ("month", "week", "day")

# Titles of browser pages without a URL are grouped by site in Python: read enough rows.
COVERAGE_ROWS = 2_000


class QueryStatsArgs(WindowArgs):
    metric: Metric = Field("seconds_by_category", description="what to count")
    category: CategoryName | None = Field(
        None, description="only this category (with seconds_by_category)"
    )
    app: StorableStr | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="only this app (with seconds_by_app), by any of its names, e.g. Slack, 微信, "
        "VS Code; else apps whose name contains this",
    )
    thing: StorableStr | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="the seconds of one thing by the name people use: an app (VS Code, PyCharm, "
        "微信, 终端), a site inside browsers (YouTube, 知乎, B站, github.com), a category "
        "(娱乐, work) or idle time (离开电脑, away); says what it matched",
    )
    site: StorableStr | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="like thing, for a site only (YouTube, 知乎, github.com): its time in browsers",
    )
    top_n: int = Field(10, ge=1, le=50, description="how many apps, sites or titles to list")
    limit: int | None = Field(
        None,
        ge=1,
        le=50,
        description="how many apps (seconds_by_app) or sites (seconds_by_site) to list, most "
        "first (1-50, default 10); the same as top_n",
    )

    def how_many(self) -> int:
        return self.limit if self.limit is not None else self.top_n


def _days(first: date, last: date) -> list[date]:
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


def _runs(days: list[date]) -> list[tuple[date, date]]:
    runs: list[tuple[date, date]] = []
    for day in sorted(days):
        if runs and runs[-1][1] + timedelta(days=1) == day:
            runs[-1] = (runs[-1][0], day)
        else:
            runs.append((day, day))
    return runs


def _open_tail(rows: list[TailSeconds]) -> DigestMetrics:
    by_category: dict[str, float] = {}
    by_app: dict[str, float] = {}
    active = 0.0
    idle = 0.0
    for row in rows:
        category = "system" if row.is_idle else row.category
        by_category[category] = by_category.get(category, 0.0) + row.seconds
        if row.is_idle:
            idle += row.seconds
            continue  # time away is never time in an app
        app = row.app or "(unknown)"
        by_app[app] = by_app.get(app, 0.0) + row.seconds
        active += row.seconds
    return DigestMetrics(
        seconds_by_category=by_category,
        seconds_by_app=by_app,
        active_seconds=active,
        idle_seconds=idle,
    )


def _periods_inside(first: date, last: date) -> list[tuple[str, str]]:
    """The months, weeks and days, as (grain, key), whose days all lie in [first, last]."""
    keys = dict.fromkeys(
        (grain, key)
        for day in _days(first, last)
        for grain, key in zip(_GRAINS, scope_keys(day), strict=True)
    )
    inside = []
    for grain, key in keys:
        try:
            start, end = period_days(grain, key)
        except ValueError:  # a week reaching past the days kept: no digest has it
            continue
        if first <= start and end <= last:
            inside.append((grain, key))
    return inside


def stitched_metrics(
    store: ToolStore, *, user: UserContext, day_from: date, day_to: date, settings: Settings
) -> tuple[DigestMetrics, Source, datetime | None]:
    """Additive metrics of [day_from, day_to]; the source; the watermark."""
    wanted = _days(day_from, day_to)
    covered: set[date] = set()
    parts: list[DigestMetrics] = []
    watermarks: list[datetime] = []
    # A digest leaves out records not in episodes yet (a late record): the days of those
    # are counted live, and the digests over them are not taken.
    digests = store.covering_digests(
        user_id=user.user_id,
        day_from=day_from,
        day_to=day_to,
        periods=_periods_inside(day_from, day_to),
    )
    # Largest first, then by key: the order the parts were always summed in.
    digests.sort(key=lambda d: (_GRAINS_LARGEST_FIRST.index(d.grain), d.scope_key))
    for digest in digests:
        covered |= set(_days(*period_days(digest.grain, digest.scope_key)))
        parts.append(digest.metrics)
        if digest.computed_through_ts:
            watermarks.append(digest.computed_through_ts)
    live_days = sorted(set(wanted) - covered)
    for first, last in _runs(live_days):
        live = store.period_metrics(user_id=user.user_id, day_from=first, day_to=last)
        parts.append(live.metrics)
        if live.computed_through_ts:
            watermarks.append(live.computed_through_ts)
        run_from, run_to = span(first, last, user=user)
        read_from, read_to = read_window(run_from, run_to, idle_gap_s=settings.idle_gap_s)
        tail = store.open_tail_metrics(
            user_id=user.user_id, day_from=first, day_to=last, ts_from=read_from, ts_to=read_to
        )
        if tail:
            parts.append(_open_tail(tail))
            watermarks += [r.last_ts for r in tail if r.last_ts]
        overlap = store.device_overlap_seconds(
            user_id=user.user_id, ts_from=run_from, ts_to=run_to, read_from=read_from
        )
        parts.append(DigestMetrics(device_overlap_seconds=overlap))
    source: Source = "digest" if not live_days else ("live" if not covered else "mixed")
    return merge_day_metrics(parts), source, max(watermarks, default=None)


class CategoryTime(Shape):
    category: str
    seconds: int
    hours: float


class AppTime(Shape):
    app: str
    seconds: int
    hours: float


class TitleTime(Shape):
    title: str
    hours: float


class KindCount(Shape):
    kind: str
    count: int


class PartTime(Shape):
    """One part of a thing: a site, an app of the same name, a category."""

    part: str
    seconds: int
    hours: float


_Times = CategoryTime | AppTime | TitleTime | KindCount | Uncovered | PartTime | SiteTime
StatItem = _Times | UserCategoryTime


class StatsResult(ToolResult, Period):
    """One answer for every metric: the fields a metric does not use are absent."""

    metric: Metric | Literal["seconds"] = Field(description="seconds: the answer for thing=")
    thing: ThingInfo | None = opt("what thing= (or app=) resolved to")
    seconds: int | None = opt("thing=: its seconds")
    from_url_s: int | None = opt("thing= a site: its seconds from pages with a URL on it")
    from_title_s: int | None = opt(
        "thing= a site: its seconds from browser windows without a URL whose title names it"
    )
    hours: float | None = opt()
    value: int | None = opt("episode_count, or active_seconds in seconds")
    items: list[StatItem] | None = opt()
    total_seconds: int | None = opt()
    uncategorized_seconds: int | None = opt()
    active_seconds: int | None = opt()
    idle_seconds: int | None = opt("idle/locked time, never counted in an app")
    device_overlap_s: int | None = opt("seconds two or more devices were active at once")
    share: float | None = opt(
        "thing, category, app or site: its seconds divided by the active seconds of the same "
        "period and window (0..1)"
    )
    window_active_seconds: int | None = opt(
        "thing, category, app or site: the active seconds of the same period and window"
    )
    window: str | None = opt("the window inside each day, or the instants, counted")
    source: Source = Field(description="where the numbers came from")
    computed_through_ts: Stamp | None = opt("how far the numbers go")
    note: str | None = opt()
    hint: str | None = opt()
    raw_expired_before: Stamp | None = opt(
        "sites, titles and uncategorized time are counted from raw records: those before "
        "this instant have expired (retention)"
    )


def _items(mapping: dict[str, float], top_n: int | None) -> list[tuple[str, int, float]]:
    ordered = sorted(((k, v) for k, v in mapping.items() if v), key=lambda kv: (-kv[1], kv[0]))
    if top_n is not None:
        ordered = ordered[:top_n]
    return [(k, round(v), round(v / 3600, 2)) for k, v in ordered]


@tool(
    tier="0",
    cap_tokens=1_500,
    description="""
Exact numbers for a period: hours by category (work, study, social, entertainment, system,
uncategorized), hours by app, episode count, active time, top titles, signal counts. The
cheapest tool: use it first for any "how much / how many / how long" question. Each device
counts its own time; device_overlap_s is how long two or more devices were active at once.
Time in an app (seconds_by_app, top_titles) is active time only: idle/locked time is
never counted in an app; it is `system` in seconds_by_category and given as idle_seconds.
Apps are canonical names (Code.exe and Code are one "Visual Studio Code").
thing= (or site=) answers the seconds of one app, site inside browsers, category or idle time
by the name people use (知乎, YouTube, B站, VS Code, 命令行, 娱乐, 离开电脑); a name found
nowhere in the user's data is an error with the closest names they have, never 0.
metric=uncategorized lists the apps and sites with the most uncategorized time, each with
a rule line for the rules file.
With thing, category, app or site: share is its part (0..1) of the active time of the same
period and window, and window_active_seconds that active time ("what share / 占比").
metric=seconds_by_site: the top sites inside browsers by time (limit 1-50, default 10);
seconds_by_app honours limit too. metric=seconds_by_user_category: the user's own categories
(Games under entertainment) with their kind and colour, each counting the ones below it.
time_from/time_to (HH:MM, both) count only a window inside each day of the period ("after
22:00", "9-12 each morning"); time_to at or before time_from crosses midnight and belongs to
the day it starts on (22:00-02:00 on Monday = Monday 22:00 to Tuesday 02:00). ts_from/ts_to
(ISO 8601 instants with zone, both) replace the period. A window counts only the part of each
record inside it (seconds_by_category, seconds_by_app, seconds_by_site, active_seconds, thing).
统计：某段时间各类别/应用的时长、episode 数、活跃时长、信号次数。问"多少小时/几次"先用它。
thing=知乎/B站/VS Code/命令行/娱乐/离开电脑 直接给出该应用、网站（浏览器内）、类别或离开时间的秒数。
多设备各自计时，device_overlap_s 为多台设备同时活跃的秒数。
应用时长只算活跃时间；空闲/锁屏算 system，另给 idle_seconds。
uncategorized：未分类时间最多的应用/网站，附建议规则。
share 为所问对象占同时段活跃时间的比例；seconds_by_site 为浏览器内用时最多的网站（limit 条）。
time_from/time_to 只算每天的某个时段（如 22:00-02:00 跨午夜，算开始那天）；
ts_from/ts_to 为起止时刻。
""",
)
def query_stats(ctx: ToolContext, args: QueryStatsArgs) -> StatsResult:
    out = _query_stats(ctx, args)
    from_records = out.metric in ("seconds", "uncategorized", "seconds_by_site") or out.window
    if not from_records or out.source != "live":
        return out  # digests and episodes: exact whatever has expired
    expired = ctx.store.raw_expired_before(user_id=ctx.user.user_id)
    if expired is not None and span(out.from_, out.from_, user=ctx.user)[0] < expired:
        # Counted from raw records, part of which have expired (docs/retention.md).
        out.raw_expired_before = expired
        out.note = " ".join(
            filter(None, [out.note, f"records before {expired.isoformat()} have expired"])
        )
    return out


def _query_stats(ctx: ToolContext, args: QueryStatsArgs) -> StatsResult:
    if args.thing or args.site:
        return _thing_stats(ctx, args)
    if args.category and args.metric != "seconds_by_category":
        raise InvalidInputError("category works only with metric seconds_by_category")
    if args.app and args.metric != "seconds_by_app":
        raise InvalidInputError("app works only with metric seconds_by_app")
    if windowed(args) or args.metric == "seconds_by_site":
        return _record_stats(ctx, args)
    day_from, day_to = resolve(args, user=ctx.user, now=ctx.now)
    out = StatsResult(metric=args.metric, from_=day_from, to=day_to, source="live")
    if args.metric == "top_titles":
        live = ctx.store.period_metrics(user_id=ctx.user.user_id, day_from=day_from, day_to=day_to)
        out.items = [
            TitleTime(title=t["title"], hours=round(t["seconds"] / 3600, 2))
            for t in live.metrics.get("top_titles", [])[: args.top_n]
        ]
        return out
    if args.metric == "seconds_by_user_category":  # the user's own tree, from records
        out.items = list(user_category_items(ctx, day_from=day_from, day_to=day_to))
        return out
    if args.metric == "signal_counts":
        counts = ctx.store.period_signal_counts(
            user_id=ctx.user.user_id, day_from=day_from, day_to=day_to
        )
        out.items = [KindCount(kind=c.kind, count=c.n) for c in counts]
        return out
    metrics, source, through = stitched_metrics(
        ctx.store, user=ctx.user, day_from=day_from, day_to=day_to, settings=ctx.settings
    )
    if args.metric == "uncategorized":
        out.items = list(_uncategorized(ctx, day_from, day_to, top_n=args.top_n))
        out.uncategorized_seconds = round(
            metrics.get("seconds_by_category", {}).get("uncategorized", 0.0)
        )
        out.active_seconds = round(metrics.get("active_seconds", 0.0))
        out.hint = "put each rule line in a [[category]] with a name and a category"
    elif args.metric == "episode_count":
        out.value = metrics.get("episode_count", 0)
    else:
        _seconds(
            ctx,
            args,
            out,
            by_category=metrics.get("seconds_by_category", {}),
            by_app=metrics.get("seconds_by_app", {}),
            active=metrics.get("active_seconds", 0.0),
            idle=metrics.get("idle_seconds", 0.0),
        )
    # Each device counts its own time: say how much of it ran on two devices at once.
    out.device_overlap_s = round(metrics.get("device_overlap_seconds", 0.0))
    out.source = source
    out.computed_through_ts = through
    return out


def _seconds(
    ctx: ToolContext,
    args: QueryStatsArgs,
    out: StatsResult,
    *,
    by_category: dict[str, float],
    by_app: dict[str, float],
    active: float,
    idle: float,
) -> None:
    """seconds_by_category, seconds_by_app or active_seconds from additive numbers (the
    stitched layers', or those counted inside a window), with the share of one category
    or app."""
    if args.metric == "seconds_by_category":
        if args.category:
            by_category = {args.category: by_category.get(args.category, 0.0)}
            _share(out, seconds=by_category[args.category], active=active)
            seconds = by_category[args.category]
            out.items = [
                CategoryTime(
                    category=args.category, seconds=round(seconds), hours=round(seconds / 3600, 2)
                )
            ]
        else:
            out.items = [
                CategoryTime(category=k, seconds=s, hours=h)
                for k, s, h in _items(by_category, None)
            ]
        out.total_seconds = round(sum(by_category.values()))
        out.idle_seconds = round(idle)
    elif args.metric == "seconds_by_app":
        if args.app:
            by_app, thing = _apps_named(ctx, args.app, by_app)
            if thing is not None:
                out.thing = thing_info(thing)
                if thing.domains:
                    out.hint = (
                        f"{thing.label} is also a site: thing={args.app!r} counts its time in "
                        "browsers too"
                    )
            _share(out, seconds=sum(by_app.values()), active=active)
        out.items = [
            AppTime(app=k, seconds=s, hours=h) for k, s, h in _items(by_app, args.how_many())
        ]
    else:
        out.value = round(active)
        out.hours = round(active / 3600, 2)
        out.idle_seconds = round(idle)


def _uncategorized(
    ctx: ToolContext, day_from: date, day_to: date, *, top_n: int
) -> list[Uncovered]:
    ts_from, ts_to = span(day_from, day_to, user=ctx.user)
    read_from, read_to = read_window(ts_from, ts_to, idle_gap_s=ctx.settings.idle_gap_s)
    rows = ctx.store.uncategorized_time(
        user_id=ctx.user.user_id,
        day_from=day_from,
        day_to=day_to,
        ts_from=read_from,
        ts_to=read_to,
        browsers=sorted(ctx.rules.apps.browsers),
        limit=COVERAGE_ROWS,
    )
    return coverage_items(rows, apps=ctx.rules.apps, top_n=top_n)


# Metrics that mean "seconds" for a thing; any other metric with thing= is a mistake.
_THING_METRICS = ("seconds_by_app", "seconds_by_category", "active_seconds")


def _apps_named(
    ctx: ToolContext, name: str, by_app: dict[str, float]
) -> tuple[dict[str, float], Thing | None]:
    """The apps `name` means: the resolver's apps when it knows the name, else the apps
    whose name contains it; an error with suggestions when neither finds any."""
    resolution = resolve_thing(ctx, mention=name)
    thing = resolution.thing
    if thing is not None and thing.apps:
        return {app: s for app, s in by_app.items() if app in thing.apps}, thing
    wanted = name.casefold()
    found = {app: s for app, s in by_app.items() if wanted in app.casefold()}
    if not found and thing is None:
        raise UnknownThingError(mention=name, suggestions=resolution.suggestions)
    return found, thing


def thing_total(
    ctx: ToolContext,
    thing: Thing,
    *,
    day_from: date,
    day_to: date,
    stitched: tuple[DigestMetrics, Source, datetime | None] | None = None,
) -> tuple[float, dict[str, float], Source, datetime | None, RecordSeconds | None]:
    """Seconds of a thing over [day_from, day_to], by part; the source and watermark;
    for sites and titles (counted from records) where their seconds came from. The rest
    comes from the stitched metrics (pass them in to count several things over one
    period)."""
    if from_records(thing):
        found = site_seconds(ctx, thing, day_from=day_from, day_to=day_to)
        return sum(found.parts.values()), found.parts, "live", None, found
    if stitched is None:
        stitched = stitched_metrics(
            ctx.store, user=ctx.user, day_from=day_from, day_to=day_to, settings=ctx.settings
        )
    metrics, source, through = stitched
    total, parts = metrics_seconds(thing, metrics)
    return total, parts, source, through, None


def _share(out: StatsResult, *, seconds: float, active: float) -> None:
    """The share of the active time of the same period and window (0..1)."""
    out.window_active_seconds = round(active)
    out.share = round(min(1.0, seconds / active), 4) if active > 0 else 0.0


def _thing_of(ctx: ToolContext, args: QueryStatsArgs) -> Thing:
    if sum(1 for v in (args.thing, args.site, args.app) if v) > 1:
        raise InvalidInputError("give one of thing, site or app")
    if "metric" in args.model_fields_set and args.metric not in _THING_METRICS:
        raise InvalidInputError(f"thing and site answer seconds: leave out metric {args.metric!r}")
    if args.category:
        raise InvalidInputError("give the category as thing, not beside it")
    mention = args.thing or args.site or ""
    thing = require_thing(ctx, mention=mention)
    if args.site and thing.kind != "site":
        raise InvalidInputError(
            f"{mention!r} is {thing.kind} {thing.name!r}, not a site: pass it as thing"
        )
    return thing


def _thing_stats(ctx: ToolContext, args: QueryStatsArgs) -> StatsResult:
    thing = _thing_of(ctx, args)
    day_from, day_to, windows = resolve_window(args, user=ctx.user, now=ctx.now)
    through: datetime | None = None
    split: RecordSeconds | None = None
    if windowed(args):
        rows = window_rows(
            ctx, windows=windows, day_from=day_from, day_to=day_to, title=thing.title
        )
        parts = thing_parts(ctx, thing, rows)
        total, active, source = sum(parts.values()), window_totals(ctx, rows).active, "live"
    else:
        stitched = stitched_metrics(
            ctx.store, user=ctx.user, day_from=day_from, day_to=day_to, settings=ctx.settings
        )
        total, parts, source, through, split = thing_total(
            ctx, thing, day_from=day_from, day_to=day_to, stitched=stitched
        )
        active = stitched[0].get("active_seconds", 0.0)
    ordered = sorted(parts.items(), key=lambda kv: (-kv[1], kv[0]))[: args.top_n]
    out = StatsResult(
        metric="seconds",
        thing=thing_info(thing),
        from_=day_from,
        to=day_to,
        seconds=round(total),
        hours=round(total / 3600, 2),
        items=[PartTime(part=k, seconds=round(v), hours=round(v / 3600, 2)) for k, v in ordered]
        if len(parts) > 1
        else None,
        note=f"{thing.label}: no time recorded in this period" if not total else None,
        source=source,
        computed_through_ts=through,
        window=window_text(args),
    )
    if split is not None and thing.domains:
        out.from_url_s, out.from_title_s = round(split.from_url_s), round(split.from_title_s)
    _share(out, seconds=total, active=active)
    return out


# Metrics a window (or the instants) can cut: seconds, counted from records.
_WINDOW_METRICS = ("seconds_by_category", "seconds_by_app", "active_seconds", "seconds_by_site")


def _record_stats(ctx: ToolContext, args: QueryStatsArgs) -> StatsResult:
    """Seconds counted from records: inside a window of each day or between two
    instants, and the sites inside browsers (whole days without a window)."""
    if args.metric not in _WINDOW_METRICS:
        raise InvalidInputError(
            f"metric {args.metric!r} counts whole days: leave out time_from/time_to and "
            f"ts_from/ts_to, or use one of {', '.join(_WINDOW_METRICS)}"
        )
    day_from, day_to, windows = resolve_window(args, user=ctx.user, now=ctx.now)
    rows = window_rows(ctx, windows=windows, day_from=day_from, day_to=day_to)
    totals = window_totals(ctx, rows)
    out = StatsResult(
        metric=args.metric, from_=day_from, to=day_to, source="live", window=window_text(args)
    )
    if args.metric == "seconds_by_site":
        # Whole days: by the one definition, with its parts; inside windows: cut records.
        by_site = totals.by_site if windows else None
        out.items = list(site_items(ctx, day_from, day_to, by_site=by_site, top=args.how_many()))
        out.active_seconds = round(totals.active)
    else:
        _seconds(
            ctx,
            args,
            out,
            by_category=totals.by_category,
            by_app=totals.by_app,
            active=totals.active,
            idle=totals.idle,
        )
    return out
