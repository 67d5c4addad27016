"""Read tools over the layers: what is happening now, digests, episodes, signals,
and — narrowly — raw records."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, timedelta
from typing import Literal

from pydantic import Field

from app.enrich.failures import reason_kind
from app.errors import InvalidInputError
from app.rules.things import CategoryName
from app.store.digests import DigestRow, SignalRow
from app.store.documents import DigestMetrics
from app.store.episodes import EpisodeLine
from app.store.tools import DigestRead, UnbuiltDay
from app.timeutil import FIRST_DAY, LAST_DAY, day_key, month_key, period_days, week_key, zone
from app.tools.paging import PagedArgs, PagedResult, pager, read_cursor
from app.tools.periods import PeriodArgs, resolve, span, today_of
from app.tools.registry import ToolArgs, ToolContext, tool
from app.tools.results import Period, Shape, Stamp, ToolResult, flag, opt
from app.tools.words import Language, period_words, previous_key

TEXT_MAX = 160


def clip_text(text: str | None, limit: int = TEXT_MAX) -> str | None:
    if not text:
        return text
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _local(ts: datetime, ctx: ToolContext) -> str:
    return ts.astimezone(zone(ctx.user.time_zone)).strftime("%Y-%m-%d %H:%M")


class Episode(Shape):
    """One episode in one line: `minutes` are active minutes; idle/locked time inside
    shows as `idle_minutes`."""

    id: int
    when: str = Field(description="local MM-DD HH:MM–HH:MM")
    category: str
    category_by: Literal["model"] | None = opt("a model's summary gave the category")
    title: str
    minutes: int
    idle_minutes: int | None = opt()
    summary: str | None = opt()
    summary_by: Literal["rules"] | None = opt("rules: the summary is its records' by rule")


def episode_line(ep: EpisodeLine, ctx: ToolContext, *, summary: bool = True) -> Episode:
    tz = zone(ctx.user.time_zone)
    idle_minutes = round((ep.duration_s - ep.active_s) / 60)
    return Episode(
        id=ep.episode_id,
        when=f"{ep.ts_start.astimezone(tz):%m-%d %H:%M}–{ep.ts_end.astimezone(tz):%H:%M}",
        category=ep.category,
        category_by="model" if ep.category_source == "model" else None,
        title=ep.title,
        minutes=round(ep.active_s / 60),
        idle_minutes=idle_minutes or None,
        summary=clip_text(ep.summary, 120) if summary and ep.summary else None,
        summary_by="rules" if summary and ep.summary and ep.summary_by == "rules" else None,
    )


class NowArgs(ToolArgs):
    records: int = Field(3, ge=1, le=3, description="how many of the latest records to show")


class NowRecord(Shape):
    at: str = Field(description="local YYYY-MM-DD HH:MM")
    device: str
    app: str
    title: str | None
    category: str
    idle: bool = flag()
    description: str | None = opt()


class Sitting(Shape):
    since: str
    minutes: int
    main_app: str | None
    note: str


class NowResult(ToolResult):
    items: list[NowRecord]
    current_sitting: Sitting | None = opt("records not closed into an episode yet")
    last_episode: Episode | None = opt()
    summaries: str | None = opt("summaries that wait or failed, or that no model is configured")
    models: str | None = opt("the models in use")
    note: str | None = opt()


@tool(
    tier="0",
    cap_tokens=300,
    description="""
What is happening right now: the latest records (app, title, description) and the last
closed episode. Use for "what am I doing now / just now". 现在/刚才在做什么。
""",
)
def get_now(ctx: ToolContext, args: NowArgs) -> NowResult:
    latest = ctx.store.latest_records(user_id=ctx.user.user_id, now=ctx.now, limit=args.records)
    out = NowResult(
        items=[
            NowRecord(
                at=_local(r.ts_start, ctx),
                device=r.device_id,
                app=r.app,
                title=clip_text(r.window_title, 100),
                category=r.category,
                idle=r.is_idle,
                description=clip_text(r.description, 120) if r.description else None,
            )
            for r in latest
        ]
    )
    if latest and latest[0].episode_id is None:
        sitting = ctx.store.open_sitting(
            user_id=ctx.user.user_id, device_id=latest[0].device_id, now=ctx.now
        )
        if sitting:
            minutes = (ctx.now - sitting.since).total_seconds() / 60
            out.current_sitting = Sitting(
                since=_local(sitting.since, ctx),
                minutes=round(minutes),
                main_app=sitting.main_app,
                note="not closed into an episode yet",
            )
    last = ctx.store.last_closed_episode(user_id=ctx.user.user_id, now=ctx.now)
    if last:
        # A summary written by rule repeats the titles in a few hundred tokens: not here.
        out.last_episode = episode_line(last, ctx, summary=last.summary_by != "rules")
    out.summaries = _model_line(ctx)
    if ctx.models is not None and ctx.models.chat_enabled:
        roles = ["chat", *(["embedding"] if ctx.models.embeddings_enabled else [])]
        out.models = "; ".join(f"{r} {ctx.models.served_model(r).short()}" for r in roles)
    if not latest:
        out.note = "no activity recorded yet"
    return out


def _model_line(ctx: ToolContext) -> str | None:
    """One short line on the summaries that wait or failed, over the days that have
    them; without a chat model, that none is configured (summaries are written by rule)."""
    if ctx.models is None or not ctx.models.chat_enabled:
        return "no model configured"
    backlog = ctx.store.model_backlog(user_id=ctx.user.user_id)
    if not backlog.pending and not backlog.failed:
        return None
    last = f" (last: {reason_kind(backlog.last_reason)})" if backlog.last_reason else ""
    first, final = backlog.first_failed_day, backlog.last_failed_day
    days = "" if first is None else f" on {first}" if first == final else f" on {first}…{final}"
    return f"{backlog.pending} pending, {backlog.failed} failed{days}{last}"


class DigestArgs(ToolArgs):
    grain: Literal["day", "week", "month", "latest"] = Field(
        "latest", description="day | week | month, or latest (the newest finished day)"
    )
    date: str | None = Field(
        None,
        description="a day in the period (YYYY-MM-DD), or a key like 2026-W23 or 2026-06; "
        "default: the current period",
    )
    language: Literal["en", "zh"] | None = Field(
        "en",
        description="the language of a narrative written by rule when no model wrote one; "
        "null: the numbers alone",
    )


def _scope(args: DigestArgs, ctx: ToolContext) -> tuple[str, str]:
    today = today_of(ctx.user, ctx.now)
    grain = "day" if args.grain == "latest" else args.grain
    if args.date is None:
        day = today - timedelta(days=1) if args.grain == "latest" else today
        return grain, {"day": day_key, "week": week_key, "month": month_key}[grain](day)
    text = args.date.strip()
    try:
        if (grain == "week" and "W" in text) or (grain == "month" and len(text) == 7):
            key = text
        else:
            day = datetime.strptime(text, "%Y-%m-%d").date()
            key = {"day": day_key, "week": week_key, "month": month_key}[grain](day)
        period_days(grain, key)  # refuses a period outside FIRST_DAY..LAST_DAY
    except ValueError as exc:
        if "outside" in str(exc):
            raise InvalidInputError(f"date: {text!r} is outside {FIRST_DAY}..{LAST_DAY}") from exc
        raise InvalidInputError(
            f"date: {text!r} is not YYYY-MM-DD, YYYY-Www or YYYY-MM (for grain {grain})"
        ) from exc
    return grain, key


class TitleHours(Shape):
    title: str
    hours: float


class CompactMetrics(Shape):
    """A digest's numbers, in hours; app hours and titles count active time only."""

    hours_by_category: dict[str, float]
    top_apps_hours: dict[str, float]
    active_hours: float
    idle_hours: float
    episodes: int
    # int | float: the numbers pass through as the digest holds them (0, not 0.0).
    focus_minutes: int | float | None = opt()
    distraction_minutes: int | float | None = opt()
    late_night_minutes: int | float | None = opt()
    signal_counts: dict[str, int] | None = opt()
    device_overlap_seconds: int | float | None = opt()
    first_activity: str | None = opt()
    last_activity: str | None = opt()
    top_titles: list[TitleHours]


def _compact_metrics(metrics: DigestMetrics) -> CompactMetrics:
    hours = {
        c: round(s / 3600, 2)
        for c, s in sorted(metrics.get("seconds_by_category", {}).items(), key=lambda kv: -kv[1])
        if s
    }
    apps = sorted(metrics.get("seconds_by_app", {}).items(), key=lambda kv: -kv[1])[:8]
    return CompactMetrics(
        hours_by_category=hours,
        top_apps_hours={a: round(s / 3600, 2) for a, s in apps},
        active_hours=round(metrics.get("active_seconds", 0) / 3600, 2),
        idle_hours=round(metrics.get("idle_seconds", 0) / 3600, 2),
        episodes=metrics.get("episode_count", 0),
        focus_minutes=metrics.get("focus_minutes"),
        distraction_minutes=metrics.get("distraction_minutes"),
        late_night_minutes=metrics.get("late_night_minutes"),
        signal_counts=metrics.get("signal_counts"),
        device_overlap_seconds=metrics.get("device_overlap_seconds"),
        first_activity=metrics.get("first_activity"),
        last_activity=metrics.get("last_activity"),
        top_titles=[
            TitleHours(title=t["title"], hours=round(t["seconds"] / 3600, 2))
            for t in metrics.get("top_titles", [])[:5]
        ],
    )


class Missing(Shape):
    """What the numbers leave out: records not in episodes yet, by day."""

    records_not_in_episodes: int
    days: list[date]
    note: str


class DigestResult(ToolResult):
    grain: str
    key: str
    available: bool = Field(description="false: no digest yet, live metrics instead")
    finalized: bool | None = opt()
    complete: bool = Field(description="false: some records are not in episodes yet")
    missing: Missing | None = opt()
    narrative: str | None = opt()
    summary_by: Literal["rules"] | None = opt(
        "rules: the narrative is written by rule from these numbers (no model wrote one)"
    )
    narrative_status: str | None = opt(
        "the model's narrative: pending (a configured model is due to write it), done, "
        "failed, skipped; absent when no model is configured"
    )
    metrics: CompactMetrics
    source: Literal["live"] | None = opt()
    source_ids: list[int] | None = opt()
    computed_through_ts: Stamp | None = opt()


@tool(
    tier="1",
    cap_tokens=4_000,
    description="""
The day, week or month digest: a short narrative plus its metrics. When the digest is not
built yet it says available: false and gives live metrics instead (never builds one);
complete: false lists the days whose records are not in episodes yet.
App hours and top titles count active time only; idle/locked time is idle_hours.
日/周/月总结：叙述 + 指标；未生成时返回 available=false 和实时指标。应用时长只算活跃时间。
""",
)
def get_digest(ctx: ToolContext, args: DigestArgs) -> DigestResult:
    grain, key = _scope(args, ctx)
    first, last = period_days(grain, key)
    # One read: the unbuilt days, the period's digest with the previous one's and the
    # signal kinds (the narrative by rule compares the two and names the habits).
    before_key = previous_key(grain, key)
    read = ctx.store.digest_read(
        user_id=ctx.user.user_id,
        grain=grain,
        scope_keys=[key] if before_key is None else [key, before_key],
        day_from=first,
        day_to=last,
    )
    missing = _missing(read.unbuilt)
    found = {d.scope_key: d for d in read.digests}
    digest = found.get(key)
    if digest is None or digest.stale:
        live = ctx.store.period_metrics(user_id=ctx.user.user_id, day_from=first, day_to=last)
        result = DigestResult(
            grain=grain,
            key=key,
            available=False,
            complete=missing is None,
            missing=missing,
            metrics=_compact_metrics(live.metrics),
            source="live",
        )
        return _with_words(ctx, result, live.metrics, read, found, language=args.language)
    result = DigestResult(
        grain=grain,
        key=key,
        available=True,
        # Final only while every record of the period is in it (a late record is not yet).
        finalized=digest.finalized and missing is None,
        complete=missing is None,
        missing=missing,
        narrative=digest.narrative,
        narrative_status=digest.narrative_status,
        metrics=_compact_metrics(digest.metrics),
        source_ids=digest.source_ids[:60],
        computed_through_ts=digest.computed_through_ts,
    )
    return _with_words(ctx, result, digest.metrics, read, found, language=args.language)


def _period_metrics(
    ctx: ToolContext, grain: str, key: str, found: Mapping[str, DigestRow]
) -> DigestMetrics:
    """A period's numbers as get_digest reads them: its digest, else live. `found`: the
    digests already read, by key (a key not among them is read)."""
    digest = found.get(key)
    if key not in found:
        digest = ctx.store.get_digest(user_id=ctx.user.user_id, grain=grain, scope_key=key)
    if digest is not None and not digest.stale:
        return digest.metrics
    first, last = period_days(grain, key)
    return ctx.store.period_metrics(user_id=ctx.user.user_id, day_from=first, day_to=last).metrics


def _with_words(
    ctx: ToolContext,
    result: DigestResult,
    metrics: DigestMetrics,
    read: DigestRead,
    found: Mapping[str, DigestRow],
    *,
    language: Language | None,
) -> DigestResult:
    """A model's narrative as it is; else the narrative by rule from the numbers, with the
    model's status only while a model is configured (only then is one due). No language:
    the numbers alone (a period report's days, read for their hours)."""
    if (result.narrative and result.narrative_status == "done") or language is None:
        return result
    result.narrative = period_words(
        ctx,
        grain=result.grain,
        key=result.key,
        metrics=metrics,
        previous=lambda key: _period_metrics(ctx, result.grain, key, found),
        kinds=read.signal_kinds,
        language=language,
    )
    result.summary_by = "rules" if result.narrative else None
    if ctx.models is None or not ctx.models.chat_enabled:
        result.narrative_status = None
    return result


def _missing(unbuilt: list[UnbuiltDay]) -> Missing | None:
    """What the numbers leave out (None: the period is complete)."""
    if not unbuilt:
        return None
    return Missing(
        records_not_in_episodes=sum(d.records for d in unbuilt),
        days=[d.day for d in unbuilt][:31],
        note="these records are not in the numbers yet (episodes still being built); "
        "query_stats counts them",
    )


class EpisodesArgs(PeriodArgs, PagedArgs):
    category: CategoryName | None = Field(None, description="only episodes of this category")
    limit: int = Field(200, ge=1, le=1_000)


class EpisodesResult(PagedResult, Period):
    items: list[Episode]
    note: str | None = opt("the limit cut the list")


TIES = 32  # episodes that may share the last shown one's start (devices, imports)


def _after(args: EpisodesArgs) -> tuple[datetime, int, int] | None:
    """A cursor's last shown episode (start, id) and how many the pages showed."""
    if args.cursor is None:
        return None
    try:
        at, episode_id, shown = read_cursor(args.cursor, tool="get_episodes").after
        key = datetime.fromisoformat(at), int(episode_id), int(shown)
    except (ValueError, TypeError):
        key = None
    if key is None or key[0].tzinfo is None or not 0 < key[2] < args.limit:
        raise InvalidInputError("cursor: not a cursor of get_episodes: pass it back unchanged")
    return key


@tool(
    tier="1",
    cap_tokens=6_000,
    description="""
One line per episode (a coherent sitting: when, category, title, minutes, short summary) in a
period, newest first. For "what did I do yesterday afternoon". Not raw frames. `minutes` are
active minutes; idle/locked time inside an episode is `idle_minutes`. `category_by: model`
marks a category a model's summary gave an episode no rule categorised.
按时间列出 episode（连续的一段活动）的一句话概要；minutes 只算活跃时间。
""",
)
def get_episodes(ctx: ToolContext, args: EpisodesArgs) -> EpisodesResult:
    day_from, day_to = resolve(args, user=ctx.user, now=ctx.now)
    ts_from, ts_to = span(day_from, day_to, user=ctx.user)
    # Newest first: a cursor's page is the episodes after the last one shown (by start,
    # then id), so episodes built meanwhile (newer) never shift it.
    after, shown = _after(args), 0
    if after is not None:
        ts_to, shown = min(ts_to, after[0] + timedelta(microseconds=1)), after[2]
    rows = ctx.store.list_episodes(
        user_id=ctx.user.user_id,
        ts_from=ts_from,
        ts_to=ts_to,
        category=args.category,
        limit=args.limit - shown + (TIES if after else 0),
    )
    if after is not None:
        rows = [r for r in rows if (r.ts_start, r.episode_id) < after[:2]][: args.limit - shown]
    keys = [(r.ts_start.isoformat(), r.episode_id) for r in rows]
    return EpisodesResult(
        from_=day_from,
        to=day_to,
        items=[episode_line(r, ctx) for r in rows],
        note="more episodes exist: narrow the period, or use query_stats for totals"
        if shown + len(rows) == args.limit
        else None,
    ).paged(
        pager(
            tool="get_episodes",
            args=args,
            now=ctx.now,
            position=lambda n: [*keys[n - 1], shown + n],
        )
    )


SignalKind = Literal[
    "rework",
    "forced_rollback",
    "context_switch_storm",
    "focus_block",
    "distraction",
    "late_night",
    "idle_gap",
]


class SignalsArgs(PeriodArgs):
    kinds: list[SignalKind] | None = Field(
        None,
        description='only these kinds, e.g. ["rework", "forced_rollback"] for the habits '
        "that cause rework",
    )
    limit: int = Field(12, ge=1, le=200, description="how many single signals to list")
    by_day: bool = Field(
        False,
        description="list the days of the period that had these signals instead, oldest first, "
        'each with its count per kind (for "which days …" / "哪几天…")',
    )


class Pattern(Shape):
    """How often one kind (and rework pattern) happened, on how many days, and what it
    looked like."""

    count: int
    days: int
    cues: list[str] | None = opt()


class Signal(Shape):
    kind: str
    pattern: str | None = opt()
    day: date
    severity: float
    episode_ids: list[int] = Field(description="evidence episodes")
    cues: list[str] | None = opt()


class SignalDay(Shape):
    day: date
    kinds: dict[str, int] = Field(description="how many signals of each kind")


class SignalsResult(ToolResult, Period):
    patterns: dict[str, Pattern] = Field(description="by kind or kind:pattern, habits first")
    days_count: int | None = opt("by_day: how many days had these signals")
    items: list[Signal] | list[SignalDay]
    more: int | None = opt("single signals not listed")


@tool(
    tier="2",
    cap_tokens=2_000,
    description="""
Detected behaviours with their evidence episode ids: rework (undo storms, error→retry loops,
one file edited again and again with an undo/revert/checkout/failed tests in its visits),
forced_rollback (git reset --hard / revert),
context_switch_storm, focus_block, distraction, late_night, idle_gap. For habit questions over
any period; by_day=true lists the days that had them (which days had rework / late nights).
行为信号：返工、强制回滚、频繁切换、专注块、分心、熬夜、空闲，带证据 episode id；by_day 按天列出。
""",
)
def get_signals(ctx: ToolContext, args: SignalsArgs) -> SignalsResult:
    day_from, day_to = resolve(args, user=ctx.user, now=ctx.now)
    rows = [
        r
        for r in ctx.store.list_signals(user_id=ctx.user.user_id, day_from=day_from, day_to=day_to)
        if args.kinds is None or r.kind in args.kinds
    ]
    # The habits first: each kind (and rework pattern) with how often, on how many days,
    # and what it looked like; then the strongest single signals with their evidence.
    counts: dict[str, int] = {}
    days: dict[str, set[date]] = {}
    cues: dict[str, list[str]] = {}
    for r in rows:
        name = r.kind + (f":{r.metrics['pattern']}" if "pattern" in r.metrics else "")
        counts[name] = counts.get(name, 0) + 1
        days.setdefault(name, set()).add(r.day_local)
        seen = cues.setdefault(name, [])
        for cue in r.evidence.get("cues", []):
            if cue not in seen and len(seen) < 3:
                seen.append(cue)
    ordered = sorted(counts, key=lambda name: (-_weight(name.split(":")[0]), -counts[name]))
    if args.by_day:
        # The days are the answer: the patterns without their cues leave room for them.
        return SignalsResult(
            from_=day_from,
            to=day_to,
            patterns={n: Pattern(count=counts[n], days=len(days[n])) for n in ordered},
            days_count=len({r.day_local for r in rows}),
            items=_by_day(rows),
        )
    strongest = sorted(rows, key=lambda r: (-_weight(r.kind), -r.severity))[: args.limit]
    items = [
        Signal(
            kind=r.kind,
            pattern=r.metrics.get("pattern"),
            day=r.day_local,
            severity=r.severity,
            episode_ids=r.evidence.get("episode_ids", [])[:5],
            cues=r.evidence.get("cues", [])[:2] or None,
        )
        for r in strongest
    ]
    return SignalsResult(
        from_=day_from,
        to=day_to,
        patterns={
            n: Pattern(count=counts[n], days=len(days[n]), cues=cues[n] or None) for n in ordered
        },
        items=items,
        more=len(rows) - len(items) if len(rows) > len(items) else None,
    )


def _by_day(rows: list[SignalRow]) -> list[SignalDay]:
    """One item per day with signals, oldest first, with how many of each kind (the
    evidence episode ids are in the single signals, without by_day: a month fits)."""
    days: dict[date, dict[str, int]] = {}
    for r in sorted(rows, key=lambda r: (r.day_local, r.ts_start)):
        kinds = days.setdefault(r.day_local, {})
        kinds[r.kind] = kinds.get(r.kind, 0) + 1
    return [SignalDay(day=day, kinds=kinds) for day, kinds in days.items()]


def _weight(kind: str) -> int:
    """Rework first: it is what habit questions are about."""
    return {"forced_rollback": 3, "rework": 3, "context_switch_storm": 2, "distraction": 1}.get(
        kind, 0
    )
