"""Reading a model's answer leniently: the first JSON object in it, whatever is
around it.

Small and local models wrap their JSON in code fences, think aloud before it,
chat after it, and put raw newlines inside strings ("Invalid control
character"); none of that is a reason to throw a good answer away.

    parse_answer('Sure!\\n```json\\n{"narrative": "line one\\nline two"}\\n```', answer=...)
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import pydantic

from app.enrich.answers import Answer
from app.errors import TimeTraceError

A = TypeVar("A", bound=Answer)
# strict=False: control characters (raw newlines, tabs) are allowed inside strings.
_DECODER = json.JSONDecoder(strict=False)


class ModelOutputError(TimeTraceError):
    """The model answered, but not with what was asked for."""


def parse_json_object(text: str | None, *, cut_off: bool = False) -> dict[str, Any]:
    """The first JSON object in a model's answer. `cut_off`: the server stopped it at
    max_tokens, which is then the reason when no object is complete."""
    if not text or not text.strip():
        raise ModelOutputError("the model returned no content")
    first_error: json.JSONDecodeError | None = None
    start = text.find("{")
    while start >= 0:
        try:
            data, _ = _DECODER.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            first_error = first_error or exc
        else:
            if isinstance(data, dict):
                return data
        start = text.find("{", start + 1)
    if cut_off:
        raise ModelOutputError("the answer was cut off at max_tokens before its JSON ended")
    if first_error is None:
        raise ModelOutputError("no JSON object in the answer")
    raise ModelOutputError(f"not valid JSON ({first_error.msg} at {first_error.pos})")


def parse_answer(text: str | None, *, answer: type[A], cut_off: bool = False) -> A:
    """The model's answer as `answer`; the error names every field that is wrong."""
    data = parse_json_object(text, cut_off=cut_off)
    try:
        return answer.model_validate(data)
    except pydantic.ValidationError as exc:
        wrong = "; ".join(
            f"at {'/'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()
        )
        raise ModelOutputError(f"JSON does not match the schema {wrong}") from exc
