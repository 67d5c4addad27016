"""Retention tiers (docs/retention.md).

timetrace retention set --user me --raw-days 30 --episode-days 365
timetrace retention show --user me
timetrace retention --dry-run
timetrace retention apply [--dry-run] [--compact]
"""

from __future__ import annotations

import click

from app.cli.common import edge, settings_from_env, user_named


def _days(value: str | None) -> int | bool | None:
    """A number of days, "off" (None), or not given (False: unchanged)."""
    if value is None:
        return False
    if value.strip().lower() in {"off", "none", "keep"}:
        return None
    try:
        return int(value)
    except ValueError as exc:
        raise click.BadParameter(f"{value!r}: a number of days, or off") from exc


def _run(*, dry_run: bool, compact: bool, as_json: bool) -> None:
    import json
    from datetime import UTC, datetime

    from app.pyramid.retention import apply_retention
    from app.runtime.services import open_services

    settings = settings_from_env()
    with open_services(settings) as services:
        report = apply_retention(services.store, now=datetime.now(UTC), dry_run=dry_run)
    if as_json:
        click.echo(json.dumps(report.document()))
    else:
        for line in report.lines():
            click.echo(line)
    if compact and not dry_run and report.users:
        from app.db.compact import compact_tables
        from app.db.connection import connect, database_url

        with connect(database_url(settings), settings=settings, autocommit=True) as conn:
            notes = compact_tables(conn)
        click.echo("compacted: " + ", ".join(notes.done))


@click.group(invoke_without_command=True)
@click.option("--dry-run", is_flag=True, help="Say what the job would remove, and remove nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
@edge
def retention(ctx: click.Context, dry_run: bool, as_json: bool) -> None:
    """Retention tiers per user: raw records and episode text age out, digests stay."""
    if ctx.invoked_subcommand is None:
        if not dry_run:
            click.echo(ctx.get_help())
            return
        _run(dry_run=True, compact=False, as_json=as_json)


@retention.command("set")
@click.option("--user", "user_name", default="me", show_default=True)
@click.option(
    "--raw-days", help="Keep raw records this many logical days (today included), or off."
)
@click.option("--episode-days", help="Keep episode text this many days (≥ raw days), or off.")
@click.option(
    "--digest-titles",
    type=click.Choice(["keep", "drop"]),
    help="Whether digests over expired raw keep their top titles and narratives (keep).",
)
@edge
def retention_set(
    user_name: str, raw_days: str | None, episode_days: str | None, digest_titles: str | None
) -> None:
    """Set a user's tiers; what is not given stays as it is. The daily job applies them."""
    import json

    from app.pyramid.retention import check_tiers, describe_tiers
    from app.runtime.services import open_services

    settings = settings_from_env()
    with open_services(settings) as services:
        store = services.store
        user = user_named(store, user_name)
        now = store.get_retention(user_id=user.user_id)
        raw, episodes = _days(raw_days), _days(episode_days)
        new_raw = (now.raw_days if now else None) if raw is False else raw
        new_episodes = (now.episode_days if now else None) if episodes is False else episodes
        assert not isinstance(new_raw, bool) and not isinstance(new_episodes, bool)
        check_tiers(raw_days=new_raw, episode_days=new_episodes)
        keep = now.keep_digest_titles if now else True
        row = store.set_retention(
            user_id=user.user_id,
            raw_days=new_raw,
            episode_days=new_episodes,
            keep_digest_titles=keep if digest_titles is None else digest_titles == "keep",
        )
    click.echo(json.dumps(describe_tiers(row)))


@retention.command("show")
@click.option("--user", "user_name", default="me", show_default=True)
@edge
def retention_show(user_name: str) -> None:
    """A user's tiers, how far they have been applied, and that user's rows per layer."""
    import json

    from app.pyramid.retention import describe_tiers
    from app.runtime.services import open_services

    settings = settings_from_env()
    with open_services(settings) as services:
        store = services.store
        user = user_named(store, user_name)
        tiers = describe_tiers(store.get_retention(user_id=user.user_id))
        layers = store.user_storage(user_id=user.user_id)
    tiers["layers"] = {x.layer: {"rows": x.rows, "bytes_estimated": x.bytes} for x in layers}
    click.echo(json.dumps(tiers))


@retention.command("apply")
@click.option("--dry-run", is_flag=True, help="Say what would go, and remove nothing.")
@click.option("--compact", is_flag=True, help="Then rewrite the tables (`timetrace compact`).")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@edge
def retention_apply(dry_run: bool, compact: bool, as_json: bool) -> None:
    """Apply every user's tiers now (the daily job does the same)."""
    _run(dry_run=dry_run, compact=compact, as_json=as_json)


COMMANDS = (retention,)
