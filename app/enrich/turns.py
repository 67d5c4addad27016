"""What a chat or an embedding call gives back, in our own types: a chat turn with
its tool calls, the model an endpoint says it serves, and one vector per text.

    call = ToolCallRequest(id="c1", name="get_now", arguments="{}")
    turn = ChatTurn(content="", tool_calls=(call,))
"""

from __future__ import annotations

from dataclasses import dataclass

from app.enrich.parsing import ModelOutputError


@dataclass(frozen=True, slots=True)
class ToolCallRequest:
    """One tool call a model asked for; `arguments` is the JSON text it wrote."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class ChatTurn:
    """What one chat completion said: text, tool calls, or both."""

    content: str
    tool_calls: tuple[ToolCallRequest, ...]
    streamed: bool = True  # the text went to `on_token` as it came


@dataclass(frozen=True, slots=True)
class ServedModel:
    """The model a role's endpoint serves: the ids it reports (`/v1/models`), or the
    configured id when it reports none."""

    role: str
    url: str | None
    ids: tuple[str, ...]
    reported: bool

    def describe(self) -> str:
        """For status: the ids, whose word they are, and the endpoint."""
        if self.url is None:
            return "off"
        if self.reported:
            return f"{', '.join(self.ids)} (reported by {self.url})"
        return f"{', '.join(self.ids)} (configured; {self.url} reports no model)"

    def short(self) -> str:
        """For get_now: the ids and whose word they are."""
        said = "reported by the endpoint" if self.reported else "configured, not reported"
        return f"{', '.join(self.ids)} ({said})"


def mean_pool(vectors: list[list[float]]) -> list[float]:
    """One vector for a text from one vector per token (what llama.cpp's server sends
    when it is started without pooling)."""
    if not vectors:
        raise ModelOutputError("the embedding endpoint returned no vector for a text")
    width = len(vectors[0])
    return [sum(v[i] for v in vectors) / len(vectors) for i in range(width)]
