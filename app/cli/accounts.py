"""Users, API tokens and capture devices.

timetrace token create --user me
timetrace device add laptop --kind laptop
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from app.cli.common import LazyChoice, edge, settings_from_env, user_named


def _device_kinds() -> Sequence[str]:
    from app.store import DEVICE_KINDS

    return DEVICE_KINDS


@click.group()
def token() -> None:
    """API tokens."""


@token.command("create")
@click.option(
    "--user", "user_name", default="me", show_default=True, help="User the token acts for."
)
@click.option("--name", default="", help="A label to recognise the token by.")
@edge
def token_create(user_name: str, name: str) -> None:
    """Create an API token (the user too, if new). The token is shown only once."""
    from app.runtime.auth import hash_token, new_token
    from app.runtime.services import open_services

    settings = settings_from_env()
    with open_services(settings) as services:
        user = services.store.ensure_user(
            name=user_name, time_zone=settings.time_zone, day_cut_hour=settings.day_cut_hour
        )
        secret = new_token()
        services.store.add_token(user_id=user.user_id, token_hash=hash_token(secret), name=name)
    click.echo(secret)


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
    from app.store import DEVICE_ID_PATTERN

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


COMMANDS = (token, device)
