"""What every command shares: settings from the environment, the one-line error edge,
the console, and choices read from the code only when a command needs them (so that
`timetrace --version` and `timetrace --help` import nothing heavy)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import click

from app.errors import TimeTraceError

if TYPE_CHECKING:
    from rich.console import Console

    from app.settings import Settings
    from app.store import AccountStore, UserContext

F = TypeVar("F", bound=Callable[..., Any])
DATABASE_HELP = "Another database on the same server (the demo's: timetrace_demo)."


@functools.cache
def console() -> Console:
    from rich.console import Console

    return Console(width=max(Console().width, 100))


def settings_from_env(**overrides: Any) -> Settings:
    from pydantic import ValidationError

    from app.settings import Settings

    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        problems = "; ".join(
            f"TIMETRACE_{'_'.join(str(p) for p in e['loc']).upper()}: {e['msg']}"
            for e in exc.errors()
        )
        raise click.ClickException(f"bad configuration: {problems}") from exc


def database_url_for(settings: Settings, database: str | None) -> str | None:
    """The URL of another database on the same server (the demo's: timetrace_demo), or
    None for the configured one."""
    if database is None:
        return None
    from app.db.connection import database_url
    from app.db.psql import with_database

    if settings.database_url:
        return with_database(settings.database_url, database)
    return database_url(settings, database=database)


def no_user(name: str) -> click.ClickException:
    """The one error for a user name that names nobody, saying how to make one."""
    return click.ClickException(
        f"no user {name!r}: create one with `timetrace token create --user {name}`"
    )


def user_named(store: AccountStore, name: str) -> UserContext:
    """The user called `name`, or the one-line error that says how to create them."""
    user = store.get_user(name=name)
    if user is None:
        raise no_user(name)
    return user


def edge(func: F) -> F:
    """Translate TimeTrace errors into one-line CLI errors."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except TimeTraceError as exc:
            raise click.ClickException(exc.message) from exc

    return wrapper  # type: ignore[return-value]


class LazyChoice(click.Choice[str]):
    """A choice whose values are read from the code the first time they are needed
    (checking a value, or showing help), not when the command is defined."""

    def __init__(self, load: Callable[[], Sequence[str]]) -> None:
        self._load = load
        self._loaded: tuple[str, ...] | None = None
        super().__init__((), case_sensitive=True)

    @property
    def choices(self) -> tuple[str, ...]:
        if self._loaded is None:
            self._loaded = tuple(self._load())
        return self._loaded

    @choices.setter
    def choices(self, value: Sequence[str]) -> None:
        pass  # click's constructor sets them: they come from `load` instead


class TimeZone(click.ParamType[str, Any]):
    """An IANA time zone name (Asia/Shanghai, Europe/Berlin, UTC)."""

    name = "zone"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

        try:
            ZoneInfo(str(value))
        except (ZoneInfoNotFoundError, ValueError):
            self.fail(f"unknown IANA time zone {value!r} (e.g. Asia/Shanghai, Europe/Berlin)")
        return str(value)


ZONE_OPTION_HELP = "Your IANA time zone, e.g. Asia/Shanghai (days are counted in it)."
DAY_CUT_HELP = "The hour your day starts (0-23): later records count for the day before."
