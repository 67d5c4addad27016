"""The TimeTrace error hierarchy.

Each class's docstring is its default message. Errors are raised deep inside and
translated only at the edges: HTTP (4xx with a JSON message), CLI (one line),
tools (an error result).
"""

from __future__ import annotations


class TimeTraceError(Exception):
    """TimeTrace failed."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or (self.__doc__ or "").strip())

    @property
    def message(self) -> str:
        return str(self.args[0])


class ConfigError(TimeTraceError):
    """The configuration is not valid."""


class DatabaseError(TimeTraceError):
    """The database could not be reached or prepared."""


class DatabaseBusyError(DatabaseError):
    """The database is busy or restarting; try again in a moment."""


class WorkerGaveUpError(DatabaseError):
    """The worker lost the database and could not reconnect; it stops so that a supervisor
    can restart it."""


class SchemaTooNewError(DatabaseError):
    """The database schema is newer than this version of TimeTrace; upgrade TimeTrace."""


class NotFoundError(TimeTraceError):
    """Not found."""


class UnknownDeviceError(NotFoundError):
    """Unknown device: register it first (POST /api/v1/devices or `timetrace device add`)."""


class UnknownThingError(NotFoundError):
    """No app, site, category or idle time in your data goes by that name."""

    def __init__(self, *, mention: str, suggestions: tuple[str, ...] = ()) -> None:
        names = f"; closest in your data: {', '.join(suggestions)}" if suggestions else ""
        super().__init__(f"no app, site or category called {mention!r} in your data{names}")
        self.mention = mention
        self.suggestions = suggestions


class ConflictError(TimeTraceError):
    """It changed while this request was using it (deleted or rebuilt); look it up again."""


class InvalidInputError(TimeTraceError):
    """The input is not valid."""


class ForbiddenError(TimeTraceError):
    """This token may not do that (its scope: docs/scopes.md)."""


class AuthError(TimeTraceError):
    """A valid API token is required (Authorization: Bearer <token>)."""
