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
calls fail at once with `ModelUnavailable` instead of hammering a dead server
(`app.enrich.gate`). The openai package is imported when a role's endpoint is
configured, not before: commands that call no model start without it.

Servers differ in what they accept (`app.enrich.negotiation`): structured output is
negotiated per endpoint and model (json_schema, then json_object with the schema
in the prompt, then plain text), and a refusal that names the request is a
capability answer, never an outage. Embedding servers that return one vector
per token are mean-pooled here.
"""

from __future__ import annotations

import base64
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from app.enrich.answers import Answer
from app.enrich.gate import Breaker, ModelUnavailable, PriorityGate, Usage, unavailable_errors
from app.enrich.negotiation import (
    ModeMemory,
    ToolMemory,
    ToolPath,
    names_the_request,
    refuses_the_format,
    request_for,
)
from app.enrich.parsing import ModelOutputError, parse_answer, parse_json_object
from app.enrich.turns import ChatTurn, ServedModel, ToolCallRequest, mean_pool
from app.errors import ConfigError
from app.settings import Settings

if TYPE_CHECKING:
    import openai
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

__all__ = [
    "AnswerRejected",
    "ChatTurn",
    "EmbeddingDimensionError",
    "ModelClient",
    "ModelOutputError",
    "ModelUnavailable",
    "PriorityGate",
    "ServedModel",
    "ToolCallRequest",
    "mean_pool",
    "parse_answer",
    "parse_json_object",
]

log = logging.getLogger("timetrace.models")
A = TypeVar("A", bound=Answer)
Check = Callable[[A], list[str]]


class AnswerRejected(ModelOutputError):
    """The model's answer still had problems after one corrected retry."""

    def __init__(
        self, message: str, *, answer: Answer | None, problems: list[str], raw: str | None
    ) -> None:
        super().__init__(message)
        self.answer = answer  # the last answer, when it at least had the right shape
        self.problems = problems
        self.raw = raw  # the model's last answer as it came, for the failure record


class EmbeddingDimensionError(ConfigError):
    """The embedding endpoint returns vectors of another size than TIMETRACE_EMBEDDING_DIM."""


MODELS_TTL_S = 300.0  # how long the ids an endpoint reports are trusted
MODELS_TIMEOUT_S = 3.0


class _FormatRefused(Exception):
    """The endpoint refused the answer format it was asked for (internal)."""

    def __init__(self, status: int) -> None:
        self.status = status


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
        self._modes = ModeMemory()
        self._tool_paths = ToolMemory()
        self._served: dict[str, tuple[float, ServedModel]] = {}
        self._pooling_logged = False
        first = settings.llm_backoff_s
        self._breakers = {
            role: Breaker(role, first, self.usage) for role in ("chat", "vision", "embedding")
        }
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
        import openai  # only with an endpoint configured: see the module's docstring

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

    def enabled(self, role: str) -> bool:
        """Configured: an endpoint is set for the role (chat, vision, embedding)."""
        return {"chat": self._chat, "vision": self._vision, "embedding": self._embedding}[
            role
        ] is not None

    def available(self, role: str = "chat") -> bool:
        """Configured, and not inside a backoff window after a failure."""
        client = {"chat": self._chat, "vision": self._vision, "embedding": self._embedding}[role]
        return client is not None and not self._breakers[role].is_open

    @contextmanager
    def _call(self, role: str, *, interactive: bool) -> Iterator[None]:
        import openai

        unavailable = unavailable_errors()
        breaker = self._breakers[role]
        breaker.check()
        with self._gate.slot(interactive=interactive):
            started = time.monotonic()
            try:
                yield
            except openai.APIStatusError as exc:
                # One that names the request is a capability answer, not an outage.
                if isinstance(exc, unavailable) and not names_the_request(exc):
                    breaker.failed(f"HTTP {exc.status_code}")
                    raise ModelUnavailable(
                        f"{role} endpoint unavailable: HTTP {exc.status_code}"
                    ) from exc
                raise ModelOutputError(
                    f"{role} endpoint refused the request: HTTP {exc.status_code} "
                    f"({exc.message[:160]})"
                ) from exc
            except unavailable as exc:
                breaker.failed(type(exc).__name__)
                raise ModelUnavailable(
                    f"{role} endpoint unavailable: {type(exc).__name__}"
                ) from exc
            finally:
                with self._usage_lock:
                    self.usage.seconds[role].append(time.monotonic() - started)
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
    ) -> tuple[str | None, bool]:
        """The answer's text, and whether the server cut it off at max_tokens. The
        output mode is negotiated: a refused format moves this endpoint to the next."""
        import openai

        url = str(client.base_url)
        while True:
            mode = self._modes.current(url, model)
            try:
                with self._call(role, interactive=interactive):
                    try:
                        reply = client.chat.completions.create(
                            model=model,
                            max_tokens=max_tokens,
                            temperature=0.2,
                            **request_for(mode, messages=messages, answer=answer),
                        )
                    except openai.APIStatusError as exc:
                        if names_the_request(exc) and refuses_the_format(exc):
                            raise _FormatRefused(exc.status_code) from exc
                        raise
            except _FormatRefused as refused:
                if not self._modes.fall_back(url, model, refused=mode, status=refused.status):
                    raise ModelOutputError(
                        f"{role} endpoint refused every answer format: HTTP {refused.status}"
                    ) from refused
                continue
            self._count(role, reply.usage)
            if not reply.choices:
                return None, False
            choice = reply.choices[0]
            return choice.message.content, choice.finish_reason == "length"

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

        An answer that is not that JSON object (servers may ignore the format), or
        that `check` finds problems with, is sent back once with the problems named
        (and `fix` for `check`'s); if the second answer has problems too,
        `AnswerRejected` carries it, its problems and its raw text."""
        client = self._chat if role == "chat" else self._vision
        model = self.settings.llm_model if role == "chat" else self.settings.vision_model
        if client is None:
            raise ModelUnavailable(f"no {role} endpoint is configured")
        conversation = list(messages)
        for attempt in range(2):
            text, cut_off = self._complete(
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
                result = parse_answer(text, answer=answer, cut_off=cut_off)
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
                    raw=text,
                )
            conversation += [
                {"role": "assistant", "content": text or ""},
                {
                    "role": "user",
                    "content": f"That answer was rejected: {'; '.join(problems)}. {hint}",
                },
            ]
        raise AssertionError("unreachable")

    def tool_path(self) -> tuple[ToolPath, bool]:
        """How the chat endpoint calls tools (`app.enrich.negotiation.ToolMemory`), and
        whether that path has made a tool call yet."""
        return self._tool_paths.current(self._chat_url, self.settings.llm_model)

    def tool_path_worked(self, path: ToolPath) -> None:
        self._tool_paths.confirm(self._chat_url, self.settings.llm_model, path=path)

    def tool_path_failed(self, path: ToolPath, *, why: str) -> ToolPath:
        """Remember that `path` gave nothing here; the path to use from now on."""
        return self._tool_paths.fall_back(
            self._chat_url, self.settings.llm_model, failed=path, why=why
        )

    @property
    def _chat_url(self) -> str:
        return str(self._chat.base_url) if self._chat is not None else ""

    def chat_turn(
        self,
        *,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None = None,
        max_tokens: int = 1_200,
        on_token: Callable[[str], None] = lambda text: None,
        stream: bool = True,
    ) -> ChatTurn:
        """One interactive chat completion, offering `tools` (OpenAI tool calling,
        `tool_choice: auto` said out loud: llama-cpp-python's function-calling format
        ignores tools without it) when given. Streamed, each piece of text goes to
        `on_token` as it arrives, and an exception raised there stops the stream and
        closes the connection; unstreamed, `on_token` is not called."""
        if self._chat is None:
            raise ModelUnavailable("no chat endpoint is configured")
        from openai.types.chat import ChatCompletionMessageFunctionToolCall

        request: dict[str, Any] = {
            "model": self.settings.llm_model,
            "messages": messages,
            "max_tokens": max_tokens,
            "temperature": 0.2,
            **({"tools": tools, "tool_choice": "auto"} if tools else {}),
        }
        if not stream:
            with self._call("chat", interactive=True):
                reply: ChatCompletion = self._chat.chat.completions.create(**request)
            self._count("chat", reply.usage)
            message = reply.choices[0].message if reply.choices else None
            asked = [
                c
                for c in ((message.tool_calls or []) if message is not None else [])
                if isinstance(c, ChatCompletionMessageFunctionToolCall)
            ]
            return ChatTurn(
                content=(message.content or "") if message is not None else "",
                tool_calls=tuple(
                    ToolCallRequest(
                        id=c.id or f"call_{i}",
                        name=c.function.name,
                        arguments=c.function.arguments or "",
                    )
                    for i, c in enumerate(asked)
                ),
                streamed=False,
            )
        text: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        with self._call("chat", interactive=True):
            chunks: openai.Stream[ChatCompletionChunk] = self._chat.chat.completions.create(
                **request, stream=True
            )
            with chunks:
                for chunk in chunks:
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

    def served_model(self, role: str) -> ServedModel:
        """What the role's endpoint says it serves (`/v1/models`, asked at most every
        five minutes), else the configured model id, marked as such."""
        client = {"chat": self._chat, "vision": self._vision, "embedding": self._embedding}[role]
        configured = {
            "chat": self.settings.llm_model,
            "vision": self.settings.vision_model,
            "embedding": self.settings.embedding_model,
        }[role]
        if client is None:
            return ServedModel(role=role, url=None, ids=(configured,), reported=False)
        cached = self._served.get(role)
        if cached is not None and time.monotonic() - cached[0] < MODELS_TTL_S:
            return cached[1]
        import httpx
        import openai

        url = str(client.base_url).rstrip("/")
        try:
            listed = client.with_options(timeout=MODELS_TIMEOUT_S).models.list()
            ids = tuple(m.id for m in listed.data if m.id)
        except (openai.OpenAIError, httpx.HTTPError):  # a server without the route, or down
            ids = ()
        if configured in ids:
            ids = (configured,)  # the server holds several; this one is asked for
        served = ServedModel(role=role, url=url, ids=ids or (configured,), reported=bool(ids))
        self._served[role] = (time.monotonic(), served)
        return served

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
        """One vector per text, of exactly TIMETRACE_EMBEDDING_DIM numbers. A server
        that returns one vector per token gets them mean-pooled."""
        if self._embedding is None:
            raise ModelUnavailable("no embedding endpoint is configured")
        with self._call("embedding", interactive=interactive):
            reply = self._embedding.embeddings.create(
                model=self.settings.embedding_model, input=texts
            )
        self._count("embedding", reply.usage)
        raw: list[Any] = [item.embedding for item in sorted(reply.data, key=lambda d: d.index)]
        if len(raw) != len(texts):
            raise ModelOutputError(f"asked for {len(texts)} embeddings, got {len(raw)}")
        vectors = [self._one_vector(item) for item in raw]
        want = self.settings.embedding_dim
        for vector in vectors:
            if len(vector) != want:
                raise EmbeddingDimensionError(
                    f"the embedding endpoint returns {len(vector)}-dimensional vectors but "
                    f"TIMETRACE_EMBEDDING_DIM is {want}: pick a model of that size or a new "
                    "database built with the right dimension"
                )
        return vectors

    def _one_vector(self, item: Any) -> list[float]:
        if not isinstance(item, list) or not item or not isinstance(item[0], list):
            return [float(x) for x in item]
        if not self._pooling_logged:
            self._pooling_logged = True
            log.info(
                "the embedding endpoint returns one vector per token: mean-pooling them here "
                "(to pool on the server: llama-server --pooling mean, or llama_cpp.server "
                "--kv_overrides <arch>.pooling_type=int:1)"
            )
        return mean_pool(item)
