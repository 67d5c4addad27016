"""Users, API tokens and capture devices.

timetrace token create --user me --time-zone Asia/Shanghai
timetrace user set --user me --time-zone Europe/Berlin --day-cut 5
timetrace device add laptop --kind laptop
timetrace device list
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import click

from app.cli.common import (
    DAY_CUT_HELP,
    ZONE_OPTION_HELP,
    LazyChoice,
    TimeZone,
    console,
    edge,
    settings_from_env,
    user_named,
)

if TYPE_CHECKING:
    from app.runtime.services import Services


def _device_kinds() -> Sequence[str]:
    from app.store.accounts import DEVICE_KINDS

    return DEVICE_KINDS


@click.group()
def token() -> None:
    """API tokens."""


@token.command("create")
@click.option(
    "--user", "user_name", default="me", show_default=True, help="User the token acts for."
)
@click.option("--name", default="", help="A label to recognise the token by.")
@click.option(
    "--time-zone",
    type=TimeZone(),
    envvar="TIMETRACE_TIME_ZONE",
    help=ZONE_OPTION_HELP + " For a new user; default UTC.",
)
@click.option("--day-cut", type=click.IntRange(0, 23), help=DAY_CUT_HELP + " Default 4.")
@click.option(
    "--scope",
    "scope_words",
    multiple=True,
    help="Limit the token (repeatable; docs/scopes.md): read-only, tools=a,b, kinds=work, "
    "apps=…, sites=-bilibili.com (a leading - denies), hours=09:00-18:00, days=mon-fri, "
    "dates=2026-06-01..2026-06-30.",
)
@click.option("--expires", help="When the token stops working: 30d, 12h or a date.")
@edge
def token_create(
    user_name: str,
    name: str,
    time_zone: str | None,
    day_cut: int | None,
    scope_words: tuple[str, ...],
    expires: str | None,
) -> None:
    """Create an API token (the user too, if new). The token is shown only once."""
    from app.runtime.auth import issue_token
    from app.runtime.services import open_services
    from app.store.scope import parse_expiry, parse_scope

    scope = parse_scope(" ".join(scope_words)) if scope_words else None
    expires_at = parse_expiry(expires, now=datetime.now(UTC)) if expires else None
    settings = settings_from_env(time_zone=time_zone, day_cut_hour=day_cut)
    with open_services(settings) as services:
        user = services.store.ensure_user(
            name=user_name, time_zone=settings.time_zone, day_cut_hour=settings.day_cut_hour
        )
        secret = issue_token(
            services.store, user_id=user.user_id, name=name, scope=scope, expires_at=expires_at
        )
    click.echo(secret)
    if (time_zone, day_cut) != (None, None) and (user.time_zone, user.day_cut_hour) != (
        settings.time_zone,
        settings.day_cut_hour,
    ):
        click.echo(
            f"{user_name} keeps time zone {user.time_zone}, day cut {user.day_cut_hour}: "
            f"change them with `timetrace user set --user {user_name} --time-zone ZONE`",
            err=True,
        )


@token.command("list")
@click.option(
    "--user", "user_name", default="me", show_default=True, help="User whose tokens to list."
)
@edge
def token_list(user_name: str) -> None:
    """List a user's tokens: id, name, created, expiry, state and scope (never the secret)."""
    from app.runtime.services import open_services

    with open_services(settings_from_env()) as services:
        user = user_named(services.store, user_name)
        tokens = services.store.list_tokens(user_id=user.user_id)
    for t in tokens:
        state = "revoked" if t.revoked_at else "live"
        if t.expires_at is not None and t.revoked_at is None:
            state = f"expires {t.expires_at:%Y-%m-%d %H:%M}Z"
        click.echo(
            f"{t.token_id}\t{t.name or '-'}\t{t.created_at:%Y-%m-%d}\t{state}\t"
            f"{t.scope_words or 'whole user'}"
        )


@click.group()
def user() -> None:
    """Users: their time zone and the hour their day starts."""


@user.command("set")
@click.option("--user", "user_name", default="me", show_default=True)
@click.option("--time-zone", type=TimeZone(), help=ZONE_OPTION_HELP)
@click.option("--day-cut", type=click.IntRange(0, 23), help=DAY_CUT_HELP)
@edge
def user_set(user_name: str, time_zone: str | None, day_cut: int | None) -> None:
    """Change a user's time zone or day cut, then rebuild what moves with them: every
    record's day, so the user's episodes, digests and signals are built again."""
    from datetime import UTC

    from app.runtime.services import open_services

    if time_zone is None and day_cut is None:
        raise click.UsageError("say what to change: --time-zone ZONE and/or --day-cut HOUR")
    settings = settings_from_env()
    with open_services(settings) as services:
        found = user_named(services.store, user_name)
        zone = time_zone or found.time_zone
        cut = found.day_cut_hour if day_cut is None else day_cut
        if (zone, cut) == (found.time_zone, found.day_cut_hour):
            click.echo(f"{user_name}: time zone {zone}, day cut {cut}: unchanged")
            return
        moved = services.store.change_user_clock(
            user_id=found.user_id, time_zone=zone, day_cut_hour=cut
        )
        click.echo(
            f"{user_name}: time zone {found.time_zone} → {zone}, day cut "
            f"{found.day_cut_hour} → {cut}; {moved.records:,} records moved to another day"
        )
        _rebuild(services, started=datetime.now(UTC))


def _rebuild(services: Services, *, started: datetime) -> None:
    """Build every layer again, with a progress bar (as `timetrace backfill`)."""
    from datetime import UTC

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from app.pyramid.build import backfill

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=console()) as progress:
        task = progress.add_task("rebuilding", total=None)

        def on_day(day: str, done: int, total: int) -> None:
            progress.update(task, total=total, completed=done, description=f"day {day}")

        built = backfill(services.store, now=started, settings=services.settings, progress=on_day)
    seconds = (datetime.now(UTC) - started).total_seconds()
    console().print(
        f"rebuilt: {built.days} days, {built.episodes:,} episodes, {built.day_digests} day "
        f"digests, {built.period_digests} week/month digests in {seconds:.1f} s"
    )


@click.group()
def device() -> None:
    """Capture devices."""


@device.command("add")
@click.argument("device_id")
@click.option("--user", "user_name", default="me", show_default=True)
@click.option("--name", default="")
@click.option(
    "--kind",
    type=LazyChoice(_device_kinds),
    default="desktop",
    show_default=True,
)
@edge
def device_add(device_id: str, user_name: str, name: str, kind: str) -> None:
    """Register a device so its records can be ingested."""
    import re

    from app.runtime.services import open_services
    from app.store.accounts import DEVICE_ID_PATTERN

    if not re.match(DEVICE_ID_PATTERN, device_id):
        raise click.BadParameter(
            "letters, digits and . _ : - only, at most 64", param_hint="DEVICE_ID"
        )
    settings = settings_from_env()
    with open_services(settings) as services:
        user = user_named(services.store, user_name)
        created = services.store.add_device(
            user_id=user.user_id, device_id=device_id, name=name, kind=kind
        )
    click.echo(f"device {device_id} {'added' if created else 'already registered'}")


@device.command("list")
@click.option("--user", "user_name", help="Only this user's devices (default: every user's).")
@edge
def device_list(user_name: str | None) -> None:
    """Each user's devices: id, name, kind, live records, first and last seen (UTC)."""
    from app.runtime.services import open_services

    settings = settings_from_env()
    with open_services(settings) as services:
        if user_name is not None:
            user_named(services.store, user_name)
        rows = services.store.device_activity(user_name=user_name)
    if not rows:
        click.echo("no users yet: timetrace token create --user NAME --time-zone Area/City")
    for name in dict.fromkeys(r.user_name for r in rows):
        click.echo(f"{name}")
        for r in (r for r in rows if r.user_name == name):
            if r.device_id is None:
                click.echo(
                    "  no device yet: timetrace device add ID, an import or the "
                    "ActivityWatch door adds one"
                )
                continue
            seen = (
                f"{r.first_seen:%Y-%m-%d %H:%M} – {r.last_seen:%Y-%m-%d %H:%M}"
                if r.first_seen and r.last_seen
                else "no records"
            )
            label = f" ({r.name})" if r.name else ""
            click.echo(f"  {r.device_id}{label}  {r.kind}  {r.records:,} records  {seen}")


COMMANDS = (token, user, device)
