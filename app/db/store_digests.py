"""Digests (L3/L4) and signals: what the rollups read and write (mixed into PostgresStore)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

from psycopg.types.json import Jsonb

from app.db.connection import Connection
from app.db.queries import QUERIES
from app.db.store_jobs import PostgresJobStore
from app.store import (
    DigestDraft,
    DigestMetrics,
    DigestRow,
    EpisodeFacts,
    JobRequest,
    MemberFacts,
    PeriodMetrics,
    SignalDraft,
)
from app.timeutil import day_key


class PostgresDigestStore(PostgresJobStore):
    def period_metrics(self, *, user_id: int, day_from: date, day_to: date) -> PeriodMetrics:
        row = self._one(
            "period_metrics", {"user_id": user_id, "day_from": day_from, "day_to": day_to}
        )
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
        return PeriodMetrics(
            metrics=metrics,
            computed_through_ts=row["computed_through_ts"],
            episode_ids=list(row["episode_ids"]),
        )

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
        self,
        *,
        user_id: int,
        digest: DigestDraft,
        day: date,
        signals: Sequence[SignalDraft],
        then: Sequence[JobRequest] = (),
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
                        "evidence": Jsonb(dict(s.evidence)),
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
            self._defer(conn, then)
        return digest_id

    def sources_through(
        self, *, user_id: int, grain: str, day_from: date, day_to: date
    ) -> datetime | None:
        if grain == "day":
            row = self._one("day_sources_through", {"user_id": user_id, "day": day_from})
        else:
            row = self._one(
                "period_sources_through",
                {"user_id": user_id, "key_from": day_key(day_from), "key_to": day_key(day_to)},
            )
        return row["through"] if row else None

    def day_digests(self, *, user_id: int, day_from: date, day_to: date) -> list[DigestRow]:
        return self._all_as(
            DigestRow,
            "day_digests",
            {"user_id": user_id, "key_from": day_from.isoformat(), "key_to": day_to.isoformat()},
        )

    def active_days(self, *, user_id: int, day_from: date, day_to: date) -> int:
        row = self._one("active_days", {"user_id": user_id, "day_from": day_from, "day_to": day_to})
        return int(row["n"]) if row else 0

    def rollups_due(self) -> list[tuple[int, date]]:
        return [(r["user_id"], r["day_local"]) for r in self._all("rollups_due", {})]

    def periods_due(self) -> list[tuple[int, str, str]]:
        return [(r["user_id"], r["grain"], r["scope_key"]) for r in self._all("periods_due", {})]


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


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
        "sources_through": digest.sources_through,
    }
    row = conn.execute(QUERIES["upsert_digest"], params).fetchone()
    if row is None:  # unchanged: the upsert wrote nothing
        row = conn.execute(QUERIES["digest_id"], params).fetchone()
    assert row is not None
    return int(row["digest_id"])
