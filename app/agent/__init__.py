"""Asking the memory: the thin-router agent over the tool registry, and the offline
answerer that works with no model at all.

    from app.agent import ask, start_conversation
    conversation_id, history = start_conversation(store, user_id=1, question=q,
                                                  conversation_id=None)
    done = ask(ctx=ctx, question=q, history=history, emit=print, cancelled=lambda: False,
               conversations=store, conversation_id=conversation_id)

`runner` (AgentRunner: OpenAI tool calling over `app.tools`, ≤ 6 turns, a token
budget), `prompts` (the router prompt, Chinese and English), `intents`, `dates`,
`render` and `offline` (the answerer without a model), `grounding` (cited ids,
numbers no tool gave), `ask` (which of them answers, events, conversations).
deep_scan is a registry tool (app/tools/deep_scan.py), so every door has it.
"""

from __future__ import annotations

from app.agent.ask import active_runs, ask, start_conversation

__all__ = ["active_runs", "ask", "start_conversation"]
