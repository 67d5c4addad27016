"""The Ask page: a chat with the agent. The page's script posts each question to
`POST /api/v1/agent/chat` with the session cookie and the session's CSRF token in
`X-CSRF-Token`, and shows the Server-Sent Events as they come: each tool called and
the tokens it read, the answer's text, then `done` or `error`. A conversation goes
on by its id (`/ask?conversation=ID` shows its earlier turns, from the store).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from app.web.auth import PageError, SessionDep, services_of
from app.web.i18n import Translator
from app.web.render import lang_of, page

router = APIRouter(include_in_schema=False)
RECENT = 10
# What the script writes, in the page's language ({…} filled in by the script).
SCRIPT_WORDS = (
    "ask_step_call",
    "ask_step_result",
    "ask_step_error",
    "ask_budget",
    "ask_subagent",
    "ask_done",
    "ask_cancelled",
    "ask_failed",
    "ask_cited",
)


@router.get("/ask")
def ask_page(request: Request, session: SessionDep) -> HTMLResponse:
    store = services_of(request).store
    chosen = request.query_params.get("conversation", "")
    conversation = turns = None
    if chosen:
        conversation_id = int(chosen) if chosen.isdigit() and len(chosen) < 19 else 0
        conversation = store.get_conversation(
            user_id=session.user_id, conversation_id=conversation_id
        )
        if conversation is None:
            raise PageError(404, "not_found", f"no conversation {chosen}")
        turns = store.conversation_turns(
            user_id=session.user_id, conversation_id=conversation.conversation_id
        )
    t = Translator(lang_of(request))
    return page(
        request,
        "ask.html",
        session=session,
        nav="ask",
        conversation=conversation,
        turns=turns or [],
        recent=store.list_conversations(user_id=session.user_id, limit=RECENT),
        words={key: t(key) for key in SCRIPT_WORDS},
    )
