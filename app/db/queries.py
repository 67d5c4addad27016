"""Named SQL queries, loaded once from `sql/queries.sql`.

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


@cache
def load_queries(path: Traversable = SQL_DIR / "queries.sql") -> dict[str, LiteralString]:
    return parse_named_queries(path.read_text(encoding="utf-8"))


class _Queries:
    def __getitem__(self, name: str) -> LiteralString:
        return load_queries()[name]


QUERIES = _Queries()
