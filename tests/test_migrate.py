"""Migrations and the model/schema drift check."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import BigInteger, Column, MetaData, Table, Text
from sqlmodel import SQLModel

import app.db.tables  # noqa: F401  (registers every table on SQLModel.metadata)
from app.db.drift import schema_drift
from app.db.migrate import list_migrations, migrate
from app.errors import DatabaseError, SchemaTooNewError


def _versions(conn: Any) -> list[tuple[int, str]]:
    return [
        (r["version"], str(r["applied_at"]))
        for r in conn.execute("SELECT version, applied_at FROM schema_version ORDER BY version")
    ]


def test_migrate_twice_is_a_no_op(conn: Any) -> None:
    before = _versions(conn)
    assert [v for v, _ in before] == [m.version for m in list_migrations()]
    assert migrate(conn, embedding_dim=384) == []
    assert migrate(conn, embedding_dim=384) == []
    assert _versions(conn) == before


def test_migrate_builds_an_empty_database(admin_url: str) -> None:
    from app.db.connection import connect, drop_database, ensure_database
    from app.settings import Settings
    from tests.helpers import url_for

    ensure_database(admin_url, database="tt_fresh_migrate")
    try:
        with connect(
            url_for(admin_url, "tt_fresh_migrate"),
            settings=Settings(_env_file=None),
            autocommit=True,
        ) as fresh:
            applied = migrate(fresh, embedding_dim=8)
            assert applied == [m.name for m in list_migrations()] + ["procrastinate"]
            assert migrate(fresh, embedding_dim=8) == []
            dim = fresh.execute(
                "SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute "
                "WHERE attrelid = 'episodes'::regclass AND attname = 'summary_embedding'"
            ).fetchone()["t"]
            assert dim == "vector(8)"
    finally:
        drop_database(admin_url, database="tt_fresh_migrate")


def test_a_newer_schema_is_refused(conn: Any) -> None:
    conn.execute("INSERT INTO schema_version (version, name) VALUES (9999, '9999_future')")
    with pytest.raises(SchemaTooNewError, match="9999"):
        migrate(conn, embedding_dim=384)


def test_another_embedding_dimension_is_refused(conn: Any) -> None:
    with pytest.raises(DatabaseError, match="384-dimensional"):
        migrate(conn, embedding_dim=768)


def test_models_match_the_migrated_schema(conn: Any) -> None:
    assert schema_drift(conn, metadata=SQLModel.metadata) == []


def _copy_metadata() -> MetaData:
    copy = MetaData()
    for table in SQLModel.metadata.sorted_tables:
        table.to_metadata(copy)
    return copy


def test_drift_check_fails_on_a_deliberate_mismatch(conn: Any) -> None:
    metadata = _copy_metadata()
    records = metadata.tables["records"]
    records.c.app.type = BigInteger()  # wrong type
    records.c.url.nullable = False  # wrong nullability
    records.append_column(Column("mood", Text))  # not in the database
    Table("ghosts", metadata, Column("id", BigInteger, primary_key=True))
    problems = schema_drift(conn, metadata=metadata)
    assert "records.app: model type bigint, database type text" in problems
    assert "records.url: model nullable=False, database nullable=True" in problems
    assert "records.mood: in the model, not in the database" in problems
    assert "table ghosts: in the models, not in the database" in problems
    assert len(problems) == 4


def test_drift_check_sees_database_only_columns_and_tables(conn: Any) -> None:
    conn.execute("ALTER TABLE episodes ADD COLUMN secret text")
    conn.execute("CREATE TABLE stray (id int)")
    problems = schema_drift(conn, metadata=SQLModel.metadata)
    assert sorted(problems) == [
        "episodes.secret: in the database, not in the model",
        "table stray: in the database, not in the models",
    ]
