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
from collections.abc import Callable, Sequence
from datetime import date, timedelta

from app.agent import cues
from app.agent.dates import find_clocks, find_period, named
from app.agent.intent_words import (
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
)
from app.agent.intents import parse_intent, thing_mention
from app.agent.parts import asks_threshold, cue
from app.agent.windows import find_window

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
# Moving the previous period: "the day before", "那前一周", "the week after".
_SHIFT = re.compile(
    r"(?P<back>the\s+(?:day|week|month)\s+before(?:\s+that)?|(?:那)?前一(?:天|周|个?星期|个月)|再往前一(?:天|周))"
    r"|(?P<ahead>the\s+(?:day|week|month)\s+after(?:\s+that)?|(?:那)?后一(?:天|周|个?星期|个月))",
    re.IGNORECASE,
)
# An operation asked of the things already named: "both together", "which was longer",
# "那没开的是哪几天", "占总屏幕时间多少" (app/agent/cues.py).
_OPERATION_EDIT = cue(cues.FOLLOWUP_OPERATIONS)
# A new thing weighed against the earlier one: "vs iterm, which one is more".
_VERSUS_EDIT = cue(cues.FOLLOWUP_VERSUS)
_PRONOUN, _SHARE = cue(cues.PRONOUNS), cue(cues.SHARE)
# "The computer" is a new thing, except as the whole of a share ("占总屏幕时间多少").
_ACTIVE = cue(cues.ACTIVE_NAMES)
# The previous period up to now: "and so far?", "到目前为止呢".
_SO_FAR = re.compile(
    r"\bso far\b|\buntil now\b|\bto date\b|到目前为止|目前为止|至今", re.IGNORECASE
)
_SHORT = 48  # characters: a follow-up is a short turn


Names = Callable[[str], list[str]]


def is_followup(question: str, *, today: date, names: Names | None = None) -> bool:
    """A short question that opens or ends like a follow-up and asks nothing of its own,
    or that moves the previous period or asks an operation of the previous things."""
    moves = _SHIFT.search(question) or _SO_FAR.search(question)
    if len(question) <= _SHORT and (moves or edits_operation(question, names=names)):
        return find_period(question, today=today) is None or bool(moves)
    if not (_OPENS.search(question) or _ENDS.search(question)) or _weighs_its_own(question, names):
        return False
    period = find_period(question, today=today)
    rest = question
    if period is not None:
        rest = rest[: period.span[0]] + " " + rest[period.span[1] :]
    rest = _MARKERS.sub(" ", rest)
    clock = find_clocks(rest) and find_window(rest, cut_hour=0) is None  # a moment of its own
    if any(p.search(rest) for p in _OWN_INTENT) or COMPARE.search(rest) or clock:
        return False
    return len(thing_mention(rest, None).split()) <= 3


def edits_operation(question: str, *, names: Names | None) -> bool:
    """An operation asked of the turn before: its cue or a threshold with no new thing
    ("那日均呢", "超过5小时了吗"),
    or a contest's or a share's cue with one new thing ("vs iterm, which one is more",
    "what percent of it was entertainment?")."""
    edit = bool(
        _OPERATION_EDIT.search(question) or _PRONOUN.search(question) or asks_threshold(question)
    )
    if names is None:
        return bool(_OPERATION_EDIT.search(question))
    named = names(question)
    if not named:
        return edit and not (_ACTIVE.search(question) and not _SHARE.search(question))
    weighs = _VERSUS_EDIT.search(question) or _SHARE.search(question)
    return len(named) == 1 and bool(weighs or _PRONOUN.search(question))


def _shifted(previous: str, question: str, *, today: date) -> str | None:
    """The previous question with its period moved back or ahead by its own length
    ("the day before", "那前一周") or run up to today ("so far"), written as dates;
    None when nothing moves."""
    shift = _SHIFT.search(question)
    so_far = _SO_FAR.search(question) is not None and find_period(question, today=today) is None
    if shift is None and not so_far:
        return None
    old = find_period(previous, today=today) or named("today", today=today)
    if shift is not None:
        days = old.days * (-1 if shift["back"] else 1)
        first, last = old.date_from + timedelta(days=days), old.date_to + timedelta(days=days)
    else:  # so far: from the previous period's first day up to today
        first, last = old.date_from, today
    dates = first.isoformat() if first == last else f"{first.isoformat()} to {last.isoformat()}"
    if old.span == (0, 0):
        return f"{previous} {dates}"
    return previous[: old.span[0]] + dates + previous[old.span[1] :]


def _swap(
    previous: str,
    question: str,
    *,
    today: date,
    dropped: str = "",
    names: Names | None = None,
) -> tuple[str, str]:
    """The previous question with the follow-up's period, window and/or thing put in,
    its period moved, or the operation it asks of the same things (with `dropped`, the
    thing the turn before swapped out: "both" means it too); and the thing this swap
    dropped."""
    moved = _shifted(previous, question, today=today)
    if moved is not None:
        return moved, dropped
    if edits_operation(question, names=names):
        return f"{question} {dropped} {previous}".replace("  ", " "), ""
    new_period = find_period(question, today=today)
    rest = question
    if new_period is not None:
        rest = rest[: new_period.span[0]] + " " + rest[new_period.span[1] :]
    text, rest = _window_swapped(previous, _SO_FAR.sub(" ", rest))
    mention = thing_mention(_MARKERS.sub(" ", rest), None)
    several = _all_swapped(text, rest, names)
    if several is not None:  # "那飞书和微信呢" after "slack和zoom哪个多": both swapped
        text, mention = several, ""
    old = parse_intent(previous, today=today).mention
    if not (old and old in text) and names is not None:
        # The intent table read no thing (a planned question: "when did I first open
        # chrome"): the one name the lexicon finds in it is the one swapped.
        found = names(text)
        old = found[0] if len(found) == 1 else old
    swapped = ""
    if mention:
        if old and old in text:
            text, swapped = text.replace(old, mention, 1), old
        else:
            text = f"{mention} {text}"
    if new_period is not None:
        phrase = question[new_period.span[0] : new_period.span[1]]
        old_period = find_period(text, today=today)
        if old_period is not None and old_period.span != (0, 0):
            text = text[: old_period.span[0]] + phrase + text[old_period.span[1] :]
        else:
            text = f"{phrase} {text}"
    return text, swapped


def _all_swapped(previous: str, rest: str, names: Names | None) -> str | None:
    """The previous question with each of its things swapped, in order, for the
    follow-up's, when both name the same number of things, two or more."""
    if names is None:
        return None
    new, old = names(rest), names(previous)
    if len(new) < 2 or len(new) != len(old):
        return None
    text = previous
    for before, after in zip(old, new, strict=True):
        text = text.replace(before, after, 1)
    return text


def _window_swapped(previous: str, rest: str) -> tuple[str, str]:
    """The previous question with the follow-up's window ("晚上呢", "and after 10
    pm?") in place of its own, and the follow-up without it."""
    window = find_window(rest, cut_hour=0)
    if window is None:
        return previous, rest
    phrase = rest[window.span[0] : window.span[1]]
    rest = rest[: window.span[0]] + " " + rest[window.span[1] :]
    old = find_window(previous, cut_hour=0)
    if old is None:
        return f"{phrase} {previous}", rest
    return previous[: old.span[0]] + phrase + previous[old.span[1] :], rest


def effective_question(
    question: str,
    earlier: Sequence[str],
    *,
    today: date,
    names: Names | None = None,
) -> str:
    """The question to answer: the question itself, or — for a follow-up — the
    previous effective question with what the follow-up names swapped in; `names`
    gives the names a question mentions as written (the lexicon's)."""
    effective: str | None = None
    dropped = ""
    for asked in [*earlier, question]:
        if effective is not None and is_followup(asked, today=today, names=names):
            effective, dropped = _swap(effective, asked, today=today, dropped=dropped, names=names)
        elif effective is not None:
            effective, dropped = _period_kept(asked, effective, today=today, names=names), ""
        else:
            effective, dropped = asked, ""
    return effective or question


def _weighs_its_own(question: str, names: Names | None) -> bool:
    """Two things or more weighed ("那飞书和微信比呢"): a question of its own."""
    if names is None or not (_VERSUS_EDIT.search(question) or COMPARE.search(question)):
        return False
    return len(names(question)) >= 2


def _period_kept(question: str, previous: str, *, today: date, names: Names | None) -> str:
    """A short turn that weighs things of its own with no period ("那飞书和微信比呢"
    after "上周slack和zoom哪个用得多") is asked over the previous turn's period."""
    if names is None or len(question) > _SHORT or find_period(question, today=today):
        return question
    if not _weighs_its_own(question, names):
        return question
    old = find_period(previous, today=today)
    if old is None or old.span == (0, 0):
        return question
    return f"{question} {previous[old.span[0] : old.span[1]]}"
