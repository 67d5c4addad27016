"""`timetrace rules list|add|edit|move|delete|preview`: a user's own category rules, the
same ones the web's Rules page and the HTTP API edit.

timetrace rules add app "VS Code" study        # previews the hours it moves, then saves
timetrace rules preview site github.com work   # the hours only
timetrace rules move 3 1                       # the rule listed third goes first
timetrace rules delete 3
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import click

from app.cli.common import (
    DATABASE_HELP,
    database_url_for,
    edge,
    settings_from_env,
    user_named,
)

if TYPE_CHECKING:
    from app.rules.tree import CategoryTree
    from app.runtime.services import Services
    from app.store.accounts import UserContext
    from app.store.user_rules import RuleDraft, UserRuleRow

KINDS = ("app", "site", "title", "regex")
# One of the six kinds or one of the user's categories (`timetrace category list`).
CATEGORY_HELP = "work, study, social, entertainment, system, uncategorized or a category of yours"
_user = click.option("--user", "user_name", default="me", show_default=True)
_database = click.option("--database", help=DATABASE_HELP)


@contextmanager
def _session(user_name: str, database: str | None) -> Iterator[tuple[Services, UserContext]]:
    from app.runtime.services import open_services

    settings = settings_from_env()
    with open_services(settings, url=database_url_for(settings, database)) as services:
        user = user_named(services.store, user_name)
        yield services, user


def _show(rows: Sequence[UserRuleRow], tree: CategoryTree | None = None) -> None:
    if not rows:
        click.echo("No rules of your own yet: timetrace rules add app Slack work")
        return
    paths = {r.category_id: r.path for r in tree.rows} if tree else {}
    for r in rows:
        to = r.category
        if r.category_id is not None:
            to = f"{paths.get(r.category_id, r.category_id)} ({r.category})"
        click.echo(f"{r.position:>3}. [{r.rule_id}] {r.kind:<5} {r.pattern!r} → {to}")


def _tree(services: Services, user: UserContext) -> CategoryTree:
    from app.rules.tree import CategoryTree

    return CategoryTree(services.store.list_user_categories(user_id=user.user_id))


def _change(
    user_name: str,
    database: str | None,
    make: Callable[[Services, UserContext, list[UserRuleRow]], list[RuleDraft]],
    *,
    save: bool,
) -> None:
    """Preview the list `make` gives, then (with `save`) put it in place and rebuild."""
    from app.pyramid.user_rules import preview_rules, save_rules

    with _session(user_name, database) as (services, user):
        store = services.store
        drafts = make(services, user, store.list_user_rules(user_id=user.user_id))
        preview = preview_rules(store, rules=services.rules, user_id=user.user_id, drafts=drafts)
        click.echo(
            f"Changes {preview.hours:.2f} h of history "
            f"({preview.records:,} records on {preview.device_days:,} device-days)."
        )
        if not save:
            return
        saved = save_rules(
            store,
            rules=services.rules,
            settings=services.settings,
            user=user,
            drafts=drafts,
            now=datetime.now(UTC),
        )
        _show(saved.rules, _tree(services, user))
        if saved.device_days and saved.rebuilt:
            click.echo(f"Rebuilt {len(saved.device_days):,} device-days.")
        elif saved.device_days:
            click.echo(
                f"{len(saved.device_days):,} device-days are being rebuilt by the worker "
                "(timetrace status shows the queue)."
            )


@click.command("list")
@_user
@_database
@edge
def list_rules(user_name: str, database: str | None) -> None:
    """Your own category rules, in the order they are tried (before the file's)."""
    with _session(user_name, database) as (services, user):
        _show(services.store.list_user_rules(user_id=user.user_id), _tree(services, user))


def _add_command(name: str, *, save: bool, doc: str) -> click.Command:
    @click.command(name, help=doc)
    @click.argument("kind", type=click.Choice(KINDS))
    @click.argument("pattern")
    @click.argument("category", metavar="CATEGORY")
    @click.option("--position", type=click.IntRange(1), help="Try it at this place (1: first).")
    @_user
    @_database
    @edge
    def command(
        kind: str,
        pattern: str,
        category: str,
        position: int | None,
        user_name: str,
        database: str | None,
    ) -> None:
        from app.pyramid.user_rules import draft, with_added

        def make(services: Services, user: UserContext, rows: list[UserRuleRow]) -> list[RuleDraft]:
            new = draft(
                rules=services.rules,
                kind=kind,
                pattern=pattern,
                category=category,
                tree=_tree(services, user),
            )
            return with_added(rows, new, position=position)

        _change(user_name, database, make, save=save)

    return command


add_rule = _add_command(
    "add",
    save=True,
    doc="Always count an app, a site or titles matching a pattern as a category: "
    "timetrace rules add app 'VS Code' study. CATEGORY is one of the six kinds or a "
    "category of yours (timetrace category list). Re-categorises the history it names.",
)
preview_rule = _add_command(
    "preview", save=False, doc="How many hours of history `rules add` would re-categorise."
)


@click.command("edit")
@click.argument("rule_id", type=int)
@click.option("--kind", type=click.Choice(KINDS))
@click.option("--pattern")
@click.option("--category", help=CATEGORY_HELP)
@click.option("--dry-run", is_flag=True, help="Only say how many hours it would change.")
@_user
@_database
@edge
def edit_rule(
    rule_id: int,
    kind: str | None,
    pattern: str | None,
    category: str | None,
    dry_run: bool,
    user_name: str,
    database: str | None,
) -> None:
    """Change a rule's kind, pattern or category."""
    from app.pyramid.user_rules import draft, with_edited

    def make(services: Services, user: UserContext, rows: list[UserRuleRow]) -> list[RuleDraft]:
        old = next((r for r in rows if r.rule_id == rule_id), None)
        if old is None:
            raise click.ClickException(f"no rule {rule_id} of yours (timetrace rules list)")
        new = draft(
            rules=services.rules,
            kind=kind or old.kind,
            pattern=pattern if pattern is not None else old.pattern,
            category=category or (f"#{old.category_id}" if old.category_id else old.category),
            tree=_tree(services, user),
        )
        return with_edited(rows, rule_id, new)

    _change(user_name, database, make, save=not dry_run)


@click.command("move")
@click.argument("rule")
@click.argument("position", type=click.IntRange(1))
@click.option("--id", "by_id", is_flag=True, help="RULE is a rule's id, not its position.")
@_user
@_database
@edge
def move_rule(rule: str, position: int, by_id: bool, user_name: str, database: str | None) -> None:
    """Try a rule at another place (1: first); the first rule that names a record wins.
    RULE is the position `rules list` shows first (3), or the id it shows in brackets,
    given as [12] or with --id: timetrace rules move 3 1."""
    from app.pyramid.user_rules import with_moved

    def make(_: Services, __: UserContext, rows: list[UserRuleRow]) -> list[RuleDraft]:
        return with_moved(rows, _rule_id(rows, rule, by_id=by_id), position=position)

    _change(user_name, database, make, save=True)


def _rule_id(rows: Sequence[UserRuleRow], rule: str, *, by_id: bool) -> int:
    """The id of the rule RULE names: a number is a position (as `rules list` shows it
    first) unless --id says it is an id; [12] is always an id."""
    text = rule.strip()
    bracketed = text.startswith("[") and text.endswith("]")
    number = text[1:-1] if bracketed else text
    if not number.isdigit():
        raise click.BadParameter("a position (3) or an id in brackets ([12])", param_hint="RULE")
    if bracketed or by_id:
        return int(number)
    ordered = sorted(rows, key=lambda r: r.position)
    if not 1 <= int(number) <= len(ordered):
        raise click.ClickException(
            f"no rule at position {number}: you have {len(ordered)} (timetrace rules list)"
        )
    return ordered[int(number) - 1].rule_id


@click.command("delete")
@click.argument("rule_id", type=int)
@_user
@_database
@edge
def delete_rule(rule_id: int, user_name: str, database: str | None) -> None:
    """Delete a rule: the records it named go back to the file and default rules."""
    from app.pyramid.user_rules import without

    _change(user_name, database, lambda _, __, rows: without(rows, rule_id), save=True)


def register(group: click.Group) -> None:
    for command in (list_rules, add_rule, edit_rule, move_rule, delete_rule, preview_rule):
        group.add_command(command)
