"""Named SQL queries, loaded once from `sql/queries.sql` and every `sql/queries_*.sql`.

The file is split on headers of the form `-- name: insert_records --`; the text
up to the next header is the query, used as `QUERIES["insert_records"]`.
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
    """`queries.sql` first, then one file per family (`queries_<family>.sql`) by name."""
    families = sorted(
        (f for f in sql_dir.iterdir() if re.fullmatch(r"queries_[a-z0-9_]+\.sql", f.name)),
        key=lambda f: f.name,
    )
    return [sql_dir / "queries.sql", *families]


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
