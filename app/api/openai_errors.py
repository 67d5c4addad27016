"""Errors of the OpenAI-compatible door (/v1) in OpenAI's own shape, so that OpenAI's
clients show TimeTrace's message (the official Python client puts only
`error.message` into its exception's text):

    {"error": {"message": "…", "type": "invalid_request_error", "param": "model",
               "code": "model_not_found"}}

Every other route keeps `{"error": "…"}` (app/api/errors.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi.responses import JSONResponse

PREFIX = "/v1"

# OpenAI's `code` for each status TimeTrace answers on the door.
_CODES = {
    400: "bad_request",
    401: "invalid_api_key",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "request_too_large",
    415: "unsupported_media_type",
    422: "invalid_input",
    502: "upstream_error",
    503: "unavailable",
}


def is_door_path(path: str) -> bool:
    """Whether a request's path is the OpenAI-compatible door's."""
    return path == PREFIX or path.startswith(PREFIX + "/")


def error_body(
    status: int, message: str, *, param: str | None = None, code: str | None = None
) -> dict[str, Any]:
    """OpenAI's error object for a status and TimeTrace's message."""
    kind = "server_error" if status >= 500 else "invalid_request_error"
    if status == 401:
        kind = "authentication_error"
    return {
        "error": {
            "message": message,
            "type": kind,
            "param": param,
            "code": code or _CODES.get(status, "error"),
        }
    }


def openai_error(
    status: int,
    message: str,
    *,
    param: str | None = None,
    code: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """An error answer of the door, in OpenAI's shape."""
    return JSONResponse(
        error_body(status, message, param=param, code=code), status_code=status, headers=headers
    )


def unknown_route(path: str) -> str:
    """The 404 message of a path the door does not answer."""
    return (
        f"no route {path[:200]} here: this door answers GET /v1/models and "
        "POST /v1/chat/completions (model 'timetrace')"
    )
