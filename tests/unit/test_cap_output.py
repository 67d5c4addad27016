"""cap_output counts each item's tokens once and adds them up; it must keep exactly as
many items as the plain search that estimates the whole cut JSON at every step."""

from __future__ import annotations

import random
from typing import Any

import pytest
from pydantic import Field

from app.text import estimate_tokens
from app.tools.registry import cap_output, output_tokens, to_json
from app.tools.results import ToolError, ToolResult

PIECES = [
    "调试",
    "支付回调",
    "B站",
    "Visual Studio Code",
    "github.com/a/b",
    "pytest -x",
    "42",
    "2001-06-20T09:00:00",
    " ",
    "  spaced  ",
    "a_b",
    "ÄÖ",
    "😀",
    "，。",
    '"quoted"',
    "x" * 9,
]


class Listing(ToolResult):
    note: str | None = None
    items: list[Any] = Field(default_factory=list)


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 6)))


def _item(rng: random.Random) -> Any:
    kind = rng.randrange(4)
    if kind == 0:
        return _text(rng)
    if kind == 1:
        return rng.randrange(10 ** rng.randrange(1, 8))
    if kind == 2:
        return [_text(rng) for _ in range(rng.randrange(3))]
    return {"at": "09:00:05", "app": _text(rng), "title": _text(rng), "idle": rng.random() < 0.3}


def _plain(result: Listing, cap: int) -> int | None:
    """How many items the plain search keeps: the whole cut JSON estimated at each step."""
    data = result.model_dump(mode="json")

    def tokens(n: int) -> int:
        cut = {**data, "items": data["items"][:n], "truncated": True}
        return output_tokens({**cut, "omitted": len(data["items"]) - n})

    lo, hi = 0, len(data["items"])
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if tokens(mid) <= cap else (lo, mid - 1)
    return lo if tokens(lo) <= cap else None


@pytest.mark.heavy
def test_the_counted_search_keeps_what_the_plain_search_keeps() -> None:
    rng = random.Random(25)
    cut = 0
    for _ in range(400):
        result = Listing(note=_text(rng), items=[_item(rng) for _ in range(rng.randrange(1, 150))])
        whole = output_tokens(result.model_dump(mode="json"))
        cap = rng.randrange(10, whole + 20)
        capped = cap_output(result, cap=cap)
        kept = _plain(result, cap)
        if kept is None:
            assert isinstance(capped, ToolError)
        elif whole <= cap:
            assert capped is result
        else:
            assert isinstance(capped, Listing) and capped.items == result.items[:kept]
            assert capped.omitted == len(result.items) - kept and capped.truncated
            assert estimate_tokens(to_json(capped)) <= cap
            cut += 1
    assert cut > 100  # most cases cut the list: the comparison is not vacuous


@pytest.mark.heavy
def test_a_count_of_omitted_items_that_loses_a_digit_is_counted_again() -> None:
    """10,000 omitted items cost a token more than 9,999 (a word of five digits)."""
    result = Listing(items=[f"第{i}" for i in range(10_150)])
    for cap in range(500, 2_000, 11):
        capped = cap_output(result, cap=cap)
        kept = _plain(result, cap)
        assert isinstance(capped, Listing) and len(capped.items) == kept, cap
    omitted = {len(result.items) - k for k in (_plain(result, 500), _plain(result, 1_999))}
    assert min(omitted) < 10_000 <= max(omitted)


def test_no_output_is_estimated_at_more_tokens_than_it_has_characters() -> None:
    """cap_output returns an output no longer than its cap without counting it."""
    rng = random.Random(6)
    for _ in range(2_000):
        text = to_json(Listing(note=_text(rng), items=[_item(rng) for _ in range(5)]))
        assert estimate_tokens(text) <= len(text)
    short = Listing(note="调试 pytest", items=["B站"] * 3)
    assert cap_output(short, cap=len(to_json(short))) is short
