"""Migrations (the query/row drift check is tests/test_query_drift.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner
from psycopg.conninfo import make_conninfo

from app.cli import main
from app.db.connection import drop_database
from app.db.migrate import list_migrations, migrate
from app.errors import DatabaseError, SchemaTooNewError
from tests.helpers import url_for


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


# -- a database owner who is not a superuser ------------------------------------------------


@contextmanager
def _owned_databases(admin_url: str) -> Iterator[tuple[str, str]]:
    """(url without vector, url with vector): two fresh databases owned by a role that is
    not a superuser. On a superuser's server that role is made here; run by a non-superuser
    (TIMETRACE_TEST_DATABASE_URL), the role is the tests' own, and `vector` must exist in
    template1, as docs/tests.md says."""
    suffix = os.getpid()
    bare, ready = f"tt_bare_{suffix}", f"tt_ready_{suffix}"
    with psycopg.connect(admin_url, autocommit=True) as admin:
        superuser = admin.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        made_role = bool(superuser.fetchone()[0])
        role, password = f"tt_owner_{suffix}", "owner-pw"
        if made_role:
            admin.execute(f"CREATE ROLE {role} LOGIN CREATEDB PASSWORD '{password}'")
        else:
            role = admin.execute("SELECT current_user").fetchone()[0]
        admin.execute(f"CREATE DATABASE {bare} TEMPLATE template0 OWNER {role}")
        admin.execute(
            f"CREATE DATABASE {ready} TEMPLATE {'template0' if made_role else 'template1'} "
            f"OWNER {role}"
        )
    if made_role:
        with psycopg.connect(url_for(admin_url, ready), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")
    extra = {"user": role, "password": password} if made_role else {}
    try:
        yield (
            make_conninfo(admin_url, dbname=bare, **extra),
            make_conninfo(admin_url, dbname=ready, **extra),
        )
    finally:
        drop_database(admin_url, database=bare)
        drop_database(admin_url, database=ready)
        if made_role:
            with psycopg.connect(admin_url, autocommit=True) as admin:
                admin.execute(f"DROP ROLE {role}")


def test_migrate_as_an_owner_who_is_not_a_superuser(admin_url: str, tmp_path: Path) -> None:
    runner = CliRunner()
    with _owned_databases(admin_url) as (bare, ready):
        env = {"TIMETRACE_DATA_DIR": str(tmp_path)}
        refused = runner.invoke(main, ["migrate"], env={**env, "TIMETRACE_DATABASE_URL": bare})
        assert refused.exit_code == 1
        lines = refused.output.strip().splitlines()
        assert len(lines) == 1, refused.output
        assert "permission denied to create extension" in lines[0]
        assert "a superuser must run `CREATE EXTENSION vector;`" in lines[0]
        done = runner.invoke(main, ["migrate"], env={**env, "TIMETRACE_DATABASE_URL": ready})
        assert done.exit_code == 0, done.output
        assert done.output.startswith("applied: 0001_init") and "procrastinate" in done.output


# -- 0020: records partitioned by month ------------------------------------------------------


def _records_rows(conn: Any) -> list[dict[str, Any]]:
    return conn.execute(
        "SELECT user_id, record_id, device_id, client_record_id, ts_start, ts_end, day_local, "
        "app, window_title, category, deleted_at FROM records ORDER BY record_id"
    ).fetchall()


def test_0020_keeps_every_record_its_id_analysis_and_view_rows(admin_url: str) -> None:
    from app.db.connection import connect, ensure_database
    from app.db.migrate import render
    from app.settings import Settings

    name = "tt_migrate_0020"
    drop_database(admin_url, database=name)
    ensure_database(admin_url, database=name)
    before_0020 = [m for m in list_migrations() if m.version < 20]
    try:
        with connect(
            url_for(admin_url, name), settings=Settings(_env_file=None), autocommit=True
        ) as db:
            db.execute(
                "CREATE TABLE schema_version (version integer PRIMARY KEY, name text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            for m in before_0020:
                with db.transaction():
                    db.execute(render(m, embedding_dim=8))
                    db.execute(
                        "INSERT INTO schema_version (version, name) VALUES (%s, %s)",
                        [m.version, m.name],
                    )
            user = db.execute(
                "INSERT INTO users (name, time_zone) VALUES ('u', 'Asia/Shanghai') "
                "RETURNING user_id"
            ).fetchone()["user_id"]
            for device in ("laptop", "phone"):
                db.execute(
                    "INSERT INTO devices (user_id, device_id, name, kind) "
                    "VALUES (%s, %s, %s, 'other')",
                    [user, device, device],
                )
            # Three years and two devices; one record deleted (a tombstone), one analysed.
            db.execute(
                "INSERT INTO records (user_id, device_id, client_record_id, ts_start, ts_end, "
                "day_local, app, window_title, category, category_source) "
                "SELECT %s, d, 'k' || i, t, t + interval '50 seconds', (t AT TIME ZONE "
                "'Asia/Shanghai')::date, 'Code', '写代码 ' || i, 'work', 'rule' "
                "FROM unnest(ARRAY['laptop', 'phone']) d, generate_series(1, 40) i, "
                "LATERAL (SELECT timestamptz '2001-12-31 23:00:00+00' + i * interval '29 days') "
                "AS x(t)",
                [user],
            )
            db.execute(
                "UPDATE records SET deleted_at = now(), window_title = '', "
                "client_record_id = timetrace_tombstone_key(client_record_id) "
                "WHERE device_id = 'phone' AND client_record_id = 'k7'"
            )
            db.execute(
                "INSERT INTO record_analyses (user_id, record_id, description, model) "
                "SELECT user_id, record_id, 'a note', 'm' FROM records "
                "WHERE client_record_id = 'k3'"
            )
            rows = _records_rows(db)
            durations = db.execute(
                "SELECT record_id, duration_s FROM v_record_durations ORDER BY record_id"
            ).fetchall()
            hours = db.execute("SELECT * FROM v_day_category_hours ORDER BY 1, 2, 3").fetchall()
            links = "SELECT * FROM v_record_episodes ORDER BY record_id"
            episodes = db.execute(links).fetchall()
            assert len(rows) == 80 and len(durations) == 79 and hours and len(episodes) == 79

            applied = migrate(db, embedding_dim=8)
            assert applied[0] == "0020_records_by_month"

            assert _records_rows(db) == rows
            kind = db.execute("SELECT relkind FROM pg_class WHERE relname = 'records'").fetchone()
            assert kind["relkind"] == "p"
            months = db.execute(
                "SELECT count(*) AS n FROM pg_inherits WHERE inhparent = 'records'::regclass"
            ).fetchone()["n"]
            assert months == len({(r["ts_start"].year, r["ts_start"].month) for r in rows})
            assert (
                db.execute(
                    "SELECT record_id, duration_s FROM v_record_durations ORDER BY record_id"
                ).fetchall()
                == durations
            )
            hours_after = db.execute("SELECT * FROM v_day_category_hours ORDER BY 1, 2, 3")
            assert hours_after.fetchall() == hours
            assert db.execute(links).fetchall() == episodes
            note = db.execute(
                "SELECT a.ts_start = r.ts_start AS same FROM record_analyses a "
                "JOIN records r USING (user_id, record_id)"
            ).fetchall()
            assert note == [{"same": True}, {"same": True}]
            flags = db.execute(
                "SELECT device_id, has_tombstones FROM devices ORDER BY device_id"
            ).fetchall()
            assert [(f["device_id"], f["has_tombstones"]) for f in flags] == [
                ("laptop", False),
                ("phone", True),
            ]
            # New ids continue after the old ones, from the sequence.
            db.execute("SELECT timetrace_ensure_month('2001-12-01')")
            fresh = db.execute(
                "INSERT INTO records (user_id, device_id, client_record_id, ts_start, day_local, "
                "category, category_source) VALUES (%s, 'laptop', 'new', "
                "'2001-12-31 23:30:00+00', '2002-01-01', 'work', 'rule') RETURNING record_id",
                [user],
            ).fetchone()["record_id"]
            assert fresh == max(r["record_id"] for r in rows) + 1
            assert migrate(db, embedding_dim=8) == []
    finally:
        drop_database(admin_url, database=name)
