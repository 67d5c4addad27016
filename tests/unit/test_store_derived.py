"""A family's one-query reads come from its protocol (`app/db/derived.py`): a method
named after a query needs no declaration in app/db/, its return annotation says how
the rows load, a hand-written method wins, and a method with neither fails at once."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Protocol

import pytest

from app.db.base import Queries
from app.db.derived import complete, derived, protocol_methods
from app.db.named import Method, NamedQuery
from app.db.store import DERIVED, PostgresStore
from app.store import Store
from app.store.digests import DigestRow, SignalRow
from app.store.tools import ModelBacklog


def _helper(method: NamedQuery[..., Any]) -> str:
    """Which helper of app.db.named built it: `rows`, `row`, `one`, `value`, …"""
    return method._run.__qualname__.split(".")[0]


class Shapes(Protocol):
    def many(self, *, user_id: int) -> list[SignalRow]: ...
    def maybe(self, *, user_id: int) -> DigestRow | None: ...
    def exactly(self, *, user_id: int) -> ModelBacklog: ...
    def texts(self, *, user_id: int) -> list[str]: ...
    def write(self, *, user_id: int) -> None: ...
    def count(self) -> int: ...
    def answer(self, *, user_id: int) -> bool: ...
    def when(self, *, user_id: int) -> datetime | None: ...


@pytest.mark.parametrize(
    ("name", "helper", "model"),
    [
        ("many", "rows", SignalRow),
        ("maybe", "row", DigestRow),
        ("exactly", "one", ModelBacklog),
        ("texts", "column", None),
        ("write", "execute", None),
        ("count", "value", None),
        ("answer", "value", None),
        ("when", "value", None),
    ],
)
def test_the_return_annotation_picks_how_the_rows_load(
    name: str, helper: str, model: type | None
) -> None:
    method = derived(getattr(Shapes, name))
    assert (_helper(method), method.model) == (helper, model)


class Signals(Protocol):
    def list_signals(self, *, user_id: int, day_from: date, day_to: date) -> list[SignalRow]:
        """A read added to a family: this signature and its query, nothing in app/db/."""
        ...


def test_a_read_named_after_its_query_is_that_query() -> None:
    class Store(Queries, Signals):
        pass

    assert complete(Store, Signals) == ["list_signals"]
    method = vars(Store)["list_signals"]
    assert isinstance(method, NamedQuery)
    assert (method.query, method.model, _helper(method)) == ("list_signals", SignalRow, "rows")


def test_a_hand_written_method_wins() -> None:
    def body(store: Any, params: dict[str, Any]) -> list[SignalRow]:
        return []

    class Store(Queries, Signals):
        list_signals = Method(Signals.list_signals, body)

    assert complete(Store, Signals) == []
    assert not isinstance(vars(Store)["list_signals"], NamedQuery)


def test_a_method_with_no_query_and_no_body_fails_at_once() -> None:
    class Unwritten(Protocol):
        def nowhere_read(self, *, user_id: int) -> int: ...
        def list_signals(self, *, user_id: int) -> list[SignalRow]: ...

    class Store(Queries, Unwritten):
        pass

    with pytest.raises(TypeError, match="implements none of nowhere_read, and no named query"):
        complete(Store, Unwritten)


def test_the_postgres_store_implements_every_method_of_every_family() -> None:
    methods = protocol_methods(Store)
    assert len(methods) > 150
    unwritten = [
        name
        for name in methods
        if getattr(next(c for c in PostgresStore.__mro__ if name in vars(c)), "_is_protocol", False)
    ]
    assert unwritten == []
    # Most reads are derived; each derived one is the query of its own name.
    assert len(DERIVED) > 90
    assert all(vars(PostgresStore)[n].query == n for n in DERIVED)
