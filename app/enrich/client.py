"""The one door to models: chat with structured JSON answers, vision description,
and embeddings, over any OpenAI-compatible endpoint (LM Studio, Ollama, vLLM,
OpenAI), one endpoint, key and model per role.

    client = ModelClient(settings)
    summary = client.chat_answer(messages=[...], answer=SummaryAnswer)
    vectors = client.embed(["调试支付回调超时"])
    turn = client.chat_turn(messages=[...], tools=[...], on_token=print)  # streamed, tool calls

Every background call goes through one priority gate per process, so a single
GPU is never flooded and interactive calls go first. A failing endpoint opens a
circuit breaker with exponential backoff (ceiling 10 minutes): while it is open
calls fail at once with `ModelUnavailable` instead of hammering a dead server.
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import httpx
import openai
import pydantic

from app.enrich.answers import Answer
from app.errors import ConfigError, TimeTraceError
from app.settings import Settings

BREAKER_CEILING_S = 600.0
A = TypeVar("A", bound=Answer)
Check = Callable[[A], list[str]]


class ModelUnavailable(TimeTraceError):
    """The model endpoint is not reachable right now; the work waits and is retried."""


class ModelOutputError(TimeTraceError):
    """The model answered, but not with what was asked for."""


class AnswerRejected(ModelOutputError):
    """The model's answer still had problems after one corrected retry."""

    def __init__(self, message: str, *, answer: Answer | None, problems: list[str]) -> None:
        super().__init__(message)
        self.answer = answer  # the last answer, when it at least had the right shape
        self.problems = problems


class EmbeddingDimensionError(ConfigError):
    """The embedding endpoint returns vectors of another size than TIMETRACE_EMBEDDING_DIM."""


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """One tool call a model asked for; `arguments` is the JSON text it wrote."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class ChatTurn:
    """What one streamed chat completion said: text, tool calls, or both."""

    content: str
    tool_calls: tuple[ToolCallRequest, ...]


@dataclass(slots=True)
class Usage:
    """What the endpoints reported, per role (chat, vision, embedding)."""

    calls: Counter[str] = field(default_factory=Counter)
    prompt_tokens: Counter[str] = field(default_factory=Counter)
    completion_tokens: Counter[str] = field(default_factory=Counter)


class PriorityGate:
    """A counting semaphore where interactive callers always go before background ones."""

    def __init__(self, slots: int) -> None:
        self._cond = threading.Condition()
        self._free = slots
        self._interactive_waiting = 0

    @contextmanager
    def slot(self, *, interactive: bool = False) -> Iterator[None]:
        with self._cond:
            self._interactive_waiting += interactive
            try:
                while self._free == 0 or (not interactive and self._interactive_waiting > 0):
                    self._cond.wait()
            finally:
                self._interactive_waiting -= interactive
            self._free -= 1
        try:
            yield
        finally:
            with self._cond:
                self._free += 1
                self._cond.notify_all()


class _Breaker:
    def __init__(self, first_s: float) -> None:
        self._lock = threading.Lock()
        self._open_until = 0.0
        self._first = first_s
        self._backoff = first_s

    def check(self) -> None:
        with self._lock:
            wait = self._open_until - time.monotonic()
        if wait > 0:
            raise ModelUnavailable(f"the model endpoint failed recently; next try in {wait:.0f} s")

    @property
    def is_open(self) -> bool:
        return self._open_until > time.monotonic()

    def failed(self) -> None:
        with self._lock:
            self._open_until = time.monotonic() + self._backoff
            self._backoff = min(self._backoff * 2, BREAKER_CEILING_S)

    def succeeded(self) -> None:
        with self._lock:
            self._open_until = 0.0
            self._backoff = self._first


_UNAVAILABLE = (
    httpx.TransportError,  # a stream cut off half-way is not raised as an openai error
    openai.APIConnectionError,
    openai.APITimeoutError,
    openai.InternalServerError,
    openai.RateLimitError,
    openai.NotFoundError,  # servers answer 404 while a model is (re)loading
)
_FENCE = re.compile(r"^\s*```(?:json)?\s*|\s*```\s*$", re.IGNORECASE)


def parse_json_object(text: str | None) -> dict[str, Any]:
    """The JSON object in a model's answer, tolerating code fences and reasoning
    text before it."""
    if not text:
        raise ModelOutputError("the model returned no content")
    cleaned = _FENCE.sub("", text.strip())
    # Reasoning models may think aloud first; the answer starts at the first '{'.
    if not cleaned.startswith("{") and "{" in cleaned:
        cleaned = cleaned[cleaned.index("{") :]
    try:
        data = json.loads(cleaned)
    except json.JSONDecodeError as exc:
        raise ModelOutputError(f"not valid JSON ({exc.msg} at {exc.pos})") from exc
    if not isinstance(data, dict):
        raise ModelOutputError("the JSON is not an object")
    return data


def parse_answer(text: str | None, *, answer: type[A]) -> A:
    """The model's answer as `answer`; the error names every field that is wrong."""
    data = parse_json_object(text)
    try:
        return answer.model_validate(data)
    except pydantic.ValidationError as exc:
        wrong = "; ".join(
            f"at {'/'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()
        )
        raise ModelOutputError(f"JSON does not match the schema {wrong}") from exc


def _no_problems(answer: Answer) -> list[str]:
    return []


_SCHEMA_FIX = "Reply with only the JSON object, following the schema exactly."


class ModelClient:
    """Chat, vision and embeddings for one process (shared by every job in it)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.usage = Usage()
        self._usage_lock = threading.Lock()
        self._gate = PriorityGate(settings.llm_concurrency)
        first = settings.llm_backoff_s
        self._breakers = {role: _Breaker(first) for role in ("chat", "vision", "embedding")}
        key = settings.llm_api_key.get_secret_value() or "not-needed"
        self._chat = self._client(settings.llm_base_url, key)
        vision_key = settings.vision_api_key.get_secret_value() if settings.vision_api_key else key
        self._vision = self._client(settings.vision_base_url, vision_key)
        embed_key = (
            settings.embedding_api_key.get_secret_value() if settings.embedding_api_key else key
        )
        self._embedding = self._client(settings.embedding_base_url, embed_key)

    def _client(self, base_url: str | None, key: str) -> openai.OpenAI | None:
        if not base_url:
            return None
        # Retries are ours (jobs back off; the breaker stops hammering), not the SDK's.
        return openai.OpenAI(
            base_url=base_url,
            api_key=key or "not-needed",
            timeout=self.settings.llm_timeout_s,
            max_retries=0,
        )

    @property
    def chat_enabled(self) -> bool:
        return self._chat is not None

    @property
    def vision_enabled(self) -> bool:
        return self._vision is not None

    @property
    def embeddings_enabled(self) -> bool:
        return self._embedding is not None

    def available(self, role: str = "chat") -> bool:
        """Configured, and not inside a backoff window after a failure."""
        client = {"chat": self._chat, "vision": self._vision, "embedding": self._embedding}[role]
        return client is not None and not self._breakers[role].is_open

    @contextmanager
    def _call(self, role: str, *, interactive: bool) -> Iterator[None]:
        breaker = self._breakers[role]
        breaker.check()
        with self._gate.slot(interactive=interactive):
            try:
                yield
            except _UNAVAILABLE as exc:
                breaker.failed()
                raise ModelUnavailable(
                    f"{role} endpoint unavailable: {type(exc).__name__}"
                ) from exc
            except openai.APIStatusError as exc:
                raise ModelOutputError(
                    f"{role} endpoint refused the request: {exc.status_code}"
                ) from exc
        breaker.succeeded()

    def _count(self, role: str, usage: Any) -> None:
        with self._usage_lock:
            self.usage.calls[role] += 1
            if usage is not None:
                self.usage.prompt_tokens[role] += int(getattr(usage, "prompt_tokens", 0) or 0)
                self.usage.completion_tokens[role] += int(
                    getattr(usage, "completion_tokens", 0) or 0
                )

    def _complete(
        self,
        client: openai.OpenAI,
        *,
        role: str,
        model: str,
        messages: list[dict[str, Any]],
        answer: type[Answer],
        max_tokens: int,
        interactive: bool,
    ) -> str | None:
        with self._call(role, interactive=interactive):
            reply = client.chat.completions.create(  # type: ignore[call-overload]
                model=model,
                messages=messages,
                response_format=answer.response_format(),
                max_tokens=max_tokens,
                temperature=0.2,
            )
        self._count(role, reply.usage)
        return reply.choices[0].message.content if reply.choices else None

    def chat_answer(
        self,
        *,
        messages: list[dict[str, Any]],
        answer: type[A],
        check: Check[A] = _no_problems,
        fix: str = _SCHEMA_FIX,
        max_tokens: int = 800,
        interactive: bool = False,
        role: str = "chat",
    ) -> A:
        """Ask for one `answer`, and give it at most one corrected retry.

        An answer that is not that JSON object (servers may ignore the json_schema
        format), or that `check` finds problems with, is sent back once with the
        problems named (and `fix` for `check`'s); if the second answer has problems
        too, `AnswerRejected` carries it and its problems."""
        client = self._chat if role == "chat" else self._vision
        model = self.settings.llm_model if role == "chat" else self.settings.vision_model
        if client is None:
            raise ModelUnavailable(f"no {role} endpoint is configured")
        conversation = list(messages)
        for attempt in range(2):
            text = self._complete(
                client,
                role=role,
                model=model,
                messages=conversation,
                answer=answer,
                max_tokens=max_tokens,
                interactive=interactive,
            )
            result: A | None
            try:
                result = parse_answer(text, answer=answer)
            except ModelOutputError as exc:  # the wrong shape is one more kind of problem
                result, problems, hint = None, [exc.message], _SCHEMA_FIX
            else:
                problems, hint = check(result), fix
                if not problems:
                    return result
            if attempt:
                raise AnswerRejected(
                    f"rejected after one corrected retry: {'; '.join(problems)}",
                    answer=result,
                    problems=problems,
                )
            conversation += [
                {"role": "assistant", "content": text or ""},
                {
                    "role": "user",
                    "content": f"That answer was rejected: {'; '.join(problems)}. {hint}",
                },
            ]
        raise AssertionError("unreachable")

    def chat_turn(
        self,
        *,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        max_tokens: int = 1_200,
        on_token: Callable[[str], None] = lambda text: None,
    ) -> ChatTurn:
        """One streamed, interactive chat completion, offering `tools` (OpenAI tool
        calling) when given. Each piece of text goes to `on_token` as it arrives; an
        exception raised there stops the stream and closes the connection."""
        if self._chat is None:
            raise ModelUnavailable("no chat endpoint is configured")
        text: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        with self._call("chat", interactive=True):
            stream = self._chat.chat.completions.create(  # type: ignore[call-overload]
                model=self.settings.llm_model,
                messages=messages,
                max_tokens=max_tokens,
                temperature=0.2,
                stream=True,
                **({"tools": tools} if tools else {}),
            )
            with stream:
                for chunk in stream:
                    for choice in chunk.choices:
                        delta = choice.delta
                        if delta.content:
                            text.append(delta.content)
                            on_token(delta.content)
                        for part in delta.tool_calls or ():
                            call = calls.setdefault(part.index, {"id": "", "name": "", "args": ""})
                            call["id"] = part.id or call["id"]
                            if part.function is not None:
                                call["name"] += part.function.name or ""
                                call["args"] += part.function.arguments or ""
        self._count("chat", None)
        return ChatTurn(
            content="".join(text),
            tool_calls=tuple(
                ToolCallRequest(id=c["id"] or f"call_{i}", name=c["name"], arguments=c["args"])
                for i, c in sorted(calls.items())
            ),
        )

    def describe_image(
        self,
        *,
        image: bytes,
        mime: str,
        prompt: str,
        answer: type[A],
        max_tokens: int = 600,
    ) -> A:
        url = f"data:{mime};base64,{base64.b64encode(image).decode('ascii')}"
        messages = [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": prompt},
                    {"type": "image_url", "image_url": {"url": url}},
                ],
            }
        ]
        return self.chat_answer(
            messages=messages, answer=answer, max_tokens=max_tokens, role="vision"
        )

    def embed(self, texts: list[str], *, interactive: bool = False) -> list[list[float]]:
        """One vector per text, of exactly TIMETRACE_EMBEDDING_DIM numbers."""
        if self._embedding is None:
            raise ModelUnavailable("no embedding endpoint is configured")
        with self._call("embedding", interactive=interactive):
            reply = self._embedding.embeddings.create(
                model=self.settings.embedding_model, input=texts
            )
        self._count("embedding", reply.usage)
        vectors = [list(item.embedding) for item in sorted(reply.data, key=lambda d: d.index)]
        want = self.settings.embedding_dim
        if len(vectors) != len(texts):
            raise ModelOutputError(f"asked for {len(texts)} embeddings, got {len(vectors)}")
        for vector in vectors:
            if len(vector) != want:
                raise EmbeddingDimensionError(
                    f"the embedding endpoint returns {len(vector)}-dimensional vectors but "
                    f"TIMETRACE_EMBEDDING_DIM is {want}: pick a model of that size or a new "
                    "database built with the right dimension"
                )
        return vectors
