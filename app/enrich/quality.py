"""Quality gates: what a model's answer must pass before it replaces anything.

Pure functions over text, one per kind of garbage a small model produces: a
scrap (too few words in the expected language, mostly punctuation or brackets,
JSON or template debris, an echoed prompt header), a
title that echoes the prompt's own example or header, an answer in the other
language, a summary that shares no content word with what was on screen, a
number that is not in the metrics, a date outside the period. Each returns the
problems it finds (empty: it passes); a problem is "what is wrong[: detail]",
so the part before the colon is a short reason to count and log.

    problems = echo_problems("Debugging the payment callback timeout", fixed=prompt, log=log)
    problems = scrap_problems("{{36},{", what="summary", language="en")   # rejected

A gate that cannot decide fails closed: a text with too few words to judge is a
scrap, and an answer checked against a source with no content words is refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import Literal

from app.text import CJK_CHARS, Language, language_of, tokenize
from app.timeutil import MONTH_NUMBERS

_PIECE = re.compile(f"[{CJK_CHARS}]+|[^\\W_{CJK_CHARS}]+")
_CJK = re.compile(f"[{CJK_CHARS}]")
_HEADER_TITLE = re.compile(r"^\s*(episode|activity log)\b|\d{4}-\d{2}-\d{2}", re.IGNORECASE)

# Words that say nothing about what was on screen, in either language.
_STOPWORDS = """a an the and or but of in on at to for from by with about into over after before
    during while as is are was were be been being this that these those it its their his her
    they them he she you your i we our not no yes do did does done has have had will would
    can could should may might also then than there here what which who when where how why
    all any some more most other such only own same so very just too up out off again once
    user person people someone they're using used use work worked working works session
    sessions episode episodes activity activities screen screens time spent spending period
    day week month app apps application window windows page pages browsing browsed viewing
    viewed looking looked various several different some general task tasks
    一个 一些 正在 进行 使用 用户 这个 那个 这些 时间 内容 活动 屏幕 期间 主要 相关 一段 一天
    """
STOPWORDS = frozenset(_STOPWORDS.split())


def _norm(text: str) -> str:
    return " ".join(text.casefold().split())


def _stem(token: str) -> str:
    """A light English stem, so "debugging" meets "debug" and "tests" meets "test"."""
    for suffix in ("ing", "ed", "es", "s"):
        if len(token) > len(suffix) + 3 and token.endswith(suffix):
            return token[: -len(suffix)]
    return token


def content_words(text: str) -> set[str]:
    """The words (CJK bigrams, stemmed Latin words) that carry meaning."""
    out = set()
    for token in tokenize(text):
        if token in STOPWORDS or token.isdigit():
            continue
        if not _CJK.search(token) and len(token) < 3:
            continue
        out.add(token if _CJK.search(token) else _stem(token))
    return out


def echo_problems(title: str, *, fixed: str, log: str) -> list[str]:
    """A title copied from the prompt's own text (its example, its header) rather than
    from the activity log."""
    norm = _norm(title).strip(" .:-—–·")
    if not norm:
        return ["the title is empty"]
    if _HEADER_TITLE.search(title) and norm not in _norm(log):
        return ["the title echoes the prompt's header: name what was done, not when"]
    if norm in _norm(fixed) and norm not in _norm(log):
        return ["the title echoes the prompt's instructions or example: describe this log"]
    return []


def own_words(answer: str, *, source: str) -> str:
    """The answer without the pieces it copied from the source (names, titles)."""
    words = set(tokenize(source))
    kept = [
        piece
        for piece in _PIECE.findall(answer)
        if not (piece in source if _CJK.search(piece) else piece.casefold() in words)
    ]
    return " ".join(kept)


_LANGUAGE_NAMES = {"zh": "Chinese", "en": "English"}


def language_problems(answer: str, *, expected: Language, source: str) -> list[str]:
    """An answer in the other language. Only the answer's own words count: app names,
    file names and titles copied from the log say nothing about its language."""
    own = own_words(answer, source=source)
    letters = sum(1 for ch in own if ch.isalpha())
    if letters < 3:
        return []
    got = language_of(own)
    if got == expected:
        return []
    return [
        f"wrong language: the episode's text is {_LANGUAGE_NAMES[expected]}, "
        f"the answer {_LANGUAGE_NAMES[got]}"
    ]


def overlap_problems(answer: str, *, source: str, what: str) -> list[str]:
    """An answer that shares no content word with its source: about something else.
    A source with no content word cannot vouch for anything: the gate fails closed."""
    wanted = content_words(source)
    if not wanted:
        return [f"nothing to check it against: {what} hold no content word"]
    if content_words(answer) & wanted:
        return []
    return [f"no content word in common with {what}: it is about something else"]


# -- scraps ------------------------------------------------------------------------------

Scrap = Literal["title", "summary", "narrative"]
# The fewest word characters in the expected language a text must hold to say anything
# at all. Titles and names of the other script count too (each language's text is full
# of them), weighted: four Latin letters to a CJK character, a CJK character as two.
MIN_WORD_CHARS: dict[Scrap, dict[Language, int]] = {
    "title": {"zh": 2, "en": 4},
    "summary": {"zh": 4, "en": 12},
    "narrative": {"zh": 4, "en": 12},
}
_LATIN_LETTER = re.compile(f"[^\\W\\d_{CJK_CHARS}]")
# Template and chat-format debris: placeholders, special tokens, role markers.
_TEMPLATE = re.compile(
    r"\{\{|\}\}|\{[a-z_]+\}|<\|[^|]*\|>|</?s>|\[/?INST\]|</?think>|^\s*(assistant|user|system)\s*:",
    re.IGNORECASE,
)
_JSON_KEY = re.compile(r'"\w+"\s*:')
# The labels of the prompts' own headers (the summary's episode header, the
# narrative's METRICS and SUMMARIES blocks): an answer that carries one echoes the prompt.
_PROMPT_HEADER = re.compile(
    r"^\s*episode \d{4}-\d\d-\d\d|category by time:|hours by category:|"
    r"^\s*(day|week|month) \d{4}-[\dW]+\s*$",
    re.IGNORECASE | re.MULTILINE,
)
_PROMPT_LABEL = re.compile(r"ACTIVITY LOG|^\s*(METRICS|SUMMARIES)\s*$", re.MULTILINE)


def word_chars(text: str, language: Language) -> int:
    """Word characters of `language` in the text, names in the other script weighted."""
    latin, cjk = len(_LATIN_LETTER.findall(text)), len(_CJK.findall(text))
    return cjk + latin // 4 if language == "zh" else latin + 2 * cjk


def _is_json(text: str) -> bool:
    stripped = text.strip()
    if stripped[:1] not in "{[" and stripped[-1:] not in "}]":
        return _JSON_KEY.search(stripped) is not None
    try:
        json.loads(stripped)
    except ValueError:
        return stripped[:1] in "{[" or _JSON_KEY.search(stripped) is not None
    return True


def scrap_problems(text: str, *, what: Scrap, language: Language) -> list[str]:
    """A title, summary or narrative that is not one: empty, too few words in the
    episode's language, mostly punctuation or brackets, JSON or template debris,
    or the prompt's own header echoed."""
    visible = "".join(text.split())
    if not visible:
        return [f"the {what} was empty"]
    problems = []
    if _is_json(text):
        problems.append(f"the {what} is JSON debris, not text")
    if _TEMPLATE.search(text):
        problems.append(f"the {what} holds template or chat-format debris")
    if _PROMPT_HEADER.search(text) or _PROMPT_LABEL.search(text):
        problems.append(f"the {what} echoes the prompt's header")
    marks = sum(1 for ch in visible if not ch.isalnum())
    if marks >= len(visible) - marks:  # no more letters and digits than marks
        problems.append(f"the {what} is mostly punctuation or brackets")
    need = MIN_WORD_CHARS[what][language]
    have = word_chars(text, language)
    if have < need:
        problems.append(
            f"too few words for a {what}: {have} {_LANGUAGE_NAMES[language]} word characters "
            f"(at least {need})"
        )
    return problems


# -- numbers ---------------------------------------------------------------------------

# Entered at the start of a digit run only, and never giving back what it took: linear.
_NUMBER = re.compile(
    r"(?<!\d)(\d++(?:\.\d++)?+)\s*+[-‑]?+\s*+"
    r"(个小时|小时|hours?|hrs?|h\b|分钟|minutes?|mins?|次|个 ?episodes?|episodes?|段|%)",
    re.IGNORECASE,
)
_HOURS = ("个小时", "小时", "hour", "hours", "hr", "hrs", "h")
_MINUTES = ("分钟", "minute", "minutes", "min", "mins")


@dataclass(frozen=True, slots=True)
class AllowedNumbers:
    """The numbers a text may state, by unit (what the metrics say)."""

    hours: frozenset[float] = frozenset()
    minutes: frozenset[float] = frozenset()
    counts: frozenset[float] = frozenset()
    percent: frozenset[float] = frozenset()


def wrong_numbers(text: str, allowed: AllowedNumbers, *, literal: str = "") -> list[str]:
    """Every number with a unit ("20.5-hour", "20.5小时", "3 次") that the allowed
    numbers do not hold; a number that `literal` (the source text) shows as written
    is allowed too."""
    wrong = []
    for match in _NUMBER.finditer(text):
        raw, unit = match.group(1), match.group(2).lower()
        if literal and re.search(rf"(?<![\d.]){re.escape(raw)}(?![\d.])", literal):
            continue
        value = float(raw)
        if unit in _HOURS:
            ok = any(abs(value - a) < 0.051 for a in allowed.hours)
        elif unit in _MINUTES:
            ok = any(abs(value - a) < 1.01 for a in allowed.minutes)
        elif unit == "%":
            ok = any(abs(value - a) <= 1 for a in allowed.percent)
        else:
            ok = value in allowed.counts
        if not ok:
            wrong.append(match.group(0))
    return wrong


def allowed_for_span(seconds: Mapping[str, float]) -> AllowedNumbers:
    """What a text about a span may say: each duration in hours (one decimal, or whole)
    and in minutes."""
    values = [s for s in seconds.values() if s > 0]
    hours = {round(s / 3600, 1) for s in values}
    return AllowedNumbers(
        hours=frozenset(hours | {float(round(h)) for h in hours}),
        minutes=frozenset(float(round(s / 60)) for s in values),
    )


# -- dates -------------------------------------------------------------------------------

_MONTH = "|".join(sorted(MONTH_NUMBERS, key=len, reverse=True))
_DATES = (
    # 2026-10-29
    (re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)"), ("y", "m", "d")),
    # 2026年10月29日, 10月29号
    (re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]"), ("y", "m", "d")),
    # October 29, 2026 / Oct 29th
    (
        re.compile(rf"\b({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}}))?", re.I),
        ("M", "d", "y"),
    ),
    # 29 October 2026
    (
        re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH})\b\.?(?:,?\s+(\d{{4}}))?", re.I),
        ("d", "M", "y"),
    ),
)


def dates_outside(text: str, *, first: date, last: date) -> list[str]:
    """Dates the text names that fall outside [first, last] (a date without a year
    takes the period's)."""
    outside: list[tuple[int, str]] = []
    for pattern, fields in _DATES:
        for match in pattern.finditer(text):
            parts = dict(zip(fields, match.groups(), strict=True))
            month = MONTH_NUMBERS[parts["M"].lower()] if parts.get("M") else int(parts["m"] or 0)
            years = [int(parts["y"])] if parts.get("y") else sorted({first.year, last.year})
            if not any(_within(year, month, int(parts["d"]), first, last) for year in years):
                outside.append((match.start(), match.group(0).strip()))
    return [found for _, found in sorted(outside)]


def _within(year: int, month: int, day: int, first: date, last: date) -> bool:
    try:
        return first <= date(year, month, day) <= last
    except ValueError:  # no such day: never inside
        return False
