"""`timetrace demo`: a sample month through the real ingest path, the pyramid
built from it without any model, and the answers it gives.

It uses its own database (`timetrace_demo`) in the embedded server, rebuilt on
every run, so it never touches your data.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
from rich import box
from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from app.api.server import bind, serve, serve_in_thread
from app.db.connection import drop_database, ensure_database
from app.db.embedded import start_embedded
from app.demo.sample import SampleData, generate_sample
from app.errors import NotFoundError
from app.pyramid.build import BackfillSummary, backfill
from app.pyramid.user_categories import add_category
from app.rules.categories import CATEGORIES, CATEGORY_LABELS_ZH
from app.runtime.auth import hash_token, new_token
from app.runtime.services import Services, open_services
from app.settings import Settings
from app.store.accounts import UserContext
from app.store.digests import DigestRow, SignalRow
from app.store.user_rules import RuleDraft
from app.timeutil import month_key, week_key

DEMO_DATABASE = "timetrace_demo"
DEMO_USER = "demo"


@dataclass(slots=True)
class DemoResult:
    records_sent: int
    counts: Counter[str]
    records_per_s: float
    mismatches: list[str] = field(default_factory=list)


def load_sample(services: Services, data: SampleData) -> tuple[UserContext, Counter[str], float]:
    """Create the user, a token and the devices, then POST every batch over HTTP."""
    store = services.store
    user = store.ensure_user(name=DEMO_USER, time_zone=data.time_zone, day_cut_hour=data.cut_hour)
    token = new_token()
    store.add_token(user_id=user.user_id, token_hash=hash_token(token), name="demo")
    for device_id, kind, name in data.devices:
        store.add_device(user_id=user.user_id, device_id=device_id, name=name, kind=kind)
    _games_of_their_own(services, user)
    counts: Counter[str] = Counter()
    started = time.perf_counter()
    with (
        serve_in_thread(services) as base,
        httpx.Client(
            base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=60
        ) as client,
    ):
        for body in data.batches():
            reply = client.post("/api/v1/records", json=body)
            reply.raise_for_status()
            counts.update(reply.json())
    return user, counts, time.perf_counter() - started


def _games_of_their_own(services: Services, user: UserContext) -> None:
    """A category of the user's own (Games under entertainment) with a rule for Steam,
    made before the records arrive: the demo's records carry it from ingest, and every
    count by kind stays as it is (Steam is entertainment already)."""
    made = add_category(
        services.store,
        user_id=user.user_id,
        parent="entertainment",
        name="Games",
        name_zh="游戏",
        color="#e4572e",
    )
    draft = RuleDraft(
        rule_id=None,
        kind="app",
        pattern="Steam",
        category="entertainment",
        category_id=made.category_id,
    )
    services.store.write_user_rules(user_id=user.user_id, rules=[draft])


def check_against_truth(
    services: Services, user: UserContext, data: SampleData
) -> tuple[dict[date, dict[str, float]], list[str]]:
    """Day digests' hours by category, and every cell (records layer, day digests,
    month digest) that differs from the generator's truth."""
    store = services.store
    days = data.days
    mismatches: list[str] = []
    by_day: dict[date, dict[str, float]] = {}
    records = {
        (r.day_local, r.category): r.seconds
        for r in store.day_category_seconds(user_id=user.user_id, day_from=days[0], day_to=days[-1])
    }
    for day in days:
        digest = store.get_digest(user_id=user.user_id, grain="day", scope_key=day.isoformat())
        by_day[day] = digest.metrics.get("seconds_by_category", {}) if digest else {}
        for category in CATEGORIES:
            truth = data.seconds.get((day, category), 0)
            for layer, value in (
                ("records", records.get((day, category), 0.0)),
                ("day digest", by_day[day].get(category, 0.0)),
            ):
                if round(value) != truth:
                    mismatches.append(f"{day} {category} {layer}: {value:.0f} s, truth {truth} s")
    for key in sorted({month_key(d) for d in days}):
        digest = store.get_digest(user_id=user.user_id, grain="month", scope_key=key)
        got = digest.metrics.get("seconds_by_category", {}) if digest else {}
        for category in CATEGORIES:
            truth = sum(
                s for (d, c), s in data.seconds.items() if c == category and month_key(d) == key
            )
            if round(got.get(category, 0.0)) != truth:
                mismatches.append(
                    f"{key} {category} month digest: {got.get(category, 0)}, truth {truth}"
                )
    return by_day, mismatches


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.2f}" if seconds else "·"


def _hours_table(
    data: SampleData, by_day: dict[date, dict[str, float]], month: DigestRow | None
) -> Table:
    table = Table(title="Hours per logical day and category (day digests)", box=box.SIMPLE_HEAD)
    table.add_column("day", no_wrap=True)
    for category in CATEGORIES:
        table.add_column(
            f"{category}\n{CATEGORY_LABELS_ZH[category]}", justify="right", no_wrap=True
        )
    table.add_column("=truth", justify="center")
    for day in data.days:
        seconds = by_day.get(day, {})
        ok = all(round(seconds.get(c, 0.0)) == data.seconds.get((day, c), 0) for c in CATEGORIES)
        table.add_row(
            f"{day:%m-%d %a}",
            *(_hours(seconds.get(c, 0.0)) for c in CATEGORIES),
            "✓" if ok else "✗",
        )
    if month:
        table.add_section()
        totals = month.metrics.get("seconds_by_category", {})
        table.add_row(
            month.scope_key,
            *(f"{totals.get(c, 0) / 3600:.1f}" for c in CATEGORIES),
            "month",
        )
    return table


def _week_panel(console: Console, week: DigestRow) -> None:
    m = week.metrics
    by_category = m.get("seconds_by_category", {})
    hours = ", ".join(
        f"{c} {by_category.get(c, 0) / 3600:.1f} h" for c in CATEGORIES if by_category.get(c)
    )
    console.print(
        f"\n[bold]Week {week.scope_key}[/] (digest, {'final' if week.finalized else 'open'},"
        f" from {len(week.source_ids)} day digests)"
    )
    console.print(f"  {hours}")
    console.print(
        f"  {m.get('episode_count', 0)} episodes · "
        f"active {m.get('active_seconds', 0) / 3600:.1f} h · "
        f"idle {m.get('idle_seconds', 0) / 3600:.1f} h · "
        f"focus {m.get('focus_minutes', 0):.0f} min · "
        f"distraction {m.get('distraction_minutes', 0):.0f} min · "
        f"late night {m.get('late_night_minutes', 0):.0f} min · "
        f"{m.get('switch_count', 0)} switches"
    )
    for item in m.get("top_titles", [])[:5]:
        console.print(f"  · {item['title']} — {item['seconds'] / 3600:.1f} h")


def _signals_table(signals: list[SignalRow]) -> Table:
    table = Table(title="Detected signals", box=box.SIMPLE_HEAD)
    table.add_column("kind")
    table.add_column("count", justify="right")
    table.add_column("example", overflow="fold")
    by_kind: dict[str, list[SignalRow]] = {}
    for s in signals:
        by_kind.setdefault(s.kind, []).append(s)
    for kind, items in sorted(by_kind.items()):
        first = max(items, key=lambda s: s.severity)
        cues = ", ".join(first.evidence.get("cues", [])[:2])
        detail = f"{first.day_local} severity {first.severity:g}" + (f" — {cues}" if cues else "")
        table.add_row(kind, str(len(items)), detail)
    return table


def run_demo(settings: Settings, *, start: date, days: int, console: Console) -> DemoResult:
    server = start_embedded(pgdata=settings.pgdata)
    admin_url = server.get_uri(database="postgres")
    drop_database(admin_url, database=DEMO_DATABASE)
    ensure_database(admin_url, database=DEMO_DATABASE)
    url = server.get_uri(database=DEMO_DATABASE)
    console.print(
        f"[bold]TimeTrace demo[/] · embedded PostgreSQL in {settings.pgdata} · "
        f"database {DEMO_DATABASE}"
    )
    data = generate_sample(start=start, days=days)
    end = start + timedelta(days=days - 1)
    console.print(
        f"Sample: {len(data.records):,} records from {len(data.devices)} devices, {start} → {end} "
        f"({data.time_zone}, day starts {data.cut_hour:02d}:00)"
    )
    with open_services(settings, url=url) as services:
        user, counts, seconds = load_sample(services, data)
        rate = len(data.records) / seconds if seconds else 0.0
        console.print(
            f"Ingested over HTTP in {seconds:.1f} s ({rate:,.0f} records/s): "
            f"new {counts['new']:,}, duplicate {counts['duplicate']:,}, "
            f"excluded {counts['excluded']:,}, redacted (privacy rules) {counts['redacted']:,}"
        )
        summary, build_s = _build(services, console)
        episodes = {
            c.day_local: c.n
            for c in services.store.episode_counts(user_id=user.user_id, day_from=start, day_to=end)
        }
        per_day = summary.episodes / max(len(episodes), 1)
        console.print(
            f"Built the pyramid with no model in {build_s:.1f} s: {summary.episodes:,} episodes "
            f"({per_day:.0f}/day, at most {max(episodes.values(), default=0)}), "
            f"{summary.day_digests} day digests, {summary.period_digests} week/month digests"
        )
        by_day, mismatches = check_against_truth(services, user, data)
        month = services.store.get_digest(
            user_id=user.user_id, grain="month", scope_key=month_key(start)
        )
        console.print(_hours_table(data, by_day, month))
        week = services.store.get_digest(
            user_id=user.user_id, grain="week", scope_key=week_key(start)
        )
        if week:
            _week_panel(console, week)
        signals = services.store.list_signals(user_id=user.user_id, day_from=start, day_to=end)
        console.print(_signals_table(signals))
        _answers(services, user, end, console)
    if mismatches:
        console.print(f"[red]✗ {len(mismatches)} numbers differ from the ground truth:[/]")
        for line in mismatches[:20]:
            console.print(f"  {line}")
    else:
        console.print(
            "[green]✓ per-category hours (records, day digests, month digest) equal the "
            f"generator's ground truth to the second for all {len(data.days)} days[/]"
        )
    return DemoResult(len(data.records), counts, rate, mismatches)


QUESTIONS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("我现在在做什么 / what am I doing now?", "get_now", {}),
    (
        "这个月娱乐花了多少小时 / hours of entertainment this month?",
        "query_stats",
        {"period": "this_month", "category": "entertainment"},
    ),
    (
        "哪些习惯导致返工 / which coding habits cause rework?",
        "get_signals",
        {"period": "this_month", "kinds": ["rework", "forced_rollback"]},
    ),
)


def _answers(services: Services, user: UserContext, last_day: date, console: Console) -> None:
    """The three target questions through the tool registry, as an agent would ask them."""
    from app.timeutil import day_bounds, zone
    from app.tools import dispatch
    from app.tools.registry import output_tokens, to_json

    # "Now" is the evening of the sample's last day.
    _, end = day_bounds(last_day, tz=zone(user.time_zone), cut_hour=user.day_cut_hour)
    ctx = services.tool_context(user=user, now=end - timedelta(hours=6))
    console.print("\n[bold]Answers from the tools[/] (what an agent reads, and how much)")
    for question, name, args in QUESTIONS:
        result = dispatch(ctx, name, args)
        text = to_json(result)
        console.print(f"[bold]{question}[/] → {name} · {output_tokens(result)} tokens")
        console.print(f"  {text[:400]}{'…' if len(text) > 400 else ''}", markup=False)


def _build(services: Services, console: Console) -> tuple[BackfillSummary, float]:
    started = time.perf_counter()
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("building the pyramid", total=None)

        def on_day(day: str, done: int, total: int) -> None:
            progress.update(task, total=total, completed=done, description=f"building {day}")

        summary = backfill(
            services.store, now=datetime.now(UTC), settings=services.settings, progress=on_day
        )
    return summary, time.perf_counter() - started


def serve_demo(settings: Settings, *, day: date, console: Console) -> None:
    """Serve the API and the web pages over the demo's database until stopped, with a
    sign-in link for the demo user: its token rides in the URL's fragment, which the
    browser never sends to a server."""
    sock = bind(settings.host, settings.port)  # a taken port fails before anything starts
    server = start_embedded(pgdata=settings.pgdata)
    with sock, open_services(settings, url=server.get_uri(database=DEMO_DATABASE)) as services:
        user = services.store.get_user(name=DEMO_USER)
        if user is None:
            raise NotFoundError("the demo database has no demo user: run `timetrace demo`")
        token = new_token()
        services.store.add_token(user_id=user.user_id, token_hash=hash_token(token), name="web")
        host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host
        console.print(
            f"\n[bold]The web UI[/] (Ctrl-C stops it), signed in as {DEMO_USER}:\n"
            f"http://{host}:{settings.port}/signin?next=/day/{day}#token={token}",
            soft_wrap=True,
        )
        serve(services, sock=sock, host=settings.host, with_worker=True)
