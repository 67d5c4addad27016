"""Asking a question, whichever door it comes through (SSE chat, the OpenAI-compatible
door, `timetrace ask`): the agent when a chat model is configured and up, else —
or when the model fails — the offline answerer; then the `done` event, and the
turn stored in its conversation.

    conversation_id, history = start_conversation(
        store, user_id=1, question=q, conversation_id=None)
    done = ask(ctx=ctx, question=q, history=history, emit=print, cancelled=lambda: False,
               conversations=store, conversation_id=conversation_id)

Events (`emit(kind, data)`): `step` (a tool call, then its result size in tokens),
`token` (answer text), `budget` (tokens used / left), `subagent` (deep_scan
slices), `done` (with `mode`, agent or offline, and `path`: how the tools were
called — stream, plain or router — or offline). Doors add `error` for failures outside the run.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, Literal

from app.agent.grounding import cited_episodes, unsupported_numbers
from app.agent.offline import answer_offline
from app.agent.reach import turn_reach
from app.agent.runner import AgentRunner, Emit, RunCancelled, RunResult
from app.errors import NotFoundError, TimeTraceError
from app.store.conversations import ConversationStore, NewTurn, TurnStep
from app.text import estimate_tokens
from app.tools import ToolContext
from app.tools.registry import dump, output_tokens, to_json
from app.tools.results import ToolError

MAX_HISTORY_TURNS = 6
TITLE_MAX = 80

_active_lock = threading.Lock()
_active = 0


def active_runs() -> int:
    """How many questions are being answered in this process right now."""
    return _active


@contextmanager
def _tracked() -> Iterator[None]:
    global _active
    with _active_lock:
        _active += 1
    try:
        yield
    finally:
        with _active_lock:
            _active -= 1


def start_conversation(
    store: ConversationStore, *, user_id: int, question: str, conversation_id: int | None
) -> tuple[int, list[tuple[str, str]]]:
    """A new conversation, or the user's own one continued: its id and its latest
    answered turns (the agent keeps those that fit a quarter of its budget)."""
    if conversation_id is None:
        title = " ".join(question.split())[:TITLE_MAX]
        return store.create_conversation(user_id=user_id, title=title), []
    if store.get_conversation(user_id=user_id, conversation_id=conversation_id) is None:
        raise NotFoundError(f"no conversation {conversation_id}")
    turns = store.conversation_turns(user_id=user_id, conversation_id=conversation_id)
    done = [(t.question, t.answer) for t in turns if t.status == "done" and t.answer]
    return conversation_id, done[-MAX_HISTORY_TURNS:]


def _fit_history(history: Sequence[tuple[str, str]], *, budget: int) -> list[tuple[str, str]]:
    kept: list[tuple[str, str]] = []
    used = 0
    for asked, answered in reversed(history):
        used += estimate_tokens(asked) + estimate_tokens(answered)
        if used > budget // 4:
            break
        kept.insert(0, (asked, answered))
    return kept


def _offline(
    ctx: ToolContext,
    question: str,
    history: Sequence[tuple[str, str]],
    emit: Emit,
    run: RunResult,
) -> str:
    """Answer with the offline answerer, adding its one tool call to `run`; the tool."""
    answer = answer_offline(ctx, question, earlier=[asked for asked, _ in history])
    for call in answer.calls:  # each number's source: the calls and their results
        emit("step", {"phase": "call", "turn": 0, "tool": call.tool, "arguments": call.arguments})
        tokens = output_tokens(call.result)
        step = TurnStep(tool=call.tool, arguments=dict(call.arguments), tokens=tokens)
        if isinstance(call.result, ToolError):
            step["error"] = call.result.error
        emit("step", {"phase": "result", "turn": 0, **step})
        run.steps.append(step)
        run.results.append(dump(call.result))
    run.tool_tokens += answer.tokens
    run.used_tokens += answer.tokens
    emit("token", {"text": answer.text})
    run.answer = answer.text
    return answer.intent.tool


def _agent(
    runner: AgentRunner, question: str, history: Sequence[tuple[str, str]]
) -> tuple[RunResult, str | None]:
    """The agent's run, and why it needs the offline answerer's help (if it does)."""
    try:
        run = runner.run(question=question, history=_fit_history(history, budget=runner.budget))
    except RunCancelled:
        raise
    except TimeTraceError as exc:  # the model failed: the question is answered all the same
        return runner.result, f"the chat model failed ({exc.message}); answered offline"
    return run, None if run.answer else "the chat model gave no answer; answered offline"


def ask(
    *,
    ctx: ToolContext,
    question: str,
    history: Sequence[tuple[str, str]],
    emit: Emit,
    cancelled: Callable[[], bool],
    conversations: ConversationStore | None = None,
    conversation_id: int | None = None,
) -> dict[str, Any]:
    """Answer `question`, emitting the run's events and then `done`; store the turn
    when a conversation is given. Returns the `done` event's data."""
    started = time.monotonic()
    started_at = datetime.now(UTC)
    models = ctx.models
    mode: Literal["agent", "offline"] = "offline"
    status: Literal["done", "cancelled"] = "done"
    fallback: str | None = None
    answered_by: str | None = None
    run = RunResult()
    runner = None
    with _tracked():
        try:
            if models is not None and models.available("chat"):
                mode = "agent"
                runner = AgentRunner(ctx=ctx, models=models, emit=emit, cancelled=cancelled)
                run, fallback = _agent(runner, question, history)
            elif models is not None and models.chat_enabled:
                fallback = "the chat model is backing off after a failure; answered offline"
            if not run.answer:
                if cancelled():
                    raise RunCancelled()
                mode = "offline"
                answered_by = _offline(ctx, question, history, emit, run)
        except RunCancelled:
            status = "cancelled"
            run = runner.result if runner is not None else run
            run.answer = run.answer or "".join(run.streamed)  # what the asker saw
    done = _done(
        ctx, question, run, status=status, mode=mode, conversation_id=conversation_id,
        elapsed_ms=round(1000 * (time.monotonic() - started)),
        extra={
            **({"answered_by": answered_by} if answered_by else {}),
            **({"fallback": fallback} if fallback else {}),
            **({"forced_answer": True} if run.forced else {}),
        },
    )  # fmt: skip
    if conversations is not None and conversation_id is not None:
        done["turn"] = _store_turn(
            ctx, conversations, conversation_id, question, run, done, started_at=started_at
        )
    emit("done", done)
    return done


def _done(
    ctx: ToolContext,
    question: str,
    run: RunResult,
    *,
    status: str,
    mode: str,
    conversation_id: int | None,
    elapsed_ms: int,
    extra: dict[str, Any],
) -> dict[str, Any]:
    """The `done` event's data: the answer, what was called and what it cost."""
    return {
        "conversation_id": conversation_id,
        "turn": None,
        "status": status,
        "mode": mode,
        "path": (run.path or "none") if mode == "agent" else "offline",
        "answer": run.answer,
        "tools_called": [step["tool"] for step in run.steps],
        "tool_tokens": run.tool_tokens,
        "tokens_used": run.used_tokens,
        "budget": ctx.settings.agent_budget_tokens,
        "episode_ids": cited_episodes(run.answer, run.results),
        "model_calls": run.model_calls,
        "elapsed_ms": elapsed_ms,
        "unsupported_numbers": unsupported_numbers(run.answer, run.results, question),
        **extra,
    }


def _store_turn(
    ctx: ToolContext,
    conversations: ConversationStore,
    conversation_id: int,
    question: str,
    run: RunResult,
    done: dict[str, Any],
    *,
    started_at: datetime,
) -> int | None:
    """Store the turn in its conversation; its number."""
    texts = [
        *(to_json(dict(step)) for step in run.steps),
        *(to_json(result) for result in run.results),
        run.answer,
    ]
    return conversations.add_turn(
        user_id=ctx.user.user_id,
        conversation_id=conversation_id,
        turn=NewTurn(
            question=question,
            answer=run.answer,
            status=done["status"],
            mode=done["mode"],
            steps=run.steps,
            episode_ids=done["episode_ids"],
            tool_tokens=run.tool_tokens,
            model_calls=run.model_calls,
            elapsed_ms=done["elapsed_ms"],
            reach=turn_reach(called_tools=bool(run.steps), texts=texts),
            started_at=started_at,
        ),
    )
