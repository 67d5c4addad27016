"""`PostgresStore`: the `Store` protocol over a psycopg connection pool and the
named queries of `sql/queries.sql`."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

import psycopg
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from app.db.connection import Connection
from app.db.queries import QUERIES
from app.episodes import EpisodeDraft
from app.llm import vector_literal
from app.segmenter import SegmentInput
from app.signals import EpisodeFacts, MemberFacts, SignalDraft
from app.store import (
    DayDigestRow,
    DeviceRow,
    DigestDraft,
    EpisodeForSummary,
    JobRequest,
    UserContext,
)
from app.text import fts_document


def _user(row: dict[str, Any] | None) -> UserContext | None:
    return UserContext(**row) if row else None


class _Queries:
    """Named queries over the pool, one connection (and transaction) per call."""

    pool: ConnectionPool[Connection]

    def _one(self, name: str, params: dict[str, Any]) -> dict[str, Any] | None:
        with self.pool.connection() as conn:
            return conn.execute(QUERIES[name], params).fetchone()

    def _all(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        with self.pool.connection() as conn:
            return conn.execute(QUERIES[name], params).fetchall()


class PostgresToolStore(_Queries):
    """What the query-time tools read, and re-labelling (mixed into PostgresStore)."""

    # -- tools (query time) ---------------------------------------------------------

    def final_digests_overlapping(
        self, *, user_id: int, ts_from: datetime, ts_to: datetime
    ) -> list[dict[str, Any]]:
        return self._all(
            "final_digests_overlapping", {"user_id": user_id, "ts_from": ts_from, "ts_to": ts_to}
        )

    def open_tail_metrics(
        self, *, user_id: int, day_from: date, day_to: date, ts_from: datetime, ts_to: datetime
    ) -> list[dict[str, Any]]:
        return self._all(
            "open_tail_metrics",
            {
                "user_id": user_id,
                "day_from": day_from,
                "day_to": day_to,
                "ts_from": ts_from,
                "ts_to": ts_to,
            },
        )

    def period_signal_counts(self, *, user_id: int, day_from: date, day_to: date) -> dict[str, int]:
        rows = self._all(
            "period_signal_counts", {"user_id": user_id, "day_from": day_from, "day_to": day_to}
        )
        return {r["kind"]: int(r["n"]) for r in rows}

    def latest_records(self, *, user_id: int, now: datetime, limit: int) -> list[dict[str, Any]]:
        return self._all("latest_records", {"user_id": user_id, "now": now, "limit": limit})

    def last_closed_episode(self, *, user_id: int, now: datetime) -> dict[str, Any] | None:
        return self._one("last_closed_episode", {"user_id": user_id, "now": now})

    def open_sitting(self, *, user_id: int, device_id: str, now: datetime) -> dict[str, Any] | None:
        row = self._one("open_sitting", {"user_id": user_id, "device_id": device_id, "now": now})
        return row if row and row["records"] else None

    def list_episodes(
        self,
        *,
        user_id: int,
        ts_from: datetime,
        ts_to: datetime,
        category: str | None,
        limit: int,
    ) -> list[dict[str, Any]]:
        return self._all(
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
        tsquery: str | None,
        embedding: list[float] | None,
        day_from: date | None,
        day_to: date | None,
        category: str | None,
        k: int,
        candidates: int,
    ) -> list[dict[str, Any]]:
        params = {
            "user_id": user_id,
            "tsquery": tsquery,
            "embedding": vector_literal(embedding) if embedding is not None else None,
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
            return conn.execute(QUERIES["search_episodes"], params).fetchall()

    def episode_neighbors(self, *, user_id: int, ids: list[int]) -> list[dict[str, Any]]:
        return self._all("episode_neighbors", {"user_id": user_id, "ids": ids})

    def raw_records(
        self,
        *,
        user_id: int,
        ts_from: datetime,
        ts_to: datetime,
        device_id: str | None,
        limit: int,
    ) -> list[dict[str, Any]]:
        return self._all(
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
        with self.pool.connection() as conn, conn.transaction():
            rows = conn.execute(
                QUERIES[query], {"user_id": user_id, key: target_id, "category": category}
            ).fetchall()
            if not rows:
                return None
            episodes = sorted({r["episode_id"] for r in rows if r["episode_id"] is not None})
            conn.execute(QUERIES["mark_episodes_stale"], {"user_id": user_id, "ids": episodes})
            label = conn.execute(
                QUERIES["insert_label"],
                {
                    "user_id": user_id,
                    "target_kind": target_kind,
                    "target_id": target_id,
                    "old_value": rows[0]["old_category"],
                    "new_value": category,
                    "actor": actor,
                    "note": note,
                },
            ).fetchone()
            assert label is not None
        return int(label["label_id"]), sorted({(r["device_id"], r["day_local"]) for r in rows})


class PostgresModelStore(_Queries):
    """The model layer's reads and writes (mixed into PostgresStore)."""

    def episode_for_summary(self, *, user_id: int, episode_id: int) -> EpisodeForSummary | None:
        params = {"user_id": user_id, "episode_id": episode_id}
        row = self._one("episode_for_summary", params)
        if row is None:
            return None
        members = self._all("episode_members", params)
        apps = [
            r["app"] for r in self._all("day_apps", {"user_id": user_id, "day": row["day_local"]})
        ]
        return EpisodeForSummary(
            episode_id=row["episode_id"],
            device_id=row["device_id"],
            ts_start=row["ts_start"],
            ts_end=row["ts_end"],
            day_local=row["day_local"],
            primary_app=row["primary_app"],
            category=row["category"],
            title=row["title"],
            summary_status=row["summary_status"],
            members=members,
            day_apps=sorted(apps),
        )

    def save_episode_summary(
        self,
        *,
        user_id: int,
        episode_id: int,
        title: str,
        summary: str | None,
        tags: list[str],
        cues: list[str],
        status: str,
        embedding: list[float] | None,
        fts_text: str,
    ) -> date | None:
        row = self._one(
            "save_episode_summary",
            {
                "user_id": user_id,
                "episode_id": episode_id,
                "title": title,
                "summary": summary,
                "tags": Jsonb(tags),
                "cues": Jsonb(cues),
                "status": status,
                "embedding": vector_literal(embedding) if embedding is not None else None,
                "fts_text": fts_text,
            },
        )
        return row["day_local"] if row else None

    def episode_day(self, *, user_id: int, episode_id: int) -> date | None:
        row = self._one("episode_day", {"user_id": user_id, "episode_id": episode_id})
        return row["day_local"] if row else None

    def episode_text_for_embedding(self, *, user_id: int, episode_id: int) -> str | None:
        row = self._one("episode_for_embedding", {"user_id": user_id, "episode_id": episode_id})
        return f"{row['title']}\n{row['summary'] or ''}" if row else None

    def save_episode_embedding(
        self, *, user_id: int, episode_id: int, embedding: list[float]
    ) -> None:
        with self.pool.connection() as conn:
            conn.execute(
                QUERIES["save_episode_embedding"],
                {
                    "user_id": user_id,
                    "episode_id": episode_id,
                    "embedding": vector_literal(embedding),
                },
            )

    def pending_summaries(self, *, limit: int) -> list[tuple[int, int]]:
        return [
            (r["user_id"], r["episode_id"])
            for r in self._all("pending_summaries", {"limit": limit})
        ]

    def pending_embeddings(self, *, limit: int) -> list[tuple[int, int]]:
        return [
            (r["user_id"], r["episode_id"])
            for r in self._all("pending_embeddings", {"limit": limit})
        ]

    def pending_narratives(self, *, limit: int) -> list[tuple[int, str, str]]:
        rows = self._all("pending_narratives", {"limit": limit})
        return [(r["user_id"], r["grain"], r["scope_key"]) for r in rows]

    def pending_descriptions(self, *, limit: int) -> list[tuple[int, int]]:
        return [
            (r["user_id"], r["record_id"])
            for r in self._all("pending_descriptions", {"limit": limit})
        ]

    def day_episode_summaries(self, *, user_id: int, day: date) -> list[dict[str, Any]]:
        return self._all("day_episode_summaries", {"user_id": user_id, "day": day})

    def child_narratives(self, *, user_id: int, ids: list[int]) -> list[dict[str, Any]]:
        return self._all("child_narratives", {"user_id": user_id, "ids": Jsonb(ids)})

    def save_narrative(
        self,
        *,
        user_id: int,
        digest_id: int,
        narrative: str | None,
        status: str,
        source_ids: list[int],
        metrics: dict[str, Any],
    ) -> bool:
        with self.pool.connection() as conn:
            cur = conn.execute(
                QUERIES["save_narrative"],
                {
                    "user_id": user_id,
                    "digest_id": digest_id,
                    "narrative": narrative,
                    "status": status,
                    "source_ids": Jsonb(source_ids),
                    "metrics": Jsonb(metrics),
                },
            )
            return cur.rowcount == 1

    def record_for_description(self, *, user_id: int, record_id: int) -> dict[str, Any] | None:
        return self._one("record_for_description", {"user_id": user_id, "record_id": record_id})

    def save_record_analysis(
        self,
        *,
        user_id: int,
        record_id: int,
        description: str | None,
        category: str | None,
        confidence: float | None,
        cues: list[str],
        model: str,
        fts_text: str,
    ) -> None:
        with self.pool.connection() as conn:
            conn.execute(
                QUERIES["save_record_analysis"],
                {
                    "user_id": user_id,
                    "record_id": record_id,
                    "description": description,
                    "category": category,
                    "confidence": confidence,
                    "cues": Jsonb(cues),
                    "model": model,
                    "fts_text": fts_text,
                },
            )


class PostgresStore(PostgresModelStore, PostgresToolStore):
    def __init__(self, pool: ConnectionPool[Connection]) -> None:
        self.pool = pool

    # -- accounts -------------------------------------------------------------

    def ensure_user(self, *, name: str, time_zone: str, day_cut_hour: int) -> UserContext:
        row = self._one(
            "ensure_user", {"name": name, "time_zone": time_zone, "day_cut_hour": day_cut_hour}
        )
        assert row is not None  # RETURNING always yields the row
        return UserContext(**row)

    def get_user(self, *, name: str) -> UserContext | None:
        return _user(self._one("get_user", {"name": name}))

    def user_for_token(self, *, token_hash: bytes) -> UserContext | None:
        return _user(self._one("user_for_token", {"token_hash": token_hash}))

    def add_token(self, *, user_id: int, token_hash: bytes, name: str) -> int:
        row = self._one("add_token", {"user_id": user_id, "token_hash": token_hash, "name": name})
        assert row is not None
        return int(row["token_id"])

    def count_tokens(self) -> int:
        row = self._one("count_tokens", {})
        return int(row["n"]) if row else 0

    def add_device(self, *, user_id: int, device_id: str, name: str, kind: str) -> bool:
        with self.pool.connection() as conn:
            cur = conn.execute(
                QUERIES["add_device"],
                {"user_id": user_id, "device_id": device_id, "name": name, "kind": kind},
            )
            return cur.rowcount == 1

    def device_exists(self, *, user_id: int, device_id: str) -> bool:
        return self._one("device_exists", {"user_id": user_id, "device_id": device_id}) is not None

    def list_devices(self, *, user_id: int) -> list[DeviceRow]:
        return [DeviceRow(**row) for row in self._all("list_devices", {"user_id": user_id})]

    # -- records (L0) -----------------------------------------------------------

    def insert_records(self, *, user_id: int, device_id: str, columns: dict[str, list[Any]]) -> int:
        with self.pool.connection() as conn:
            cur = conn.execute(
                QUERIES["insert_records"], {"user_id": user_id, "device_id": device_id, **columns}
            )
            return cur.rowcount

    def delete_records(
        self,
        *,
        user_id: int,
        record_ids: Sequence[int] | None = None,
        device_id: str | None = None,
        ts_from: datetime | None = None,
        ts_to: datetime | None = None,
    ) -> dict[tuple[str, date], int]:
        rows = self._all(
            "tombstone_records",
            {
                "user_id": user_id,
                "record_ids": list(record_ids) if record_ids is not None else None,
                "device_id": device_id,
                "ts_from": ts_from,
                "ts_to": ts_to,
            },
        )
        return {(row["device_id"], row["day_local"]): int(row["n"]) for row in rows}

    def day_category_seconds(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> dict[tuple[date, str], float]:
        rows = self._all(
            "day_category_seconds", {"user_id": user_id, "day_from": day_from, "day_to": day_to}
        )
        return {(row["day_local"], row["category"]): float(row["seconds"]) for row in rows}

    # -- jobs --------------------------------------------------------------------

    def defer(self, jobs: Sequence[JobRequest]) -> int:
        with self.pool.connection() as conn:
            return _defer(conn, jobs)

    # -- episodes (L2) -------------------------------------------------------------

    def devices_with_work(self) -> list[tuple[int, str]]:
        return [(r["user_id"], r["device_id"]) for r in self._all("devices_with_work", {})]

    def days_to_build(self, *, user_id: int, device_id: str) -> list[date]:
        rows = self._all("days_to_build", {"user_id": user_id, "device_id": device_id})
        return [r["day_local"] for r in rows]

    def days_to_reopen(self, *, user_id: int, device_id: str, days: Sequence[date]) -> list[date]:
        rows = self._all(
            "days_to_reopen", {"user_id": user_id, "device_id": device_id, "days": list(days)}
        )
        return sorted(r["day_local"] for r in rows)

    def reopen_days(
        self, *, user_id: int, device_id: str, days: Sequence[date], digest_keys: Sequence[str]
    ) -> None:
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(
                QUERIES["delete_device_day_episodes"],
                {"user_id": user_id, "device_id": device_id, "days": list(days)},
            )
            conn.execute(
                QUERIES["mark_digests_stale"],
                {"user_id": user_id, "keys": list(digest_keys)},
            )

    def records_to_segment(
        self, *, user_id: int, device_id: str, day: date, ts_from: datetime, ts_to: datetime
    ) -> list[SegmentInput]:
        rows = self._all(
            "records_to_segment",
            {
                "user_id": user_id,
                "device_id": device_id,
                "day": day,
                "ts_from": ts_from,
                "ts_to": ts_to,
            },
        )
        return [
            SegmentInput(
                record_id=r["record_id"],
                ts=r["ts_start"].timestamp(),
                duration=r["duration_s"],
                app=r["app"],
                title=r["window_title"],
                domain=r["domain"],
                category=r["category"],
                is_idle=r["is_idle"],
                day=r["day_local"],
                confidence=float(r["confidence"]),
            )
            for r in rows
        ]

    def save_episodes(self, *, user_id: int, drafts: Sequence[EpisodeDraft]) -> list[int]:
        ids: list[int] = []
        record_ids: list[int] = []
        episode_ids: list[int] = []
        with self.pool.connection() as conn, conn.transaction():
            for d in drafts:
                row = conn.execute(
                    QUERIES["insert_episode"], _episode_params(user_id, d)
                ).fetchone()
                if row is None:  # already stored by an earlier run of the same job
                    continue
                ids.append(row["episode_id"])
                record_ids += d.record_ids
                episode_ids += [row["episode_id"]] * len(d.record_ids)
            conn.execute(
                QUERIES["link_records"],
                {"user_id": user_id, "record_ids": record_ids, "episode_ids": episode_ids},
            )
        return ids

    # -- digests (L3/L4) and signals -------------------------------------------------

    def period_metrics(self, *, user_id: int, day_from: date, day_to: date) -> dict[str, Any]:
        row = self._one(
            "period_metrics", {"user_id": user_id, "day_from": day_from, "day_to": day_to}
        )
        assert row is not None
        return row

    def day_facts(self, *, user_id: int, day: date) -> tuple[list[EpisodeFacts], list[MemberFacts]]:
        params = {"user_id": user_id, "day": day}
        episodes = [
            EpisodeFacts(
                episode_id=r["episode_id"],
                device_id=r["device_id"],
                ts_start=r["ts_start"],
                ts_end=r["ts_end"],
                category=r["category"],
                active_s=r["active_s"],
                interruption_s=r["interruption_s"],
                interruptions=r["interruptions"],
                cues=[str(c) for c in r["cues"]],
            )
            for r in self._all("day_episode_facts", params)
        ]
        members = [MemberFacts(**r) for r in self._all("day_member_facts", params)]
        return episodes, members

    def day_is_settled(self, *, user_id: int, day: date) -> bool:
        row = self._one("day_is_settled", {"user_id": user_id, "day": day})
        return bool(row and row["settled"])

    def save_digest(self, *, user_id: int, digest: DigestDraft) -> int:
        with self.pool.connection() as conn:
            return _upsert_digest(conn, user_id, digest)

    def save_day_rollup(
        self, *, user_id: int, digest: DigestDraft, day: date, signals: Sequence[SignalDraft]
    ) -> int:
        with self.pool.connection() as conn, conn.transaction():
            digest_id = _upsert_digest(conn, user_id, digest)
            for s in signals:
                conn.execute(
                    QUERIES["upsert_signal"],
                    {
                        "user_id": user_id,
                        "kind": s.kind,
                        "scope": digest.scope_key,
                        "signal_key": s.key,
                        "ts_start": s.ts_start,
                        "ts_end": s.ts_end,
                        "day_local": day,
                        "severity": s.severity,
                        "metrics": Jsonb(s.metrics),
                        "evidence": Jsonb(s.evidence),
                    },
                )
            conn.execute(
                QUERIES["delete_other_signals"],
                {
                    "user_id": user_id,
                    "scope": digest.scope_key,
                    "keep": [f"{s.kind}|{s.key}" for s in signals],
                },
            )
        return digest_id

    def day_digests(self, *, user_id: int, day_from: date, day_to: date) -> list[DayDigestRow]:
        rows = self._all(
            "day_digests",
            {"user_id": user_id, "key_from": day_from.isoformat(), "key_to": day_to.isoformat()},
        )
        return [
            DayDigestRow(
                digest_id=r["digest_id"],
                scope_key=r["scope_key"],
                metrics=r["metrics"],
                finalized=r["finalized"],
            )
            for r in rows
        ]

    def active_days(self, *, user_id: int, day_from: date, day_to: date) -> int:
        row = self._one("active_days", {"user_id": user_id, "day_from": day_from, "day_to": day_to})
        return int(row["n"]) if row else 0

    def rollups_due(self) -> list[tuple[int, date]]:
        return [(r["user_id"], r["day_local"]) for r in self._all("rollups_due", {})]

    def get_digest(self, *, user_id: int, grain: str, scope_key: str) -> dict[str, Any] | None:
        return self._one("get_digest", {"user_id": user_id, "grain": grain, "scope_key": scope_key})

    def list_signals(
        self, *, user_id: int, day_from: date, day_to: date, kind: str | None = None
    ) -> list[dict[str, Any]]:
        return self._all(
            "list_signals",
            {"user_id": user_id, "day_from": day_from, "day_to": day_to, "kind": kind},
        )

    def episode_counts(self, *, user_id: int, day_from: date, day_to: date) -> dict[date, int]:
        rows = self._all(
            "episode_counts_by_day", {"user_id": user_id, "day_from": day_from, "day_to": day_to}
        )
        return {r["day_local"]: int(r["n"]) for r in rows}

    def get_user_by_id(self, *, user_id: int) -> UserContext | None:
        return _user(self._one("get_user_by_id", {"user_id": user_id}))


def _defer(conn: Connection, jobs: Sequence[JobRequest]) -> int:
    added = 0
    for job in jobs:
        try:
            with conn.transaction():  # a savepoint: a waiting twin must not abort the caller
                conn.execute(
                    QUERIES["defer_job"],
                    {
                        "queue": job.queue,
                        "task_name": job.task_name,
                        "priority": job.priority,
                        "lock": job.lock,
                        "queueing_lock": job.queueing_lock,
                        "args": Jsonb(job.args),
                    },
                )
            added += 1
        except psycopg.errors.UniqueViolation:
            pass  # the same job is already waiting (queueing lock)
    return added


def _episode_params(user_id: int, d: EpisodeDraft) -> dict[str, Any]:
    return {
        "user_id": user_id,
        "episode_key": d.episode_key,
        "device_id": d.device_id,
        "ts_start": d.ts_start,
        "ts_end": d.ts_end,
        "day_local": d.day_local,
        "primary_app": d.primary_app,
        "cluster_key": d.cluster_key,
        "category": d.category,
        "title": d.title,
        "summary_status": d.summary_status,
        "interruptions": Jsonb(d.interruptions),
        "frame_count": d.frame_count,
        "duration_s": d.duration_s,
        "active_s": d.active_s,
        "category_seconds": Jsonb(d.category_seconds),
        "app_seconds": Jsonb(d.app_seconds),
        "switch_count": d.switch_count,
        "interruption_s": d.interruption_s,
        "boundary": d.boundary,
        "fts_text": fts_document(d.title, d.primary_app, d.cluster_key),
    }


def _upsert_digest(conn: Connection, user_id: int, digest: DigestDraft) -> int:
    params = {
        "user_id": user_id,
        "grain": digest.grain,
        "scope_key": digest.scope_key,
        "period_start": digest.period_start,
        "period_end": digest.period_end,
        "metrics": Jsonb(digest.metrics),
        "source_ids": Jsonb(digest.source_ids),
        "computed_through_ts": digest.computed_through_ts,
        "finalized": digest.finalized,
    }
    row = conn.execute(QUERIES["upsert_digest"], params).fetchone()
    if row is None:  # unchanged: the upsert wrote nothing
        row = conn.execute(QUERIES["digest_id"], params).fetchone()
    assert row is not None
    return int(row["digest_id"])
