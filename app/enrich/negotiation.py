"""What an endpoint accepts, learnt by asking: structured output modes and refusals.

OpenAI-compatible servers differ. OpenAI and vLLM take `response_format:
json_schema`; llama.cpp's Python server answers it with HTTP 500 ("Input should
be 'text' or 'json_object'"); Ollama accepts it and may ignore it. So a chat call
tries the modes in order and the first one that works is remembered per
endpoint and model:

    json_schema   the schema as response_format (strict)
    json_object   JSON mode, with the schema written into the prompt (and, without
                  its length bounds, beside the type, where llama.cpp's server
                  turns it into a grammar)
    text          no response_format; the schema in the prompt, the first JSON
                  object of the answer taken

An error that names the request (a parameter, a validation error) is the server
saying what it does not support, not an outage: it never opens the breaker.

    modes = ModeMemory()
    mode = modes.current(url, model)
    kwargs = request_for(mode, messages=messages, answer=SummaryAnswer)
"""

from __future__ import annotations

import json
import logging
import re
import threading
from typing import TYPE_CHECKING, Any, Literal

from app.enrich.answers import Answer

if TYPE_CHECKING:
    import openai

log = logging.getLogger("timetrace.models")

OutputMode = Literal["json_schema", "json_object", "text"]
MODES: tuple[OutputMode, ...] = ("json_schema", "json_object", "text")

# A refusal about the answer format: the next mode may work.
_FORMAT = re.compile(r"response_format|json_schema|json_object|'text'", re.IGNORECASE)
# A refusal that names something in the request (not an outage).
_REQUEST = re.compile(
    r"response_format|json_schema|json_object|schema|parameter|argument|field required|"
    r"input should be|validation|literal_error|extra inputs|unsupported|not supported|"
    r"unknown (field|param)|unrecognized|invalid (request|value|type)",
    re.IGNORECASE,
)


def refusal_text(exc: openai.APIStatusError) -> str:
    """The error's message and body, as one string to search."""
    body = exc.body if isinstance(exc.body, str) else json.dumps(exc.body, default=str)
    return f"{exc.message} {body}"


def names_the_request(exc: openai.APIStatusError) -> bool:
    """A 4xx/5xx that says what in the request it refuses: a capability answer."""
    return exc.status_code != 429 and _REQUEST.search(refusal_text(exc)) is not None


def refuses_the_format(exc: openai.APIStatusError) -> bool:
    return _FORMAT.search(refusal_text(exc)) is not None


def schema_instruction(answer: type[Answer]) -> str:
    """The answer's JSON schema, written for a server that does not enforce it."""
    schema = json.dumps(answer.model_json_schema(), ensure_ascii=False, separators=(",", ":"))
    return (
        f"Reply with only one JSON object `{answer.name}` that follows this JSON schema "
        f"(no other text, no code fence):\n{schema}"
    )


# Bounds llama.cpp's grammar compiler unrolls into one rule per repetition: a
# 2,000-character maxLength fails to compile and takes the server down with it.
_BOUNDS = frozenset({"maxLength", "minLength", "maxItems", "minItems"})


def grammar_schema(node: Any) -> Any:
    """The schema without length and count bounds (the answer model still checks them)."""
    if isinstance(node, dict):
        return {
            key: (
                {name: grammar_schema(sub) for name, sub in value.items()}
                if key == "properties"
                else grammar_schema(value)
            )
            for key, value in node.items()
            if key not in _BOUNDS
        }
    if isinstance(node, list):
        return [grammar_schema(item) for item in node]
    return node


def request_for(
    mode: OutputMode, *, messages: list[dict[str, Any]], answer: type[Answer]
) -> dict[str, Any]:
    """The `messages` and `response_format` of a chat completion in this mode."""
    if mode == "json_schema":
        return {"messages": messages, "response_format": answer.response_format()}
    instruction = schema_instruction(answer)
    if messages and messages[0].get("role") == "system":
        first = {**messages[0], "content": f"{messages[0]['content']}\n\n{instruction}"}
        with_schema = [first, *messages[1:]]
    else:
        with_schema = [{"role": "system", "content": instruction}, *messages]
    if mode == "json_object":
        schema = grammar_schema(answer.model_json_schema())
        return {
            "messages": with_schema,
            "response_format": {"type": "json_object", "schema": schema},
        }
    return {"messages": with_schema}


class ModeMemory:
    """The output mode that works, per endpoint and model (for this process)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._modes: dict[tuple[str, str], OutputMode] = {}

    def current(self, base_url: str, model: str) -> OutputMode:
        with self._lock:
            return self._modes.get((base_url, model), MODES[0])

    def fall_back(self, base_url: str, model: str, *, refused: OutputMode, status: int) -> bool:
        """Move past a refused mode; False when there is none left to try."""
        index = MODES.index(refused)
        if index + 1 == len(MODES):
            return False
        with self._lock:
            key = (base_url, model)
            if MODES.index(self._modes.get(key, MODES[0])) <= index:
                self._modes[key] = MODES[index + 1]
                # The message stays generic: some servers echo the request, prompt included.
                log.info(
                    "%s (model %s) refused response_format %s with HTTP %s; using %s from now on",
                    base_url,
                    model,
                    refused,
                    status,
                    MODES[index + 1],
                )
        return True


# -- tool calling ----------------------------------------------------------------------

ToolPath = Literal["stream", "plain", "router"]
TOOL_PATHS: tuple[ToolPath, ...] = ("stream", "plain", "router")


class ToolMemory:
    """How an endpoint calls tools, per endpoint and model (for this process):

        stream   streamed tool calls (OpenAI, vLLM, Ollama)
        plain    tool calls only without streaming (llama-cpp-python's server streams
                 nothing for a request with `tools`, or fails it half-way)
        router   no tool calling at all: the model names a tool and its arguments
                 as JSON (structured output, negotiated as above)

    A path is `confirmed` once it has produced a tool call; until then an empty
    answer moves the endpoint to the next path, and it stays there."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._paths: dict[tuple[str, str], tuple[ToolPath, bool]] = {}

    def current(self, base_url: str, model: str) -> tuple[ToolPath, bool]:
        """The path to try first, and whether it has made a tool call."""
        with self._lock:
            return self._paths.get((base_url, model), (TOOL_PATHS[0], False))

    def confirm(self, base_url: str, model: str, *, path: ToolPath) -> None:
        with self._lock:
            self._paths[(base_url, model)] = (path, True)

    def fall_back(self, base_url: str, model: str, *, failed: ToolPath, why: str) -> ToolPath:
        """Move past a path that gave nothing; the path to use from now on."""
        following = TOOL_PATHS[min(TOOL_PATHS.index(failed) + 1, len(TOOL_PATHS) - 1)]
        with self._lock:
            key = (base_url, model)
            path, _ = self._paths.get(key, (TOOL_PATHS[0], False))
            if TOOL_PATHS.index(path) < TOOL_PATHS.index(following):
                self._paths[key] = (following, False)
                log.info(
                    "%s (model %s): tool calls %s %s; using %s from now on",
                    base_url,
                    model,
                    "streamed" if failed == "stream" else "unstreamed",
                    why,
                    following,
                )
                return following
            return path
