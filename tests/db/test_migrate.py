"""Migrations (the query/row drift check is tests/test_query_drift.py).

The schema a fresh database migrates to is held in tests/snapshots/schema.sql (pg_dump of
the schema, no data). Old migration files may be thinned when a later one replaces what
they made (docs/architecture.md, "Migrations"); the snapshot and the stopped databases
below prove the thinning changes nothing a database ends with. On purpose, regenerate it:

    .venv/bin/python -m tests.db.test_migrate
"""

from __future__ import annotations

import difflib
import os
import subprocess
import tempfile
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

SNAPSHOT = Path(__file__).resolve().parent.parent / "snapshots" / "schema.sql"


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
    with _fresh_database(admin_url, "tt_migrate_0020") as (_, db):
        _apply_through(db, version=19, embedding_dim=8)
        user = db.execute(
            "INSERT INTO users (name, time_zone) VALUES ('u', 'Asia/Shanghai') RETURNING user_id"
        ).fetchone()["user_id"]
        for device in ("laptop", "phone"):
            db.execute(
                "INSERT INTO devices (user_id, device_id, name, kind) VALUES (%s, %s, %s, 'other')",
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


# -- the schema a database ends with, and thinned history ---------------------------------


@contextmanager
def _fresh_database(admin_url: str, name: str) -> Iterator[tuple[str, Any]]:
    """A new, empty database (dropped afterwards): its URL and a connection to it."""
    from app.db.connection import connect, ensure_database
    from app.settings import Settings

    drop_database(admin_url, database=name)
    ensure_database(admin_url, database=name)
    url = url_for(admin_url, name)
    try:
        with connect(url, settings=Settings(_env_file=None), autocommit=True) as db:
            yield url, db
    finally:
        drop_database(admin_url, database=name)


def _apply_through(db: Any, *, version: int, embedding_dim: int) -> None:
    """Apply the migrations up to `version` as `migrate` applies them: a database that a
    TimeTrace of that version left."""
    from app.db.migrate import render

    db.execute(
        "CREATE TABLE schema_version (version integer PRIMARY KEY, name text NOT NULL,"
        " applied_at timestamptz NOT NULL DEFAULT now())"
    )
    for m in list_migrations():
        if m.version > version:
            break
        with db.transaction():
            db.execute(render(m, embedding_dim=embedding_dim))
            db.execute(
                "INSERT INTO schema_version (version, name) VALUES (%s, %s)",
                [m.version, m.name],
            )


def schema_dump(url: str) -> str:
    """The database's schema as pg_dump writes it (no data, owners or grants), by the
    pg_dump that ships beside the embedded server's psql."""
    from app.db.psql import psql_binary

    dumped = subprocess.run(
        [str(psql_binary().with_name("pg_dump")), "--schema-only", "--no-owner",
         "--no-privileges", "--restrict-key=timetrace", "-d", url],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    return "".join(line for line in dumped.splitlines(keepends=True) if "-- Dumped " not in line)


def _assert_snapshot(url: str) -> None:
    got = schema_dump(url)
    want = SNAPSHOT.read_text(encoding="utf-8")
    diff = "".join(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True)))[:60])
    assert got == want, (
        f"the schema differs from {SNAPSHOT.name}: if on purpose, run "
        f"python -m tests.db.test_migrate\n{diff}"
    )


def test_a_fresh_database_migrates_to_the_snapshot(admin_url: str) -> None:
    with _fresh_database(admin_url, "tt_schema_fresh") as (url, db):
        migrate(db, embedding_dim=384)
        assert "CREATE VIEW public.v_record_durations" in SNAPSHOT.read_text(encoding="utf-8")
        _assert_snapshot(url)


def _objects_of_the_unthinned_files(db: Any, *, version: int) -> None:
    """What 0002, 0003, 0007, 0035 and 0039 made before they were thinned and the files
    no longer make, as a database migrated by them to `version` has it: 0003's duration
    function until 0007 replaced it, the views over `records.*` (every column,
    `episode_id` too) until 0019 dropped them, the site function (0035, 0039) until 0040
    replaced its body. Stand-ins of the same names, signatures and dependencies:
    their bodies do not matter, because the later migration replaces or drops them."""
    if 3 <= version < 7:
        db.execute(
            "CREATE FUNCTION timetrace_duration_s(ts_start timestamptz, ts_end timestamptz, "
            "next_start timestamptz) RETURNS double precision LANGUAGE sql STABLE "
            "AS $$ SELECT 0::double precision $$"
        )
    if 35 <= version < 40:
        db.execute(
            "CREATE FUNCTION timetrace_site_seconds_v1(p_user bigint, p_from timestamptz, "
            "p_to timestamptz, p_day_from date, p_day_to date, p_browsers text[], "
            "p_known text[], p_titles text[], p_title_sites text[], "
            "p_sites text[] DEFAULT NULL) RETURNS TABLE (day_local date, site text, "
            "from_url_s double precision, from_title_s double precision, "
            "unnamed_title text) LANGUAGE sql STABLE "
            "AS $$ SELECT NULL::date, NULL::text, 0::float8, 0::float8, NULL::text $$"
        )
    if 2 <= version < 19:
        seconds = "timetrace_duration_s(ts_start, ts_end, NULL)" if version >= 3 else "0.0"
        db.execute(
            f"CREATE VIEW v_record_durations AS SELECT records.*, {seconds} AS duration_s "
            "FROM records WHERE deleted_at IS NULL"
        )
        db.execute(
            "CREATE VIEW v_day_category_hours AS SELECT user_id, day_local, category, "
            "sum(duration_s) AS seconds FROM v_record_durations GROUP BY 1, 2, 3"
        )


# Each version where the thinned files leave a database unlike the unthinned ones did:
# after 0002, 0003, 0006 (the last before 0007), 0007, 0018 (the last before 0019), 0035
# and 0039 (the last before 0040).
STOPS = [2, 3, 6, 7, 18, 35, 39]


@pytest.mark.parametrize("version", STOPS)
def test_a_database_stopped_at_an_old_version_migrates_to_the_snapshot(
    admin_url: str, version: int
) -> None:
    with _fresh_database(admin_url, f"tt_schema_at_{version}") as (url, db):
        _apply_through(db, version=version, embedding_dim=384)
        _objects_of_the_unthinned_files(db, version=version)
        found = db.execute("SELECT to_regclass('v_record_durations') AS v").fetchone()["v"]
        assert found is not None
        applied = migrate(db, embedding_dim=384)
        assert applied[0] == next(m.name for m in list_migrations() if m.version > version)
        _assert_snapshot(url)


if __name__ == "__main__":
    from app.db.embedded import start_embedded

    pgdata = Path(tempfile.mkdtemp(prefix="tt-schema-")) / "pgdata"
    server = start_embedded(pgdata=pgdata, cleanup_mode="delete")
    try:
        with _fresh_database(server.get_uri(database="postgres"), "tt_schema") as (url, db):
            migrate(db, embedding_dim=384)
            SNAPSHOT.write_text(schema_dump(url), encoding="utf-8")
    finally:
        server.cleanup()
