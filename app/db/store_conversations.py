"""Conversations with the agent (mixed into PostgresStore)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from psycopg.types.json import Jsonb
from psycopg.types.range import Range

from app.db.base import Queries
from app.db.named import found
from app.db.queries import QUERIES
from app.store.conversations import ConversationStore, NewTurn


class PostgresConversationStore(Queries):
    def add_turn(self, *, user_id: int, conversation_id: int, turn: NewTurn) -> int | None:
        params = {
            **dict(turn),
            "user_id": user_id,
            "conversation_id": conversation_id,
            "steps": Jsonb(turn.steps),
            "episode_ids": Jsonb(turn.episode_ids),
            "reach": _reach(turn.reach),
        }
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(QUERIES["lock_records_shared"], {"user_id": user_id})
            row = conn.execute(QUERIES["add_conversation_turn"], params).fetchone()
        return int(row["turn_no"]) if row else None

    delete_conversation = found(ConversationStore.delete_conversation)


def _reach(reach: tuple[datetime, datetime] | Literal["nothing"] | None) -> Range[datetime] | None:
    if reach is None:
        return None
    if reach == "nothing":
        return Range(empty=True)
    return Range(reach[0], reach[1], "[]")
