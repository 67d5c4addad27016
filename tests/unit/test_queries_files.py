"""Named queries come from one file per family, `sql/queries/<family>.sql`, loaded as one
namespace; names stay unique, and a query file outside the folder is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.db import queries


def test_family_files_load_as_one_namespace_and_a_repeated_name_is_refused(
    tmp_path: Path,
) -> None:
    family = tmp_path / "queries"
    family.mkdir()
    (family / "b.sql").write_text(
        "-- the b family\n-- name: second --\nSELECT 2\n", encoding="utf-8"
    )
    (family / "a.sql").write_text("-- name: first --\nSELECT 1\n", encoding="utf-8")
    (family / "notes.txt").write_text("-- name: ignored --\nSELECT 3\n", encoding="utf-8")
    files = queries.query_files(tmp_path)
    assert [f.name for f in files] == ["a.sql", "b.sql"]
    assert queries.load_queries(tmp_path) == {"first": "SELECT 1", "second": "SELECT 2"}
    (family / "c.sql").write_text("-- name: first --\nSELECT 4\n", encoding="utf-8")
    with pytest.raises(ValueError, match="'first' is defined twice"):
        queries.load_queries.__wrapped__(tmp_path)


def test_a_query_file_beside_the_family_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "queries").mkdir()
    (tmp_path / "queries_late.sql").write_text("-- name: x --\nSELECT 1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"queries_late\.sql"):
        queries.query_files(tmp_path)


def test_the_shipped_queries_load_and_an_unknown_name_is_a_key_error() -> None:
    assert "insert_records" in queries.load_queries()
    with pytest.raises(KeyError):
        queries.QUERIES["no_such_query"]
