"""`timetrace category list|add|edit|move|remove`: the user's own category tree under
the six kinds, the same one the web's Rules page edits.

timetrace category add Games --under entertainment --zh 游戏 --color '#e4572e'
timetrace rules add app Steam games          # a rule may name a category of yours
timetrace category move Games work           # its records become work; history rebuilt
timetrace category remove Games              # its rules name the kind only again
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import click

from app.cli.common import DATABASE_HELP, database_url_for, edge, settings_from_env, user_named

if TYPE_CHECKING:
    from app.pyramid.user_rules import RulesSaved
    from app.runtime.services import Services
    from app.store.accounts import UserContext

_user = click.option("--user", "user_name", default="me", show_default=True)
_database = click.option("--database", help=DATABASE_HELP)
_PLACE = "one of the six kinds (entertainment) or a category of yours (Games)"


@contextmanager
def _session(user_name: str, database: str | None) -> Iterator[tuple[Services, UserContext]]:
    from app.runtime.services import open_services

    settings = settings_from_env()
    with open_services(settings, url=database_url_for(settings, database)) as services:
        yield services, user_named(services.store, user_name)


@click.group("category")
def category() -> None:
    """Your own categories under the six kinds ("Games" under entertainment): rules may
    name them, and every count can be made by them."""


@category.command("list")
@_user
@_database
@edge
def list_categories(user_name: str, database: str | None) -> None:
    """Your categories, each with its kind, Chinese name and colour."""
    with _session(user_name, database) as (services, user):
        rows = services.store.list_user_categories(user_id=user.user_id)
        if not rows:
            click.echo(
                "No categories of your own yet: timetrace category add Games --under entertainment"
            )
        for r in rows:
            extra = " ".join(filter(None, [r.name_zh if r.name else None, r.color]))
            click.echo(f"[{r.category_id}] {r.path} ({r.kind}){' ' + extra if extra else ''}")


@category.command("add")
@click.argument("name", required=False)
@click.option("--under", "parent", required=True, help=f"Where it goes: {_PLACE}.")
@click.option("--zh", "name_zh", help="Its name in Chinese (or the only name).")
@click.option("--color", help="Its colour, #rrggbb.")
@_user
@_database
@edge
def add(
    name: str | None,
    parent: str,
    name_zh: str | None,
    color: str | None,
    user_name: str,
    database: str | None,
) -> None:
    """Make a category under a kind or under one of your categories."""
    from app.pyramid.user_categories import add_category

    with _session(user_name, database) as (services, user):
        made = add_category(
            services.store,
            user_id=user.user_id,
            parent=parent,
            name=name,
            name_zh=name_zh,
            color=color,
        )
        click.echo(f"[{made.category_id}] {made.path} ({made.kind})")


@category.command("edit")
@click.argument("category_name", metavar="CATEGORY")
@click.option("--name", help="A new name.")
@click.option("--zh", "name_zh", help="A new Chinese name.")
@click.option("--color", help="A new colour, #rrggbb.")
@_user
@_database
@edge
def edit(
    category_name: str,
    name: str | None,
    name_zh: str | None,
    color: str | None,
    user_name: str,
    database: str | None,
) -> None:
    """Rename or recolour a category (no record moves)."""
    from app.pyramid.user_categories import edit_category

    with _session(user_name, database) as (services, user):
        row = edit_category(
            services.store,
            user_id=user.user_id,
            category=category_name,
            name=name,
            name_zh=name_zh,
            color=color,
        )
        click.echo(f"[{row.category_id}] {row.path} ({row.kind})")


def _said(saved: RulesSaved) -> None:
    if saved.device_days and saved.rebuilt:
        click.echo(f"Rebuilt {len(saved.device_days):,} device-days.")
    elif saved.device_days:
        click.echo(f"{len(saved.device_days):,} device-days are being rebuilt by the worker.")


@category.command("move")
@click.argument("category_name", metavar="CATEGORY")
@click.argument("parent", metavar="UNDER")
@_user
@_database
@edge
def move(category_name: str, parent: str, user_name: str, database: str | None) -> None:
    """Put a category under another kind or category; its records follow its kind."""
    from app.pyramid.user_categories import move_category

    with _session(user_name, database) as (services, user):
        saved = move_category(
            services.store,
            rules=services.rules,
            settings=services.settings,
            user=user,
            category=category_name,
            parent=parent,
            now=datetime.now(UTC),
        )
        _said(saved)


@category.command("remove")
@click.argument("category_name", metavar="CATEGORY")
@_user
@_database
@edge
def remove(category_name: str, user_name: str, database: str | None) -> None:
    """Remove a category without children: its rules name its parent (or its kind)."""
    from app.pyramid.user_categories import remove_category

    with _session(user_name, database) as (services, user):
        saved = remove_category(
            services.store,
            rules=services.rules,
            settings=services.settings,
            user=user,
            category=category_name,
            now=datetime.now(UTC),
        )
        _said(saved)


COMMANDS = (category,)
