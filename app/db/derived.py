"""A store family's one-query methods, derived from its protocol.

A protocol method named after a query of `sql/queries/` needs no declaration in
`app/db/`: `complete` gives the store class a method that runs the query of its name
with the call's keyword arguments, its rows loaded as the return annotation says:

    class ToolStore(Protocol):  # app/store/tools.py
        def list_signals(
            self, *, user_id: int, day_from: date, day_to: date
        ) -> list[SignalRow]: ...

runs `-- name: list_signals --` and loads every row as `SignalRow`. The annotation
picks the helper of `app.db.named`:

- `list[SomeRow]`: `rows`, every row loaded as `SomeRow`;
- `SomeRow | None`: `row`, the first row or None;
- `SomeRow`: `one`, the one row of a query that always yields one;
- `list[str]`, `list[int]`, ...: `column`, the first column of every row;
- `None`: `execute`, for its effect;
- anything else (`int`, `bool`, `datetime | None`, ...): `value`, the first column of
  the first row (None without a row).

A method of several queries, or one whose arguments are adapted or derived first, is
written by hand in `app/db/store_<family>.py` and wins over the derivation; so is a
`bool` that says whether the query yielded a row at all (`found`). A protocol method
with neither a hand-written method nor a query of its name fails the import.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable
from typing import Any

from app.db.named import NamedQuery, column, execute, one, row, rows, value
from app.db.queries import load_queries
from app.store.row import Row


def _row_model(annotation: object) -> type[Row] | None:
    return annotation if isinstance(annotation, type) and issubclass(annotation, Row) else None


def derived(signature: Callable[..., Any]) -> NamedQuery[..., Any]:
    """The named query a protocol method implies, by its return annotation."""
    returns = typing.get_type_hints(signature)["return"]
    origin, args = typing.get_origin(returns), typing.get_args(returns)
    if returns is type(None):
        return execute(signature)
    if origin is list:
        model = _row_model(args[0])
        return rows(signature, model) if model is not None else column(signature)
    if (model := _row_model(returns)) is not None:
        return one(signature, model)
    if origin in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and (model := _row_model(rest[0])) is not None:
            return row(signature, model)
    return value(signature)


def protocol_methods(protocol: type) -> dict[str, Callable[..., Any]]:
    """Every public method a protocol declares, through the protocols it extends."""
    return {
        name: member
        for cls in reversed(protocol.__mro__)
        if getattr(cls, "_is_protocol", False) and cls is not typing.Protocol
        for name, member in vars(cls).items()
        if callable(member) and not name.startswith("_")
    }


def _implemented(store: type, name: str) -> bool:
    """Whether the first class of `store`'s MRO that defines `name` is not a protocol."""
    owner = next(cls for cls in store.__mro__ if name in vars(cls))
    return not getattr(owner, "_is_protocol", False)


def complete(store: type, protocol: type) -> list[str]:
    """Give `store` every method of `protocol` it lacks, each the query of its name;
    returns the names derived. Raises TypeError naming any method with no query."""
    missing = [n for n in protocol_methods(protocol) if not _implemented(store, n)]
    unknown = [n for n in missing if n not in load_queries()]
    if unknown:
        raise TypeError(
            f"{store.__name__} implements none of {', '.join(sorted(unknown))}, and no "
            "named query in sql/queries/ has its name"
        )
    for name in missing:
        method = derived(protocol_methods(protocol)[name])
        method.__set_name__(store, name)
        setattr(store, name, method)
    return missing
