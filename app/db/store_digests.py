"""Digests (L3/L4) and signals: what the rollups read and write (mixed into PostgresStore)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from psycopg.types.json import Jsonb

from app.db.base import fetch_all
from app.db.connection import Connection
from app.db.named import Params, method
from app.db.queries import QUERIES
from app.db.store_episodes import GENERIC_PLANS
from app.db.store_jobs import PostgresJobStore
from app.store.digests import (
    DayFacts,
    DigestDraft,
    DigestRow,
    DigestStore,
    EpisodeFacts,
    MemberFacts,
    PeriodMetrics,
    SignalDraft,
)
from app.store.documents import DigestMetrics
from app.store.tools import ToolStore
from app.timeutil import day_key


class PostgresDigestStore(PostgresJobStore):
    def _period_metrics(self, params: Params) -> PeriodMetrics:
        with self.pool.connection() as conn:
            row = conn.execute(QUERIES["period_metrics"], params).fetchone()
        assert row is not None  # an aggregate always yields one row
        metrics = DigestMetrics(
            seconds_by_category=row["seconds_by_category"],
            seconds_by_app=row["seconds_by_app"],
            episode_count=row["episode_count"],
            active_seconds=row["active_seconds"],
            idle_seconds=row["idle_seconds"],
            switch_count=row["switch_count"],
            interruption_seconds=row["interruption_seconds"],
            top_titles=row["top_titles"],
            first_activity=_iso(row["first_activity"]),
            last_activity=_iso(row["last_activity"]),
        )
        if row["seconds_by_user_category"]:  # a user with categories of their own
            metrics["seconds_by_user_category"] = row["seconds_by_user_category"]
        return PeriodMetrics.model_construct(
            metrics=metrics,
            computed_through_ts=row["computed_through_ts"],
            episode_ids=list(row["episode_ids"]),
        )

    period_metrics = method(ToolStore.period_metrics, _period_metrics)

    def _day_facts(self, params: Params) -> DayFacts:
        with self.pool.connection() as conn:
            conn.execute(GENERIC_PLANS)  # the members are read from `records`
            return DayFacts.model_construct(
                episodes=fetch_all(conn, EpisodeFacts, QUERIES["day_episode_facts"], params),
                members=fetch_all(conn, MemberFacts, QUERIES["day_member_facts"], params),
            )

    day_facts = method(DigestStore.day_facts, _day_facts)

    def _day_is_settled(self, params: Params) -> bool:
        with self.pool.connection() as conn:
            conn.execute(GENERIC_PLANS)  # it reads `records` after each watermark
            row = conn.execute(QUERIES["day_is_settled"], params).fetchone()
        return row is not None and bool(row["settled"])

    day_is_settled = method(DigestStore.day_is_settled, _day_is_settled)

    def save_digest(self, *, user_id: int, digest: DigestDraft) -> int:
        with self.pool.connection() as conn:
            return _upsert_digest(conn, user_id, digest)

    def _save_day_rollup(self, params: Params) -> int:
        user_id: int = params["user_id"]
        digest: DigestDraft = params["digest"]
        signals: Sequence[SignalDraft] = params["signals"]
        scope = {"user_id": user_id, "scope": digest.scope_key}
        with self.pool.connection() as conn, conn.transaction():
            digest_id = _upsert_digest(conn, user_id, digest)
            for s in signals:
                conn.execute(
                    QUERIES["upsert_signal"],
                    {
                        **scope,
                        **dict(s),
                        "signal_key": s.key,
                        "day_local": params["day"],
                        "metrics": Jsonb(s.metrics),
                        "evidence": Jsonb(dict(s.evidence)),
                    },
                )
            conn.execute(
                QUERIES["delete_other_signals"],
                {**scope, "keep": [f"{s.kind}|{s.key}" for s in signals]},
            )
            self._defer(conn, params["then"])
        return digest_id

    save_day_rollup = method(DigestStore.save_day_rollup, _save_day_rollup)

    def _sources_through(self, params: Params) -> datetime | None:
        if params["grain"] == "day":
            query, keys = QUERIES["day_sources_through"], {"day": params["day_from"]}
        else:
            query = QUERIES["period_sources_through"]
            keys = {"key_from": day_key(params["day_from"]), "key_to": day_key(params["day_to"])}
        with self.pool.connection() as conn:
            row = conn.execute(query, {**params, **keys}).fetchone()
        return row["through"] if row else None

    sources_through = method(DigestStore.sources_through, _sources_through)

    def _day_digests(self, params: Params) -> list[DigestRow]:
        keys = {"key_from": day_key(params["day_from"]), "key_to": day_key(params["day_to"])}
        with self.pool.connection() as conn:
            return fetch_all(conn, DigestRow, QUERIES["day_digests"], {**params, **keys})

    day_digests = method(DigestStore.day_digests, _day_digests)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def upsert_digest_params(user_id: int, digest: DigestDraft) -> dict[str, object]:
    """The parameters of `upsert_digest`."""
    return {
        **dict(digest),
        "user_id": user_id,
        "metrics": Jsonb(digest.metrics),
        "source_ids": Jsonb(digest.source_ids),
    }


def _upsert_digest(conn: Connection, user_id: int, digest: DigestDraft) -> int:
    params = upsert_digest_params(user_id, digest)
    row = conn.execute(QUERIES["upsert_digest"], params).fetchone()
    if row is None:  # unchanged: the upsert wrote nothing
        row = conn.execute(QUERIES["digest_id"], params).fetchone()
    assert row is not None
    return int(row["digest_id"])
