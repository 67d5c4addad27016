"""`timetrace compact`: rewrite the tables that hold captured text.

A deletion erases text at once from every row that serves it, but PostgreSQL keeps the
old row versions in the table files until they are rewritten. This rewrites each table
(and its indexes and TOAST) with `VACUUM (FULL, ANALYZE)`, then the column statistics
(old ones may quote erased values) and a checkpoint, after which the old files are
gone. Each table is locked while it is copied: run it when the worker and the API are
quiet. What it cannot reach: WAL segments (recycled as the server writes on) and
backups or replicas taken before.

    with connect(url, settings=settings, autocommit=True) as conn:
        report = compact_tables(conn)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from psycopg import sql
from psycopg.errors import InsufficientPrivilege

from app.db.connection import Connection

TEXT_TABLES = ("records", "record_analyses", "episodes", "digests", "signals", "labels")


@dataclass(slots=True)
class CompactReport:
    done: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # what the role may not do


def compact_tables(conn: Connection) -> CompactReport:
    report = CompactReport()
    conn.autocommit = True  # VACUUM cannot run inside a transaction
    row = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()
    superuser = bool(row and row["rolsuper"])
    if superuser:
        # ANALYZE keeps the old statistics of a table it finds empty: drop them first,
        # a partitioned table's (records, by month) with its partitions'.
        conn.execute(
            "DELETE FROM pg_statistic WHERE starelid = ANY(%(t)s::regclass[]) OR starelid IN ("
            " SELECT p.relid FROM unnest(%(t)s::regclass[]) AS t, pg_partition_tree(t) AS p)",
            {"t": list(TEXT_TABLES)},
        )
    for table in TEXT_TABLES:
        conn.execute(sql.SQL("VACUUM (FULL, ANALYZE) {}").format(sql.Identifier(table)))
        report.done.append(table)
    if superuser:
        conn.execute("VACUUM FULL pg_statistic")
        report.done.append("pg_statistic")
    else:
        report.skipped.append("pg_statistic (old column statistics): needs a superuser")
    try:
        conn.execute("CHECKPOINT")  # the old table files are removed at the next checkpoint
        report.done.append("checkpoint")
    except InsufficientPrivilege:
        report.skipped.append("CHECKPOINT (the old files go at the next one): needs pg_checkpoint")
    return report
