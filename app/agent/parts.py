"""A question read as parts, each found on its own anywhere in the sentence: the
things it names (app/agent/lexicon.py), the time (a period from app/agent/dates.py,
a window inside days from app/agent/windows.py) and the operation its cue words
pick (app/agent/cues.py), with a count ("top 3") or a threshold ("over 45 minutes").

    read_parts("what percent of 2026-11-16 was entertainment", lexicon=..., today=..., cut_hour=4)
    # Parts(things=[Mention("entertainment")], period=PeriodSpec(...), operation="share")
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from app.agent import cues
from app.agent.cues import CODING_GROUP, MEETING_GROUP
from app.agent.dates import PeriodSpec, find_period, spoken_number
from app.agent.lexicon import ACTIVE, Lexicon, Mention
from app.agent.windows import Window, find_window
from app.rules.categories import CATEGORIES
from app.text import Language, language_of

Operation = Literal[
    "amount", "each", "share", "average", "top", "days", "contest", "together", "threshold",
    "window", "first", "last", "every_day", "periods",
]  # fmt: skip


def cue(words: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for cue words: Chinese anywhere, English as whole words."""
    parts = [re.escape(w) if not w.isascii() or not w[0].isalnum()
             else rf"(?<![A-Za-z0-9]){re.escape(w)}(?![A-Za-z0-9])"  # "学习vs娱乐" too
             for w in sorted(words, key=len, reverse=True)]  # fmt: skip
    return re.compile("|".join(parts), re.IGNORECASE)


SHARE, AVERAGE, TOP, SITES = cue(cues.SHARE), cue(cues.AVERAGE), cue(cues.TOP), cue(cues.SITES)
CATEGORY_RANK = cue(cues.CATEGORY_RANK)
DAYS, NEGATION, CONTEST = cue(cues.DAYS), cue(cues.NEGATION), cue(cues.CONTEST)
TOGETHER, OVER, UNDER = cue(cues.TOGETHER), cue(cues.OVER), cue(cues.UNDER)
SO_FAR, PAST_WEEK = cue(cues.SO_FAR), cue(cues.PAST_WEEK)
FIRST, LAST_IN_PERIOD = cue(cues.FIRST), cue(cues.LAST_IN_PERIOD)
FIRST_TIME = cue(cues.FIRST_TIME)
PEAK, ONE = cue(cues.PEAK), cue(cues.ONE)
HOW_MUCH, EVERY_DAY = cue(cues.HOW_MUCH), cue(cues.EVERY_DAY)
RANKED, SUPERLATIVE = cue(cues.RANKED_GROUPS), cue(cues.SUPERLATIVE)
CLOCK_ASKED, WHAT_DONE = cue(cues.CLOCK_ASKED), cue(cues.WHAT_DONE)
# Two periods weighed: "this week compared to last week", "这周比上周".
_VERSUS = re.compile(r"\b(?:compared|than|vs|versus|or)\b|比|对比|相比|还是", re.IGNORECASE)
# A yes/no question opens with its verb ("did I …", never "what was I …") or asks 吗.
_YES_NO = re.compile(
    rf"^\W*(?:{'|'.join(w for w in cues.YES_NO if w.isascii())})\b"
    rf"|{'|'.join(w for w in cues.YES_NO if not w.isascii())}"
    r"|\bany\b(?!\s+(?:apps?|sites?|days?|time)\b)",  # "this week any rework?"
    re.IGNORECASE,
)
_UNITS = "|".join(re.escape(u) for u in (*cues.HOURS_WORDS, *cues.MINUTES_WORDS))
# Each starts only where its run of digits starts (never inside one): linear time.
_AMOUNT = re.compile(
    rf"(?P<n>(?<![\d.])\d+(?:\.\d+)?|半|(?<![一两二三四五六七八九十])[一两二三四五六七八九十]+|an?|one|two|three|four|five|six)"
    rf"\s*(?:个)?\s*(?P<unit>{_UNITS})(?![a-z])",
    re.IGNORECASE,
)
# "40+ min", "2h+", "1小时以上", "an hour or more": a floor written after its amount.
_PLUS_AMOUNT = re.compile(
    rf"(?P<n>(?<![\d.])\d+(?:\.\d+)?)\s*\+\s*(?P<unit>{_UNITS})(?![a-z])"
    rf"|(?P<n2>(?<![\d.])\d+(?:\.\d+)?|半|[一两二三四五六七八九十]+|an?|one|two|three)\s*(?:个)?"
    rf"\s*(?P<unit2>{_UNITS})(?![a-z])\s*(?:\+|or more\b|plus\b|以上|或以上)",
    re.IGNORECASE,
)
_TOP_N = re.compile(
    r"(?<![A-Za-z])top\s*(?P<en>\d+(?![\d.])|(?:three|five|ten|two|four)\b)"
    r"|前\s*(?P<zh>\d+|[一两二三四五六七八九十]+)\s*(?:个|名)?"
    r"|(?P<most>(?<!\d)\d+|(?<![一两二三四五六七八九十])[一两二三四五六七八九十]+)"
    r"\s*(?:个|款)?\s*(?:most|biggest|largest|longest|top|最)"
    r"|最(?:多|常用|久|长)的\s*(?P<zhmost>\d+|[一两二三四五六七八九十]+)\s*(?:个|款|名)",
    re.IGNORECASE,
)
# "How much of yesterday / of last week was …": the period's words are blanked here.
_SHARE_OF = re.compile(r"\bhow much of\s{2,}|\bhow much of\s*$", re.IGNORECASE)
_MINUTES_ASKED = re.compile(r"\bminutes?\b|\bmins?\b|分钟", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Parts:
    """What a question gives: things, a period and a window, an operation."""

    question: str
    language: Language
    things: list[Mention] = field(default_factory=list)
    period: PeriodSpec | None = None
    window: Window | None = None
    operation: Operation = "amount"
    top_n: int | None = None
    sites: bool = False
    categories: bool = False  # a ranking of categories ("biggest category")
    negated: bool = False
    threshold_minutes: float | None = None
    under: bool = False  # the threshold is a ceiling ("under 30 minutes")
    listed: bool = True  # days: list them (which days) rather than count them
    minutes: bool = False  # the question asks in minutes
    so_far: bool = False
    peak: bool = False  # the one day with the most ("哪天…最多")
    second_period: PeriodSpec | None = None  # "this week compared to last week"
    one: bool = False  # one app or site asked for, not a list


def _minutes_of(match: re.Match[str]) -> float:
    found = match.groupdict()
    raw, unit = (found.get("n") or found["n2"]).lower(), found.get("unit") or found["unit2"]
    n = 0.5 if raw == "半" else float(raw) if raw[0].isdigit() else 1.0
    if not raw[0].isdigit() and raw not in ("a", "an", "半"):
        n = float(spoken_number(raw))
    hours = unit.lower() in cues.HOURS_WORDS
    return n * 60 if hours else n


def _threshold(question: str) -> tuple[float | None, bool]:
    """The minutes a threshold names ("over 45 minutes", "超过2小时", "40+ min"), and
    whether it is a ceiling."""
    for pattern, under in ((OVER, False), (UNDER, True)):
        for match in pattern.finditer(question):
            amount = _AMOUNT.search(question, match.end(), match.end() + 16)
            if amount is not None:
                return _minutes_of(amount), under
    for amount in _PLUS_AMOUNT.finditer(question):
        return _minutes_of(amount), False
    return None, False


def asks_threshold(question: str) -> bool:
    """Whether the question names a threshold ("超过5小时了吗", "under 2 hours?")."""
    return _threshold(question)[0] is not None


def _top_n(question: str) -> int | None:
    match = _TOP_N.search(question)
    if match is None:
        return None
    raw = match["en"] or match["zh"] or match["most"] or match["zhmost"]
    return max(1, min(50, spoken_number(raw)))


def _operation(question: str, things: list[Mention], threshold: float | None) -> Operation:
    """The operation the cue words pick, most specific first."""
    named = len({m.name for m in things})
    yes_no = asks_yes_no(question)
    if FIRST_TIME.search(question) and named <= 1:
        return "first"
    if DAYS.search(question):
        return "days"
    if yes_no and named == 1 and EVERY_DAY.search(question) and "平均" not in question:
        return "every_day"
    if FIRST.search(question) and named <= 1:
        return "first"
    if LAST_IN_PERIOD.search(question) and named <= 1:
        return "last"
    if CLOCK_ASKED.search(question) and named == 1:
        return "first"
    if (SHARE.search(question) or _SHARE_OF.search(question)) and named >= 1:
        return "share"
    if AVERAGE.search(question):
        return "average"
    if _top_n(question) is not None or (named == 0 and ranks(question)):
        return "top"
    if named >= 2 and TOGETHER.search(question):
        return "together"
    if named >= 2 and CONTEST.search(question):
        return "contest"
    if named == 1 and (threshold is not None or yes_no):
        return "threshold"  # no threshold: "did I open Steam yesterday?" (over 0)
    if named >= 2:
        return "each"
    return "amount" if named else "window"


def _apps_of_window(text: str, things: list[Mention], operation: Operation) -> bool:
    """What was done inside a window, asked of the screen or as a list of apps ("what
    was on my screen friday evening", "9-11am what apps"): its apps by time."""
    if _top_n(text) is not None or not WHAT_DONE.search(text):
        return False
    screen = bool(things) and all(m.name == ACTIVE for m in things)
    return (operation == "amount" and screen) or (operation == "top" and not things)


def ranks(question: str) -> bool:
    """Whether the question asks for a ranking: a ranking cue ("top", 排行), or what is
    ranked with a superlative anywhere ("which site … most", 哪个分类时间最长)."""
    return bool(TOP.search(question)) or bool(
        RANKED.search(question) and SUPERLATIVE.search(question)
    )


# "no. of days" is the number of days, no negation.
_NUMBER_OF = re.compile(r"\bno\.?\s+of\b", re.IGNORECASE)
_BESIDE = re.compile(r"[\s(（]*(?:on|at|with|using|in|用|在|看)?[\s(（]*", re.IGNORECASE)
_ACTIVITY = frozenset(w.lower() for w in cues.ACTIVITY_WORDS)


def _doing_dropped(text: str, things: list[Mention]) -> list[Mention]:
    """An activity word beside an app or site says what was done with it, not a
    second thing ("arxiv reading", "code in vs code", 用微信读书看书): the app or site
    alone. So does one activity word and one app anywhere in a question that weighs
    or joins nothing ("写代码的 vsc", "打游戏(steam)", "stop working (last vscode)")."""
    ordered = sorted(things, key=lambda m: m.span)
    dropped: set[int] = set()
    for k, mention in enumerate(ordered):
        if not _an_activity(mention):
            continue
        beside = [ordered[j] for j in (k - 1, k + 1) if 0 <= j < len(ordered)]
        for other in beside:
            first, second = sorted((mention, other), key=lambda m: m.span)
            gap = text[first.span[1] : second.span[0]]
            if _a_named_app(other) and _BESIDE.fullmatch(gap):
                dropped.add(k)
    if dropped:
        return [m for k, m in enumerate(ordered) if k not in dropped]
    if len(ordered) == 2 and not (CONTEST.search(text) or TOGETHER.search(text)):
        first, second = ordered
        joined = _JOINED.search(text[first.span[1] : second.span[0]])
        for doing, app in ((first, second), (second, first)):
            if not joined and _an_activity(doing) and _a_named_app(app):
                return [app]
    return things


_DOINGS = (MEETING_GROUP, CODING_GROUP)  # groups said as what was done: 开会, 写代码
# Words that join two things into one question about both ("coding and youtube").
_JOINED = re.compile(r"\band\b|\bplus\b|[和跟与及+&]", re.IGNORECASE)


# An app given as an example of a category: "system stuff (finder etc)", 社交（比如微信）.
_EXAMPLE_OPENS = re.compile(
    r"^(?:\s*[A-Za-z]+){0,2}\s*[(（]\s*(?P<eg>e\.?g\.?,?|like|such as|比如|例如|像)?\s*$",
    re.IGNORECASE,
)
_EXAMPLE_ENDS = re.compile(r"^\s*(?P<etc>etc\.?|and so on|等等?|之类的?)?\s*[)）]", re.IGNORECASE)


def _examples_dropped(text: str, things: list[Mention]) -> list[Mention]:
    """Apps named in brackets after a category as examples of it: the category alone."""
    ordered = sorted(things, key=lambda m: m.span)
    kept = list(ordered)
    for first, second in itertools.pairwise(ordered):
        if first.name not in CATEGORIES or not _a_named_app(second):
            continue
        opens = _EXAMPLE_OPENS.match(text[first.span[1] : second.span[0]])
        ends = _EXAMPLE_ENDS.match(text[second.span[1] :])
        if opens and ends and (opens["eg"] or ends["etc"]) and second in kept:
            kept.remove(second)  # said as an example: "(finder etc)", "(比如微信)"
    return kept if len(kept) != len(ordered) else things


def _a_named_app(mention: Mention) -> bool:
    return mention.name not in CATEGORIES and mention.name not in (ACTIVE, "idle", *_DOINGS)


def _an_activity(mention: Mention) -> bool:
    """ "reading", "coding", 看书, 开会 (a category or the meetings said as what was
    done): not "work" in "X in work"."""
    if mention.name not in CATEGORIES and mention.name not in _DOINGS:
        return False
    word = mention.text.lower()
    return word.endswith("ing") or word in _ACTIVITY


def asks_yes_no(question: str) -> bool:
    """Whether the question wants a yes or a no ("did I …", "…了吗", 有没有), not how much."""
    return bool(_YES_NO.search(question)) and not HOW_MUCH.search(question)


def read_parts(question: str, *, lexicon: Lexicon, today: date, cut_hour: int) -> Parts:
    """The parts of one question, each found on its own."""
    period = find_period(question, today=today)
    window = find_window(question, cut_hour=cut_hour)
    text = question
    for span in [s for s in (period and period.span, window and window.span) if s]:
        text = text[: span[0]] + " " * (span[1] - span[0]) + text[span[1] :]
    things = _doing_dropped(text, _examples_dropped(text, lexicon.find(text)))
    threshold, under = _threshold(question)
    operation = _operation(text, things, threshold)  # cues outside the time words
    second = find_period(text, today=today) if period is not None else None
    if second is not None and len(things) <= 1 and _VERSUS.search(text):
        operation = "periods"
    if window is not None and _apps_of_window(text, things, operation):
        operation = "window"
    listed = not re.search(
        r"how many|几天|多少天|天数|number of|\b(?:n|no\.?|num|count) of days",
        question,
        re.IGNORECASE,
    )
    return Parts(
        question=question,
        language=language_of(question),
        things=things,
        period=period,
        window=window,
        operation=operation,
        top_n=_top_n(question),
        sites=bool(SITES.search(question)),
        categories=bool(CATEGORY_RANK.search(question)),
        negated=bool(NEGATION.search(_NUMBER_OF.sub(" ", question))),
        threshold_minutes=threshold,
        under=under,
        listed=listed,
        minutes=bool(_MINUTES_ASKED.search(question)) and threshold is None,
        so_far=bool(SO_FAR.search(question)),
        peak=bool(PEAK.search(text)),
        second_period=second,
        one=bool(ONE.search(text)),
    )
