"""Words of the user's window titles as things: a file, a page, a paper, a song
("segmenter.py", "迁移说明.md", "attention is all you need", "Hades", "原神").

Each title is cut at its separators (" - ", "|", "·", brackets, quotes) into pieces,
and every run of up to MAX_TOKENS words (CJK characters) of a piece is a phrase the
question may name. A phrase never starts or ends with a word that names nothing
("is", "the", "my") or a CJK particle, a lone Latin word has four letters or more,
and a CJK phrase two characters or more: "lofi", "pytest" and "git revert" are
phrases, "的" and "on" are not. The lexicon holds them below every other name, so
"Slack" in a title stays the app.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Final

from app.agent.cues import COMMON_SHORT, NOT_NAMES, TITLE_VERBS
from app.text import CJK_CHARS

MAX_TOKENS = 6
MAX_TITLES = 3000
_PIECES = re.compile(r"\s[-–—|·•]\s|[|·•()（）\[\]【】《》“”\"「」『』:：,，;；!！?？/]")
_TOKEN = re.compile(rf"[A-Za-z0-9]+(?:[.'’+#_-][A-Za-z0-9]+)*[+#]*|[{CJK_CHARS}]")
_CJK = re.compile(rf"[{CJK_CHARS}]")
_INNER = re.compile(r"[A-Za-z]+")
# CJK characters a phrase never starts or ends with: particles and cue characters.
_CJK_EDGES: Final[frozenset[str]] = frozenset(
    "的了在是和与及或也就都吗呢吧啊我你他她它这那个一多少久几天哪"
)


def _edge_ok(token: str) -> bool:
    low = token.lower()
    if _CJK.fullmatch(token):
        return token not in _CJK_EDGES
    return low not in NOT_NAMES and low not in TITLE_VERBS


def _phrases(piece: str) -> Iterator[str]:
    tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(piece)]
    for i, (start, _) in enumerate(tokens):
        if not _edge_ok(piece[start : tokens[i][1]]):
            continue
        for j in range(i, min(len(tokens), i + MAX_TOKENS)):
            end = tokens[j][1]
            text = piece[start:end]
            if not _edge_ok(piece[tokens[j][0] : end]):
                continue
            if text.lower() in TITLE_VERBS:
                continue  # 复习 beside a title is what was done, not the title
            if j > i or (not _CJK.match(text) and len(text) >= 4):
                yield text  # several words, or one Latin word of four letters or more
        yield from _inner_words(piece[start : tokens[i][1]])


def _inner_words(token: str) -> Iterator[str]:
    """The words of a compound file name ("invoice_2026_3.pdf": invoice), each of
    four letters or more, that the question may name alone."""
    inner = _INNER.findall(token)
    if len(inner) > 1:
        yield from (w for w in inner if len(w) >= 4 and w.lower() not in NOT_NAMES)


def title_phrases(titles: Iterable[str]) -> set[str]:
    """Every phrase of the titles a question may name a title by."""
    found: set[str] = set()
    for title in titles:
        for piece in _PIECES.split(title):
            found.update(_phrases(piece))
            found.update(_whole(piece))
    return found


# A short proper name in a title ("Direct message with Lin"): capitalised, three letters.
_PROPER = re.compile(r"(?<![A-Za-z0-9])[A-Z][a-z]{2}(?![A-Za-z0-9])")


def proper_names(titles: Iterable[str]) -> dict[str, str]:
    """Short proper names of the titles (a person: "Lin"), each with the one title piece
    it stands in ("Direct message with Lin"). A name found in several pieces is left
    out, and so is a common word written with a capital ("The", "Fix", "New")."""
    pieces: dict[str, set[str]] = {}
    for title in titles:
        for piece in _PIECES.split(title):
            for word in _PROPER.findall(piece):
                low = word.lower()
                if low not in NOT_NAMES and low not in TITLE_VERBS and low not in COMMON_SHORT:
                    pieces.setdefault(word, set()).add(piece.strip())
    return {word: next(iter(found)) for word, found in pieces.items() if len(found) == 1}


def _whole(piece: str) -> Iterator[str]:
    """A piece that is a short title of its own ("晴天", a song after " - "): a phrase
    whatever its edges, when it has two CJK characters or four letters."""
    text = piece.strip()
    tokens = _TOKEN.findall(text)
    if not tokens or len(tokens) > MAX_TOKENS or text.lower() in TITLE_VERBS:
        return
    if len(_CJK.findall(text)) >= 2 or (len(tokens) == 1 and len(text) >= 4):
        yield text
