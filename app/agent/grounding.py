"""What an answer rests on: the episode ids it cites (among those the tools
returned) and the numbers in it that no tool result holds.

    cited_episodes("回滚多在 #812、#815", results)   # [812, 815] when the tools returned them
    unsupported_numbers("约 43 小时", results)       # [] when a result holds 43.2 or 43
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

_CITATION = re.compile(r"#(\d+)")
_NUMBER = re.compile(r"(?<![\w.#])\d+(?:\.\d+)?")


def _walk(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v, key)
    else:
        yield key, value


def episode_ids_in(results: Iterable[dict[str, Any]]) -> set[int]:
    """Every episode id a tool result names (episode lines, evidence, neighbours)."""
    ids: set[int] = set()
    for result in results:
        for key, value in _walk(result):
            if key in ("id", "episode_ids") and isinstance(value, int):
                ids.add(value)
    return ids


def cited_episodes(answer: str, results: Iterable[dict[str, Any]]) -> list[int]:
    """The episode ids the answer cites as #id that the tools really returned, in order."""
    known = episode_ids_in(results)
    return list(dict.fromkeys(i for i in map(int, _CITATION.findall(answer)) if i in known))


def _numbers(text: str) -> list[str]:
    return _NUMBER.findall(text)


def _decimals(number: str) -> int:
    return len(number.partition(".")[2])


def unsupported_numbers(answer: str, results: Iterable[dict[str, Any]], question: str) -> list[str]:
    """Numbers of the answer found neither in a tool result (as written, or rounded to
    the answer's precision) nor in the question. Citations (#id) are not numbers."""
    known: set[float] = {float(n) for n in _numbers(question)}
    for result in results:
        for _, value in _walk(result):
            if isinstance(value, bool):
                continue
            if isinstance(value, (int, float)):
                known.add(float(value))
            elif isinstance(value, str):
                known |= {float(n) for n in _numbers(value)}
    wrong = []
    for number in _numbers(_CITATION.sub(" ", answer)):
        places = _decimals(number)
        if not any(round(k, places) == float(number) for k in known):
            wrong.append(number)
    return list(dict.fromkeys(wrong))
