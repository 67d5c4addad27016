"""Reads and writes of the model layer: summaries, embeddings, narratives, descriptions."""

from __future__ import annotations

from datetime import date
from typing import Any

from pgvector import Vector
from psycopg.types.json import Jsonb

from app.db.base import Queries
from app.db.queries import QUERIES
from app.store import (
    ChildNarrative,
    DayEpisodeSummary,
    EpisodeForSummary,
    ModelFailure,
    ModelWorkCounts,
    PendingDescription,
    PendingEpisode,
    PendingNarrative,
    RecordToDescribe,
    SummaryMember,
)


class PostgresModelStore(Queries):
    """The model layer's reads and writes (mixed into PostgresStore)."""

    def episode_for_summary(self, *, user_id: int, episode_id: int) -> EpisodeForSummary | None:
        params = {"user_id": user_id, "episode_id": episode_id}
        row = self._one("episode_for_summary", params)
        if row is None:
            return None
        # The episode's columns are EpisodeForSummary's fields, as class_row would load them.
        return EpisodeForSummary(
            **row, members=self._all_as(SummaryMember, "episode_members", params)
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
        fts_text: str,
        reason: str | None = None,
        raw: str | None = None,
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
                "fts_text": fts_text,
                "reason": reason,
                "raw": raw,
            },
        )
        return row["day_local"] if row else None

    def fill_episode_category(self, *, user_id: int, episode_id: int, category: str) -> bool:
        row = self._one(
            "fill_episode_category",
            {"user_id": user_id, "episode_id": episode_id, "category": category},
        )
        return row is not None

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
                    "embedding": Vector(embedding),
                },
            )

    def fail_episode_embedding(self, *, user_id: int, episode_id: int, reason: str) -> None:
        with self.pool.connection() as conn:
            conn.execute(
                QUERIES["fail_episode_embedding"],
                {"user_id": user_id, "episode_id": episode_id, "reason": reason},
            )

    def pending_summaries(self, *, limit: int) -> list[PendingEpisode]:
        return self._all_as(PendingEpisode, "pending_summaries", {"limit": limit})

    def pending_embeddings(self, *, limit: int) -> list[PendingEpisode]:
        return self._all_as(PendingEpisode, "pending_embeddings", {"limit": limit})

    def pending_narratives(self, *, limit: int) -> list[PendingNarrative]:
        return self._all_as(PendingNarrative, "pending_narratives", {"limit": limit})

    def pending_descriptions(self, *, limit: int) -> list[PendingDescription]:
        return self._all_as(PendingDescription, "pending_descriptions", {"limit": limit})

    def day_episode_summaries(self, *, user_id: int, day: date) -> list[DayEpisodeSummary]:
        return self._all_as(
            DayEpisodeSummary, "day_episode_summaries", {"user_id": user_id, "day": day}
        )

    def child_narratives(self, *, user_id: int, ids: list[int]) -> list[ChildNarrative]:
        return self._all_as(
            ChildNarrative, "child_narratives", {"user_id": user_id, "ids": Jsonb(ids)}
        )

    def save_narrative(
        self,
        *,
        user_id: int,
        digest_id: int,
        narrative: str | None,
        status: str,
        source_ids: list[int],
        metrics: dict[str, Any],
        reason: str | None = None,
        raw: str | None = None,
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
                    "reason": reason,
                    "raw": raw,
                },
            )
            return cur.rowcount == 1

    def record_for_description(self, *, user_id: int, record_id: int) -> RecordToDescribe | None:
        return self._one_as(
            RecordToDescribe, "record_for_description", {"user_id": user_id, "record_id": record_id}
        )

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
        reason: str | None = None,
        raw: str | None = None,
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
                    "reason": reason,
                    "raw": raw,
                },
            )

    def model_work_counts(self) -> ModelWorkCounts:
        counts = self._one_as(ModelWorkCounts, "model_work_counts", {})
        assert counts is not None  # an aggregate always yields its row
        return counts

    def model_failures(self, *, limit: int) -> list[ModelFailure]:
        return self._all_as(ModelFailure, "model_failures", {"limit": limit})
