"""The offline answerer: what `ask` gives with no chat model configured, or with the
model down. A deterministic intent parser picks the tool and its arguments, the
tool answers, and the answer is written from its result (app/agent/render.py).

    answer = answer_offline(ctx, "这个月娱乐花了多少小时？")
    answer.intent.tool, answer.text
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from app.agent.followups import effective_question
from app.agent.intents import Intent, parse_intent
from app.agent.render import render
from app.text import language_of
from app.tools import ToolContext, dispatch
from app.tools.periods import today_of
from app.tools.reads import NowResult
from app.tools.recall import LastSeenResult
from app.tools.registry import output_tokens
from app.tools.results import ToolOutcome
from app.tools.stats import StatsResult


@dataclass(frozen=True, slots=True)
class OfflineAnswer:
    intent: Intent
    result: ToolOutcome
    text: str
    tokens: int  # estimated tokens of the tool's output


def answer_offline(
    ctx: ToolContext, question: str, *, earlier: Sequence[str] = ()
) -> OfflineAnswer:
    """Answer with one tool call and no model; `earlier` are the conversation's earlier
    questions, oldest first, so that a follow-up keeps their context."""
    user = ctx.user
    today = today_of(user, ctx.now)
    intent = parse_intent(
        effective_question(question, earlier, today=today),
        today=today,
        time_zone=user.time_zone,
        cut_hour=user.day_cut_hour,
        language=language_of(question),
    )
    result = dispatch(ctx, intent.tool, intent.arguments)
    never_seen = False
    if (
        intent.kind == "thing_hours"
        and isinstance(result, StatsResult)
        and result.seconds == 0
        and intent.mention != "idle"
    ):
        # A name the rules know but the user's data never held is no "0 h": say so.
        seen = dispatch(ctx, "last_seen", {"thing": str(intent.arguments["thing"])})
        never_seen = isinstance(seen, LastSeenResult) and not seen.found
    newest = None
    if intent.period is not None and intent.period.date_to >= today - timedelta(days=1):
        newest = _newest_day(ctx)  # the period may reach past the newest record
    return OfflineAnswer(
        intent=intent,
        result=result,
        text=render(intent, result, newest=newest, never_seen=never_seen),
        tokens=output_tokens(result),
    )


def _newest_day(ctx: ToolContext) -> str | None:
    """When the newest record began (local "YYYY-MM-DD HH:MM"), from get_now."""
    now = dispatch(ctx, "get_now", {"records": 1})
    if not isinstance(now, NowResult) or not now.items:
        return None
    return now.items[0].at[:16] or None
