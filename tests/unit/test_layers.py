"""The package layout keeps its shape: every module under app/ belongs to a named
unit, imports only point down the layer order below, and no module imports itself
back through others (no cycles). Two rules about storage on top: only the units that
compose a process import `app.db`, and nothing above the seam writes SQL or talks
to psycopg. docs/architecture.md explains the order."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[2] / "app"

# Bottom first. A module may import its own unit and any unit of a lower layer.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "leaves",
        frozenset(
            {
                "app",
                "app.settings",
                "app.errors",
                "app.text",
                "app.timeutil",
                "app.patterns",
                "app.signal_labels",
            }
        ),
    ),
    ("the input boundary", frozenset({"app.boundary"})),
    ("the seam", frozenset({"app.store"})),
    ("job requests", frozenset({"app.job_requests"})),
    ("storage and rules", frozenset({"app.db", "app.rules"})),
    ("pyramid", frozenset({"app.pyramid"})),
    ("model layer and ingest", frozenset({"app.enrich", "app.ingest"})),
    ("tools", frozenset({"app.tools"})),
    ("agent and importers", frozenset({"app.agent", "app.importers"})),
    ("runtime", frozenset({"app.runtime"})),
    ("jobs", frozenset({"app.jobs"})),
    # The API's app mounts both: MCP at /mcp, the web pages at /.
    ("MCP bridge and web pages", frozenset({"app.mcp", "app.web"})),
    ("doors", frozenset({"app.api"})),
    # aw-server's API on loopback: the API's body limits and socket binding.
    ("ActivityWatch door", frozenset({"app.awdoor"})),
    ("demo", frozenset({"app.demo"})),
    ("command", frozenset({"app.cli"})),
)
LAYER_OF = {unit: index for index, (_, units) in enumerate(LAYERS) for unit in units}

# The units that put a process together (or, for the API, serve a row model of the
# database) may import app.db; everything else sees storage through the seam.
DB_IMPORTERS = frozenset({"app.runtime", "app.cli", "app.demo", "app.jobs", "app.api"})
# SQL a module may hold although it is above the seam, and why.
FOREIGN_SQL = {"app.importers.screenpipe": "reads screenpipe's own SQLite file, not ours"}
_SQL = re.compile(
    r"\b(SELECT\s.+?\sFROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM"
    r"|(CREATE|ALTER|DROP)\s+(TABLE|INDEX|DATABASE|FUNCTION|EXTENSION)|TRUNCATE\s|VACUUM\s"
    r"|pg_advisory_\w*lock|pg_notify)",
    re.S,
)
_DRIVERS = ("psycopg", "psycopg_pool", "psycopg2", "asyncpg", "app.db.queries")


def module_name(path: Path) -> str:
    parts = path.relative_to(APP.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unit_of(module: str) -> str:
    """`app.db.store` → `app.db`; a top-level module is its own unit."""
    parts = module.split(".")
    return ".".join(parts[:2])


def app_imports(path: Path) -> set[str]:
    """Every `app…` module this file imports, at any depth of the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "app"}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] != "app":
                continue
            found.add(node.module)
            # `from app.pyramid import build` imports the submodule app.pyramid.build.
            found |= {
                f"{node.module}.{a.name}"
                for a in node.names
                if (APP.parent / f"{node.module}.{a.name}".replace(".", "/"))
                .with_suffix(".py")
                .exists()
                or (APP.parent / f"{node.module}.{a.name}".replace(".", "/")).is_dir()
            }
    return found


@functools.cache  # the tree is read once for the tests that share it
def graph() -> dict[str, set[str]]:
    return {module_name(p): app_imports(p) for p in sorted(APP.rglob("*.py"))}


def violations(imports: dict[str, set[str]]) -> list[str]:
    problems = []
    for module, targets in sorted(imports.items()):
        unit = unit_of(module)
        if unit not in LAYER_OF:
            problems.append(f"{module}: belongs to no unit of the layer order")
            continue
        for target in sorted(targets):
            other = unit_of(target)
            if other == unit or other == "app":
                continue
            if other not in LAYER_OF:
                problems.append(f"{module} imports {target}, which belongs to no unit")
            elif LAYER_OF[other] >= LAYER_OF[unit]:
                problems.append(
                    f"{module} ({LAYERS[LAYER_OF[unit]][0]}) imports {target} "
                    f"({LAYERS[LAYER_OF[other]][0]}): imports must point down"
                )
    return problems


def cycles(imports: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in imports.get(node, set()):
            if nxt not in imports:
                continue
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(imports):
        if node not in index:
            visit(node)
    return found


def db_importers(imports: dict[str, set[str]]) -> list[str]:
    """Modules outside app/db, of a unit not in DB_IMPORTERS, that import app.db."""
    return [
        f"{module} imports {target}"
        for module, targets in sorted(imports.items())
        if unit_of(module) not in DB_IMPORTERS | {"app.db"}
        for target in sorted(targets)
        if unit_of(target) == "app.db"
    ]


def _strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Every string literal, an f-string as its literal parts joined."""
    found = []
    parts_of_fstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [v for v in node.values if isinstance(v, ast.Constant)]
            parts_of_fstrings |= {id(p) for p in parts}
            found.append((node.lineno, " ".join(str(p.value) for p in parts)))
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in parts_of_fstrings
        ):
            found.append((node.lineno, node.value))
    return found


def sql_writers(sources: dict[str, str], *, allowed: dict[str, str] = FOREIGN_SQL) -> list[str]:
    """Modules above the seam (not app/db) that hold SQL in a string or import a
    database driver or the named queries."""
    problems = []
    for module, text in sorted(sources.items()):
        if unit_of(module) == "app.db" or module in allowed:
            continue
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            for name in names:
                if name in _DRIVERS or name.split(".")[0] in _DRIVERS:
                    problems.append(f"{module}:{node.lineno} imports {name}")
        for line, value in _strings(tree):
            if match := _SQL.search(value):
                problems.append(f"{module}:{line} holds SQL ({match.group(0)[:40]!r})")
    return problems


def sources() -> dict[str, str]:
    return {module_name(p): p.read_text(encoding="utf-8") for p in sorted(APP.rglob("*.py"))}


@pytest.mark.heavy
def test_only_the_composing_units_import_the_database_package() -> None:
    assert db_importers(graph()) == []


@pytest.mark.heavy
def test_nothing_above_the_seam_writes_sql() -> None:
    found = sources()
    assert sql_writers(found) == []
    # The exceptions stay true: each still exists and still holds its foreign SQL.
    for module in FOREIGN_SQL:
        assert sql_writers({module: found[module]}, allowed={}), module


def test_the_storage_rules_catch_a_db_import_and_sql_above_the_seam() -> None:
    assert db_importers({"app.tools.stats": {"app.db.store"}, "app.jobs.x": {"app.db"}}) == [
        "app.tools.stats imports app.db.store"
    ]
    found = sql_writers(
        {
            "app.tools.stats": 'rows = conn.execute("SELECT day FROM digests")',
            "app.web.day": 'q = f"DELETE FROM records WHERE id = {rid}"',
            "app.pyramid.build": "import psycopg",
            "app.jobs.queue": "from app.db.queries import QUERIES",
            "app.db.store": 'conn.execute("SELECT 1 FROM users")',
            "app.agent.render": '"Select the days from the list."',
        }
    )
    assert [p.split(":")[0] for p in found] == [
        "app.jobs.queue",
        "app.pyramid.build",
        "app.tools.stats",
        "app.web.day",
    ], found


def test_every_import_points_down_the_layer_order() -> None:
    assert violations(graph()) == []


def test_no_import_cycles() -> None:
    imports = {m: {t for t in ts if t != m} for m, ts in graph().items()}
    # A package's __init__ importing its own modules is how packages re-export.
    imports = {
        m: {t for t in ts if not (t.startswith(m + ".") and m == unit_of(m))}
        for m, ts in imports.items()
    }
    assert cycles(imports) == []


def test_the_checker_catches_an_upward_import_and_a_cycle() -> None:
    fake = {
        "app.pyramid.build": {"app.tools.stats"},
        "app.tools.stats": {"app.pyramid.build"},
        "app.nowhere": set(),
    }
    problems = violations(fake)
    assert any("app.pyramid.build (pyramid) imports app.tools.stats" in p for p in problems)
    assert any("app.nowhere: belongs to no unit" in p for p in problems)
    assert cycles(fake) == [["app.pyramid.build", "app.tools.stats"]]
