"""The agent: a thin router over the tool registry (OpenAI tool calling).

    runner = AgentRunner(ctx=ctx, models=models, emit=print, cancelled=lambda: False)
    run = runner.run(question="这个月娱乐花了多少小时？", history=[])
    run.answer, run.steps, run.model_calls

The tools offered are the registry's (`list_tools`) and every call goes through
`dispatch`, so a tool added to the registry is usable here with no other edit.
At most six model turns; the last is offered no tools, so it must answer.

How tools are called is learnt per endpoint (`ModelClient.tool_path`), as
structured output is: streamed tool calls first; a streamed turn with tools
that brings neither text nor a tool call (llama-cpp-python's server) is asked
again unstreamed, and that is remembered; an endpoint whose unstreamed turns
bring nothing either gets router turns in JSON mode (`app.agent.json_router`).
Until an endpoint has made a tool call, prose on a question's first turn may be
a server that ignores tools: it is held back and the next path tries the turn,
remembered once it calls a tool. Only the answer's prose streams, where it can;
held back or unstreamed it comes as one `token`. `run.path` says which path ran. A
per-question budget (TIMETRACE_AGENT_BUDGET_TOKENS, 40K estimated tokens of
history and tool output) is checked before every call: a read that could pass it
is refused and the next turn must answer. Tool errors go back to the model as
data. Events go to `emit`: step, token, budget, subagent.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.agent.json_router import pick_tool
from app.agent.prompts import FORCED_ANSWER, router_prompt
from app.enrich.client import ChatTurn, ModelClient, ModelOutputError, ToolCallRequest
from app.enrich.negotiation import ToolPath
from app.errors import TimeTraceError
from app.store.conversations import TurnStep
from app.text import Language, estimate_tokens, language_of
from app.timeutil import zone
from app.tools import REGISTRY, ToolContext, dispatch, list_tools
from app.tools.periods import today_of
from app.tools.registry import dump, output_tokens, to_json
from app.tools.results import ToolError, ToolOutcome

MAX_TURNS = 6
# A model that cannot call tools rarely knows when to stop: after two reads that
# answered, or two errors, a router run answers.
ROUTER_MAX_READS = 2
ROUTER_MAX_ERRORS = 2
ANSWER_NOW: dict[Language, str] = {
    "zh": "只根据上面的工具结果，用一两句话回答：",
    "en": "Using only the tool results above, answer in one or two sentences: ",
}
UNKNOWN_TOOL_CAP = 200  # what an error result for a tool that does not exist may cost
Emit = Callable[[str, dict[str, Any]], None]


class RunCancelled(TimeTraceError):
    """The asker went away; the run stopped."""


@dataclass(slots=True)
class RunResult:
    """What a run did: the answer, each tool call, and what it cost."""

    answer: str = ""
    streamed: list[str] = field(default_factory=list)  # every token sent, in order
    steps: list[TurnStep] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)  # as JSON, as the model read them
    tool_tokens: int = 0  # estimated tokens of every tool result read
    used_tokens: int = 0  # the budget's count: prompt, history, tool results, model turns
    model_calls: int = 0
    forced: bool = False  # the budget stopped the reads
    path: ToolPath | None = None  # how the tools were called: stream, plain or router


def tool_specs() -> list[dict[str, Any]]:
    """The registry as OpenAI tool definitions."""
    return [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t["description"],
                "parameters": t["input_schema"],
            },
        }
        for t in list_tools()
    ]


def _message_tokens(messages: Sequence[dict[str, Any]]) -> int:
    return sum(estimate_tokens(json.dumps(m, ensure_ascii=False)) for m in messages)


class AgentRunner:
    def __init__(
        self,
        *,
        ctx: ToolContext,
        models: ModelClient,
        emit: Emit,
        cancelled: Callable[[], bool],
    ) -> None:
        self.models = models
        self.emit = emit
        self.cancelled = cancelled
        self.budget = ctx.settings.agent_budget_tokens
        self.result = RunResult()  # filled as the run goes, so a failed run shows its steps
        # Long tools (deep_scan) report to the asker and stop when the asker goes away.
        self.ctx = dataclasses.replace(
            ctx, report=lambda progress: emit("subagent", progress), cancelled=cancelled
        )

    def _check(self) -> None:
        if self.cancelled():
            raise RunCancelled()

    def _on_token(self, text: str) -> None:
        self._check()
        self.result.streamed.append(text)
        self.emit("token", {"text": text})

    def run(self, *, question: str, history: Sequence[tuple[str, str]]) -> RunResult:
        """Answer `question`, after the earlier (question, answer) pairs of `history`."""
        language = language_of(question)
        messages = self._opening(question, history, language=language)
        run = self.result
        run.used_tokens = _message_tokens(messages)
        tools = tool_specs()
        for turn in range(MAX_TURNS):
            self._check()
            offer = not run.forced and turn < MAX_TURNS - 1
            reply = None
            if offer:
                reply = self._tool_turn(
                    messages, tools, question=question, language=language, turn=turn
                )
            if reply is None:  # the last turn, or the router says the results suffice
                final = messages
                if run.path == "router":  # a weak model: the question again, by its data
                    again = {"role": "user", "content": ANSWER_NOW[language] + question}
                    final = [*messages, again]
                reply = self.models.chat_turn(messages=final, on_token=self._on_token)
            run.model_calls += 1
            if not reply.tool_calls:
                if not reply.streamed and reply.content:
                    self._on_token(reply.content)
                run.answer = reply.content.strip()
                return run
            self._answer_calls(reply, messages, turn=turn, language=language)
        return run  # unreachable: the last turn is offered no tools

    def _opening(
        self, question: str, history: Sequence[tuple[str, str]], *, language: Language
    ) -> list[dict[str, Any]]:
        """The system prompt, the earlier turns and the question."""
        local_now = self.ctx.now.astimezone(zone(self.ctx.user.time_zone))
        system = router_prompt(
            language=language,
            today=today_of(self.ctx.user, self.ctx.now),
            now=f"{local_now:%Y-%m-%d %H:%M}",
            zone=self.ctx.user.time_zone,
        )
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        for asked, answered in history:
            messages += [
                {"role": "user", "content": asked},
                {"role": "assistant", "content": answered},
            ]
        messages.append({"role": "user", "content": question})
        return messages

    def _answer_calls(
        self, reply: ChatTurn, messages: list[dict[str, Any]], *, turn: int, language: Language
    ) -> None:
        """Run the reply's tool calls and add them and their results to `messages`."""
        run = self.result
        if run.path != "router":
            assistant: dict[str, Any] = {
                "role": "assistant",
                # Text, never null: llama-cpp-python's server refuses a null content.
                "content": reply.content,
                "tool_calls": [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments},
                    }
                    for call in reply.tool_calls
                ],
            }
            messages.append(assistant)
            run.used_tokens += _message_tokens([assistant])
        for call in reply.tool_calls:
            result = self._call_tool(call, run, turn=turn + 1, language=language)
            content = to_json(result)
            if run.path == "router":  # a server without tool calling reads them as text
                said = {"role": "user", "content": f"{call.name} → {content}"}
                messages.append(said)
                run.used_tokens += _message_tokens([said]) - estimate_tokens(content)
            else:
                messages.append({"role": "tool", "tool_call_id": call.id, "content": content})

    def _tool_turn(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        *,
        question: str,
        language: Language,
        turn: int,
    ) -> ChatTurn | None:
        """A turn offering the tools, down the ladder of paths this endpoint needs.
        None: the router says the results so far are enough (write the answer)."""
        run = self.result
        path, confirmed = self.models.tool_path()
        if run.path is not None:  # a question keeps the path its first call took
            path, confirmed = run.path, True
        while True:
            self._check()
            if path == "router":
                return self._router_turn(
                    messages, question=question, language=language, turn=turn, confirmed=confirmed
                )
            why = "gave no text and no tool call"
            try:
                # Until this endpoint has called a tool its prose may be a server that
                # ignores tools talking: it is held back, not streamed.
                reply: ChatTurn | None = self.models.chat_turn(
                    messages=messages,
                    tools=tools,
                    on_token=self._on_token if confirmed else lambda text: self._check(),
                    stream=path == "stream",
                )
                if reply is not None and not confirmed:
                    reply = dataclasses.replace(reply, streamed=False)
            except ModelOutputError as exc:  # the request refused: this path is not served
                if confirmed:
                    raise
                reply, why = None, f"were refused ({exc.message[:120]})"
            if reply is not None and reply.tool_calls:
                if not confirmed:
                    self.models.tool_path_worked(path)
                run.path = path
                return reply
            if reply is not None and reply.content.strip():
                if confirmed or turn > 0:
                    run.path = path
                    return reply
                # Prose on the first turn from an endpoint that has never called a tool:
                # it may ignore tools (llama-cpp-python's default chat format does). The
                # next path tries this turn; it is remembered only if it calls a tool.
                path = "plain" if path == "stream" else "router"
                continue
            if confirmed and reply is not None:
                run.path = path
                return reply  # an empty answer from a path that works: the asker gets none
            path, confirmed = self.models.tool_path_failed(path, why=why), False

    def _router_turn(
        self,
        messages: list[dict[str, Any]],
        *,
        question: str,
        language: Language,
        turn: int,
        confirmed: bool,
    ) -> ChatTurn | None:
        """The JSON router picks the next read; None when the results suffice."""
        run = self.result
        # Reads that answered are not offered again.
        answered = {step["tool"] for step in run.steps if "error" not in step}
        errors = sum("error" in step for step in run.steps)
        call = None
        if errors < ROUTER_MAX_ERRORS and len(answered) < ROUTER_MAX_READS:
            call = pick_tool(
                self.models,
                messages=messages,
                question=question,
                language=language,
                answered=answered,
                call_id=f"call_{turn}",
            )
        run.path = "router"
        if call is None:
            return None
        if not confirmed:
            self.models.tool_path_worked("router")
        return ChatTurn(content="", tool_calls=(call,), streamed=False)

    def _call_tool(
        self, call: ToolCallRequest, run: RunResult, *, turn: int, language: Language
    ) -> ToolOutcome:
        self._check()
        spec = REGISTRY.get(call.name)
        cap = spec.cap_tokens if spec else UNKNOWN_TOOL_CAP
        try:
            arguments = json.loads(call.arguments) if call.arguments.strip() else {}
        except ValueError as exc:
            arguments = None
            error: str | None = f"the arguments are not valid JSON ({exc}); send a JSON object"
        else:
            error = None
        self.emit(
            "step", {"phase": "call", "turn": turn, "tool": call.name, "arguments": arguments}
        )
        if run.forced or run.used_tokens + cap > self.budget:
            run.forced = True
            result: ToolOutcome = ToolError(error=FORCED_ANSWER[language])
            self._budget(run, "forced_answer")
        elif error is not None:
            result = ToolError(error=error)
        else:
            result = dispatch(self.ctx, call.name, arguments)
        tokens = output_tokens(result)
        run.tool_tokens += tokens
        run.used_tokens += tokens
        run.results.append(dump(result))
        shown = arguments if isinstance(arguments, dict) else {}
        step = TurnStep(tool=call.name, arguments=shown, tokens=tokens)
        if isinstance(result, ToolError):
            step["error"] = result.error
        run.steps.append(step)
        self.emit("step", {"phase": "result", "turn": turn, **step})
        if not run.forced:
            self._budget(run, "notice")
        return result

    def _budget(self, run: RunResult, action: str) -> None:
        left = max(0, self.budget - run.used_tokens)
        self.emit(
            "budget",
            {"used": run.used_tokens, "limit": self.budget, "left": left, "action": action},
        )
