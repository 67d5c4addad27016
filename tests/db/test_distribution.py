"""Ready to distribute by tenant (Citus): the migrated schema and every named query keep
the rules of app/db/distribution.py, and each rule catches a violation of it."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from app.db.distribution import (
    CLASSES,
    Classes,
    foreign_key_problems,
    global_queries,
    key_problems,
    named_query_problems,
    query_problems,
    routine_problems,
    schema_problems,
    table_problems,
    unfiltered_tables,
)
from app.db.queries import load_queries


def _with(**extra: frozenset[str]) -> Classes:
    """The real classes, with more tables in some of them."""
    return dataclasses.replace(CLASSES, **{k: getattr(CLASSES, k) | v for k, v in extra.items()})


def test_the_migrated_schema_fits_a_database_distributed_by_user(conn: Any) -> None:
    assert schema_problems(conn) == []


def test_every_named_query_filters_on_the_user_or_says_why_not() -> None:
    queries = load_queries()
    assert named_query_problems(queries) == []
    # The sweeps are the global ones, each with its reason.
    marked = global_queries(queries)
    assert {"rollups_due", "periods_due", "pending_summaries"} <= set(marked)
    assert all(reason for reason in marked.values())


def test_every_table_of_the_schema_is_in_one_class(conn: Any) -> None:
    roots = {
        r["relname"]
        for r in conn.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')"
            " AND NOT c.relispartition"
        )
    }
    assert {"records", "episodes", "users", "procrastinate_jobs"} <= roots
    assert all(CLASSES.of(t) is not None for t in roots), roots
    assert not CLASSES.tenant & CLASSES.reference
    assert not (CLASSES.tenant | CLASSES.reference) & CLASSES.local


# --- each rule catches what it is for --------------------------------------------------


def test_an_unclassified_table_fails(conn: Any) -> None:
    conn.execute("CREATE TABLE stray (x int)")
    assert table_problems(conn) == ["table stray: not classified (tenant, reference or local)"]


def test_a_tenant_table_without_a_user_id_fails(conn: Any) -> None:
    conn.execute("CREATE TABLE notes (user_id int, body text)")
    problems = table_problems(conn, classes=_with(tenant=frozenset({"notes"})))
    assert problems == ["table notes: a tenant table needs user_id bigint NOT NULL"]


def test_a_unique_key_without_user_id_fails_on_a_tenant_table(conn: Any) -> None:
    conn.execute(
        "CREATE TABLE notes (user_id bigint NOT NULL, note_id bigint PRIMARY KEY, key text,"
        " UNIQUE (user_id, key))"
    )
    conn.execute("CREATE UNIQUE INDEX notes_key ON notes (key) WHERE key <> ''")
    problems = key_problems(conn, classes=_with(tenant=frozenset({"notes"})))
    assert problems == [
        "index notes_key on notes: a unique key of a tenant table must include user_id (key)",
        "index notes_pkey on notes: a unique key of a tenant table must include user_id (note_id)",
    ]
    # On a reference table the same keys are fine.
    assert key_problems(conn, classes=_with(reference=frozenset({"notes"}))) == []


def test_partitions_take_the_class_of_their_root(conn: Any) -> None:
    conn.execute(
        "CREATE TABLE marks (user_id bigint NOT NULL, mark_id bigint NOT NULL,"
        " ts timestamptz NOT NULL, PRIMARY KEY (user_id, mark_id, ts)) PARTITION BY RANGE (ts)"
    )
    conn.execute(
        "CREATE TABLE marks_2026_01 PARTITION OF marks"
        " FOR VALUES FROM ('2026-01-01') TO ('2026-02-01')"
    )
    classes = _with(tenant=frozenset({"marks"}))
    assert table_problems(conn, classes=classes) == []
    assert key_problems(conn, classes=classes) == []
    # A unique key on one partition alone is checked as the root's.
    conn.execute("CREATE UNIQUE INDEX marks_2026_01_id ON marks_2026_01 (mark_id)")
    assert key_problems(conn, classes=classes) == [
        "index marks_2026_01_id on marks_2026_01: a unique key of a tenant table must "
        "include user_id (mark_id)"
    ]
    # Unclassified, the partition is reported as what it is.
    assert "table marks_2026_01: not classified (tenant, reference or local)" in table_problems(
        conn
    )


def test_a_foreign_key_between_tenant_tables_must_carry_user_id(conn: Any) -> None:
    conn.execute("CREATE TABLE notes (user_id bigint NOT NULL, note_id bigint UNIQUE)")
    conn.execute(
        "CREATE TABLE note_tags (user_id bigint NOT NULL,"
        " note_id bigint REFERENCES notes (note_id))"
    )
    classes = _with(tenant=frozenset({"notes", "note_tags"}))
    assert foreign_key_problems(conn, classes=classes) == [
        "foreign key note_tags_note_id_fkey (note_tags → notes): must include user_id on "
        "both sides, in one position"
    ]
    # user_id on both sides but not in the same position is no co-located key either.
    conn.execute("ALTER TABLE notes ADD UNIQUE (user_id, note_id)")
    conn.execute(
        "CREATE TABLE note_links (user_id bigint NOT NULL, note_id bigint,"
        " FOREIGN KEY (note_id, user_id) REFERENCES notes (user_id, note_id))"
    )
    assert "note_links" in " ".join(
        foreign_key_problems(conn, classes=_with(tenant=frozenset({"notes", "note_links"})))
    )


def test_a_foreign_key_into_a_tenant_or_local_table_from_outside_fails(conn: Any) -> None:
    # A reference table pointing at a tenant table, a local one at a reference table.
    conn.execute(
        "CREATE TABLE shared_tags (user_id bigint NOT NULL, device_id text NOT NULL,"
        " FOREIGN KEY (user_id, device_id) REFERENCES devices)"
    )
    conn.execute("CREATE TABLE queue_notes (user_id bigint REFERENCES users)")
    classes = _with(reference=frozenset({"shared_tags"}), local=frozenset({"queue_notes"}))
    assert foreign_key_problems(conn, classes=classes) == [
        "foreign key queue_notes_user_id_fkey (queue_notes → users): a local table cannot "
        "point at a reference table",
        "foreign key shared_tags_user_id_device_id_fkey (shared_tags → devices): a "
        "reference table cannot point at a tenant table",
    ]


def test_a_trigger_or_view_tying_the_queue_to_tenant_tables_fails(conn: Any) -> None:
    conn.execute(
        "CREATE FUNCTION queue_on_episode() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
        " INSERT INTO procrastinate_jobs (queue_name, task_name, args)"
        " VALUES ('pyramid', 'x', '{}'); RETURN NEW; END $$"
    )
    conn.execute(
        "CREATE TRIGGER queue_on_episode AFTER INSERT ON episodes"
        " FOR EACH ROW EXECUTE FUNCTION queue_on_episode()"
    )
    conn.execute(
        "CREATE VIEW jobs_and_episodes AS SELECT j.id, e.episode_id FROM procrastinate_jobs j"
        " JOIN episodes e ON e.user_id = (j.args->>'user_id')::bigint"
    )
    assert routine_problems(conn) == [
        "function queue_on_episode: reads coordinator-local and tenant tables",
        "view or rule jobs_and_episodes: reads coordinator-local and tenant tables",
    ]


def test_a_function_over_tenant_tables_must_take_the_user_and_filter_on_it(conn: Any) -> None:
    conn.execute(
        "CREATE FUNCTION episodes_of_device(p_device text) RETURNS bigint LANGUAGE sql STABLE"
        " AS $$ SELECT count(*) FROM episodes WHERE device_id = p_device $$"
    )
    conn.execute(
        "CREATE FUNCTION episodes_of(p_user bigint, p_device text) RETURNS bigint LANGUAGE sql"
        " STABLE AS $$ SELECT count(*) FROM episodes"
        " WHERE user_id = p_user AND device_id = p_device $$"
    )
    assert routine_problems(conn) == [
        "function episodes_of_device: reads episodes without taking the user and filtering on it"
    ]


# --- the query rule, on SQL text ------------------------------------------------------

FILTERED = [
    "SELECT * FROM episodes WHERE user_id = %(user_id)s",
    "SELECT * FROM episodes e WHERE e.user_id = ANY(%(user_ids)s) AND NOT e.stale",
    # joined on user_id to a table that is filtered
    "SELECT * FROM records r JOIN record_analyses a ON a.user_id = r.user_id"
    " AND a.record_id = r.record_id WHERE r.user_id = %(user_id)s",
    # correlated: the inner table joins the outer one on user_id
    "UPDATE labels l SET touched = (SELECT min(r.ts_start) FROM records r"
    " WHERE r.user_id = l.user_id) WHERE l.user_id = %(user_id)s",
    # a subquery's rows carry the user: its own table is filtered
    "SELECT * FROM (SELECT * FROM records WHERE user_id = %(user_id)s LIMIT 5) r"
    " LEFT JOIN record_analyses a ON a.user_id = r.user_id",
    # an insert routed by the user it names
    "INSERT INTO labels (user_id, target_kind) VALUES (%(user_id)s, 'record')",
    "ANALYZE records; -- no\n-- global: maintenance of the whole table",
    "SELECT * FROM public.records r WHERE r.user_id = %(user_id)s",
]

UNFILTERED = [
    ("SELECT * FROM episodes WHERE stale", ["episodes"]),
    # the filter is on another table than the tenant one read
    (
        "SELECT * FROM users u JOIN devices d ON d.user_id = u.user_id WHERE u.name = %(n)s",
        ["devices d"],
    ),
    # one branch of a UNION filters, the other does not
    (
        "SELECT day_local FROM records WHERE user_id = %(user_id)s"
        " UNION SELECT day_local FROM episodes WHERE stale",
        ["episodes"],
    ),
    # a filter in one subquery does not cover the same alias in another
    (
        "WITH a AS (SELECT * FROM records r WHERE r.user_id = %(user_id)s),"
        " b AS (SELECT * FROM records r WHERE r.deleted_at IS NULL) SELECT 1",
        ["records r"],
    ),
    # a comparison that is not equality
    ("SELECT * FROM episodes WHERE user_id > %(user_id)s", ["episodes"]),
    # comma joins count as reads
    ("SELECT * FROM records r, episodes e WHERE r.user_id = %(user_id)s", ["episodes e"]),
    # a comment or a string is not a filter
    (
        "SELECT * FROM episodes -- WHERE user_id = %(user_id)s\n WHERE title = 'user_id = 1'",
        ["episodes"],
    ),
    ("ANALYZE records", ["records"]),
    ("INSERT INTO labels (target_kind) VALUES ('record')", ["labels"]),
    # a schema-qualified name is the table it names
    ("SELECT * FROM public.records r JOIN Public . episodes e USING (episode_id)",
     ["episodes e", "records r"]),
]  # fmt: skip


@pytest.mark.parametrize("sql", FILTERED)
def test_a_query_filtered_on_the_user_passes(sql: str) -> None:
    assert query_problems("q", sql) == []


@pytest.mark.parametrize(("sql", "tables"), UNFILTERED)
def test_a_query_not_filtered_on_the_user_fails(sql: str, tables: list[str]) -> None:
    assert unfiltered_tables(sql) == tables
    problems = query_problems("q", sql)
    assert [p.split(" is not")[0] for p in problems] == [f"query q: {t}" for t in tables]
    # unless it says why it reads across users
    assert query_problems("q", f"-- global: the sweep\n{sql}") == []


def test_a_query_joining_the_queue_and_tenant_tables_fails_even_when_global() -> None:
    sql = (
        "-- global: the sweep\nSELECT * FROM procrastinate_jobs j"
        " JOIN episodes e ON e.user_id = (j.args->>'user_id')::bigint"
    )
    assert query_problems("q", sql) == ["query q: joins coordinator-local and tenant tables"]


def test_a_function_argument_is_a_parameter_only_where_it_is_named() -> None:
    sql = "SELECT 1 FROM records WHERE user_id = p_user"
    assert unfiltered_tables(sql, params=["p_user"]) == []
    assert unfiltered_tables(sql) == ["records"]
