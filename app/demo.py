"""`timetrace demo`: a sample month through the real ingest path, then the answers.

It uses its own database (`timetrace_demo`) in the embedded server, rebuilt on
every run, so it never touches your data.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta

import httpx
from rich import box
from rich.console import Console
from rich.table import Table

from app.auth import hash_token, new_token
from app.categories import CATEGORIES, CATEGORY_LABELS_ZH
from app.db.connection import drop_database, ensure_database
from app.db.embedded import start_embedded
from app.sample import SampleData, generate_sample
from app.server import serve_in_thread
from app.services import Services, open_services
from app.settings import Settings

DEMO_DATABASE = "timetrace_demo"


@dataclass(frozen=True, slots=True)
class DemoResult:
    records_sent: int
    counts: Counter[str]
    records_per_s: float
    mismatches: list[str]


def load_sample(
    services: Services, data: SampleData, *, user_name: str = "demo"
) -> tuple[Counter[str], float]:
    """Create the user, a token and the devices, then POST every batch over HTTP."""
    store = services.store
    user = store.ensure_user(name=user_name, time_zone=data.time_zone, day_cut_hour=data.cut_hour)
    token = new_token()
    store.add_token(user_id=user.user_id, token_hash=hash_token(token), name="demo")
    for device_id, kind, name in data.devices:
        store.add_device(user_id=user.user_id, device_id=device_id, name=name, kind=kind)
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
    return counts, time.perf_counter() - started


def compare_with_truth(
    services: Services, data: SampleData, *, user_name: str = "demo"
) -> tuple[dict[tuple[date, str], float], list[str]]:
    user = services.store.get_user(name=user_name)
    assert user is not None
    days = data.days
    live = services.store.day_category_seconds(
        user_id=user.user_id, day_from=days[0], day_to=days[-1]
    )
    mismatches = [
        f"{day} {category}: database {live.get((day, category), 0):.0f} s, "
        f"truth {data.seconds.get((day, category), 0)} s"
        for day in days
        for category in CATEGORIES
        if round(live.get((day, category), 0.0)) != data.seconds.get((day, category), 0)
    ]
    return live, mismatches


def _hours_table(data: SampleData, live: dict[tuple[date, str], float]) -> Table:
    table = Table(
        title="Hours per logical day and category (from the database)", box=box.SIMPLE_HEAD
    )
    table.add_column("day", no_wrap=True)
    for category in CATEGORIES:
        table.add_column(
            f"{category}\n{CATEGORY_LABELS_ZH[category]}", justify="right", no_wrap=True
        )
    table.add_column("=truth", justify="center")
    totals: Counter[str] = Counter()
    for day in data.days:
        cells = []
        ok = True
        for category in CATEGORIES:
            seconds = live.get((day, category), 0.0)
            totals[category] += round(seconds)
            ok &= round(seconds) == data.seconds.get((day, category), 0)
            cells.append(f"{seconds / 3600:.2f}" if seconds else "·")
        table.add_row(f"{day:%m-%d %a}", *cells, "✓" if ok else "✗")
    table.add_section()
    table.add_row("month", *(f"{totals[c] / 3600:.1f}" for c in CATEGORIES), "")
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
        counts, seconds = load_sample(services, data)
        rate = len(data.records) / seconds if seconds else 0.0
        console.print(
            f"Ingested over HTTP in {seconds:.1f} s ({rate:,.0f} records/s): "
            f"new {counts['new']:,}, duplicate {counts['duplicate']:,}, "
            f"excluded {counts['excluded']:,}, "
            f"redacted (privacy rules) {counts['redacted']:,}"
        )
        live, mismatches = compare_with_truth(services, data)
    console.print(_hours_table(data, live))
    if mismatches:
        console.print(
            f"[red]✗ {len(mismatches)} day/category cells differ from the ground truth:[/]"
        )
        for line in mismatches[:20]:
            console.print(f"  {line}")
    else:
        console.print(
            f"[green]✓ per-category hours equal the generator's ground truth to the second "
            f"for all {len(data.days)} days[/]"
        )
    return DemoResult(len(data.records), counts, rate, mismatches)
