"""Store methods that are one named query each, written once.

A protocol method's signature is the only copy of its parameters: the implementation
names the protocol method, and the keyword arguments of a call are the query's
parameters, by name.

    class PostgresToolStore(Queries):
        list_signals = rows(ToolStore.list_signals, SignalRow)

runs the query `list_signals` (the attribute's name; `query=` names another) and loads
its rows into `SignalRow`. mypy checks the attribute against the protocol as it checks
a method, and `SignalRow` against the protocol's return type. The drift test
(tests/db/test_query_drift.py) reads the query → model pairs from these declarations.
`adapt` wraps an argument for psycopg (`Jsonb`, `Vector`); `derive` adds parameters
computed from the arguments. A method of several queries in one transaction is
`method(Protocol.x, body)`: `body(store, params)` gets the arguments as one dict.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import (
    Any,
    Concatenate,
    Generic,
    LiteralString,
    ParamSpec,
    Self,
    TypeVar,
    cast,
    overload,
)

from psycopg_pool import ConnectionPool

from app.db.base import RowT, fetch_all, row_factory
from app.db.connection import Connection
from app.db.queries import QUERIES
from app.store.row import Row

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")

Adapt = Mapping[str, Callable[[Any], object]]
Params = dict[str, Any]
# Parameters a query needs that are computed from the call's (a pattern from a text).
Derive = Callable[[Params], Params]


def _params(values: Params, adapt: Adapt, derive: Derive | None) -> Params:
    # psycopg sends a list as an array; a tuple (a Sequence argument) is not adapted.
    params = {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}
    for name, wrap in adapt.items():
        if params.get(name) is not None:
            params[name] = wrap(params[name])
    return params | derive(params) if derive is not None else params


class Method(Generic[P, R]):
    """A store method with the protocol's signature, whose body takes the call's keyword
    arguments (defaults filled in) as one dict: the parameters of its queries."""

    def __init__(
        self,
        signature: Callable[Concatenate[Any, P], R],
        body: Callable[[Any, Params], R],
        *,
        adapt: Adapt = {},  # noqa: B006  (never mutated)
        derive: Derive | None = None,
    ) -> None:
        self._body = body
        self._adapt = adapt
        self._derive = derive
        self._defaults = {
            name: p.default
            for name, p in inspect.signature(signature).parameters.items()
            if p.default is not inspect.Parameter.empty
        }

    @overload
    def __get__(self, store: None, owner: type[Any]) -> Self: ...
    @overload
    def __get__(self, store: object, owner: type[Any]) -> Callable[P, R]: ...
    def __get__(self, store: object | None, owner: type[Any]) -> Self | Callable[P, R]:
        if store is None:
            return self

        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            assert not args, "store methods take keyword arguments"
            params = _params({**self._defaults, **kwargs}, self._adapt, self._derive)
            return self._body(store, params)

        return call


class NamedQuery(Method[P, R]):
    """A store method that is one named query; see the module's docstring."""

    def __init__(
        self,
        signature: Callable[Concatenate[Any, P], R],
        run: Callable[[Connection, LiteralString, Params], R],
        *,
        model: type[Row] | None,
        query: str | None,
        adapt: Adapt,
        derive: Derive | None,
    ) -> None:
        super().__init__(signature, self._call, adapt=adapt, derive=derive)
        self._run = run
        self.model = model  # the row model of its result, for the drift test
        self.query = query or ""

    def __set_name__(self, owner: type[Any], name: str) -> None:
        self.query = self.query or name

    def _call(self, store: Any, params: Params) -> R:
        pool: ConnectionPool[Connection] = store.pool
        with pool.connection() as conn:
            return self._run(conn, QUERIES[self.query], params)


def method(
    signature: Callable[Concatenate[Any, P], R],
    body: Callable[[Any, Params], R],
    *,
    adapt: Adapt = {},  # noqa: B006  (never mutated)
    derive: Derive | None = None,
) -> Method[P, R]:
    """A method of several queries (a transaction): `body(store, params)`."""
    return Method(signature, body, adapt=adapt, derive=derive)


def rows(
    signature: Callable[Concatenate[Any, P], list[RowT]],
    model: type[RowT],
    *,
    query: str | None = None,
    adapt: Adapt = {},  # noqa: B006  (never mutated)
    derive: Derive | None = None,
) -> NamedQuery[P, list[RowT]]:
    """Every row of the query, as `model`."""

    def run(conn: Connection, sql: LiteralString, params: Params) -> list[RowT]:
        return fetch_all(conn, model, sql, params)

    return NamedQuery(signature, run, model=model, query=query, adapt=adapt, derive=derive)


def row(
    signature: Callable[Concatenate[Any, P], RowT | None],
    model: type[RowT],
    *,
    query: str | None = None,
    adapt: Adapt = {},  # noqa: B006
    derive: Derive | None = None,
) -> NamedQuery[P, RowT | None]:
    """The query's first row as `model`, or None when there is none."""

    def run(conn: Connection, sql: LiteralString, params: Params) -> RowT | None:
        with conn.cursor(row_factory=row_factory(model)) as cur:
            return cur.execute(sql, params).fetchone()

    return NamedQuery(signature, run, model=model, query=query, adapt=adapt, derive=derive)


def one(
    signature: Callable[Concatenate[Any, P], RowT],
    model: type[RowT],
    *,
    query: str | None = None,
    adapt: Adapt = {},  # noqa: B006
    derive: Derive | None = None,
) -> NamedQuery[P, RowT]:
    """The one row of a query that always yields one (an aggregate, a RETURNING upsert)."""

    def run(conn: Connection, sql: LiteralString, params: Params) -> RowT:
        with conn.cursor(row_factory=row_factory(model)) as cur:
            found = cur.execute(sql, params).fetchone()
        assert found is not None, "the query always yields one row"
        return found

    return NamedQuery(signature, run, model=model, query=query, adapt=adapt, derive=derive)


def value(
    signature: Callable[Concatenate[Any, P], T],
    *,
    query: str | None = None,
    adapt: Adapt = {},  # noqa: B006
    derive: Derive | None = None,
) -> NamedQuery[P, T]:
    """The first column of the query's first row; None when there is no row (declare
    the return type `X | None` then)."""

    def run(conn: Connection, sql: LiteralString, params: Params) -> T:
        found = conn.execute(sql, params).fetchone()
        return cast(T, next(iter(found.values())) if found is not None else None)

    return NamedQuery(signature, run, model=None, query=query, adapt=adapt, derive=derive)


def column(
    signature: Callable[Concatenate[Any, P], list[T]],
    *,
    query: str | None = None,
    adapt: Adapt = {},  # noqa: B006
    derive: Derive | None = None,
) -> NamedQuery[P, list[T]]:
    """The first column of every row."""

    def run(conn: Connection, sql: LiteralString, params: Params) -> list[T]:
        return [next(iter(r.values())) for r in conn.execute(sql, params)]

    return NamedQuery(signature, run, model=None, query=query, adapt=adapt, derive=derive)


def found(
    signature: Callable[Concatenate[Any, P], bool],
    *,
    query: str | None = None,
    adapt: Adapt = {},  # noqa: B006
    derive: Derive | None = None,
) -> NamedQuery[P, bool]:
    """Whether the query yielded a row (a RETURNING write that hit one, an EXISTS)."""

    def run(conn: Connection, sql: LiteralString, params: Params) -> bool:
        return conn.execute(sql, params).fetchone() is not None

    return NamedQuery(signature, run, model=None, query=query, adapt=adapt, derive=derive)


def execute(
    signature: Callable[Concatenate[Any, P], None],
    *,
    query: str | None = None,
    adapt: Adapt = {},  # noqa: B006
    derive: Derive | None = None,
) -> NamedQuery[P, None]:
    """Run the query for its effect."""

    def run(conn: Connection, sql: LiteralString, params: Params) -> None:
        conn.execute(sql, params)

    return NamedQuery(signature, run, model=None, query=query, adapt=adapt, derive=derive)
