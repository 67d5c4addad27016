"""Reads and writes of the model layer: summaries, embeddings, narratives, descriptions."""

from __future__ import annotations

from datetime import date
from typing import Any

from pgvector import Vector
from psycopg.types.json import Jsonb

from app.db.base import Queries
from app.db.queries import QUERIES
from app.store import EpisodeForSummary


class PostgresModelStore(Queries):
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
                "embedding": Vector(embedding) if embedding is not None else None,
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
                    "embedding": Vector(embedding),
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
