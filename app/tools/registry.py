"""The one tool registry every door reads: the agent, MCP, HTTP and the CLI.

    result = dispatch(ctx, "query_stats", {"metric": "seconds_by_category", "period": "this_month"})

A tool is a name, a description written for an LLM router, an argument model
(whose JSON schema is what callers see) and an implementation. `dispatch`
validates the arguments, runs the tool, checks that it answered its declared
result model (`@tool(result=…)`, see app/tools/results.py) and caps the serialized
output by the shared CJK-aware token estimate. It never raises: every failure,
capping included, comes back as a `ToolError` (`{"error": …, "hint": …}` in JSON)
so a model can correct itself.
"""

from __future__ import annotations

import difflib
import functools
import json
import logging
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from app.enrich.client import ModelClient
from app.errors import ConflictError, DatabaseError, TimeTraceError, UnknownThingError
from app.rules.categories import Rules, load_rules
from app.settings import Settings
from app.store.accounts import UserContext
from app.store.tools import ToolStore
from app.text import estimate_tokens
from app.tools.instants import clock_context
from app.tools.paging import PagedResult, continued, same_call
from app.tools.results import ToolError, ToolOutcome, ToolResult
from app.tools.scope import refusal

log = logging.getLogger("timetrace.tools")


class Rebuild(Protocol):
    """Rebuild the episodes and digests of these (device, day) pairs now (after a write)."""

    def __call__(
        self, *, user: UserContext, device_days: Sequence[tuple[str, date]], now: datetime
    ) -> None: ...


@functools.cache
def default_rules() -> Rules:
    """The shipped rules, for a context built without a process's own (tests, scripts)."""
    return load_rules(user_file=None)


def _ignore(progress: dict[str, Any]) -> None:
    return None


def _never() -> bool:
    return False


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What a tool call may use: the reads of the store, the models (for embedding a
    query, or deep_scan's summaries), the caller, the clock, how to rebuild days after
    the one write, and the rules (app identities for the coverage view). A long tool
    reports progress to `report` and stops early once `cancelled()` (the asker went away)."""

    store: ToolStore
    models: ModelClient | None
    settings: Settings
    user: UserContext
    now: datetime
    rebuild: Rebuild
    rules: Rules = field(default_factory=default_rules)
    report: Callable[[dict[str, Any]], None] = _ignore
    cancelled: Callable[[], bool] = _never


class ToolArgs(BaseModel):
    """The base of every tool's argument model: an unknown key is an error, never
    dropped (a typo such as `perod` would otherwise answer for the default period)."""

    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    params: type[ToolArgs]
    result: type[ToolResult]
    run: Callable[[ToolContext, Any], ToolResult]
    cap_tokens: int  # hard ceiling on the serialized output
    tier: str

    def input_schema(self) -> dict[str, Any]:
        schema = self.params.model_json_schema()
        schema.pop("title", None)
        return schema

    def output_schema(self) -> dict[str, Any]:
        """The JSON schema of a successful result as the doors send it."""
        return output_schema(self.result)


@functools.cache
def output_schema(result: type[ToolResult]) -> dict[str, Any]:
    # Building a JSON schema costs milliseconds, and a result model's never changes.
    untitled: dict[str, Any] = _untitled(result.model_json_schema(mode="serialization"))
    return untitled


def _untitled(node: Any, *, names: bool = False) -> Any:
    """A JSON schema without pydantic's generated titles ("Idle Minutes"): they repeat the
    field names in every listing. `names`: `node` maps names to schemas (a field may be
    called title)."""
    if isinstance(node, list):
        return [_untitled(v) for v in node]
    if not isinstance(node, dict):
        return node
    return {
        k: _untitled(v, names=not names and k in ("properties", "$defs"))
        for k, v in node.items()
        if names or not (k == "title" and isinstance(v, str))
    }


REGISTRY: dict[str, Tool] = {}
TIERS = ("0", "1", "2", "3", "write", "fallback")  # the cost ladder: cheapest first


def ordered_tools() -> list[Tool]:
    return sorted(REGISTRY.values(), key=lambda t: TIERS.index(t.tier))


Args = TypeVar("Args", bound=ToolArgs)
Result = TypeVar("Result", bound=ToolResult)


def tool(
    *,
    description: str,
    cap_tokens: int,
    tier: str,
) -> Callable[[Callable[[ToolContext, Args], Result]], Callable[[ToolContext, Args], Result]]:
    """Register a tool, stated once: its name is the function's, its arguments the model
    its `args` parameter is annotated with, its answer the model it returns. The
    decorator says only what the signature cannot: the description, the output cap in
    tokens and the tier of the cost ladder."""

    def register(
        run: Callable[[ToolContext, Args], Result],
    ) -> Callable[[ToolContext, Args], Result]:
        name = run.__name__
        hints = typing.get_type_hints(run)
        params, result = hints.get("args"), hints.get("return")
        if not (isinstance(params, type) and issubclass(params, ToolArgs)):
            raise TypeError(f"tool {name!r}: annotate `args` with its ToolArgs model")
        if not (isinstance(result, type) and issubclass(result, ToolResult)):
            raise TypeError(f"tool {name!r}: annotate its return with its ToolResult model")
        if name in REGISTRY:
            raise ValueError(f"tool {name!r} registered twice")
        REGISTRY[name] = Tool(
            name=name,
            description=description.strip(),
            params=params,
            result=result,
            run=run,
            cap_tokens=cap_tokens,
            tier=tier,
        )
        return run

    return register


def _default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    raise TypeError(f"cannot serialise {type(value).__name__}")


def dump(result: BaseModel) -> dict[str, Any]:
    """A result as the JSON object every door sends."""
    return result.model_dump(mode="json")


def to_json(result: BaseModel | Mapping[str, Any]) -> str:
    data = dump(result) if isinstance(result, BaseModel) else result
    return _json(data)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=_default, separators=(",", ":"))


def output_tokens(result: BaseModel | Mapping[str, Any]) -> int:
    return estimate_tokens(to_json(result))


def _cut_list(result: ToolResult) -> str | None:
    """The list to cut when a result is over its cap: `items` (tools list the most
    relevant first), else the longest list of the result."""
    lists = {
        name: value
        for name in type(result).model_fields
        if isinstance(value := getattr(result, name), list) and value
    }
    if "items" in lists:
        return "items"
    return max(lists, key=lambda name: len(lists[name]), default=None)


SHORT_LIST = 100  # items: see cap_output


def cap_output(result: ToolResult, *, cap: int) -> ToolOutcome:
    """Drop items from the end of the result's list until the output fits; a result
    that cannot fit is a `ToolError`."""
    data = dump(result)
    name = _cut_list(result)
    # No character costs more than a token (estimate_tokens): an output no longer than
    # the cap fits as it is, uncounted. Tried where the list is short: a long one
    # (get_raw's hundreds of records) is mostly cut, and serialising it whole first
    # cost more than counting it saved.
    short = name is None or len(data[name]) <= SHORT_LIST
    if short and len(_json(data)) <= cap:
        return result
    if name is None:
        return result if output_tokens(data) <= cap else _too_large()
    # The estimate adds up over a JSON list: no word or run of an item's text runs into
    # its neighbour's (a comma or bracket stands between). So an output costs its frame
    # (the list emptied) plus each item's tokens and a comma between two, and each item
    # is counted once, only up to the first that does not fit: a result of thousands of
    # records is not estimated whole, nor again at each step of a search.
    items: list[Any] = data[name]
    prefix = [0]  # prefix[n]: the first n items and their commas

    def counted(n: int) -> int:
        while len(prefix) <= n:
            k = len(prefix) - 1
            prefix.append(prefix[k] + estimate_tokens(_json(items[k])) + (1 if k else 0))
        return prefix[n]

    whole = output_tokens({**data, name: []})
    n = 0
    while n < len(items) and whole + counted(n + 1) <= cap:
        n += 1
    if n == len(items):
        return result
    # A cut output's frame differs only in the digits of `omitted` (and its cursor).
    paged = isinstance(result, PagedResult)
    cursor_of = result.cursor_after if isinstance(result, PagedResult) else _no_cursor
    frames: dict[int, int] = {}

    def frame(omitted: int) -> dict[str, Any]:
        kept = len(items) - omitted
        cursor = {"cursor": cursor_of(kept)} if paged else {}
        return {**data, name: [], "truncated": True, "omitted": omitted, **cursor}

    def cut(n: int) -> int:
        omitted = len(items) - n
        digits = len(str(omitted))
        if digits not in frames:
            # A cursor's length hardly varies: the exact output is checked below.
            frames[digits] = output_tokens(frame(max(omitted, 1)))
        return frames[digits] + counted(n)

    # The cut costs more the more it keeps (an item adds a token at least; a shorter
    # count of omitted items saves one at most): keep items while the next one fits.
    kept = 0
    while kept < len(items) and cut(kept + 1) <= cap:
        kept += 1
    while kept > 0 and paged and output_tokens(frame(len(items) - kept)) + counted(kept) > cap:
        kept -= 1
    if cut(kept) > cap:
        return _too_large()
    update = {name: getattr(result, name)[:kept], "truncated": True, "omitted": len(items) - kept}
    if paged:
        update["cursor"] = cursor_of(kept)
    return result.model_copy(update=update)


def _no_cursor(kept: int) -> str | None:
    return None


def _too_large() -> ToolError:
    return ToolError(
        error="the result is too large for this tool's output cap",
        truncated=True,
        hint="narrow the period or filter, or use query_stats for totals",
    )


def list_tools() -> list[dict[str, Any]]:
    return [
        {
            "name": t.name,
            "description": t.description,
            "input_schema": t.input_schema(),
            "output_cap_tokens": t.cap_tokens,
            "tier": t.tier,
        }
        for t in ordered_tools()
    ]


def _validation_error(spec: Tool, exc: ValidationError) -> ToolError:
    problems = []
    known = list(spec.params.model_fields)
    for error in exc.errors():
        field = ".".join(str(p) for p in error["loc"]) or "arguments"
        message = str(error["msg"]).removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            close = difflib.get_close_matches(field, known, n=1)
            message = "unknown argument" + (f" (did you mean {close[0]!r}?)" if close else "")
        problems.append(f"{field}: {message}")
    return ToolError(
        error=f"invalid arguments for {spec.name}: " + "; ".join(problems),
        hint="fix the arguments to match the tool's input schema and call again "
        f"(arguments: {', '.join(known)})",
    )


def _clock(ctx: ToolContext) -> dict[str, Any]:
    return clock_context(now=ctx.now, time_zone=ctx.user.time_zone, cut_hour=ctx.user.day_cut_hour)


def read_arguments(
    *, spec: Tool, ctx: ToolContext, arguments: dict[str, Any]
) -> tuple[ToolArgs, ToolContext]:
    """A call's argument model, its relative instants read on the caller's clock. A call
    with a cursor runs as its first call did: those arguments, on that call's clock (any
    argument sent beside the cursor must be the same). Raises ValidationError, or
    TimeTraceError for a bad cursor."""
    paged = continued(tool=spec.name, params=spec.params, arguments=arguments)
    if paged is None:
        return spec.params.model_validate(arguments, context=_clock(ctx)), ctx
    merged, page = paged
    ctx = replace(ctx, now=page.now)
    params = spec.params.model_validate(merged, context=_clock(ctx))
    if set(arguments) - {"cursor"}:
        first = {**page.args, "cursor": arguments["cursor"]}
        same_call(given=params, first=spec.params.model_validate(first, context=_clock(ctx)))
    return params, ctx


def dispatch(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> ToolOutcome:
    """Run a tool by name: its result model, capped, or a `ToolError`. Never raises."""
    spec = REGISTRY.get(name)
    if spec is None:
        return ToolError(error=f"unknown tool {name!r}", hint=f"tools are: {', '.join(REGISTRY)}")
    refused = refusal(ctx.user.scope, tool=name, writes=spec.tier == "write")
    if refused is not None:
        return refused
    if arguments is not None and not isinstance(arguments, dict):
        return ToolError(error=f"arguments for {name} must be a JSON object")
    try:
        params, ctx = read_arguments(spec=spec, ctx=ctx, arguments=arguments or {})
    except ValidationError as exc:
        return _validation_error(spec, exc)
    except TimeTraceError as exc:  # a cursor that is not this call's
        return ToolError(error=exc.message, hint="call again without the cursor")
    except Exception:  # a validator's own bug: still an answer, never a raise
        log.exception("arguments of tool %s failed to validate", name)
        return ToolError(error=f"{name} could not read its arguments", hint="check the arguments")
    try:
        result = spec.run(ctx, params)
        if type(result) is not spec.result:
            # A tool answers the model it declared, so that its output schema is true.
            raise TypeError(f"{name} answered {type(result).__name__}, not {spec.result.__name__}")
        return cap_output(result, cap=spec.cap_tokens)
    except ConflictError as exc:
        return ToolError(error=exc.message, conflict=True, hint="look it up again, then retry")
    except UnknownThingError as exc:
        # Never a silent zero: say the name was not found, and what the user does have.
        return ToolError(
            error=exc.message,
            unresolved=exc.mention,
            suggestions=list(exc.suggestions),
            hint="ask again with one of the suggestions, or the exact app, site or category",
        )
    except DatabaseError as exc:
        return ToolError(error=exc.message, retry=True, hint="the database is busy: try again")
    except TimeTraceError as exc:
        return ToolError(error=exc.message)
    except Exception:
        log.exception("tool %s failed", name)
        return ToolError(error=f"{name} failed inside TimeTrace", hint="try a narrower question")


def dispatch_json(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """`dispatch`, as the JSON object the doors send (HTTP, MCP, the CLI)."""
    return dump(dispatch(ctx, name, arguments))
