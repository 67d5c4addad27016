"""The offline answerer: what `ask` gives with no chat model configured, or with the
model down. A deterministic intent parser picks the tool and its arguments, the
tool answers, and the answer is written from its result (app/agent/render.py).

    answer = answer_offline(ctx, "这个月娱乐花了多少小时？")
    answer.intent.tool, answer.text
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.agent.intents import Intent, parse_intent
from app.agent.render import render
from app.tools import ToolContext, dispatch
from app.tools.periods import today_of
from app.tools.registry import output_tokens


@dataclass(frozen=True, slots=True)
class OfflineAnswer:
    intent: Intent
    result: dict[str, Any]
    text: str
    tokens: int  # estimated tokens of the tool's output


def answer_offline(ctx: ToolContext, question: str) -> OfflineAnswer:
    """Answer with one tool call and no model."""
    user = ctx.user
    intent = parse_intent(
        question,
        today=today_of(user, ctx.now),
        time_zone=user.time_zone,
        cut_hour=user.day_cut_hour,
    )
    result = dispatch(ctx, intent.tool, intent.arguments)
    return OfflineAnswer(
        intent=intent, result=result, text=render(intent, result), tokens=output_tokens(result)
    )
