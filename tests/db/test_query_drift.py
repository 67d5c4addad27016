"""The SQL and the row models describe one schema: every named query that returns typed
rows has exactly its row model's fields as result columns (asked of the server, not
run), every query is used, and every name the code uses is a query."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path
from typing import Any

import psycopg
import pytest

import app.store
from app.db.drift import declared_queries, query_drift
from app.db.queries import load_queries
from app.db.store import PostgresStore
from app.store.row import Row
from app.store.tools import SignalRow

APP = Path(__file__).resolve().parents[2] / "app"


def _subscript_name(node: ast.AST) -> str | None:
    """ "name" of `QUERIES["name"]`, else None."""
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "QUERIES"
        and isinstance(node.slice, ast.Constant)
        and isinstance(node.slice.value, str)
    ):
        return node.slice.value
    return None


def names_used(source: str) -> set[str]:
    """Every query name written as `QUERIES["name"]` in a module's source."""
    return {name for node in ast.walk(ast.parse(source)) if (name := _subscript_name(node))}


def fetched_models(source: str) -> dict[str, str]:
    """query → row model name of every `fetch_all(conn, Model, QUERIES["name"], …)`."""
    found: dict[str, str] = {}
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "fetch_all"
            and len(node.args) >= 3
            and isinstance(node.args[1], ast.Name)
            and (name := _subscript_name(node.args[2]))
        ):
            found[name] = node.args[1].id
    return found


def _sources() -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8") for p in sorted(APP.rglob("*.py"))}


def family_rows() -> dict[str, type[Row]]:
    """Every row model of the store families, by name (a family module each)."""
    found: dict[str, type[Row]] = {}
    for info in pkgutil.iter_modules(app.store.__path__, "app.store."):
        module = importlib.import_module(info.name)
        found |= {
            name: value
            for name, value in vars(module).items()
            if isinstance(value, type) and issubclass(value, Row)
        }
    return found


def row_models() -> dict[str, type[Row]]:
    """Each query that returns typed rows, and the model its rows are loaded into."""
    models = {name: m for name, m in declared_queries(PostgresStore).items() if m is not None}
    rows = family_rows()
    for source in _sources().values():
        for name, model in fetched_models(source).items():
            models[name] = rows[model]
    return models


def name_problems(defined: set[str], used: set[str]) -> list[str]:
    return [f"{n}: used, not defined (misspelt?)" for n in sorted(used - defined)] + [
        f"{n}: defined, never used" for n in sorted(defined - used)
    ]


def test_every_typed_query_returns_its_models_fields(conn: Any) -> None:
    models = row_models()
    # Most reads are typed: a regression to untyped dict rows shows here.
    assert len(models) >= 60, sorted(models)
    assert query_drift(conn, models) == []


def test_a_column_renamed_in_a_migration_only_is_reported(conn: Any) -> None:
    models = row_models()
    with conn.transaction():
        conn.execute("ALTER TABLE signals RENAME COLUMN severity TO weight")
        problems = query_drift(conn, models)
        raise psycopg.Rollback
    # Exactly the queries that read the column.
    refused = sorted(p.split(":")[0] for p in problems)
    assert refused == ["list_signals", "period_signal_kinds"], problems
    assert all("the database refuses it" in p for p in problems), problems
    # The rename is gone with its transaction, and so is the problem.
    assert query_drift(conn, {"list_signals": models["list_signals"]}) == []


def test_a_field_renamed_in_a_model_only_is_reported(conn: Any) -> None:
    class Renamed(Row):
        signal_id: int
        kind: str
        scope: str
        day_local: Any
        ts_start: Any
        ts_end: Any
        weight: float  # the column is `severity`
        metrics: Any
        evidence: Any

    assert set(SignalRow.model_fields) - set(Renamed.model_fields) == {"severity"}
    assert query_drift(conn, {"list_signals": Renamed}) == [
        "list_signals: column severity is not a field of Renamed",
        "list_signals: field weight of Renamed is not a column",
    ]


def test_every_query_is_used_and_every_name_used_is_a_query() -> None:
    used = set(declared_queries(PostgresStore))
    for source in _sources().values():
        used |= names_used(source)
    assert name_problems(set(load_queries()), used) == []


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            'QUERIES["list_signal"]',
            ["list_signal: used, not defined (misspelt?)", "list_signals: defined, never used"],
        ),
        ('QUERIES["list_signals"]', []),
        ("x = 1", ["list_signals: defined, never used"]),
    ],
)
def test_the_name_check_fails_on_a_misspelt_or_an_unused_name(
    source: str, expected: list[str]
) -> None:
    assert name_problems({"list_signals"}, names_used(source)) == expected
