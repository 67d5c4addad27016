"""Cursors for capped results: a cut answer says `truncated` and gives a `cursor`, and
the same tool given that cursor answers the next page.

    first = dispatch(ctx, "get_raw", {"ts_from": "2h ago", "ts_to": "now"})
    more = dispatch(ctx, "get_raw", {"cursor": first.cursor})   # or with the same arguments

A cursor is opaque to callers: URL-safe base64 of the first call's arguments as they
were resolved (relative instants as the instants they named), the clock that call ran
on, and the tool's own position (get_raw: the last record's key; search_episodes: how
many hits were shown). A continued call therefore reads the same window and ranking
however much later it comes, and a tool keys its pages so that records or episodes
added meanwhile neither repeat an item nor skip one. Arguments sent beside a cursor
must be the first call's (read on its clock); a cursor of another tool, or text that
is no cursor, is refused with a clear message.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Self

from pydantic import BaseModel, Field, PrivateAttr

from app.errors import InvalidInputError
from app.tools.results import ToolResult, opt

CURSOR_MAX = 4_096  # characters: a cursor holds a call's few arguments and a key
CURSOR_HELP = (
    "the cursor of a truncated answer: the next page of that same call (send it alone, or "
    "with the same arguments)"
)


@dataclass(frozen=True, slots=True)
class Page:
    """Where a paged call stands: its tool, resolved arguments, clock and position."""

    tool: str
    args: dict[str, Any]
    now: datetime
    after: Any

    def encode(self) -> str:
        body = {"t": self.tool, "a": self.args, "n": self.now.isoformat(), "p": self.after}
        raw = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def read_cursor(text: str, *, tool: str) -> Page:
    """The page a cursor names; `InvalidInputError` for one that is not this tool's."""
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        body = json.loads(raw.decode("utf-8"))
        page = Page(
            tool=str(body["t"]),
            args=dict(body["a"]),
            now=datetime.fromisoformat(body["n"]),
            after=body["p"],
        )
    except (binascii.Error, ValueError, UnicodeDecodeError, KeyError, TypeError):
        raise InvalidInputError(
            "cursor: not a cursor TimeTrace gave: pass back the `cursor` of a truncated "
            "answer unchanged, or leave it out for the first page"
        ) from None
    if page.tool != tool:
        raise InvalidInputError(f"cursor: this cursor continues {page.tool}, not {tool}")
    if page.now.tzinfo is None:
        raise InvalidInputError("cursor: not a cursor TimeTrace gave (its clock has no zone)")
    return page


class PagedArgs(BaseModel):
    """The `cursor` argument of a tool whose capped answer can be continued, mixed into
    its argument model: `class RawArgs(ToolArgs, PagedArgs)`."""

    cursor: str | None = Field(None, min_length=1, max_length=CURSOR_MAX, description=CURSOR_HELP)

    def first_args(self) -> dict[str, Any]:
        """The call's arguments as a continued call repeats them (resolved, as JSON)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude={"cursor"})


class PagedResult(ToolResult):
    """A result whose cut can be continued: `cursor` fetches what the cap left out."""

    cursor: str | None = opt(
        "more items follow: call the same tool with this cursor for the next page"
    )
    _pager: Callable[[int], str] | None = PrivateAttr(default=None)

    def paged(self, pager: Callable[[int], str]) -> Self:
        """This result, with how to name the page after its first n items."""
        self._pager = pager
        return self

    def cursor_after(self, kept: int) -> str | None:
        """The cursor of the page after the first `kept` items (None: cannot be continued)."""
        return self._pager(kept) if self._pager is not None and kept > 0 else None


def pager(
    *, tool: str, args: PagedArgs, now: datetime, position: Callable[[int], Any]
) -> Callable[[int], str]:
    """Cursors of a call: `position(n)` is the tool's key after its first n items."""
    first = args.first_args()
    return lambda n: Page(tool=tool, args=first, now=now, after=position(n)).encode()


def continued(
    *, tool: str, params: type[BaseModel], arguments: dict[str, Any]
) -> tuple[dict[str, Any], Page] | None:
    """A call that carries a cursor, as the arguments to run (the first call's, and the
    cursor) and its page; None for a first call."""
    text = arguments.get("cursor")
    if text is None or not issubclass(params, PagedArgs):
        return None
    if not isinstance(text, str) or not 0 < len(text) <= CURSOR_MAX:
        raise InvalidInputError("cursor: give the cursor text of a truncated answer")
    page = read_cursor(text, tool=tool)
    return {**page.args, **arguments}, page


def same_call(*, given: BaseModel, first: BaseModel) -> None:
    """Refuse a cursor sent with arguments other than its first call's."""
    mine, theirs = given.model_dump(exclude={"cursor"}), first.model_dump(exclude={"cursor"})
    changed = sorted(k for k in mine if mine[k] != theirs.get(k))
    if changed:
        raise InvalidInputError(
            f"cursor: it continues a call with other arguments ({', '.join(changed)}): send "
            "the cursor alone, or with that call's arguments"
        )
