"""CJK-aware text helpers, one of each: the CJK character ranges, the FTS
tokenizer, the token estimator and the Chinese-or-English guess.

Chinese has no spaces, so PostgreSQL's parsers see a whole sentence as one word.
Every text that is indexed or searched goes through `tokenize()`: CJK runs become
overlapping character bigrams, other scripts lower-cased words, URLs host and
path words. The result is fed to `to_tsvector('simple', …)`; queries use the
same function, so both sides agree.

    >>> tokenize("修复登录 bug https://github.com/acme/api")
    ['修复', '复登', '登录', 'bug', 'github', 'com', 'acme', 'api', 'github.com']
"""

from __future__ import annotations

import functools
import math
import re
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator

# Han, Hiragana/Katakana, Hangul, CJK punctuation-free letter ranges: the inside of
# a regex character class, for every pattern that needs to tell CJK text apart.
CJK_CHARS = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf"  # CJK Extension A
    "\u4e00-\u9fff"  # CJK Unified Ideographs
    "\uac00-\ud7af"  # Hangul syllables
    "\uf900-\ufaff"  # CJK Compatibility Ideographs
    "\U00020000-\U0002ffff"  # Extensions B-F
)
_CJK_RUN = re.compile(f"[{CJK_CHARS}]+")
_URL = re.compile(r"\b(?:https?://|www\.)[^\s<>\"']+", re.IGNORECASE)
# Words of other scripts: letters and digits, no underscore (PostgreSQL's parser splits on it).
_WORD = re.compile(f"[^\\W_{CJK_CHARS}]+")
_PIECE = re.compile(f"[{CJK_CHARS}]+|[^\\W_{CJK_CHARS}]+")
_LETTER = re.compile(f"[A-Za-z{CJK_CHARS}]")

Language = Literal["zh", "en"]


def has_cjk(text: str) -> bool:
    """True when the text holds at least one CJK character."""
    return _CJK_RUN.search(text) is not None


def language_of(text: str) -> Language:
    """'zh' when at least a fifth of the letters are CJK characters."""
    letters = len(_LETTER.findall(text))
    cjk = sum(len(run) for run in _CJK_RUN.findall(text))
    return "zh" if letters and cjk / letters >= 0.2 else "en"


def _cjk_bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def canonical_domain(url: str | None) -> str | None:
    """Lower-case host of a URL without `www.` or port; None when there is none."""
    if not url:
        return None
    return _domain(url)


@functools.lru_cache(maxsize=65_536)  # a page's URL comes back record after record
def _domain(url: str) -> str | None:
    text = url.strip()
    if "://" not in text:
        text = "http://" + text
    try:
        host = urlsplit(text).hostname
    except ValueError:
        return None
    if not host:
        return None
    host = host.lower().rstrip(".")
    return host.removeprefix("www.") or None


def _url_tokens(url: str) -> list[str]:
    domain = canonical_domain(url)
    rest = url.split("://", 1)[-1]
    rest = rest.split("/", 1)[1] if "/" in rest else ""
    tokens = _text_tokens((domain or "").replace(".", " ") + " " + rest)
    if domain:
        tokens.append(domain)
    return tokens


def _text_tokens(text: str) -> list[str]:
    tokens: list[str] = []
    for piece in _PIECE.findall(text):
        if _CJK_RUN.fullmatch(piece):
            tokens.extend(_cjk_bigrams(piece))
        else:
            tokens.append(piece.lower())
    return tokens


def tokenize(text: str | None) -> list[str]:
    """Search tokens of a text: CJK bigrams, lower-cased words, URL host and path words."""
    if not text:
        return []
    tokens: list[str] = []
    last = 0
    for match in _URL.finditer(text):
        tokens.extend(_text_tokens(text[last : match.start()]))
        tokens.extend(_url_tokens(match.group(0)))
        last = match.end()
    tokens.extend(_text_tokens(text[last:]))
    return tokens


def fts_document(*parts: str | None) -> str:
    """The text to pass to `to_tsvector('simple', …)` for the given fields."""
    return " ".join(token for part in parts for token in tokenize(part))


def keyword_terms(text: str) -> list[tuple[str, ...]]:
    """The terms of a search box, each as its tokens (duplicates dropped).

    A term matches a document when all its tokens do (the bigrams of a Chinese
    word, the words of a URL); any term may match, and ranking puts documents
    matching more terms first.
    """
    terms: list[tuple[str, ...]] = []
    for word in text.split():
        tokens = tuple(dict.fromkeys(tokenize(word)))
        if tokens and tokens not in terms:
            terms.append(tokens)
    return terms


_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
_SPACE = re.compile(r"\s+")


def estimate_tokens(text: str | None) -> int:
    """A conservative LLM token count for Chinese and English alike.

    BPE tokenizers of current models (Qwen, GPT-4o) spend about one token per
    CJK character and about one per four ASCII letters; punctuation and other
    symbols (JSON is full of them) are counted one each. The estimate errs high
    so that a cap computed from it holds for the real tokenizer.
    """
    if not text:
        return 0
    cjk = sum(len(run) for run in _CJK_RUN.findall(text))
    rest = _CJK_RUN.sub(" ", text)
    words = _ASCII_WORD.findall(rest)
    ascii_tokens = sum(math.ceil(len(word) / 4) for word in words)
    others = len(_SPACE.sub("", _ASCII_WORD.sub("", rest)))
    return cjk + ascii_tokens + others


# Live parts of window titles that change while the activity does not: unread and
# notification counters, clocks, unsaved-file markers, "— 3 failed" style tails.
# Each is linear in the title: a run of spaces is entered at its start only (the
# cleaned title's spaces are collapsed afterwards anyway), possessive runs never give back.
_TITLE_NOISE = (
    re.compile(r"^\s*[\(（\[]\d+[\)）\]]\s*"),  # "(3) Inbox"
    re.compile(r"[\(（\[]\s*+\d++[^\(\)（）\[\]]{0,20}+[\)）\]]"),  # "项目群（12）", "(3 messages)"
    re.compile(r"\b\d{1,2}:\d{2}(:\d{2})?\s*([ap]\.?m\.?)?", re.IGNORECASE),  # clocks
    re.compile(r"^[●•*]\s*"),  # unsaved marker
    re.compile(r"(?<!\s)\s+[—–-]\s+\d+\s+(failed|passed|errors?|warnings?)\b.*$", re.IGNORECASE),
)


@functools.lru_cache(maxsize=8_192)
def normalize_title(title: str) -> str:
    """A window title without its live counters and clocks, for grouping and display.
    Cached: a title stays on screen for many records (a build meets it again and again);
    a few thousand entries of at most 4 KiB each bound the memory."""
    out = title[:4_096]  # the most any pattern sees (app.patterns.MAX_PATTERN_CHARS)
    for pattern in _TITLE_NOISE:
        out = pattern.sub(" ", out)
    return " ".join(out.split())


def storable(value: str) -> str:
    """Refuse text PostgreSQL cannot store as it is: a NUL character (stripping it would
    quietly turn one key into another) or a lone surrogate (not encodable)."""
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("is not valid Unicode text (lone surrogate)") from exc
    return value


# A pydantic string field that reaches the database: refused with a message naming it.
StorableStr = Annotated[str, AfterValidator(storable)]
