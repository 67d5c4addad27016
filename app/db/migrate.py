"""Schema migrations: `sql/migrations/NNNN_what.sql` applied in order, each in its
own transaction, recorded in `schema_version`; then procrastinate's schema.

Running it again is a no-op. A database whose schema is newer than the code is
refused, and so is an embedding dimension that differs from the one the schema
was built with (vectors of another size cannot be stored in its columns).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib.resources.abc import Traversable

import psycopg

from app.db.connection import Connection
from app.db.queries import MIGRATIONS_DIR
from app.errors import DatabaseError, SchemaTooNewError

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")
# Any constant: serialises concurrent `migrate` runs on one database.
_LOCK_ID = 0x7171_7E7E


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    path: Traversable


def list_migrations(directory: Traversable = MIGRATIONS_DIR) -> list[Migration]:
    migrations = []
    files = [path for path in directory.iterdir() if path.name.endswith(".sql")]
    for path in sorted(files, key=lambda path: path.name):
        match = _NAME.match(path.name)
        if not match:
            raise DatabaseError(f"migration file {path.name} is not named NNNN_what.sql")
        migrations.append(Migration(int(match.group(1)), path.name.removesuffix(".sql"), path))
    versions = [m.version for m in migrations]
    if len(set(versions)) != len(versions):
        raise DatabaseError("two migration files share a version number")
    return migrations


def render(migration: Migration, *, embedding_dim: int) -> str:
    text = migration.path.read_text(encoding="utf-8")
    return text.replace("@EMBEDDING_DIM@", str(int(embedding_dim)))


def migrate(conn: Connection, *, embedding_dim: int) -> list[str]:
    """Apply pending migrations; return the names applied (empty when up to date)."""
    migrations = list_migrations()
    conn.autocommit = True
    conn.execute("SELECT pg_advisory_lock(%s)", [_LOCK_ID])
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_version ("
            " version integer PRIMARY KEY, name text NOT NULL,"
            " applied_at timestamptz NOT NULL DEFAULT now())"
        )
        applied = {row["version"] for row in conn.execute("SELECT version FROM schema_version")}
        newest_known = max((m.version for m in migrations), default=0)
        if applied and max(applied) > newest_known:
            raise SchemaTooNewError(
                f"the database schema is at version {max(applied)}, newer than this "
                f"TimeTrace knows ({newest_known}); upgrade TimeTrace"
            )
        _check_embedding_dim(conn, embedding_dim=embedding_dim)
        done: list[str] = []
        for migration in migrations:
            if migration.version in applied:
                continue
            with conn.transaction():
                conn.execute(render(migration, embedding_dim=embedding_dim))
                conn.execute(
                    "INSERT INTO schema_version (version, name) VALUES (%s, %s)",
                    [migration.version, migration.name],
                )
            done.append(migration.name)
        if conn.execute("SELECT to_regclass('procrastinate_jobs') AS t").fetchone() == {"t": None}:
            from procrastinate.schema import SchemaManager  # only a first migration needs it

            with conn.transaction():
                conn.execute(SchemaManager.get_schema())
            done.append("procrastinate")
        return done
    except psycopg.errors.InsufficientPrivilege as exc:
        raise _privilege_error(conn, exc) from exc
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s)", [_LOCK_ID])


def _check_embedding_dim(conn: Connection, *, embedding_dim: int) -> None:
    if conn.execute("SELECT to_regclass('schema_meta') AS t").fetchone() == {"t": None}:
        return
    row = conn.execute("SELECT value FROM schema_meta WHERE key = 'embedding_dim'").fetchone()
    if row and int(row["value"]) != embedding_dim:
        raise DatabaseError(
            f"this database stores {row['value']}-dimensional embeddings but "
            f"TIMETRACE_EMBEDDING_DIM is {embedding_dim}; "
            "set it back or re-embed into a new database"
        )


def _privilege_error(conn: Connection, exc: psycopg.errors.InsufficientPrivilege) -> DatabaseError:
    """One line that says what to do. The usual case: the role owns the database but is
    not a superuser, and only a superuser may create the vector extension."""
    reason = exc.diag.message_primary or str(exc)
    database = conn.info.dbname
    if "extension" in reason:
        return DatabaseError(
            f"{reason} in database {database!r}: a superuser must run "
            f"`CREATE EXTENSION vector;` in it once (psql -U postgres -d {database} "
            "-c 'CREATE EXTENSION vector'), then run `timetrace migrate` again"
        )
    return DatabaseError(
        f"{reason}: TimeTrace's role must own database {database!r} (a superuser can run "
        f"`ALTER DATABASE {database} OWNER TO {conn.info.user};`)"
    )
