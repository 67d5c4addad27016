"""Named queries come from `sql/queries.sql` and one file per family; names stay unique."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.db import queries


def test_family_files_load_after_the_main_file_and_a_repeated_name_is_refused(
    tmp_path: Path,
) -> None:
    (tmp_path / "queries.sql").write_text("-- name: first --\nSELECT 1\n", encoding="utf-8")
    (tmp_path / "queries_b.sql").write_text(
        "-- the b family\n-- name: second --\nSELECT 2\n", encoding="utf-8"
    )
    (tmp_path / "notes.sql").write_text("-- name: ignored --\nSELECT 3\n", encoding="utf-8")
    files = queries.query_files(tmp_path)
    assert [f.name for f in files] == ["queries.sql", "queries_b.sql"]
    assert queries.load_queries(tmp_path) == {"first": "SELECT 1", "second": "SELECT 2"}
    (tmp_path / "queries_c.sql").write_text("-- name: first --\nSELECT 4\n", encoding="utf-8")
    with pytest.raises(ValueError, match="'first' is defined twice"):
        queries.load_queries.__wrapped__(tmp_path)


def test_the_shipped_queries_load_and_an_unknown_name_is_a_key_error() -> None:
    assert "insert_records" in queries.load_queries()
    with pytest.raises(KeyError):
        queries.QUERIES["no_such_query"]
