"""Named SQL queries, loaded once from `sql/queries/<family>.sql`, one namespace.

Each file is split on headers of the form `-- name: insert_records --`; the text
up to the next header is the query, used as `QUERIES["insert_records"]`. A name
defined twice, in one file or two, is an error.
The repository's sql/ is installed as package data of `app.sql`: read it from here.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import LiteralString, cast

SQL_DIR: Traversable = resources.files("app.sql")
MIGRATIONS_DIR: Traversable = SQL_DIR / "migrations"
_HEADER = re.compile(r"^-- name: ([a-z_][a-z0-9_]*) --\s*$", re.MULTILINE)


def parse_named_queries(text: str) -> dict[str, LiteralString]:
    parts = _HEADER.split(text)
    queries: dict[str, LiteralString] = {}
    for name, body in zip(parts[1::2], parts[2::2], strict=True):
        if name in queries:
            raise ValueError(f"query {name!r} is defined twice")
        # These strings come from our own files, never from input.
        queries[name] = cast(LiteralString, body.strip())
    return queries


def query_files(sql_dir: Traversable = SQL_DIR) -> list[Traversable]:
    """One file per family, `queries/<family>.sql`, by name. A query file left beside
    the folder (the layout before it, `queries.sql` or `queries_<family>.sql`) is
    refused rather than silently not loaded."""
    stray = sorted(f.name for f in sql_dir.iterdir() if re.fullmatch(r"queries\w*\.sql", f.name))
    if stray:
        raise ValueError(f"named queries belong in queries/<family>.sql, not {', '.join(stray)}")
    return sorted(
        (f for f in (sql_dir / "queries").iterdir() if re.fullmatch(r"[a-z0-9_]+\.sql", f.name)),
        key=lambda f: f.name,
    )


@cache
def load_queries(sql_dir: Traversable = SQL_DIR) -> dict[str, LiteralString]:
    """Every named query; a name defined in two files is an error."""
    queries: dict[str, LiteralString] = {}
    for path in query_files(sql_dir):
        for name, body in parse_named_queries(path.read_text(encoding="utf-8")).items():
            if name in queries:
                raise ValueError(f"query {name!r} is defined twice ({path.name})")
            queries[name] = body
    return queries


class _Queries:
    def __getitem__(self, name: str) -> LiteralString:
        return load_queries()[name]


QUERIES = _Queries()
