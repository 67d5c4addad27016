"""Conversations with the agent (`ConversationStore`)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Protocol

from typing_extensions import TypedDict

from app.store.row import Row


class TurnStep(TypedDict, total=False):
    """One tool call of a turn (`conversation_turns.steps`): what was read, not the result."""

    tool: str
    arguments: dict[str, object]
    tokens: int
    error: str


class ConversationRow(Row):
    conversation_id: int
    title: str
    created_at: datetime
    updated_at: datetime
    turns: int


class NewTurn(Row):
    """One question and its answer, as the agent (or the offline answerer) gave it."""

    question: str
    answer: str
    status: Literal["done", "cancelled"]
    mode: Literal["agent", "offline"]
    steps: list[TurnStep]
    episode_ids: list[int]
    tool_tokens: int
    model_calls: int
    elapsed_ms: int
    # The time the turn read (first, last instant): deleting a record in it drops the
    # turn. "nothing" for a turn that read no records; None when unknown (all time).
    reach: tuple[datetime, datetime] | Literal["nothing"] | None = None
    started_at: datetime | None = None  # when it began reading (a deletion since voids it)


class TurnRow(Row):
    turn_no: int
    question: str
    answer: str
    status: str
    mode: str
    steps: list[TurnStep]
    episode_ids: list[int]
    tool_tokens: int
    model_calls: int
    elapsed_ms: int
    created_at: datetime


class ConversationStore(Protocol):
    """Conversations with the agent; every call is scoped to one user."""

    def create_conversation(self, *, user_id: int, title: str) -> int: ...
    def get_conversation(self, *, user_id: int, conversation_id: int) -> ConversationRow | None: ...
    def list_conversations(self, *, user_id: int, limit: int) -> list[ConversationRow]: ...
    def conversation_turns(self, *, user_id: int, conversation_id: int) -> list[TurnRow]: ...

    def add_turn(self, *, user_id: int, conversation_id: int, turn: NewTurn) -> int | None:
        """Append a turn; its number, or None when the conversation is not the user's."""
        ...

    def delete_conversation(self, *, user_id: int, conversation_id: int) -> bool: ...
