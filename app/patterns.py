"""Patterns over captured text, in time linear in the text and never over more of it
than `MAX_PATTERN_CHARS`.

    rule = LinearPattern.compile(r"private\\s+browsing|无痕")  # RE2, case-insensitive
    rule.matches("Docs — Mozilla Firefox Private Browsing")    # True
    rule.span("…")                                              # (start, end) or None
    rule.first("…")                                             # the first match, or None
    capped(title)                                               # what a pattern may see

Window titles, URLs and descriptions are written by whatever is on a screen, so any of
them may be built to make a backtracking engine take quadratic or exponential time (a
day of such titles once held a worker for 12 minutes). Two defences:

- Rules people write (categories, privacy, sites named in titles, browser suffixes), and
  the code's own search-only patterns with many alternatives (the signal detectors), are
  compiled with RE2 (google-re2), which never backtracks: linear time whatever the
  pattern, about 15 µs for 4 KiB. RE2 refuses what cannot run in linear time
  (lookaround, backreferences); its `\\w`, `\\d`, `\\s` and `\\b` are ASCII-only
  (`\\pL`, `\\p{Han}` name Unicode classes). A refused pattern is a configuration
  error naming its rule.
- The other patterns in the code (title clean-up, the tokenizer, file names) stay Python
  `re`, because google-re2's binding costs several µs per match (slow for texts with
  hundreds of matches), and are written so that no start position rescans what another
  already scanned. `tests/test_patterns.py` finds every pattern and times it on
  adversarial 4 KiB text.
"""

from __future__ import annotations

from typing import Any

import re2  # type: ignore[import-untyped]

# The most characters of one text any pattern sees: the longest title ingest accepts.
MAX_PATTERN_CHARS = 4_096

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a refused user pattern is reported once, as a config error
_OPTIONS.case_sensitive = False
_CASE_OPTIONS = re2.Options()
_CASE_OPTIONS.log_errors = False


class PatternSyntaxError(ValueError):
    """RE2 refused the pattern."""


def capped(text: str) -> str:
    """The part of a text patterns look at."""
    return text if len(text) <= MAX_PATTERN_CHARS else text[:MAX_PATTERN_CHARS]


class LinearPattern:
    """An RE2 pattern (case-insensitive unless asked), searched in at most
    `MAX_PATTERN_CHARS` of a text."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str, compiled: Any) -> None:
        self.source = source
        self._compiled = compiled

    @classmethod
    def compile(cls, source: str, *, ignore_case: bool = True) -> LinearPattern:
        try:
            compiled = re2.compile(source, _OPTIONS if ignore_case else _CASE_OPTIONS)
        except re2.error as exc:
            detail = exc.args[0] if exc.args else exc
            if isinstance(detail, bytes):
                detail = detail.decode("utf-8", "replace")
            raise PatternSyntaxError(f"{detail} (rules use RE2 syntax)") from exc
        return cls(source, compiled)

    def span(self, text: str) -> tuple[int, int] | None:
        """Where the pattern is first found, in characters of `text`."""
        match = self._compiled.search(capped(text))
        if match is None:
            return None
        start, end = match.span()
        return int(start), int(end)

    def matches(self, text: str) -> bool:
        return self._compiled.search(capped(text)) is not None

    def first(self, text: str) -> str | None:
        """The text of the first match."""
        match = self._compiled.search(capped(text))
        return None if match is None else str(match.group(0))

    def __repr__(self) -> str:
        return f"LinearPattern({self.source!r})"
