"""Reads and writes of the model layer: summaries, embeddings, narratives, descriptions."""

from __future__ import annotations

from pgvector import Vector
from psycopg.types.json import Jsonb

from app.db.base import Queries, fetch_all
from app.db.named import execute, found, rows, value
from app.db.queries import QUERIES
from app.store.model import (
    ChildNarrative,
    EpisodeForSummary,
    ModelStore,
    SummaryMember,
)


class PostgresModelStore(Queries):
    """The model layer's reads and writes (mixed into PostgresStore)."""

    def episode_for_summary(self, *, user_id: int, episode_id: int) -> EpisodeForSummary | None:
        params = {"user_id": user_id, "episode_id": episode_id}
        with self.pool.connection() as conn:
            row = conn.execute(QUERIES["episode_for_summary"], params).fetchone()
            if row is None:
                return None
            members = fetch_all(conn, SummaryMember, QUERIES["episode_members"], params)
        # The episode's columns are EpisodeForSummary's fields but its members.
        return EpisodeForSummary.model_construct(**row, members=members)

    save_episode_summary = value(
        ModelStore.save_episode_summary, adapt={"tags": Jsonb, "cues": Jsonb}
    )
    fill_episode_category = found(ModelStore.fill_episode_category)
    episode_text_for_embedding = value(
        ModelStore.episode_text_for_embedding, query="episode_for_embedding"
    )
    save_episode_embedding = execute(ModelStore.save_episode_embedding, adapt={"embedding": Vector})
    child_narratives = rows(ModelStore.child_narratives, ChildNarrative, adapt={"ids": Jsonb})
    save_narrative = found(ModelStore.save_narrative, adapt={"source_ids": Jsonb, "metrics": Jsonb})
    save_record_analysis = execute(ModelStore.save_record_analysis, adapt={"cues": Jsonb})
