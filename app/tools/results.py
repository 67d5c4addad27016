"""The typed results of the tools: every tool returns a `ToolResult` model, every
failure is a `ToolError`, and the JSON any door sends is `model_dump(mode="json")`.

    result = dispatch(ctx, "get_episodes", {"period": "yesterday"})
    if isinstance(result, ToolError):
        print(result.error, result.hint)
    else:
        print(result.items[0].title)

A field that a tool leaves out of its answer (a site it could not tell, an idle
flag that is false) is `opt()` or `flag()`: absent from the JSON rather than null,
so the JSON keeps the short shape the agent and HTTP clients read.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, WithJsonSchema

from app.rules.things import Thing
from app.store.tools import MovedEpisode


def _absent(value: object) -> bool:
    return value is None


def _unset(value: object) -> bool:
    return not value


def opt(description: str | None = None) -> Any:
    """An optional field, left out of the JSON when None."""
    return Field(default=None, exclude_if=_absent, description=description)


def flag(description: str | None = None) -> Any:
    """A flag shown only when true (`"idle": true`), as the answers always had it."""
    return Field(default=False, exclude_if=_unset, description=description)


# An instant as Python writes it (`+00:00`, not pydantic's `Z`): the JSON the doors sent before.
Stamp = Annotated[
    datetime,
    PlainSerializer(lambda ts: ts.isoformat(), return_type=str),
    WithJsonSchema({"type": "string", "format": "date-time"}, mode="serialization"),
]


class Shape(BaseModel):
    """The base of every part of a result: strict keys, JSON names such as `from`."""

    model_config = ConfigDict(
        extra="forbid",
        serialize_by_alias=True,
        validate_by_name=True,
        validate_by_alias=True,
        validate_assignment=True,
    )


class ToolResult(Shape):
    """The base of every tool's result: `truncated` says whether the cap cut it,
    and `omitted` how many items it cut."""

    truncated: bool = Field(False, description="true when the output cap cut the result")
    omitted: int | None = opt("how many items the output cap cut")


class ToolError(Shape):
    """A tool call that did not answer, as data a model (or a person) can act on."""

    error: str
    hint: str | None = opt("what to do instead")
    conflict: bool = flag("the item was deleted or rebuilt meanwhile: look it up again")
    retry: bool = flag("the database was busy: the same call may succeed")
    unresolved: str | None = opt("a name found nowhere in the user's data")
    suggestions: list[str] | None = opt("the closest names the user has")
    truncated: bool = flag("the result did not fit the tool's output cap")
    forbidden: bool = flag("the caller's token may not do this (docs/scopes.md)")


ToolOutcome = ToolResult | ToolError


class ThingInfo(Shape):
    """What a name resolved to: small, and enough to say what was counted."""

    kind: str
    name: str
    label: str
    matched_by: str
    apps: list[str] | None = opt()
    domains: list[str] | None = opt()


def thing_info(thing: Thing) -> ThingInfo:
    return ThingInfo.model_validate(thing.describe())


class Period(Shape):
    """A result over logical days: its first and last."""

    from_: date = Field(alias="from")
    to: date


__all__ = [
    "Period",
    "Shape",
    "Stamp",
    "ThingInfo",
    "ToolError",
    "ToolOutcome",
    "ToolResult",
    "flag",
    "opt",
    "thing_info",
]


def gone_episode_text(moved: MovedEpisode) -> str:
    """What an episode id that no longer exists answers: where its time went."""
    if moved.deleted:
        return f"episode {moved.gone_id} is gone: its records were deleted"
    if moved.episode_id is None:
        return f"episode {moved.gone_id} was rebuilt; its time is not in an episode yet"
    return (
        f"episode {moved.gone_id} was rebuilt: its time is now in episode {moved.episode_id}"
        f" ({moved.day_local})"
    )
