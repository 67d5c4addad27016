"""The offline answerer: what `ask` gives with no chat model configured, or with the
model down. The question is read as parts (app/agent/parts.py: things from a lexicon
of the user's names, the time, the operation); the planner answers the operations it
knows with one or more tool calls (app/agent/operations.py), and the intent table
(app/agent/intents.py) the rest, its answer written by app/agent/render.py.

    answer = answer_offline(ctx, "这个月娱乐花了多少小时？")
    answer.intent.tool, answer.text, answer.calls
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from app.agent.cues import (
    CODING_NAMES,
    EXTRA_NAMES,
    MEETING_NAMES,
    NOT_NAMES,
    TITLE_VERBS,
    VAGUE_WORDS,
)
from app.agent.dates import find_clocks, named
from app.agent.followups import effective_question
from app.agent.intent_words import LAST_TIME, SEARCH
from app.agent.intents import Intent, _signal_kinds, parse_intent, summary_intent
from app.agent.lexicon import ACTIVE, Lexicon, Mention
from app.agent.operations import plan
from app.agent.parts import Parts, asks_yes_no, read_parts
from app.agent.planner import Call, Planned
from app.agent.render import render
from app.agent.spelling import mend_period_words
from app.rules.categories import CATEGORIES
from app.rules.things import loose
from app.text import Language, has_cjk, language_of
from app.tools import ToolContext, dispatch
from app.tools.periods import today_of
from app.tools.reads import NowResult, SignalsResult
from app.tools.recall import LastSeenResult
from app.tools.registry import output_tokens
from app.tools.results import ToolOutcome
from app.tools.stats import StatsResult


@dataclass(frozen=True, slots=True)
class OfflineAnswer:
    intent: Intent
    result: ToolOutcome
    text: str
    tokens: int  # estimated tokens of the tools' output
    calls: list[Call] = field(default_factory=list)  # every tool call, in order


def answer_offline(
    ctx: ToolContext, question: str, *, earlier: Sequence[str] = ()
) -> OfflineAnswer:
    """Answer with no model; `earlier` are the conversation's earlier questions, oldest
    first, so that a follow-up keeps their context."""
    user = ctx.user
    today = today_of(user, ctx.now)
    question = mend_period_words(question)
    earlier = [mend_period_words(text) for text in earlier]
    lexicon = Lexicon.of(ctx)
    asked = effective_question(question, earlier, today=today, names=lexicon.names_in)
    parts = read_parts(asked, lexicon=lexicon, today=today, cut_hour=user.day_cut_hour)
    parts = replace(parts, language=answer_language(question, parts.things, earlier))
    if plannable(parts):
        planned = plan(ctx, parts, today=today)
        if planned is not None and planned.calls:
            return _planned_answer(parts, planned)
    intent = parse_intent(
        asked,
        today=today,
        time_zone=user.time_zone,
        cut_hour=user.day_cut_hour,
        language=parts.language,
    )
    intent = named_by_lexicon(intent, parts.things, today=today, lang=parts.language)
    intent = own_category(intent, parts.things)
    intent = thing_asked(intent, parts, today=today)
    intent = replace(intent, minutes=parts.minutes, yes_no=asks_yes_no(asked))
    return _intent_answer(ctx, intent, today)


def own_category(intent: Intent, things: list[Mention]) -> Intent:
    """A kind's word the lexicon gave to one of the user's own categories ("game":
    Games, under entertainment): its hours asked as that category's."""
    if intent.kind != "category_hours" or len(things) != 1 or things[0].name in CATEGORIES:
        return intent
    own = things[0]
    if intent.mention is None or loose(intent.mention) != loose(own.text):
        return intent
    arguments = {k: v for k, v in intent.arguments.items() if k not in ("metric", "category")}
    return replace(
        intent,
        kind="thing_hours",
        arguments={"thing": own.name, **arguments},
        subject=own.text,
        mention=own.text,
    )


def answer_language(question: str, things: list[Mention], earlier: Sequence[str]) -> Language:
    """The question's language, judged without the names it mentions ("Slack 呢" is
    Chinese); a turn of names alone keeps the conversation's language."""
    rest = question
    for mention in things:
        rest = rest.replace(mention.text, " ")
    if has_cjk(rest):
        return "zh"
    if re.search(r"[A-Za-z]{2}", rest) or not earlier:
        return language_of(question)
    return language_of(earlier[-1])


def plannable(parts: Parts) -> bool:
    """Habits, "when did I last" with no period and single clock times (the moment on
    screen) stay with the intent table."""
    if _signal_kinds(parts.question):
        return False
    if LAST_TIME.search(parts.question) and parts.period is None:
        return False  # "when did I last …" with no period: last_seen, at any time
    ranged = parts.window is not None and not parts.window.part_of_day
    return len(find_clocks(parts.question)) != 1 or ranged


def _planned_answer(parts: Parts, planned: Planned) -> OfflineAnswer:
    first = planned.calls[0]
    intent = Intent(
        kind="planned",
        tool=first.tool,
        arguments=first.arguments,
        language=parts.language,
        period=planned.period,
    )
    tokens = sum(output_tokens(c.result) for c in planned.calls)
    return OfflineAnswer(intent, first.result, planned.text, tokens, calls=planned.calls)


# Names the lexicon maps that the resolver may not know: asked for by the lexicon's name.
EXTRA_KEYS = frozenset(loose(name) for name in (*EXTRA_NAMES, *CODING_NAMES, *MEETING_NAMES))
# Endings of English words that say what was done, not what with ("doing", "wasted").
_INFLECTED = re.compile(r"(?:ing|ed|ly|ful)$")


def looks_like_a_name(words: str) -> bool:
    """A capitalised or Chinese word, a domain, a word with digits, or one lowercase
    word of five letters or more that is no inflected English word ("photoshop",
    "minecraft"), or two to four plain words none of them vague ("league of
    legends"): what "I don't know X" may be said of. Other lowercase words ("doing
    stuff", "random stuff") are not names."""
    split = words.split()
    for word in split:
        if has_cjk(word) or "." in word or any(c.isdigit() for c in word):
            return True
        if word[:1].isupper() and loose(word) not in NOT_NAMES:
            return True
    if len(split) == 1 and split[0].isascii() and split[0].isalpha() and len(split[0]) >= 5:
        return _a_name_word(split[0].lower()) and split[0].lower() not in VAGUE_WORDS
    # A few plain words, none vague or a verb: "league of legends", "final cut pro".
    if 2 <= len(split) <= 4 and all(w.isascii() and w.isalpha() and len(w) >= 3 for w in split):
        return all(_a_name_word(w.lower()) and w.lower() not in VAGUE_WORDS for w in split)
    return False


def _a_name_word(low: str) -> bool:
    return low not in NOT_NAMES and low not in TITLE_VERBS and not _INFLECTED.search(low)


def named_by_lexicon(
    intent: Intent, things: list[Mention], *, today: date, lang: Language
) -> Intent:
    """The intent with its thing as the lexicon read it: leftover words ("minutes
    Slack", "day before") are no name when the question names a thing the user has."""
    mention = intent.arguments.get("thing")
    if not isinstance(mention, str) or mention == "idle":
        return intent
    if not things:
        if intent.kind == "thing_hours" and not looks_like_a_name(mention):
            # Leftover words ("doing stuff") are no name: the period alone was asked.
            return summary_intent(intent.period or named("today", today=today), language=lang)
        return intent
    same = [m for m in things if not m.typo and loose(mention) in (loose(m.text), loose(m.name))]
    if same and same[0].name != ACTIVE and (same[0].title or loose(same[0].text) in EXTRA_KEYS):
        # A name the resolver lacks ("genshin", 油管) or a title as its records write it
        # ("EM-LLM", not "EM LLM"): asked for by the lexicon's name.
        arguments = {**intent.arguments, "thing": same[0].name}
        return replace(intent, arguments=arguments)
    if same:
        return intent
    if len({m.name for m in things}) != 1:
        return intent
    found = things[0]
    if found.name == ACTIVE:
        arguments = {k: v for k, v in intent.arguments.items() if k != "thing"}
        if intent.kind != "thing_hours":
            return intent
        return replace(
            intent,
            kind="active_hours",
            arguments={"metric": "active_seconds", **arguments},
            subject=None,
            mention=None,
        )
    arguments = {**intent.arguments, "thing": found.name}
    return replace(intent, arguments=arguments, subject=found.text, mention=found.text)


def thing_asked(intent: Intent, parts: Parts, *, today: date) -> Intent:
    """A name the user has, with no cue to search for it ("slack time?", 油管看了多少):
    its hours over the period, today when none is named, rather than a search."""
    named_things = [m for m in parts.things if not m.title]
    if intent.kind != "search" or len({m.name for m in named_things}) != 1:
        return intent
    mention = named_things[0]
    rest = parts.question.replace(mention.text, " ")
    if mention.name == ACTIVE or SEARCH.search(parts.question) or not re.search(r"\w", rest):
        return intent  # the name alone ("Coursera"): what of it is not asked, so search
    spec = parts.period or named("today", today=today)
    return Intent(
        kind="thing_hours",
        tool="query_stats",
        arguments={"thing": mention.name, **spec.arguments()},
        language=intent.language,
        period=spec,
        subject=mention.text,
        mention=mention.text,
        defaulted=parts.period is None,
    )


def _rework_widened(
    ctx: ToolContext, intent: Intent, result: ToolOutcome
) -> tuple[Intent, ToolOutcome]:
    """Rework asked about and none found: a forced rollback is rework too (返工 after
    `git reset --hard`), so the same period is read again for both."""
    if intent.kinds != ("rework",) or not isinstance(result, SignalsResult) or result.items:
        return intent, result
    kinds = ("rework", "forced_rollback")
    widened = replace(intent, kinds=kinds, arguments={**intent.arguments, "kinds": list(kinds)})
    return widened, dispatch(ctx, widened.tool, widened.arguments)


def _seen_in_titles(
    ctx: ToolContext, intent: Intent, result: ToolOutcome
) -> tuple[Intent, ToolOutcome]:
    """A name the resolver knows (原神 is a game) that the user's records hold only in
    window titles (原神 on bilibili): "when did I last …" is asked of the titles."""
    thing = intent.arguments.get("thing")
    if intent.tool != "last_seen" or not isinstance(result, LastSeenResult) or result.found:
        return intent, result
    if not isinstance(thing, str) or thing == "idle":
        return intent, result
    titled = dispatch(ctx, "last_seen", {"title": thing})
    if not isinstance(titled, LastSeenResult) or not titled.found:
        return intent, result
    return replace(intent, arguments={"title": thing}), titled


def _counted_in_titles(
    ctx: ToolContext, intent: Intent, result: ToolOutcome
) -> tuple[Intent, ToolOutcome]:
    """A name the resolver knows (原神 is a game) with no time of its own, that the
    user's titles hold (原神 in a video's title): "how long" is asked of that title."""
    thing = intent.arguments.get("thing")
    if intent.kind != "thing_hours" or not isinstance(thing, str) or thing == "idle":
        return intent, result
    if not isinstance(result, StatsResult) or result.seconds != 0:
        return intent, result
    phrase = Lexicon.of(ctx).title_holding(thing)
    if phrase is None:
        return intent, result
    arguments = {**intent.arguments, "thing": phrase}
    titled = dispatch(ctx, "query_stats", arguments)
    if not isinstance(titled, StatsResult) or not titled.seconds:
        return intent, result
    return replace(intent, arguments=arguments, subject=thing, mention=thing), titled


def _intent_answer(ctx: ToolContext, intent: Intent, today: date) -> OfflineAnswer:
    result = dispatch(ctx, intent.tool, intent.arguments)
    intent, result = _rework_widened(ctx, intent, result)
    intent, result = _seen_in_titles(ctx, intent, result)
    intent, result = _counted_in_titles(ctx, intent, result)
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
        calls=[Call(intent.tool, intent.arguments, result)],
    )


def _newest_day(ctx: ToolContext) -> str | None:
    """When the newest record began (local "YYYY-MM-DD HH:MM"), from get_now."""
    now = dispatch(ctx, "get_now", {"records": 1})
    if not isinstance(now, NowResult) or not now.items:
        return None
    return now.items[0].at[:16] or None
