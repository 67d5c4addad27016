"""How the OpenAPI schema documents error answers (the handlers are in app/api/__init__.py).

Every 4xx/5xx body is `{"error": "…"}`; invalid input adds `detail`, a list of
`{field, message}`; a tool's refusal adds a `hint`. The OpenAI-compatible door (/v1)
answers OpenAI's own `{"error": {"message", "type", "param", "code"}}` instead
(app/api/openai_errors.py). Each route declares the
statuses it can send with `errors(...)`, so the schema says what the server does.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class FieldProblem(BaseModel):
    field: str
    message: str


class ErrorBody(BaseModel):
    """What every error answer carries."""

    error: str
    detail: list[FieldProblem] | None = None
    hint: str | None = None


class OpenAIError(BaseModel):
    message: str
    type: str
    param: str | None = None
    code: str | None = None


class OpenAIErrorBody(BaseModel):
    """What every error answer of the OpenAI-compatible door carries (OpenAI's shape)."""

    error: OpenAIError


_MEANING = {
    400: "The body could not be read (not UTF-8 text).",
    401: "No valid API token: send `Authorization: Bearer <token>`.",
    403: "The token's scope does not allow this (a write with a read-only token, a tool "
    "outside its list): see docs/scopes.md.",
    404: "No such thing (an unknown tool name, say).",
    409: "It changed while this request used it (deleted or rebuilt): look it up again.",
    413: "The body is larger than the limit; send fewer records per request.",
    422: "Invalid input; `detail` names each field and what is wrong with it.",
    503: "The database is busy or not available; try again after `Retry-After` seconds.",
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` for these error statuses, all with the `ErrorBody` shape."""
    return {status: {"model": ErrorBody, "description": _MEANING[status]} for status in statuses}


def openai_errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The same, for the OpenAI-compatible door: OpenAI's error shape."""
    return {
        status: {"model": OpenAIErrorBody, "description": _MEANING[status]} for status in statuses
    }


# What each kind of route can answer besides success.
AUTHED = errors(401, 403, 503)
WITH_BODY = errors(400, 413, 422)
