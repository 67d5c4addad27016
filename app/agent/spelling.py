"""Period words as people type them: short forms ("last wk", "yday"), words run
together ("lastweek") and typos ("yesterady", "lsat week", "last weeek"; "tiem" and
"housr" for time and hours) are written back as the word before a question is read,
so that a slip of the keyboard never falls back to today.

A short period word (four letters or fewer: last, this, week) is corrected only from
its own letters swapped or a letter doubled ("lsat", "weeek"), never from a different
word one letter away ("list", "then"); a longer one from one edit (two from seven
letters) of a word with the same first letter that is no other known word.
"""

from __future__ import annotations

import re
from typing import Final

from app.agent.cues import NOT_NAMES
from app.agent.lexicon import edit_distance

SHORT_FORMS: Final[dict[str, str]] = {
    "wk": "week", "wks": "weeks", "yday": "yesterday", "yest": "yesterday",
    "mth": "month", "mths": "months", "mnth": "month", "tdy": "today",
    "lastweek": "last week", "thisweek": "this week", "lastmonth": "last month",
    "thismonth": "this month", "lastnight": "last night", "2day": "today",
}  # fmt: skip
PERIOD_WORDS: Final[tuple[str, ...]] = (
    "yesterday", "today", "week", "weeks", "weekend", "month", "months", "last", "this",
    "previous", "before", "time", "hours",
)  # fmt: skip
_WORD = re.compile(r"[A-Za-z]+")


def _doubled(word: str, target: str) -> bool:
    """`word` is `target` with one letter typed twice or more ("weeek")."""
    squeezed = re.sub(r"(.)\1+", r"\1", word)
    return squeezed == re.sub(r"(.)\1+", r"\1", target) and word != target


def _swapped(word: str, target: str) -> bool:
    """`word` is `target` with two neighbouring letters swapped ("lsat")."""
    return sorted(word) == sorted(target) and edit_distance(word, target, 1) == 1


def period_word(word: str) -> str | None:
    """The period word `word` is a short form or a typo of, or None."""
    low = word.lower()
    if low in SHORT_FORMS:
        return SHORT_FORMS[low]
    if low in NOT_NAMES or low in PERIOD_WORDS or len(low) < 4:
        return None
    for target in PERIOD_WORDS:
        if len(target) <= 5:
            if _swapped(low, target) or _doubled(low, target):
                return target
        elif low[0] == target[0]:
            most = 2 if len(target) >= 7 else 1
            if edit_distance(low, target, most) <= most:
                return target
    return None


def mend_period_words(question: str) -> str:
    """The question with every period word written as the word itself."""
    return _WORD.sub(lambda m: period_word(m.group()) or m.group(), question)
