"""The streaming JSON reader over arrays far longer than what it reads at a time: every
value comes back exactly as the standard decoder reads the whole text, whatever the
white space and wherever the chunks end; a broken or cut-off array says so."""

from __future__ import annotations

import io
import json
import random
from typing import Any

import pytest

from app.importers.jsonstream import JsonFormatError, JsonStream


def _values(count: int) -> list[Any]:
    rng = random.Random(8)
    titles = [
        "main.py — Code",
        'a "quoted" ], [title',
        "城市夜景 第3集",
        "tab\tand\nline",
        "x" * 900,
    ]
    return [
        {
            "timestamp": f"2026-03-10T01:{i % 60:02d}:00+00:00",
            "duration": rng.random() * 30,
            "data": {"app": "Code.exe", "title": rng.choice(titles), "n": [i, {"deep": [i]}]},
        }
        if i % 7
        else rng.choice([None, True, 12, "plain ], string", [], {}])
        for i in range(count)
    ]


def _text(values: list[Any], *, spaced: bool) -> str:
    if not spaced:
        return json.dumps(values, ensure_ascii=False)
    items = [json.dumps(v, ensure_ascii=False, indent=1) for v in values]
    return "[\n  " + " ,\r\n\t ".join(items) + "\n ]  "


@pytest.mark.heavy
@pytest.mark.parametrize("spaced", [False, True])
def test_an_array_of_megabytes_reads_back_value_for_value(spaced: bool) -> None:
    values = _values(12_000)
    text = _text(values, spaced=spaced)
    assert len(text.encode()) > 3 * (1 << 20)  # several chunks, many look-aheads
    stream = JsonStream(io.BytesIO(text.encode()))
    assert list(stream.array()) == values
    assert stream.peek() == ""  # the closing bracket was consumed, nothing is left


def test_an_array_inside_an_object_leaves_the_reader_after_its_bracket() -> None:
    values = _values(3_000)
    text = '{"events": ' + _text(values, spaced=True) + ', "after": 1}'
    stream = JsonStream(io.BytesIO(text.encode()))
    stream.expect("{")
    assert stream.string() == "events"
    stream.expect(":")
    assert list(stream.array()) == values
    assert stream.next_item("}") and stream.string() == "after"


@pytest.mark.parametrize(
    ("breakage", "said"),
    [
        (lambda text: text[: len(text) // 2], "ends too early"),
        (lambda text: text.replace("}, {", "}, , {", 1), "is not valid JSON"),
        (lambda text: text.replace("}, {", "} x {", 1), "has 'x' where ',' belongs"),
    ],
)
def test_a_broken_array_says_what_is_wrong_and_where(breakage: Any, said: str) -> None:
    text = breakage(_text(_values(6_000), spaced=False))
    stream = JsonStream(io.BytesIO(text.encode()), name="export.json")
    with pytest.raises(JsonFormatError) as caught:
        list(stream.array())
    assert said in caught.value.message
    assert caught.value.message.startswith("export.json ")
    assert "(near byte " in caught.value.message
