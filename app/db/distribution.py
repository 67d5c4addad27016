"""Ready to distribute by tenant: the schema and every named query against the rules a
PostgreSQL sharded by `user_id` (Citus) imposes, checked on plain PostgreSQL.

Every table is in one class (`CLASSES`): **tenant** tables are distributed by
`user_id` and co-located; **reference** tables are copied to every node; the
**coordinator-local** ones stay where the job queue runs. A partition takes the class
of the table at the root of its tree (`records_2026_01` is `records`). The rules:

- every table is classified;
- a tenant table has `user_id bigint NOT NULL`, and each of its primary keys, unique
  constraints and unique indexes includes `user_id`;
- a foreign key between tenant tables includes `user_id` on both sides, at the same
  position; a tenant table may point at a reference table; nothing points at a tenant
  table from outside its class, nor at a local table from outside its class;
- nothing (trigger, function, view, rule, named query) reads a tenant table and a
  coordinator-local one together: procrastinate's tables stay on the coordinator;
- every named query on a tenant table filters each tenant table it reads on
  `user_id = <parameter>` (or `= ANY(<parameter>)`), or joins it on `user_id` to one
  that does; or the query says why it reads across users with a `-- global: <reason>`
  line;
- an SQL function over tenant tables takes the user and filters on it (the same rule,
  with its arguments as the parameters).

    problems = schema_problems(conn) + named_query_problems(load_queries())

The query rule is read from the SQL text (comments and strings left out), scope by
scope: a subquery is its own scope, a branch of a UNION its own segment, and an
unqualified `user_id` belongs to the tables of its segment. It is not a parser; it
is strict where it cannot tell (an expression is never `user_id`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, LiteralString

from app.db.connection import Connection
from app.db.queries import QUERIES

Kind = Literal["tenant", "reference", "local"]


@dataclass(frozen=True, slots=True)
class Classes:
    """Each table's class, by name; tables named with a local prefix are local."""

    tenant: frozenset[str]
    reference: frozenset[str]
    local: frozenset[str]
    local_prefixes: tuple[str, ...] = ()

    def of(self, table: str) -> Kind | None:
        if table in self.tenant:
            return "tenant"
        if table in self.reference:
            return "reference"
        if table in self.local or table.startswith(self.local_prefixes):
            return "local"
        return None


CLASSES = Classes(
    # Distributed by user_id, co-located: a user's rows live on one node.
    tenant=frozenset(
        {
            "devices",
            "aw_buckets",
            "aw_events",
            "aw_settings",
            "aw_converted",
            "aw_edits",
            "records",  # and its monthly partitions
            "record_analyses",
            "episodes",
            "episode_redirects",
            "build_marks",
            "digests",
            "signals",
            "labels",
            "imports",
            "conversations",
            "conversation_turns",
            "user_rules",
            "user_categories",
            "retention",
        }
    ),
    # Small, read on every request (sign-in) or by every node: copied everywhere.
    reference=frozenset({"users", "api_tokens", "web_sessions", "schema_meta"}),
    # The job queue and what only the coordinator's migrations and workers read.
    local=frozenset({"job_turns", "job_stops", "schema_version"}),
    local_prefixes=("procrastinate_",),
)

GLOBAL_MARK = re.compile(r"^\s*-- global: \S", re.MULTILINE)


# --- the SQL text, read as scopes ---------------------------------------------------

# One pass, so that a quote inside a comment opens no string and "--" inside a string
# opens no comment.
_COMMENT_OR_STRING = re.compile(r"--[^\n]*|'(?:[^']|'')*'")
_IDENT = r"[a-z_][a-z0-9_]*"
_PUBLIC = re.compile(r"\bpublic\s*\.\s*(?=[a-z_])")
_REF = re.compile(
    rf"\b(from|join|update|into|table|using|analyze|truncate)\s+(?:\(\s*)*(?:only\s+)?({_IDENT})\b(?!\s*[.(])"
    rf"(?:\s+(?:as\s+)?({_IDENT})\b(?!\s*[.(]))?"
)
_TEMP_TABLE = re.compile(r"\bcreate\s+temp(?:orary)?\s+$")
_COMMA_REF = re.compile(rf",\s*({_IDENT})\b(?!\s*[.(])(?:\s+(?:as\s+)?({_IDENT})\b(?!\s*[.(]))?")
_INSERT = re.compile(rf"\binsert\s+into\s+({_IDENT})\s*(?:as\s+{_IDENT}\s*)?\(([^)]*)\)")
_OPERAND = r"%\(\w+\)s|\$\d+|[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)?"
_EQUALITY = re.compile(rf"({_OPERAND})(?:::\w+)?\s*=\s*(?:any\s*\(\s*)?({_OPERAND})")
_USING_USER = re.compile(r"\busing\s*\(\s*user_id\b")
_SET_OP = re.compile(r"\b(union|intersect|except)\b")
# A group that selects, or joins selects, is a scope of its own.
_SCOPE_WORD = re.compile(r"\b(select|from|union|intersect|except)\b")
_NOT_ALIAS = frozenset(
    [
        "where",
        "join",
        "on",
        "left",
        "right",
        "inner",
        "outer",
        "full",
        "cross",
        "natural",
        "set",
        "using",
        "group",
        "order",
        "limit",
        "union",
        "intersect",
        "except",
        "returning",
        "values",
        "select",
        "window",
        "having",
        "lateral",
        "for",
        "offset",
        "fetch",
        "default",
        "and",
        "or",
        "when",
        "then",
        "else",
        "end",
        "do",
        "tablesample",
        "with",
        "as",
    ]
)


def _clean(sql: str) -> str:
    """The SQL without comments and string literals, in lower case, with `public.`
    dropped from qualified names (`public.records` is `records`, read as any other)."""
    bare = _COMMENT_OR_STRING.sub(lambda m: " " if m.group().startswith("-") else "''", sql)
    return _PUBLIC.sub("", bare.lower())


@dataclass(slots=True)
class _Text:
    """Where each character sits: the scope (a subquery, or the whole statement) and
    the segment of it (a branch of a UNION)."""

    text: str
    group: list[int] = field(default_factory=list)  # innermost parenthesis group per char
    parent: dict[int, int] = field(default_factory=dict)
    opened_at: dict[int, int] = field(default_factory=dict)
    scopes: set[int] = field(default_factory=set)

    @classmethod
    def read(cls, text: str) -> _Text:
        self = cls(text)
        stack, next_id = [0], 1
        own: dict[int, list[str]] = {0: []}
        for i, ch in enumerate(text):
            if ch == "(":  # the parenthesis itself belongs to the enclosing group
                self.group.append(stack[-1])
                self.parent[next_id] = stack[-1]
                self.opened_at[next_id] = i
                own[next_id] = []
                stack.append(next_id)
                next_id += 1
                continue
            self.group.append(stack[-1])
            own[stack[-1]].append(ch)
            if ch == ")" and len(stack) > 1:
                stack.pop()
        self.scopes = {
            g for g, chars in own.items() if g == 0 or _SCOPE_WORD.search("".join(chars))
        }
        return self

    def scope(self, pos: int) -> int:
        g = self.group[pos]
        while g not in self.scopes:
            g = self.parent[g]
        return g

    def segment(self, pos: int) -> tuple[int, int]:
        """(scope, how many set operations of that scope come before pos)."""
        scope = self.scope(pos)
        start = self.opened_at.get(scope, 0)
        n = sum(
            1 for m in _SET_OP.finditer(self.text, start, pos) if self.scope(m.start()) == scope
        )
        return scope, n

    def outer_segments(self, pos: int) -> list[tuple[int, int]]:
        """The segment of pos, then each enclosing one, out to the statement."""
        found = [self.segment(pos)]
        scope = found[0][0]
        while scope != 0:
            at = self.opened_at[scope]
            found.append(self.segment(at))
            scope = found[-1][0]
        return found


@dataclass(frozen=True, slots=True)
class _Ref:
    table: str
    alias: str
    segment: tuple[int, int]
    routed: bool = False  # an INSERT that names user_id: it goes where its value says


def table_refs(sql: str, classes: Classes = CLASSES) -> list[tuple[str, str]]:
    """(table, alias) of every classified table the SQL reads or writes."""
    text = _clean(sql)
    return [(r.table, r.alias) for r in _refs(_Text.read(text), classes)]


def _refs(t: _Text, classes: Classes) -> list[_Ref]:
    refs: list[_Ref] = []
    for m in _REF.finditer(t.text):
        if m.group(2) in _NOT_ALIAS:  # FROM (SELECT …)
            continue
        if m.group(1) == "table" and _TEMP_TABLE.search(t.text, 0, m.start()):
            continue  # CREATE TEMP TABLE x AS …: a session's own table, read from nothing
        alias = m.group(3) if m.group(3) and m.group(3) not in _NOT_ALIAS else m.group(2)
        refs.append(_Ref(m.group(2), alias, t.segment(m.start(2))))
    for m in _COMMA_REF.finditer(t.text):
        if classes.of(m.group(1)) is not None:  # a comma also separates select items
            alias = m.group(2) if m.group(2) and m.group(2) not in _NOT_ALIAS else m.group(1)
            refs.append(_Ref(m.group(1), alias, t.segment(m.start(1))))
    for m in _INSERT.finditer(t.text):
        columns = [c.strip() for c in m.group(2).split(",")]
        refs.append(_Ref(m.group(1), m.group(1), t.segment(m.start(1)), "user_id" in columns))
    return refs


def unfiltered_tables(
    sql: str, *, params: Iterable[str] = (), classes: Classes = CLASSES
) -> list[str]:
    """The tenant tables of a statement that are neither filtered on user_id by a
    parameter (`%(x)s`, `$n`, or one of `params`, a function's arguments) nor joined on
    user_id to one that is (or to a CTE or subquery: its own tables are checked)."""
    t = _Text.read(_clean(sql))
    refs = _refs(t, classes)
    named = {p.lower() for p in params}

    def is_param(operand: str) -> bool:
        return operand.startswith(("%(", "$")) or operand in named

    def column(operand: str) -> str | None:
        """'' for a bare user_id, the alias for alias.user_id, None for anything else."""
        if operand == "user_id":
            return ""
        head, _, tail = operand.partition(".")
        return head if tail == "user_id" else None

    def resolve(alias: str, pos: int) -> list[int] | None:
        """The refs a column qualifier (or '' for a bare column) names from pos; None
        when it names no table here (a CTE, a subquery, a function's row)."""
        for seg in t.outer_segments(pos):
            hit = [
                i
                for i, r in enumerate(refs)
                if r.segment == seg and (alias == "" or r.alias == alias)
            ]
            if hit:
                return hit
            if alias == "":
                return []
        return None

    anchored: set[int] = set()
    edges: list[tuple[list[int] | None, list[int] | None]] = []
    for m in _EQUALITY.finditer(t.text):
        left, right = m.group(1), m.group(2)
        for a, b in ((left, right), (right, left)):
            col = column(a)
            if col is None:
                continue
            mine = resolve(col, m.start())
            if is_param(b):
                anchored.update(mine or [])
            elif (other := column(b)) is not None:
                edges.append((mine, resolve(other, m.start())))
    for m in _USING_USER.finditer(t.text):
        seg = t.segment(m.start())
        in_seg = [i for i, r in enumerate(refs) if r.segment == seg]
        edges.append((in_seg[-1:], in_seg[:-1]))
    anchored.update(i for i, r in enumerate(refs) if r.routed)

    def is_anchor(side: list[int] | None) -> bool:
        # A CTE or subquery is read from tables checked in their own right; a table of
        # another class is an anchor only when it is filtered itself.
        if side is None:
            return True
        return any(
            i in anchored or (classes.of(refs[i].table) is None and refs[i].table != "")
            for i in side
        )

    changed = True
    while changed:
        changed = False
        for one, two in edges:
            for ends, far in ((one, two), (two, one)):
                if ends and is_anchor(far) and not set(ends) <= anchored:
                    anchored.update(ends)
                    changed = True
    return sorted(
        {
            r.table if r.alias == r.table else f"{r.table} {r.alias}"
            for i, r in enumerate(refs)
            if classes.of(r.table) == "tenant" and i not in anchored
        }
    )


def _kinds(sql: str, classes: Classes) -> set[Kind]:
    return {k for table, _ in table_refs(sql, classes) if (k := classes.of(table))}


# --- the rules --------------------------------------------------------------------


def query_problems(name: str, sql: str, *, classes: Classes = CLASSES) -> list[str]:
    """What keeps one named query from going to one tenant's node."""
    problems = []
    if {"tenant", "local"} <= _kinds(sql, classes):
        problems.append(f"query {name}: joins coordinator-local and tenant tables")
    if not GLOBAL_MARK.search(sql):
        for table in unfiltered_tables(sql, classes=classes):
            problems.append(
                f"query {name}: {table} is not filtered on user_id "
                "(filter it, join it on user_id, or say why with '-- global: <reason>')"
            )
    return problems


def named_query_problems(queries: Mapping[str, str], *, classes: Classes = CLASSES) -> list[str]:
    return [
        p
        for name, sql in sorted(queries.items())
        for p in query_problems(name, sql, classes=classes)
    ]


def global_queries(queries: Mapping[str, str]) -> dict[str, str]:
    """Each named query marked global, with its reason."""
    found = {}
    for name, sql in queries.items():
        if m := re.search(r"^\s*-- global: (.+)$", sql, re.MULTILINE):
            found[name] = m.group(1).strip()
    return found


def _rows(conn: Connection, query: LiteralString) -> list[dict[str, Any]]:
    return list(conn.execute(query).fetchall())


def table_problems(conn: Connection, *, classes: Classes = CLASSES) -> list[str]:
    problems = []
    for t in _rows(conn, QUERIES["catalog_tables"]):
        kind = classes.of(t["root_name"])
        name = t["table_name"]
        if kind is None:
            problems.append(f"table {name}: not classified (tenant, reference or local)")
        elif kind == "tenant" and not (
            t["has_user_id"] and t["user_id_not_null"] and t["user_id_type"] == "bigint"
        ):
            problems.append(f"table {name}: a tenant table needs user_id bigint NOT NULL")
    return problems


def key_problems(conn: Connection, *, classes: Classes = CLASSES) -> list[str]:
    return [
        f"index {k['index_name']} on {k['table_name']}: a unique key of a tenant table "
        f"must include user_id ({', '.join(k['columns'])})"
        for k in _rows(conn, QUERIES["catalog_unique_keys"])
        if classes.of(k["root_name"]) == "tenant" and "user_id" not in k["columns"]
    ]


def foreign_key_problems(conn: Connection, *, classes: Classes = CLASSES) -> list[str]:
    problems = []
    for fk in _rows(conn, QUERIES["catalog_foreign_keys"]):
        src, dst = classes.of(fk["root_name"]), classes.of(fk["ref_root_name"])
        what = f"foreign key {fk['constraint_name']} ({fk['table_name']} → {fk['ref_root_name']})"
        if src == "tenant" and dst == "tenant":
            cols, refs = fk["columns"], fk["ref_columns"]
            if (
                "user_id" not in cols
                or "user_id" not in refs
                or (cols.index("user_id") != refs.index("user_id"))
            ):
                problems.append(f"{what}: must include user_id on both sides, in one position")
        elif dst == "tenant" or (dst == "local") != (src == "local"):
            problems.append(f"{what}: a {src} table cannot point at a {dst} table")
    return problems


def routine_problems(conn: Connection, *, classes: Classes = CLASSES) -> list[str]:
    """Functions and triggers: none mixes local and tenant tables; a function over
    tenant tables takes the user and filters on it."""
    problems = []
    for f in _rows(conn, QUERIES["catalog_routines"]):
        kinds = _kinds(f["body"], classes) | {
            k for t in f["trigger_tables"] if (k := classes.of(t)) is not None
        }
        if {"tenant", "local"} <= kinds:
            problems.append(f"function {f['name']}: reads coordinator-local and tenant tables")
        if f["is_trigger"]:
            continue
        left = unfiltered_tables(f["body"], params=f["arg_names"], classes=classes)
        if left:
            problems.append(
                f"function {f['name']}: reads {', '.join(left)} without taking the user "
                "and filtering on it"
            )
    for v in _rows(conn, QUERIES["catalog_views"]):
        if {"tenant", "local"} <= _kinds(v["definition"], classes):
            problems.append(f"view or rule {v['name']}: reads coordinator-local and tenant tables")
    return problems


def schema_problems(conn: Connection, *, classes: Classes = CLASSES) -> list[str]:
    """Every rule over the catalog of a migrated database."""
    return (
        table_problems(conn, classes=classes)
        + key_problems(conn, classes=classes)
        + foreign_key_problems(conn, classes=classes)
        + routine_problems(conn, classes=classes)
    )
