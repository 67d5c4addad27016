"""A streaming reader for large JSON documents: the skeleton (objects, arrays, keys)
is walked here, each leaf value — an ActivityWatch event, say — is decoded whole by
the standard library's C decoder, so memory holds one chunk and one value at a time.

    stream = JsonStream(open("export.json", "rb"))
    stream.expect("{")
    key = stream.string()
"""

from __future__ import annotations

import codecs
import enum
import json
import re
from collections.abc import Callable, Iterator
from typing import IO, Any, TypeVar

from app.errors import InvalidInputError

_CHUNK = 1 << 20
_WHITESPACE = " \t\r\n"
# A value is decoded once this much text (or the end of the file) lies ahead of it;
# a longer one is retried with more.
_LOOKAHEAD = 1 << 16
# Between two values of an array: the comma (or the closing bracket) and white space.
_BETWEEN = re.compile(r"[ \t\r\n]*([,\]])[ \t\r\n]*")
# `array_run`: about this many characters of values at a time, and this many `}` tried
# from the end of them before giving up on a run.
_RUN = 1 << 18
_RUN_TRIES = 64
T = TypeVar("T")


def _utf8_length(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


class NoRun(enum.Enum):
    """Why `array_run` read no run."""

    SHORT = "the next value reaches past where a run may end: read it alone"
    REFUSED = "no end of a value was found, or the decoder refused the run"


class JsonFormatError(InvalidInputError):
    """The file is not valid JSON of the expected shape."""


class JsonStream:
    def __init__(self, source: IO[bytes], *, name: str = "the file") -> None:
        self._source = source
        self._name = name
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="strict")
        self._json = json.JSONDecoder()
        self._text = ""
        self._pos = 0
        self._base = 0  # the byte of the file where `_text` starts
        self._eof = False
        self.bytes_read = 0

    def _fill(self) -> bool:
        """Read one more chunk; False at the end of the file."""
        if self._eof:
            return False
        chunk = self._source.read(_CHUNK)
        self.bytes_read += len(chunk)
        try:
            text = self._decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            raise self.error(f"is not UTF-8 text ({exc.reason})") from exc
        self._base += _utf8_length(self._text[: self._pos])
        self._text = self._text[self._pos :] + text
        self._pos = 0
        if not chunk:
            self._eof = True
        return True

    def error(self, problem: str) -> JsonFormatError:
        return JsonFormatError(f"{self._name} {problem} (near byte {self.position():,})")

    def position(self) -> int:
        """How many bytes of the file lie behind the reader."""
        return self._base + _utf8_length(self._text[: self._pos])

    def peek(self) -> str:
        """The next character that is not whitespace ("" at the end of the file)."""
        while True:
            text, pos = self._text, self._pos
            while pos < len(text) and text[pos] in _WHITESPACE:
                pos += 1
            self._pos = pos
            if pos < len(text):
                return text[pos]
            if not self._fill():
                return ""

    def expect(self, char: str) -> None:
        found = self.peek()
        if found != char:
            raise self.error(
                "ends too early" if not found else f"has {found!r} where {char!r} belongs"
            )
        self._pos += 1

    def next_item(self, close: str) -> bool:
        """After an item of an object or array: True when another follows (its comma
        is consumed), False at `close` (consumed too)."""
        found = self.peek()
        if found == ",":
            self._pos += 1
            return True
        if found == close:
            self._pos += 1
            return False
        raise self.error("ends too early" if not found else f"has {found!r} where ',' belongs")

    def first_item(self, close: str) -> bool:
        """Just inside an object or array: False (and `close` consumed) when it is empty."""
        if self.peek() == close:
            self._pos += 1
            return False
        return True

    def value(self) -> Any:
        """Decode the next JSON value whole."""
        if not self.peek():
            raise self.error("ends too early")
        while len(self._text) - self._pos < _LOOKAHEAD and self._fill():
            pass
        while True:
            try:
                value, end = self._json.raw_decode(self._text, self._pos)
            except json.JSONDecodeError as exc:
                if self._fill():
                    continue  # a value longer than the look-ahead: read on
                if exc.pos >= len(self._text) - 1 or "Unterminated" in exc.msg:
                    raise self.error("ends too early, in the middle of a value") from exc
                raise self.error(f"is not valid JSON: {exc.msg}") from exc
            except RecursionError as exc:  # the C decoder recurses per level
                raise self.error("nests its arrays or objects too deeply") from exc
            self._pos = end
            return value

    def array(self) -> Iterator[Any]:
        """The values of the array that starts here, decoded one by one (an export's
        events: millions, so the common case — the value and the comma after it in
        the text already read — takes no detour)."""
        self.expect("[")
        if not self.first_item("]"):
            return
        decode = self._json.raw_decode
        while True:
            value: Any
            if len(self._text) - self._pos >= _LOOKAHEAD:
                try:
                    value, self._pos = decode(self._text, self._pos)
                except (json.JSONDecodeError, RecursionError):
                    value = self.value()  # reads on, or says what is wrong
            else:
                value = self.value()
            yield value
            between = _BETWEEN.match(self._text, self._pos)
            if between is not None and between.end() < len(self._text):
                self._pos = between.end()
                if between.group(1) == "]":
                    return
            elif not self.next_item("]"):
                return

    def array_run(self, decode: Callable[[str], T], *, size: int = _RUN) -> tuple[T, bool] | NoRun:
        """Inside an array, at one of its values (objects): the values of about the next
        `size` characters decoded at once by `decode`, which gets them as the text of a
        JSON array and raises ValueError for anything it does not take; and whether the
        array ends after them (its bracket consumed; else the comma after them is).

        A run ends at a `}` followed by a comma or the bracket. One inside a string or
        inside a value is no end of a value, and then the text `decode` gets is not a
        whole array (a string left open, a bracket left unclosed): a strict decoder
        refuses it. So a run `decode` takes is exactly the values a value-by-value
        reading would give. Otherwise, with nothing consumed, why not (`NoRun`): read
        the next value, or values, one by one with `value()`."""
        # Read on exactly where reading value by value would (`value`), and end the run
        # before a value that would read on first: a file that stops being UTF-8 then
        # stops both ways at the same value, with the same count of events read.
        while len(self._text) - self._pos < _LOOKAHEAD and self._fill():
            pass
        text, pos = self._text, self._pos
        limit = min(pos + size, len(text) if self._eof else len(text) - _LOOKAHEAD + 1)
        for _ in range(_RUN_TRIES):
            cut = text.rfind("}", pos, limit)
            if cut < 0:
                return NoRun.SHORT
            between = _BETWEEN.match(text, cut + 1)
            if between is not None and between.end() < len(text):
                try:
                    values = decode("[" + text[pos : cut + 1] + "]")
                except (ValueError, RecursionError):
                    return NoRun.REFUSED
                self._pos = between.end()
                return values, between.group(1) == "]"
            limit = cut
        return NoRun.REFUSED

    def string(self) -> str:
        found = self.peek()
        if found != '"':
            raise self.error(
                "ends too early" if not found else f"has {found!r} where a key belongs"
            )
        value = self.value()
        assert isinstance(value, str)
        return value
