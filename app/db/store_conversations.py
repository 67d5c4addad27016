"""Conversations with the agent (mixed into PostgresStore)."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Literal

from psycopg.types.json import Jsonb
from psycopg.types.range import Range

from app.db.base import Queries
from app.db.queries import QUERIES
from app.store import ConversationRow, NewTurn, TurnRow


class PostgresConversationStore(Queries):
    def create_conversation(self, *, user_id: int, title: str) -> int:
        row = self._one("create_conversation", {"user_id": user_id, "title": title})
        assert row is not None  # RETURNING always yields the row
        return int(row["conversation_id"])

    def get_conversation(self, *, user_id: int, conversation_id: int) -> ConversationRow | None:
        return self._one_as(
            ConversationRow,
            "get_conversation",
            {"user_id": user_id, "conversation_id": conversation_id},
        )

    def list_conversations(self, *, user_id: int, limit: int) -> list[ConversationRow]:
        return self._all_as(
            ConversationRow, "list_conversations", {"user_id": user_id, "limit": limit}
        )

    def conversation_turns(self, *, user_id: int, conversation_id: int) -> list[TurnRow]:
        return self._all_as(
            TurnRow,
            "conversation_turns",
            {"user_id": user_id, "conversation_id": conversation_id},
        )

    def add_turn(self, *, user_id: int, conversation_id: int, turn: NewTurn) -> int | None:
        params = {
            **asdict(turn),
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

    def delete_conversation(self, *, user_id: int, conversation_id: int) -> bool:
        row = self._one(
            "delete_conversation", {"user_id": user_id, "conversation_id": conversation_id}
        )
        return row is not None


def _reach(reach: tuple[datetime, datetime] | Literal["nothing"] | None) -> Range[datetime] | None:
    if reach is None:
        return None
    if reach == "nothing":
        return Range(empty=True)
    return Range(reach[0], reach[1], "[]")
