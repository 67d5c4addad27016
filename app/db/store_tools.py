"""Query-time reads for the tools, and re-labelling."""

from __future__ import annotations

from collections.abc import Sequence

from pgvector import Vector

from app.db.base import Queries, fetch_all, lost_a_race, retrying
from app.db.named import Params, method
from app.db.queries import QUERIES
from app.errors import ConflictError, DatabaseBusyError
from app.store.digests import DigestRow
from app.store.tools import (
    CoveringDigest,
    DeviceDay,
    DigestRead,
    Relabelled,
    SearchHit,
    SignalKind,
    ToolStore,
    UnbuiltDay,
)
from app.timeutil import period_days

# search_episodes (measured with bench/tools.py, one tenant and --tenants 30):
# the HNSW candidate list, enough for recall@10 >= 0.95 under a user filter;
HNSW_EF_SEARCH = 100
# up to this many embedded episodes in range, an exact scan of them instead;
EXACT_BELOW = 1_000
# the newest keyword matches that are ranked.
LEXICAL_CAP = 100


class PostgresToolStore(Queries):
    """What the query-time tools read, and re-labelling (mixed into PostgresStore)."""

    def _covering_digests(self, params: Params) -> list[CoveringDigest]:
        # One connection for the reads: a round trip fewer each, on the cheapest tool.
        with self.pool.connection() as conn:
            settled = conn.execute(QUERIES["period_settled"], params).fetchone()
            unbuilt = (
                []
                if settled and settled["settled"]
                else [r["day"] for r in conn.execute(QUERIES["unbuilt_days"], params)]
            )
            return fetch_all(
                conn, CoveringDigest, QUERIES["covering_digests"], {**params, "unbuilt": unbuilt}
            )

    covering_digests = method(
        ToolStore.covering_digests,
        _covering_digests,
        derive=lambda params: _period_arrays(params["periods"]),
    )

    def _digest_read(self, params: Params) -> DigestRead:
        # One connection for get_digest's reads; a settled period (most of history) is
        # not planned over the months of `records` for its unbuilt days.
        with self.pool.connection() as conn:
            settled = conn.execute(QUERIES["period_settled"], params).fetchone()
            unbuilt = (
                []
                if settled and settled["settled"]
                else fetch_all(conn, UnbuiltDay, QUERIES["unbuilt_days"], params)
            )
            return DigestRead.model_construct(
                unbuilt=unbuilt,
                digests=fetch_all(conn, DigestRow, QUERIES["get_digests"], params),
                signal_kinds=fetch_all(conn, SignalKind, QUERIES["period_signal_kinds"], params),
            )

    digest_read = method(ToolStore.digest_read, _digest_read)

    def _search_episodes(self, params: Params) -> list[SearchHit]:
        with self.pool.connection() as conn, conn.transaction():
            # A query returns at most ef_search rows, and a filtered one fewer unless the
            # scan goes on (pgvector >= 0.8): the user filter keeps about 1 in N tenants.
            ef_search = max(HNSW_EF_SEARCH, int(params["candidates"]))
            conn.execute(f"SET LOCAL hnsw.ef_search = {ef_search}")
            conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            return fetch_all(conn, SearchHit, QUERIES["search_episodes"], params)

    search_episodes = method(
        ToolStore.search_episodes,
        _search_episodes,
        adapt={"embedding": Vector},
        derive=lambda params: {
            "tsquery": tsquery(params["terms"]),
            "exact_below": EXACT_BELOW,
            "lexical_cap": LEXICAL_CAP,
        },
    )

    def _relabel(self, params: Params) -> Relabelled | None:
        kind, target_id = params["target_kind"], params["target_id"]
        user = {"user_id": params["user_id"]}
        if kind == "record":
            query, key = QUERIES["relabel_record"], "record_id"
        else:
            query, key = QUERIES["relabel_episode"], "episode_id"

        def label() -> Relabelled | None:
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(QUERIES["lock_records"], user)
                hit = conn.execute(query, {**params, key: target_id}).fetchall()
                if not hit:
                    gone = conn.execute(QUERIES["label_target_gone"], params).fetchone()
                    if gone and gone["gone"]:
                        raise ConflictError(
                            f"{kind} {target_id} is not live: deleted, rebuilt "
                            "under a new id, or never yours; look it up again"
                        )
                    return None
                # The records' days are rebuilt: marked, their episodes stale meanwhile.
                marks = sorted({(r["device_id"], r["day_local"]) for r in hit})
                label = conn.execute(
                    QUERIES["insert_label"],
                    {
                        **params,
                        "old_value": hit[0]["old_category"],
                        "new_value": params["category"],
                    },
                ).fetchone()
                assert label is not None
                conn.execute(QUERIES["label_touched"], {**user, "label_id": label["label_id"]})
                conn.execute(
                    QUERIES["mark_device_days"],
                    {
                        **user,
                        "devices": [d for d, _ in marks],
                        "days": [day for _, day in marks],
                        "first_ts": [None] * len(marks),
                        "first_gone": [None] * len(marks),
                    },
                )
            return Relabelled(
                label_id=label["label_id"],
                device_days=[DeviceDay(device_id=d, day_local=day) for d, day in marks],
            )

        try:
            return retrying(label)
        except DatabaseBusyError as exc:
            if lost_a_race(exc):  # to a concurrent change, every time
                raise ConflictError(
                    f"{kind} {target_id} changed while it was re-labelled: try again"
                ) from exc
            raise

    relabel = method(ToolStore.relabel, _relabel)


def _period_arrays(periods: Sequence[tuple[str, str]]) -> Params:
    """(grain, key) pairs as the columns covering_digests unnests, with their days."""
    days = [period_days(grain, key) for grain, key in periods]
    return {
        "grains": [grain for grain, _ in periods],
        "keys": [key for _, key in periods],
        "firsts": [first for first, _ in days],
        "lasts": [last for _, last in days],
    }


def _quote(token: str) -> str:
    # Tokens hold only letters and digits (and '.' for domains): quoting makes them literal.
    return "'" + token.replace("'", "''") + "'"


def tsquery(terms: Sequence[Sequence[str]]) -> str | None:
    """A `to_tsquery('simple', …)` expression: all tokens of a term, any of the terms."""
    groups = [" & ".join(_quote(t) for t in term) for term in terms if term]
    return " | ".join(f"({g})" if " & " in g else g for g in groups) or None
