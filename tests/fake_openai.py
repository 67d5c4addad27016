"""A small OpenAI-compatible server on loopback with scripted, deterministic
answers, so the real `openai` client code runs end to end in tests.

    with FakeOpenAI(dim=384) as fake:
        settings = Settings(llm_base_url=fake.url, embedding_base_url=fake.url, ...)
        ...
        fake.calls["episode_summary"]   # how many times each kind was asked for
        fake.script = [call("query_stats", period="this_month"), answer_from_tools]

Chat answers depend only on the request: an episode summary is made from the
activity log in the prompt (its first app and title, its literal rework cues),
a narrative copies the numbers of the METRICS block and names the first
summary, a frame description reads the window title, a deep_scan finding counts
the records of its slice. Embeddings are hashed bags of the shared tokenizer's
tokens, with a few synonyms mapped together so paraphrases land close.

Streamed requests (the agent's turns) follow `script`, one entry per turn: a
tool call (`call(...)`), a text (`say(...)`) or a function of the request's
messages that returns either; with the script empty the answer is "ok". They
stream in small chunks, `stream_delay` seconds apart; `streams_aborted` counts
the streams whose client went away before the end.

Modes mimic real servers and small models:

    fake.server = "llamacpp"       # json_schema refused with HTTP 500 naming it
    fake.server = "ollama"         # the format ignored: JSON inside chatter and a fence
    fake.per_token_embeddings = True   # one vector per token (llama.cpp without pooling)
    fake.raw_newlines = True       # raw newlines inside JSON strings
    fake.echo_title = "example"    # titles copy the prompt's example ("header": its header)
    fake.wrong_language = True     # English answers for Chinese logs and the reverse
    fake.max_chars = 120           # answers cut off there, finish_reason "length"
    fake.answer_delay = 5          # a slow model: each non-streamed answer takes 5 s
    fake.tool_stream = "empty"     # llama-cpp-python: a streamed request with tools gets the
                                   # role chunk, then [DONE]; unstreamed, tool calls work
    fake.tool_stream = "ignored"   # as "empty", and unstreamed the tools are ignored: prose
    fake.tool_stream = "prose"     # tools ignored streamed and unstreamed: prose that is no
                                   # answer (llama-cpp-python's default chat format)
    fake.served = ["smollm2"]      # what GET /v1/models reports (none: the route is missing)

Unstreamed requests that offer `tools` follow `script` too, as streamed ones do.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from app.patterns import LinearPattern
from app.pyramid.signals import ROLLBACK, UNDO
from app.text import estimate_tokens, tokenize

SYNONYMS = {
    "回滚": "rollback",
    "撤销": "undo",
    "revert": "rollback",
    "reset": "rollback",
    "rollback": "rollback",
    "重置": "rollback",
    "视频": "video",
    "video": "video",
    "bilibili": "video",
    "youtube": "video",
    "论文": "paper",
    "paper": "paper",
    "arxiv": "paper",
    "会议": "meeting",
    "meeting": "meeting",
    "zoom": "meeting",
    "测试": "test",
    "pytest": "test",
    "test": "test",
    "失败": "failed",
    "failed": "failed",
}
_FAILED = re.compile(r"\d+ failed")


def fake_embedding(text: str, dim: int) -> list[float]:
    vector = [0.0] * dim
    for token in tokenize(text):
        token = SYNONYMS.get(token, token)
        digest = hashlib.blake2b(token.encode(), digest_size=8).digest()
        index = int.from_bytes(digest[:4], "little") % dim
        vector[index] += 1.0 if digest[4] % 2 else -1.0
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [x / norm for x in vector]


def _text_of(messages: list[dict[str, Any]]) -> str:
    parts = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, list):
            parts += [c.get("text", "") for c in content if isinstance(c, dict)]
        elif content:
            parts.append(str(content))
    return "\n".join(parts)


# What llama-cpp-python's server answers to response_format json_schema (HTTP 500).
LLAMACPP_REFUSAL = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
    "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
    "'ctx': {'expected': \"'text' or 'json_object'\"}}"
)
_SCHEMA_NAME = re.compile(r"JSON object `(\w+)`")


def summary_answer(prompt: str) -> dict[str, Any]:
    log = prompt.split("ACTIVITY LOG", 1)[-1]
    lines = [line for line in log.splitlines() if " — " in line]
    titled = [line for line in lines if "(no title)" not in line] or lines
    category = re.search(r"Category by time: (\w+)", prompt)
    first = titled[0].split(maxsplit=2)[2] if titled else "activity"
    app, _, title = first.partition(" — ")
    chinese = "用中文写" in prompt  # the language the prompt asks for
    cues: list[str] = []
    for line in lines:
        for pattern in (ROLLBACK, UNDO, _FAILED):
            cue = pattern.first(line) if isinstance(pattern, LinearPattern) else None
            if not isinstance(pattern, LinearPattern) and (match := pattern.search(line)):
                cue = match.group(0)
            if cue and cue not in cues:
                cues.append(cue)
    title_text = (f"{app}：{title}" if chinese else f"{app}: {title}")[:40]
    summary = (
        f"在 {app} 里忙着：{title}。"
        if chinese
        else f"Worked in {app} across {len(lines)} screens: {title}."
    )
    return {
        "title": title_text,
        "summary": summary,
        "category": category.group(1) if category else "work",
        "tags": [app.lower()],
        "cues": cues,
    }


def narrative_answer(prompt: str) -> dict[str, Any]:
    hours = json.loads(re.search(r"hours by category: (\{.*\})", prompt).group(1))  # type: ignore[union-attr]
    episodes = re.search(r"episodes: (\d+)", prompt).group(1)  # type: ignore[union-attr]
    parts = [f"{category} {value} hours" for category, value in sorted(hours.items())]
    # What the first source was about: a day's first title, a week's first day narrative.
    first = prompt.split("SUMMARIES\n", 1)[-1].split("\n", 1)[0]
    if "beginning with " in first:  # a week or month: what its first day began with
        first = first.split("beginning with ", 1)[1]
    about = re.split(r"[:.。]", re.sub(r"^[\d:–\- ]+UTC \[\w+\] ", "", first))[0][:60]
    return {
        "narrative": f"The period had {episodes} episodes, beginning with {about}. "
        "Time went to " + ", ".join(parts) + "."
    }


def describe_answer(prompt: str) -> dict[str, Any]:
    title = re.search(r"Window title: (.*)\.", prompt)
    text = title.group(1) if title else "a screen"
    cues = [cue for cue in [ROLLBACK.first(text)] if cue]
    return {
        "description": f"The screen shows {text}",
        "category": "work",
        "confidence": 0.9,
        "cues": cues,
    }


Turn = dict[str, Any]
ScriptEntry = Turn | Callable[[list[dict[str, Any]]], Turn]


def call(name: str, /, **arguments: Any) -> Turn:
    """A scripted turn that calls one tool."""
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def say(text: str) -> Turn:
    """A scripted turn that answers with text."""
    return {"content": text}


def tool_results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tool results the conversation holds so far, oldest first."""
    return [json.loads(m["content"]) for m in messages if m.get("role") == "tool"]


_RECORD_LINE = re.compile(r"^#(\d+) (\S+ \S+) \S+ (.*)$", re.MULTILINE)


def finding_answer(prompt: str) -> dict[str, Any]:
    """A deep_scan finding: how many records a slice holds and its first ones; a
    reduce copies the ids of the findings it combines."""
    if "FINDINGS:" in prompt:
        ids = [
            int(i) for i in re.findall(r"\d+", " ".join(re.findall(r"records: \[(.*?)\]", prompt)))
        ]
        parts = len(re.findall(r"^\[slice ", prompt, re.MULTILINE))
        return {"finding": f"Combined {parts} findings.", "record_ids": ids[:20]}
    lines = _RECORD_LINE.findall(prompt)
    first = lines[0] if lines else ("0", "", "nothing")
    return {
        "finding": f"{len(lines)} records from {first[1]}, starting with {first[2][:60]}.",
        "record_ids": [int(line[0]) for line in lines[:3]],
    }


class FakeOpenAI:
    """Start with `with FakeOpenAI() as fake:`; `stop()` and `start()` take it away and back."""

    def __init__(self, *, dim: int = 384) -> None:
        self.dim = dim
        self.server: Literal["openai", "llamacpp", "ollama"] = "openai"
        self.per_token_embeddings = False
        self.raw_newlines = False
        self.echo_title: Literal["example", "header"] | None = None
        self.wrong_language = False
        self.max_chars: int | None = None
        self.refused = 0  # requests refused the way this kind of server refuses them
        self.calls: Counter[str] = Counter()
        self.requests: list[dict[str, Any]] = []
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.script: list[ScriptEntry] = []
        self.stream_delay = 0.0
        self.tool_stream: Literal["works", "empty", "ignored", "prose"] = "works"
        self.empty_streams = 0  # streamed requests with tools whose tools were not called
        self.served: list[str] = []
        self.answer_delay = 0.0  # how long each non-streamed answer takes
        self.in_flight = 0
        self.max_in_flight = 0  # the most chat requests answered at once
        self.streams_aborted = 0
        self.streams_finished = 0
        # Hooks: return a string to send as the answer's content instead of the scripted one.
        self.override: Callable[[str, str], str | None] = lambda name, prompt: None
        self.fail_with: int | None = None  # answer every request with this HTTP status
        self.stop_after: int | None = None  # go away after this many chat calls
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> FakeOpenAI:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        handler = self._handler()
        ThreadingHTTPServer.allow_reuse_address = True
        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        self.port = self._server.server_address[1]
        # A short poll: stop() waits for the loop to notice, 0.5 s per server by default.
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def total_calls(self) -> int:
        return sum(self.calls.values())

    def refusal(self, body: dict[str, Any]) -> str | None:
        """What a server of this kind refuses in the request, as its error message."""
        fmt = (body.get("response_format") or {}).get("type")
        if self.server == "llamacpp" and fmt == "json_schema":
            return LLAMACPP_REFUSAL
        return None

    def _scripted(self, name: str, prompt: str) -> str:
        answer = {
            "episode_summary": summary_answer,
            "digest_narrative": narrative_answer,
            "frame_description": describe_answer,
            "deep_scan_finding": finding_answer,
        }.get(name, lambda p: {"answer": "ok"})(prompt)
        if name == "episode_summary":
            answer = self._flawed_summary(answer, prompt)
        content = json.dumps(answer, ensure_ascii=False)
        if self.raw_newlines:  # a summary in two paragraphs, the newline left raw
            content = content.replace(". ", ".\n", 1).replace("。", "。\n", 1)
        if self.server == "ollama":
            content = f"Sure! Here is the JSON:\n```json\n{content}\n```\nAnything else?"
        return content

    def _flawed_summary(self, answer: dict[str, Any], prompt: str) -> dict[str, Any]:
        if self.echo_title == "example":
            chinese = "用中文写" in prompt
            answer["title"] = (
                "调试 支付回调超时" if chinese else "Debugging the payment callback timeout"
            )
        elif self.echo_title == "header":
            header = re.search(r"Episode \d{4}-[^(]*", prompt)
            answer["title"] = header.group(0).strip() if header else "Episode"
        if self.wrong_language:
            chinese = "用中文写" in prompt
            answer["summary"] = (
                "The person spent the sitting on this, switching between windows."
                if chinese
                else "这个人在这段时间里一直在处理这件事，来回切换窗口。"
            )
        return answer

    def _answer_chat(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return self._compose_chat(body)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _compose_chat(self, body: dict[str, Any]) -> dict[str, Any]:
        prompt = _text_of(body.get("messages", []))
        fmt = body.get("response_format") or {}
        named = _SCHEMA_NAME.search(prompt)
        name = (fmt.get("json_schema") or {}).get("name") or (named.group(1) if named else "chat")
        with self._lock:
            self.calls[name] += 1
            self.requests.append(body)
        if self.answer_delay:  # after counting: a slow answer is seen as started
            time.sleep(self.answer_delay)
        message: dict[str, Any] = {"role": "assistant", "content": None}
        finish = "stop"
        content = self.override(name, prompt)
        if content is None:
            content = self._scripted(name, prompt)
        if self.max_chars is not None and len(content) > self.max_chars:
            content, finish = content[: self.max_chars], "length"
        message["content"] = content
        usage = {
            "prompt_tokens": estimate_tokens(prompt),
            "completion_tokens": estimate_tokens(message["content"] or ""),
        }
        with self._lock:
            self.prompt_tokens += usage["prompt_tokens"]
            self.completion_tokens += usage["completion_tokens"]
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": finish,
                }
            ],
            "usage": {**usage, "total_tokens": sum(usage.values())},
        }

    def _answer_tools(self, body: dict[str, Any]) -> dict[str, Any]:
        """An unstreamed turn that offers tools: the script's next entry, whole (or,
        from a server that ignores tools, prose that is no answer)."""
        if self.tool_stream in ("ignored", "prose"):
            with self._lock:
                self.calls["tools_ignored"] += 1
            turn: Turn = say("This month the website hosted many fun games.")
        else:
            turn = self._next_turn(body)
        calls = [
            {
                "id": f"call_{index}",
                "type": "function",
                "function": {
                    "name": c["name"],
                    "arguments": c["arguments"]
                    if isinstance(c["arguments"], str)
                    else json.dumps(c["arguments"], ensure_ascii=False),
                },
            }
            for index, c in enumerate(turn.get("tool_calls", []))
        ]
        message: dict[str, Any] = {"role": "assistant", "content": turn.get("content")}
        if calls:
            message["tool_calls"] = calls
        with self._lock:
            self.completion_tokens += estimate_tokens(turn.get("content") or "")
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake"),
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    def _empty_stream(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        """What llama-cpp-python's server streams for a request with tools: nothing,
        or prose from a chat format that ignores the tools."""
        with self._lock:
            self.empty_streams += 1
        role = {"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}
        choices = [role]
        if self.tool_stream == "prose":
            text = "You are doing something right now."
            choices.append({"index": 0, "delta": {"content": text}, "finish_reason": None})
        return [
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": body.get("model", "fake"),
                "choices": [choice],
            }
            for choice in choices
        ]

    def _next_turn(self, body: dict[str, Any]) -> Turn:
        with self._lock:
            self.calls["stream"] += 1
            self.requests.append(body)
            entry = self.script.pop(0) if self.script else say("ok")
        return entry(body["messages"]) if callable(entry) else entry

    def _stream_chunks(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        turn = self._next_turn(body)
        deltas: list[dict[str, Any]] = [{"role": "assistant"}]
        text = turn.get("content") or ""
        deltas += [{"content": text[i : i + 8]} for i in range(0, len(text), 8)]
        for index, tool_call in enumerate(turn.get("tool_calls", [])):
            arguments = tool_call["arguments"]
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False)
            head = {"index": index, "id": f"call_{index}", "type": "function"}
            half = len(arguments) // 2
            deltas += [
                {
                    "tool_calls": [
                        {**head, "function": {"name": tool_call["name"], "arguments": ""}}
                    ]
                },
                {"tool_calls": [{"index": index, "function": {"arguments": arguments[:half]}}]},
                {"tool_calls": [{"index": index, "function": {"arguments": arguments[half:]}}]},
            ]
        finish = "tool_calls" if turn.get("tool_calls") else "stop"
        chunks = [{"index": 0, "delta": d, "finish_reason": None} for d in deltas]
        chunks.append({"index": 0, "delta": {}, "finish_reason": finish})
        with self._lock:
            self.completion_tokens += estimate_tokens(text)
        return [
            {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": body.get("model", "fake"),
                "choices": [choice],
            }
            for choice in chunks
        ]

    def _answer_embeddings(self, body: dict[str, Any]) -> dict[str, Any]:
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        with self._lock:
            self.calls["embeddings"] += 1
        return {
            "object": "list",
            "model": body.get("model", "fake"),
            "data": [
                {"object": "embedding", "index": i, "embedding": self._embedding(t)}
                for i, t in enumerate(texts)
            ],
            "usage": {
                "prompt_tokens": sum(estimate_tokens(t) for t in texts),
                "total_tokens": sum(estimate_tokens(t) for t in texts),
            },
        }

    def _embedding(self, text: str) -> list[float] | list[list[float]]:
        if not self.per_token_embeddings:
            return fake_embedding(text, self.dim)
        return [fake_embedding(token, self.dim) for token in tokenize(text) or ["?"]]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                pass

            def do_GET(self) -> None:
                if self.path.endswith("/models") and fake.served:
                    data = [{"id": m, "object": "model", "owned_by": "me"} for m in fake.served]
                    self._send(200, {"object": "list", "data": data})
                else:
                    self._send(404, {"error": {"message": "no such route"}})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                if fake.fail_with:
                    with fake._lock:
                        fake.calls["refused"] += 1
                    self._send(fake.fail_with, {"error": {"message": "scripted failure"}})
                    return
                refused = fake.refusal(body) if self.path.endswith("/chat/completions") else None
                if refused:
                    with fake._lock:
                        fake.refused += 1
                    error = {"message": refused, "type": "internal_server_error"}
                    self._send(500, {"error": {**error, "param": None, "code": None}})
                elif (
                    self.path.endswith("/chat/completions")
                    and body.get("stream")
                    and body.get("tools")
                    and fake.tool_stream != "works"
                ):
                    self._stream(fake._empty_stream(body))
                elif self.path.endswith("/chat/completions") and body.get("stream"):
                    self._stream(fake._stream_chunks(body))
                elif self.path.endswith("/chat/completions") and body.get("tools"):
                    self._send(200, fake._answer_tools(body))
                elif self.path.endswith("/chat/completions"):
                    reply = fake._answer_chat(body)
                    self._send(200, reply)
                    chat_calls = fake.total_calls() - fake.calls["embeddings"]
                    if fake.stop_after is not None and chat_calls >= fake.stop_after:
                        fake.stop_after = None
                        threading.Thread(target=fake.stop, daemon=True).start()
                elif self.path.endswith("/embeddings"):
                    self._send(200, fake._answer_embeddings(body))
                else:
                    self._send(404, {"error": {"message": "no such route"}})

            def _stream(self, chunks: list[dict[str, Any]]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()  # HTTP/1.0: the stream ends when the connection closes
                try:
                    for chunk in chunks:
                        self.wfile.write(
                            f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode()
                        )
                        self.wfile.flush()
                        if fake.stream_delay:
                            time.sleep(fake.stream_delay)
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    with fake._lock:
                        fake.streams_aborted += 1
                    return
                with fake._lock:
                    fake.streams_finished += 1

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload, ensure_ascii=False).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler
