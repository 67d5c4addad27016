"""Query-time reads for the tools, and re-labelling."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

from pgvector import Vector
from psycopg.rows import class_row

from app.db.base import Queries, lost_a_race, retrying
from app.db.queries import QUERIES
from app.errors import ConflictError, DatabaseBusyError
from app.store import (
    DigestRow,
    EpisodeLine,
    ModelBacklog,
    Neighbor,
    OpenSitting,
    RecordLine,
    SearchHit,
    SignalRow,
    TailSeconds,
    UnbuiltDay,
    UncategorizedTime,
)


class PostgresToolStore(Queries):
    """What the query-time tools read, and re-labelling (mixed into PostgresStore)."""

    # -- tools (query time) ---------------------------------------------------------

    def get_digest(self, *, user_id: int, grain: str, scope_key: str) -> DigestRow | None:
        return self._one_as(
            DigestRow, "get_digest", {"user_id": user_id, "grain": grain, "scope_key": scope_key}
        )

    def list_signals(self, *, user_id: int, day_from: date, day_to: date) -> list[SignalRow]:
        return self._all_as(
            SignalRow, "list_signals", {"user_id": user_id, "day_from": day_from, "day_to": day_to}
        )

    def final_digests_overlapping(
        self, *, user_id: int, ts_from: datetime, ts_to: datetime
    ) -> list[DigestRow]:
        return self._all_as(
            DigestRow,
            "final_digests_overlapping",
            {"user_id": user_id, "ts_from": ts_from, "ts_to": ts_to},
        )

    def open_tail_metrics(
        self, *, user_id: int, day_from: date, day_to: date, ts_from: datetime, ts_to: datetime
    ) -> list[TailSeconds]:
        return self._all_as(
            TailSeconds,
            "open_tail_metrics",
            {
                "user_id": user_id,
                "day_from": day_from,
                "day_to": day_to,
                "ts_from": ts_from,
                "ts_to": ts_to,
            },
        )

    def device_overlap_seconds(
        self, *, user_id: int, ts_from: datetime, ts_to: datetime, read_from: datetime
    ) -> float:
        row = self._one(
            "device_overlap_seconds",
            {"user_id": user_id, "ts_from": ts_from, "ts_to": ts_to, "read_from": read_from},
        )
        return float(row["seconds"]) if row else 0.0

    def period_signal_counts(self, *, user_id: int, day_from: date, day_to: date) -> dict[str, int]:
        rows = self._all(
            "period_signal_counts", {"user_id": user_id, "day_from": day_from, "day_to": day_to}
        )
        return {r["kind"]: int(r["n"]) for r in rows}

    def unbuilt_days(self, *, user_id: int, day_from: date, day_to: date) -> list[UnbuiltDay]:
        return self._all_as(
            UnbuiltDay, "unbuilt_days", {"user_id": user_id, "day_from": day_from, "day_to": day_to}
        )

    def latest_records(self, *, user_id: int, now: datetime, limit: int) -> list[RecordLine]:
        return self._all_as(
            RecordLine, "latest_records", {"user_id": user_id, "now": now, "limit": limit}
        )

    def last_closed_episode(self, *, user_id: int, now: datetime) -> EpisodeLine | None:
        return self._one_as(EpisodeLine, "last_closed_episode", {"user_id": user_id, "now": now})

    def model_backlog(self, *, user_id: int) -> ModelBacklog:
        backlog = self._one_as(ModelBacklog, "model_backlog", {"user_id": user_id})
        assert backlog is not None  # an aggregate always yields its row
        return backlog

    def open_sitting(self, *, user_id: int, device_id: str, now: datetime) -> OpenSitting | None:
        row = self._one("open_sitting", {"user_id": user_id, "device_id": device_id, "now": now})
        if not row or not row["records"]:
            return None
        return OpenSitting(since=row["since"], records=row["records"], main_app=row["main_app"])

    def list_episodes(
        self,
        *,
        user_id: int,
        ts_from: datetime,
        ts_to: datetime,
        category: str | None,
        limit: int,
    ) -> list[EpisodeLine]:
        return self._all_as(
            EpisodeLine,
            "list_episodes",
            {
                "user_id": user_id,
                "ts_from": ts_from,
                "ts_to": ts_to,
                "category": category,
                "limit": limit,
            },
        )

    def search_episodes(
        self,
        *,
        user_id: int,
        terms: Sequence[Sequence[str]],
        embedding: list[float] | None,
        day_from: date | None,
        day_to: date | None,
        category: str | None,
        k: int,
        candidates: int,
    ) -> list[SearchHit]:
        params = {
            "user_id": user_id,
            "tsquery": tsquery(terms),
            "embedding": Vector(embedding) if embedding is not None else None,
            "day_from": day_from,
            "day_to": day_to,
            "category": category,
            "k": k,
            "candidates": candidates,
        }
        with self.pool.connection() as conn, conn.transaction():
            # A query returns at most ef_search rows: raise it to the candidate count, and
            # let filtered scans keep going (pgvector >= 0.8).
            conn.execute(f"SET LOCAL hnsw.ef_search = {max(40, int(candidates))}")
            conn.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
            with conn.cursor(row_factory=class_row(SearchHit)) as cur:
                return cur.execute(QUERIES["search_episodes"], params).fetchall()

    def uncategorized_time(
        self,
        *,
        user_id: int,
        day_from: date,
        day_to: date,
        ts_from: datetime,
        ts_to: datetime,
        browsers: Sequence[str],
        limit: int,
    ) -> list[UncategorizedTime]:
        return self._all_as(
            UncategorizedTime,
            "uncategorized_time",
            {
                "user_id": user_id,
                "day_from": day_from,
                "day_to": day_to,
                "ts_from": ts_from,
                "ts_to": ts_to,
                "browsers": list(browsers),
                "limit": limit,
            },
        )

    def episode_neighbors(self, *, user_id: int, ids: list[int]) -> list[Neighbor]:
        return self._all_as(Neighbor, "episode_neighbors", {"user_id": user_id, "ids": ids})

    def raw_records(
        self,
        *,
        user_id: int,
        ts_from: datetime,
        ts_to: datetime,
        device_id: str | None,
        limit: int,
    ) -> list[RecordLine]:
        return self._all_as(
            RecordLine,
            "raw_records",
            {
                "user_id": user_id,
                "ts_from": ts_from,
                "ts_to": ts_to,
                "device_id": device_id,
                "limit": limit,
            },
        )

    def relabel(
        self,
        *,
        user_id: int,
        target_kind: str,
        target_id: int,
        category: str,
        actor: str,
        note: str,
    ) -> tuple[int, list[tuple[str, date]]] | None:
        query = "relabel_record" if target_kind == "record" else "relabel_episode"
        key = "record_id" if target_kind == "record" else "episode_id"
        target = {"user_id": user_id, "target_kind": target_kind, "target_id": target_id}

        def label() -> tuple[int, list[tuple[str, date]]] | None:
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(QUERIES["lock_records"], {"user_id": user_id})
                rows = conn.execute(
                    QUERIES[query], {"user_id": user_id, key: target_id, "category": category}
                ).fetchall()
                if not rows:
                    gone = conn.execute(QUERIES["label_target_gone"], target).fetchone()
                    if gone and gone["gone"]:
                        raise ConflictError(
                            f"{target_kind} {target_id} is not live: deleted, rebuilt "
                            "under a new id, or never yours; look it up again"
                        )
                    return None
                episodes = sorted({r["episode_id"] for r in rows if r["episode_id"] is not None})
                conn.execute(QUERIES["mark_episodes_stale"], {"user_id": user_id, "ids": episodes})
                label = conn.execute(
                    QUERIES["insert_label"],
                    {
                        **target,
                        "old_value": rows[0]["old_category"],
                        "new_value": category,
                        "actor": actor,
                        "note": note,
                    },
                ).fetchone()
                assert label is not None
                conn.execute(
                    QUERIES["label_touched"], {"user_id": user_id, "label_id": label["label_id"]}
                )
            return int(label["label_id"]), sorted({(r["device_id"], r["day_local"]) for r in rows})

        try:
            return retrying(label)
        except DatabaseBusyError as exc:
            if lost_a_race(exc):  # to a concurrent change, every time
                raise ConflictError(
                    f"{target_kind} {target_id} changed while it was re-labelled: try again"
                ) from exc
            raise


def _quote(token: str) -> str:
    # Tokens hold only letters and digits (and '.' for domains): quoting makes them literal.
    return "'" + token.replace("'", "''") + "'"


def tsquery(terms: Sequence[Sequence[str]]) -> str | None:
    """A `to_tsquery('simple', …)` expression: all tokens of a term, any of the terms."""
    groups = [" & ".join(_quote(t) for t in term) for term in terms if term]
    return " | ".join(f"({g})" if " & " in g else g for g in groups) or None
