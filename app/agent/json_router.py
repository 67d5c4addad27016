"""The router for a model that cannot call tools: it names the tool, then writes its
arguments, each as one JSON object (structured output, negotiated per endpoint like
every other answer), and the arguments are validated against the registry's
schema with one corrected retry.

    call = pick_tool(models, messages=messages, language="en", may_answer=True)
    call is None          # the results so far are enough: write the answer
    call.name, call.arguments

On llama.cpp's server JSON mode carries the schema as a grammar, so a tiny model
can only name a tool that exists and write arguments of the right shape. The
router offers the reads (tiers 0–3, cheapest first), not the write or the
map-reduce fallback: a model that cannot call tools is not one to trust with a
relabel or a fan-out of its own calls; a read that has answered is not offered again.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from typing import Any, ClassVar

from pydantic import ConfigDict, Field, ValidationError, create_model

from app.enrich.answers import Answer
from app.enrich.client import AnswerRejected, ModelClient, ModelOutputError, ToolCallRequest
from app.text import Language
from app.tools import REGISTRY, list_tools
from app.tools.registry import TIERS

ANSWER = "answer"  # the pick that means: no more tools
ROUTER_TIERS = ("0", "1", "2", "3")


class ToolPick(Answer):
    """The one tool to call next."""

    name: ClassVar[str] = "tool_pick"
    tool: str


class ToolArguments(Answer):
    """The arguments of one tool call (the tool's own JSON schema)."""

    model_config = ConfigDict(extra="allow", strict=False, frozen=True)
    name: ClassVar[str] = "tool_arguments"


PICK: dict[Language, str] = {
    "zh": "可用工具：\n{tools}\n\n例子：「现在在做什么」→ get_now；「多少小时/几次」→ query_stats；"
    "「总结」→ get_digest；「那天做了什么」→ get_episodes；「什么时候做过 X」→ search_episodes；"
    "「坏习惯/返工」→ get_signals。\n\n问题：{question}\n选出下一步要调用的一个工具{answer}。"
    '只输出 JSON：{{"tool": "<工具名>"}}。',
    "en": 'Tools:\n{tools}\n\nExamples: "what am I doing now" → get_now; "how many hours / '
    'times" → query_stats; "summarise" → get_digest; "what did I do then" → get_episodes; '
    '"when did I do X" → search_episodes; "bad habits / rework" → get_signals.\n\n'
    "Question: {question}\nName the one tool to call next{answer}. Reply with only JSON: "
    '{{"tool": "<tool name>"}}.',
}
PICK_ANSWER: dict[Language, str] = {
    "zh": "；如果上面的结果已经够回答，写 answer",
    "en": ', or "answer" when the results above are enough',
}
ARGUMENTS: dict[Language, str] = {
    "zh": "为 {tool} 写参数：一个符合此 JSON schema 的对象（只输出 JSON）：\n{schema}",
    "en": "Write the arguments of {tool}: one JSON object that follows this JSON schema "
    "(reply with only the JSON):\n{schema}",
}


def _pick_answer(names: Sequence[str]) -> type[ToolPick]:
    """ToolPick whose schema lists the names (a grammar on llama.cpp's server)."""
    return create_model(
        "ToolPick",
        __base__=ToolPick,
        tool=(str, Field(json_schema_extra={"enum": list(names)})),
    )


def arguments_answer(schema: dict[str, Any]) -> type[ToolArguments]:
    """ToolArguments whose schema is the tool's own (what the endpoint is sent)."""

    def own_schema(target: dict[str, Any]) -> None:
        target.clear()
        target.update(schema)

    config = ConfigDict(extra="allow", strict=False, frozen=True, json_schema_extra=own_schema)
    return type("ToolArguments", (ToolArguments,), {"model_config": config})


def offered(*, answered: Collection[str]) -> list[str]:
    """The reads the router may name, cheapest first, without those that answered."""
    reads = [t for t in REGISTRY.values() if t.tier in ROUTER_TIERS and t.name not in answered]
    return [t.name for t in sorted(reads, key=lambda t: TIERS.index(t.tier))]


def _listing(names: Sequence[str]) -> str:
    lines = {t["name"]: t["description"].strip().splitlines()[0] for t in list_tools()}
    return "\n".join(f"- {name}: {lines[name]}" for name in names)


def _validation_problems(tool: str, arguments: dict[str, Any]) -> list[str]:
    try:
        REGISTRY[tool].params.model_validate(arguments)
    except ValidationError as exc:
        return [
            f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        ][:4]
    return []


def pick_tool(
    models: ModelClient,
    *,
    messages: list[dict[str, Any]],
    question: str,
    language: Language,
    answered: Collection[str],
    call_id: str,
) -> ToolCallRequest | None:
    """The next tool call as JSON, or None when the model says the results suffice
    (offered once a tool has answered, or when no read is left).
    Raises `ModelOutputError` when it cannot name a tool or write usable arguments."""
    reads = offered(answered=answered)
    if not reads:
        return None
    may_answer = bool(answered)
    names = [*reads, *([ANSWER] if may_answer else [])]
    ask = PICK[language].format(
        tools=_listing(reads),
        question=question,
        answer=PICK_ANSWER[language] if may_answer else "",
    )
    pick = models.chat_answer(
        messages=[*messages, {"role": "user", "content": ask}],
        answer=_pick_answer(names),
        check=lambda p: [] if p.tool in names else [f"unknown tool {p.tool!r}"],
        fix=f"Name one of: {', '.join(names)}.",
        max_tokens=40,
        interactive=True,
    )
    if pick.tool == ANSWER:
        return None
    arguments = _arguments(models, messages, ask, tool=pick.tool, language=language)
    return ToolCallRequest(
        id=call_id, name=pick.tool, arguments=json.dumps(arguments, ensure_ascii=False)
    )


def _arguments(
    models: ModelClient, messages: list[dict[str, Any]], ask: str, *, tool: str, language: Language
) -> dict[str, Any]:
    """The arguments of the picked tool, as the model writes them to its schema."""
    spec = REGISTRY[tool]
    schema = next(t["input_schema"] for t in list_tools() if t["name"] == spec.name)
    request = ARGUMENTS[language].format(
        tool=spec.name, schema=json.dumps(schema, ensure_ascii=False)
    )
    conversation = [
        *messages,
        {"role": "user", "content": ask},
        {"role": "assistant", "content": json.dumps({"tool": spec.name})},
        {"role": "user", "content": request},
    ]
    try:
        written = models.chat_answer(
            messages=conversation,
            answer=arguments_answer(schema),
            check=lambda a: _validation_problems(spec.name, dict(a.model_extra or {})),
            fix=f"Follow the schema of {spec.name} exactly.",
            max_tokens=200,
            interactive=True,
        )
        arguments = dict(written.model_extra or {})
    except AnswerRejected:
        # Twice wrong: the tool with its defaults, when it has no required argument.
        if _validation_problems(spec.name, {}):
            raise
        arguments = {}
    return arguments


__all__ = ["ANSWER", "ModelOutputError", "ToolArguments", "ToolPick", "pick_tool"]
