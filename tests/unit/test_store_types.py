"""The seam speaks in named, typed rows: no protocol method of the store takes or returns
`Any` or a `dict[str, Any]`, and none returns a tuple (a row names its parts)."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Iterator
from typing import Any, get_args, get_origin, get_type_hints

import pytest

from app.store import Store


def protocol_methods() -> Iterator[tuple[str, Any]]:
    for proto in Store.__mro__:
        if not proto.__module__.startswith("app.store") or proto is Store:
            continue
        for name, member in vars(proto).items():
            if inspect.isfunction(member) and not name.startswith("_"):
                yield f"{proto.__name__}.{name}", member


def untyped(hint: Any, *, returned: bool) -> list[str]:
    """What in a type hint the seam does not allow, looking inside unions and generics."""
    if hint is Any:
        return ["Any"]
    origin, args = get_origin(hint), get_args(hint)
    found = []
    if returned and (hint is tuple or origin is tuple):
        found.append("a tuple")
    if origin is dict and args and args[1] is Any:
        found.append("dict[str, Any]")
    if origin is typing.Literal:
        return found
    for arg in args:
        found += untyped(arg, returned=returned)
    return found


def problems(method: Any) -> list[str]:
    hints = get_type_hints(method)
    out = [f"returns {p}" for p in untyped(hints.pop("return"), returned=True)]
    for name, hint in hints.items():
        out += [f"takes {name}: {p}" for p in untyped(hint, returned=False)]
    return out


def test_every_protocol_method_is_typed_by_named_rows() -> None:
    methods = dict(protocol_methods())
    assert len(methods) >= 80  # every family's protocol is seen
    found = {name: p for name, method in methods.items() if (p := problems(method))}
    assert found == {}


class _Loose:
    def pairs(self) -> list[tuple[int, str]]: ...
    def blob(self, *, doc: dict[str, Any]) -> None: ...
    def anything(self) -> Any | None: ...
    def fine(self, *, ids: tuple[int, ...]) -> dict[str, int]: ...


@pytest.mark.parametrize(
    ("method", "expected"),
    [
        (_Loose.pairs, ["returns a tuple"]),
        (_Loose.blob, ["takes doc: dict[str, Any]", "takes doc: Any"]),
        (_Loose.anything, ["returns Any"]),
        (_Loose.fine, []),
    ],
)
def test_the_check_sees_tuples_any_and_loose_dicts(method: Any, expected: list[str]) -> None:
    assert problems(method) == expected
