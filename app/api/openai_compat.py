"""The OpenAI-compatible door: any OpenAI client or chat UI (Open WebUI, LibreChat, a
notebook) talks to the memory as the model `timetrace`, with an API token as its key.

    client = openai.OpenAI(base_url="http://127.0.0.1:8787/v1", api_key=TOKEN)
    client.chat.completions.create(model="timetrace", messages=[{"role": "user", …}])

The last user message is the question and the earlier user/assistant pairs its
history (the client keeps the conversation). Answers come from the agent, or
from the offline answerer when no chat model is configured or it is down, so
the door always answers. Streaming sends the answer's tokens as chunks.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictStr

from app.api.agent import SSE_HEADERS
from app.api.deps import ServicesDep, UserDep
from app.api.errors import openai_errors
from app.api.openai_errors import error_body, openai_error
from app.api.runs import Event, run_events
from app.boundary import HISTORY_MAX, MESSAGE_MAX, question_text
from app.errors import InvalidInputError
from app.text import estimate_tokens

router = APIRouter(prefix="/v1", tags=["openai-compatible"], responses=openai_errors(401, 503))
MODEL = "timetrace"


def _bounded(content: str | list[dict[str, Any]] | None) -> str | list[dict[str, Any]] | None:
    size = len(content) if isinstance(content, str) else len(json.dumps(content or []))
    if size > MESSAGE_MAX:
        raise ValueError(f"a message is at most {MESSAGE_MAX:,} characters")
    return content


class Message(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: StrictStr = Field(max_length=64)
    content: Annotated[StrictStr | list[dict[str, Any]] | None, AfterValidator(_bounded)] = None

    def text(self) -> str:
        if isinstance(self.content, list):
            parts = (str(p.get("text", "")) for p in self.content if p.get("type") == "text")
            text = " ".join(parts)
        else:
            text = self.content or ""
        return text[:MESSAGE_MAX]


class CompletionRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # temperature, max_tokens …: not ours to use
    model: StrictStr = Field(max_length=200)
    messages: list[Message] = Field(min_length=1, max_length=HISTORY_MAX)
    stream: StrictBool = False


def _question(messages: list[Message]) -> tuple[str, list[tuple[str, str]]]:
    """The last user message, and the (user, assistant) pairs before it."""
    if messages[-1].role != "user" or not messages[-1].text().strip():
        raise InvalidInputError("invalid input: messages: the last message must be the user's")
    try:
        question = question_text(messages[-1].text(), field=f"messages[{len(messages) - 1}]")
    except ValueError as exc:
        raise InvalidInputError(f"invalid input: {exc}") from exc
    history: list[tuple[str, str]] = []
    asked: str | None = None
    for message in messages[:-1]:
        # Earlier turns only go to the model: their NULs are dropped, not refused.
        if message.role == "user":
            asked = message.text().replace("\x00", "")
        elif message.role == "assistant" and asked is not None:
            history.append((asked, message.text().replace("\x00", "")))
            asked = None
    return question, history


@router.get("/models")
def models(_: UserDep) -> dict[str, Any]:
    return {
        "object": "list",
        "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "timetrace"}],
    }


def _chunk(ident: str, created: int, delta: dict[str, Any], finish: str | None) -> str:
    body = {
        "id": ident,
        "object": "chat.completion.chunk",
        "created": created,
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"


async def _stream(events: AsyncIterator[Event], ident: str, created: int) -> AsyncIterator[str]:
    yield _chunk(ident, created, {"role": "assistant", "content": ""}, None)
    async for kind, data in events:
        if kind == "token":
            yield _chunk(ident, created, {"content": data["text"]}, None)
        elif kind == "error":
            error = error_body(502, data["message"])
            yield f"data: {json.dumps(error, ensure_ascii=False)}\n\n"
            return
    yield _chunk(ident, created, {}, "stop")
    yield "data: [DONE]\n\n"


@router.post("/chat/completions", response_model=None, responses=openai_errors(400, 404, 413, 422))
async def completions(
    body: CompletionRequest, services: ServicesDep, user: UserDep
) -> StreamingResponse | JSONResponse:
    """A chat completion by the model `timetrace`: the memory answers."""
    if body.model != MODEL:
        return openai_error(
            404,
            f"model {body.model!r} does not exist; use {MODEL!r}",
            param="model",
            code="model_not_found",
        )
    question, history = _question(body.messages)
    events = run_events(services, user, question=question, history=history)
    ident, created = f"chatcmpl-tt-{secrets.token_hex(8)}", int(time.time())
    if body.stream:
        return StreamingResponse(
            _stream(events, ident, created), media_type="text/event-stream", headers=SSE_HEADERS
        )
    done: dict[str, Any] = {}
    async for kind, data in events:
        if kind == "done":
            done = data
        elif kind == "error":
            return openai_error(502, data["message"])
    prompt = estimate_tokens(question) + sum(estimate_tokens(a + b) for a, b in history)
    completion = estimate_tokens(done.get("answer", ""))
    return JSONResponse(
        {
            "id": ident,
            "object": "chat.completion",
            "created": created,
            "model": MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": done.get("answer", "")},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
            "timetrace": {
                key: done.get(key)
                for key in ("mode", "tools_called", "tool_tokens", "episode_ids", "model_calls")
            },
        }
    )
