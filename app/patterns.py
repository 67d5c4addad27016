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
  already scanned. `tests/unit/test_patterns.py` finds every pattern and checks that
  its time on adversarial 4 KiB text is at most linearly more than on a sixteenth of it.
"""

from __future__ import annotations

from typing import Any

import re2  # type: ignore[import-untyped]

# The most characters of one text any pattern sees: the longest title ingest accepts.
MAX_PATTERN_CHARS = 4_096

# The binding's compiled object, called directly on UTF-8 bytes: the `re`-like wrapper
# costs several µs a call on top (a generator, a match object, offset translation),
# more than the search itself on a short title.
_UNANCHORED = re2._re2.RE2.Anchor.UNANCHORED


def _options(*, ignore_case: bool) -> Any:
    options = re2.Options()
    options.log_errors = False  # a refused user pattern is reported once, as a config error
    options.case_sensitive = not ignore_case
    options.never_capture = True  # only where the whole match is
    return options


_OPTIONS = {True: _options(ignore_case=True), False: _options(ignore_case=False)}


class PatternSyntaxError(ValueError):
    """RE2 refused the pattern."""


def capped(text: str) -> str:
    """The part of a text patterns look at."""
    return text if len(text) <= MAX_PATTERN_CHARS else text[:MAX_PATTERN_CHARS]


def encoded(text: str) -> bytes:
    """What a pattern searches of a text: its capped part in UTF-8. A text searched by
    several patterns is encoded once (`matches_encoded`, `span_encoded`)."""
    return capped(text).encode("utf-8", "surrogatepass")


class LinearPattern:
    """An RE2 pattern (case-insensitive unless asked), searched in at most
    `MAX_PATTERN_CHARS` of a text."""

    __slots__ = ("_compiled", "source")

    def __init__(self, source: str, compiled: Any) -> None:
        self.source = source
        self._compiled = compiled

    @classmethod
    def compile(cls, source: str, *, ignore_case: bool = True) -> LinearPattern:
        compiled = re2._re2.RE2(source.encode("utf-8"), _OPTIONS[ignore_case])
        if not compiled.ok():
            detail = compiled.error()
            if isinstance(detail, bytes):
                detail = detail.decode("utf-8", "replace")
            raise PatternSyntaxError(f"{detail} (rules use RE2 syntax)")
        return cls(source, compiled)

    def _search(self, data: bytes) -> tuple[int, int] | None:
        start, end = self._compiled.Match(_UNANCHORED, data, 0, len(data))[0]
        return None if start < 0 else (start, end)

    def span(self, text: str) -> tuple[int, int] | None:
        """Where the pattern is first found, in characters of `text`."""
        return self.span_encoded(encoded(text))

    def span_encoded(self, data: bytes) -> tuple[int, int] | None:
        """`span` of the text `data` is `encoded` from."""
        found = self._search(data)
        if found is None:
            return None
        start = len(data[: found[0]].decode("utf-8", "surrogatepass"))
        return start, start + len(data[found[0] : found[1]].decode("utf-8", "surrogatepass"))

    def matches(self, text: str) -> bool:
        return self._search(encoded(text)) is not None

    def matches_encoded(self, data: bytes) -> bool:
        """`matches` of the text `data` is `encoded` from."""
        return self._search(data) is not None

    def first(self, text: str) -> str | None:
        """The text of the first match."""
        data = capped(text).encode("utf-8", "surrogatepass")
        found = self._search(data)
        return None if found is None else data[found[0] : found[1]].decode("utf-8", "replace")

    def __repr__(self) -> str:
        return f"LinearPattern({self.source!r})"
