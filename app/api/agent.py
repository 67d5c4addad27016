"""Asking over HTTP: `POST /api/v1/agent/chat` streams Server-Sent Events, and a
user's conversations are listed, read and deleted here (only their own).

    event: step      data: {"phase": "call", "turn": 1, "tool": "query_stats", "arguments": {…}}
    event: step      data: {"phase": "result", "turn": 1, "tool": "query_stats", "tokens": 135, …}
    event: budget    data: {"used": 2210, "limit": 40000, "left": 37790, "action": "notice"}
    event: subagent  data: {"phase": "fanout", "slices": 3, "records": 2400}   (deep_scan)
    event: token     data: {"text": "本月娱乐共 "}
    event: done      data: {"conversation_id": 7, "turn": 1, "answer": "…", …}
    event: error     data: {"message": "…"}
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from app.agent import start_conversation
from app.api.deps import PageOrBearerUserDep, ServicesDep, UserDep
from app.api.errors import AUTHED, WITH_BODY, errors
from app.api.runs import Event, run_events
from app.boundary import BIGINT_MAX, Id, Question
from app.errors import NotFoundError
from app.tools.registry import to_json

router = APIRouter(prefix="/api/v1/agent", tags=["agent"], responses=AUTHED)
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
ConversationId = Annotated[int, Path(ge=1, le=BIGINT_MAX)]


class ChatRequest(BaseModel):
    question: Question = Field(description="中文或英文")
    conversation_id: Id | None = Field(None, description="continue this conversation")


async def sse(events: AsyncIterator[Event]) -> AsyncIterator[str]:
    async for kind, data in events:
        if kind == "keepalive":
            yield ": keepalive\n\n"
        else:
            yield f"event: {kind}\ndata: {to_json(data)}\n\n"


@router.post("/chat", response_class=StreamingResponse, responses={**WITH_BODY, **errors(404)})
async def chat(
    body: ChatRequest, services: ServicesDep, user: PageOrBearerUserDep
) -> StreamingResponse:
    """Ask a question; the answer streams as Server-Sent Events (see the module doc).
    The web Ask page calls it with its session cookie and `X-CSRF-Token` header."""
    # A scoped token's conversations live in its own view, gone after the answer
    # (docs/scopes.md): earlier turns were answered over time it may not see.
    store = services.store_for(user=user)
    conversation_id, history = await run_in_threadpool(
        start_conversation,
        store,
        user_id=user.user_id,
        question=body.question,
        conversation_id=body.conversation_id,
    )
    events = run_events(
        services,
        user,
        question=body.question,
        history=history,
        conversations=store,
        conversation_id=conversation_id,
    )
    return StreamingResponse(sse(events), media_type="text/event-stream", headers=SSE_HEADERS)


@router.get("/conversations", responses=errors(422))
def list_conversations(
    services: ServicesDep, user: UserDep, limit: Annotated[int, Query(ge=1, le=200)] = 50
) -> list[dict[str, Any]]:
    """The user's conversations, most recent first."""
    rows = services.store_for(user=user).list_conversations(user_id=user.user_id, limit=limit)
    return [row.model_dump() for row in rows]


@router.get("/conversations/{conversation_id}", responses=errors(404, 422))
def get_conversation(
    conversation_id: ConversationId, services: ServicesDep, user: UserDep
) -> dict[str, Any]:
    """One conversation with its turns (question, answer, the tools read)."""
    store = services.store_for(user=user)
    row = store.get_conversation(user_id=user.user_id, conversation_id=conversation_id)
    if row is None:
        raise NotFoundError(f"no conversation {conversation_id}")
    turns = store.conversation_turns(user_id=user.user_id, conversation_id=conversation_id)
    return {**row.model_dump(), "turns": [turn.model_dump() for turn in turns]}


@router.delete("/conversations/{conversation_id}", status_code=204, responses=errors(404, 422))
def delete_conversation(
    conversation_id: ConversationId, services: ServicesDep, user: UserDep
) -> Response:
    """Delete a conversation and all its turns."""
    if not services.store.delete_conversation(
        user_id=user.user_id, conversation_id=conversation_id
    ):
        raise NotFoundError(f"no conversation {conversation_id}")
    return Response(status_code=204)
