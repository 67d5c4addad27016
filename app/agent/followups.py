"""Follow-ups keep their context: a question that names only a period or a thing
("and last month?", "那上个月呢？", "what about Slack?", "那B站呢") is the previous
question with that part swapped, so it reuses the previous turn's tool and
arguments and changes only what it names.

    effective_question("那上个月呢？", ["上周娱乐花了多少小时？"], today=...)
    # "上个月娱乐花了多少小时？"

Works from the conversation's earlier questions alone (the OpenAI-compatible door
has no stored turns), folding a chain of follow-ups in order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from app.agent.dates import find_clocks, find_period
from app.agent.intents import (
    COMPARE,
    COUNT,
    DAYS_COUNT,
    DAYS_WHICH,
    EPISODES,
    HOURS,
    LAST_TIME,
    NOW,
    SEARCH,
    SUMMARY,
    _words,
    parse_intent,
    thing_mention,
)

# How a follow-up opens or ends: "and …", "what about …", "那 … 呢", "换成 …".
_MARKERS = _words(
    "那么", "那", "换成", "改成", "换", "呢", "的话", "又", "还有",
    "and", "what about", "how about", "what of", "ok", "okay", "same for", "and for", "then",
    "instead",
)  # fmt: skip
_OPENS = re.compile(
    r"^\s*(?:and\b|what about\b|how about\b|what of\b|ok(?:ay)?\b|same for\b|那|换成|改成|还有)",
    re.IGNORECASE,
)
_ENDS = re.compile(r"呢\s*[?？!！。]*\s*$")
_OWN_INTENT = (HOURS, COUNT, DAYS_COUNT, DAYS_WHICH, EPISODES, SUMMARY, NOW, SEARCH, LAST_TIME)


def is_followup(question: str, *, today: date) -> bool:
    """A short question that opens or ends like a follow-up and asks nothing of its own."""
    if not (_OPENS.search(question) or _ENDS.search(question)):
        return False
    period = find_period(question, today=today)
    rest = question
    if period is not None:
        rest = rest[: period.span[0]] + " " + rest[period.span[1] :]
    rest = _MARKERS.sub(" ", rest)
    if any(p.search(rest) for p in _OWN_INTENT) or COMPARE.search(rest) or find_clocks(rest):
        return False
    return len(thing_mention(rest, None).split()) <= 3


def _swap(previous: str, question: str, *, today: date) -> str:
    """The previous question with the follow-up's period and/or thing put in."""
    new_period = find_period(question, today=today)
    rest = question
    if new_period is not None:
        rest = rest[: new_period.span[0]] + " " + rest[new_period.span[1] :]
    mention = thing_mention(_MARKERS.sub(" ", rest), None)
    text = previous
    old = parse_intent(previous, today=today)
    if mention:
        if old.mention and old.mention in text:
            text = text.replace(old.mention, mention, 1)
        else:
            text = f"{mention} {text}"
    if new_period is not None:
        phrase = question[new_period.span[0] : new_period.span[1]]
        old_period = find_period(text, today=today)
        if old_period is not None and old_period.span != (0, 0):
            text = text[: old_period.span[0]] + phrase + text[old_period.span[1] :]
        else:
            text = f"{phrase} {text}"
    return text


def effective_question(question: str, earlier: Sequence[str], *, today: date) -> str:
    """The question to answer: the question itself, or — for a follow-up — the
    previous effective question with what the follow-up names swapped in."""
    effective: str | None = None
    for asked in [*earlier, question]:
        if effective is not None and is_followup(asked, today=today):
            effective = _swap(effective, asked, today=today)
        else:
            effective = asked
    return effective or question
