"""A question answered in a worker thread, its events handed to the event loop as
they come (the SSE chat and the OpenAI-compatible door stream them).

    async for kind, data in run_events(services, user, question=q, history=[]):
        ...

When the consumer stops (the client went away and the response was cancelled),
the run is told to stop: the agent closes its model stream at the next token,
skips the tools it has not started and deep_scan the slices it has not started.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime
from typing import Any

from app.agent import ask
from app.errors import TimeTraceError
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.store.conversations import ConversationStore

log = logging.getLogger("timetrace.api.runs")
KEEPALIVE_S = 15.0
Event = tuple[str, dict[str, Any]]


async def run_events(
    services: Services,
    user: UserContext,
    *,
    question: str,
    history: Sequence[tuple[str, str]],
    conversations: ConversationStore | None = None,
    conversation_id: int | None = None,
) -> AsyncIterator[Event]:
    """The run's events, then its end; `("keepalive", {})` after a quiet while."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Event | None] = asyncio.Queue()
    stop = threading.Event()

    def put(item: Event | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody listens
            loop.call_soon_threadsafe(queue.put_nowait, item)

    def work() -> None:
        try:
            ask(
                ctx=services.tool_context(user=user, now=datetime.now(UTC)),
                question=question,
                history=history,
                emit=lambda kind, data: put((kind, data)),
                cancelled=stop.is_set,
                conversations=conversations,
                conversation_id=conversation_id,
            )
        except TimeTraceError as exc:
            put(("error", {"message": exc.message}))
        except Exception:
            log.exception("a question failed")
            put(("error", {"message": "internal error"}))
        finally:
            put(None)

    threading.Thread(target=work, name="timetrace-ask", daemon=True).start()
    try:
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), timeout=KEEPALIVE_S)
            except TimeoutError:
                yield ("keepalive", {})
                continue
            if item is None:
                return
            yield item
    finally:
        stop.set()
