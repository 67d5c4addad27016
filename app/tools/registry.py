"""The one tool registry every door reads: the agent, MCP, HTTP and the CLI.

    result = dispatch(ctx, "query_stats", {"metric": "seconds_by_category", "period": "this_month"})

A tool is a name, a description written for an LLM router, an argument model
(whose JSON schema is what callers see) and an implementation. `dispatch`
validates the arguments, runs the tool and caps its serialized output by the
shared CJK-aware token estimate; it never raises — errors come back as
`{"error": …, "hint": …}` so a model can correct itself.
"""

from __future__ import annotations

import difflib
import functools
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, ValidationError

from app.enrich.client import ModelClient
from app.errors import ConflictError, DatabaseError, TimeTraceError, UnknownThingError
from app.rules.categories import Rules, load_rules
from app.settings import Settings
from app.store import ToolStore, UserContext
from app.text import estimate_tokens

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
    run: Callable[[ToolContext, Any], dict[str, Any]]
    cap_tokens: int  # hard ceiling on the serialized output
    tier: str

    def input_schema(self) -> dict[str, Any]:
        schema = self.params.model_json_schema()
        schema.pop("title", None)
        return schema


REGISTRY: dict[str, Tool] = {}
TIERS = ("0", "1", "2", "3", "write", "fallback")  # the cost ladder: cheapest first


def ordered_tools() -> list[Tool]:
    return sorted(REGISTRY.values(), key=lambda t: TIERS.index(t.tier))


def tool(
    *, name: str, description: str, params: type[ToolArgs], cap_tokens: int, tier: str
) -> Callable[
    [Callable[[ToolContext, Any], dict[str, Any]]], Callable[[ToolContext, Any], dict[str, Any]]
]:
    def register(
        run: Callable[[ToolContext, Any], dict[str, Any]],
    ) -> Callable[[ToolContext, Any], dict[str, Any]]:
        if name in REGISTRY:
            raise ValueError(f"tool {name!r} registered twice")
        REGISTRY[name] = Tool(
            name=name,
            description=description.strip(),
            params=params,
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


def to_json(result: dict[str, Any]) -> str:
    return json.dumps(result, ensure_ascii=False, default=_default, separators=(",", ":"))


def output_tokens(result: dict[str, Any]) -> int:
    return estimate_tokens(to_json(result))


def cap_output(result: dict[str, Any], *, cap: int) -> dict[str, Any]:
    """Drop items from the end (tools list the most relevant first) until the output fits."""
    result = json.loads(to_json(result))
    result.setdefault("truncated", False)
    items = result.get("items")
    if output_tokens(result) <= cap:
        return result
    if isinstance(items, list) and items:
        # Binary search on how many items fit, then say what was cut.
        lo, hi = 0, len(items)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            trial = {**result, "items": items[:mid], "truncated": True, "omitted": len(items) - mid}
            if output_tokens(trial) <= cap:
                lo = mid
            else:
                hi = mid - 1
        result = {**result, "items": items[:lo], "truncated": True, "omitted": len(items) - lo}
        if output_tokens(result) <= cap:
            return result
    return {
        "error": "the result is too large for this tool's output cap",
        "truncated": True,
        "hint": "narrow the period or filter, or use query_stats for totals",
    }


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


def _validation_error(spec: Tool, exc: ValidationError) -> dict[str, Any]:
    problems = []
    known = list(spec.params.model_fields)
    for error in exc.errors():
        field = ".".join(str(p) for p in error["loc"]) or "arguments"
        message = str(error["msg"]).removeprefix("Value error, ")
        if error["type"] == "extra_forbidden":
            close = difflib.get_close_matches(field, known, n=1)
            message = "unknown argument" + (f" (did you mean {close[0]!r}?)" if close else "")
        problems.append(f"{field}: {message}")
    return {
        "error": f"invalid arguments for {spec.name}: " + "; ".join(problems),
        "hint": "fix the arguments to match the tool's input schema and call again "
        f"(arguments: {', '.join(known)})",
    }


def dispatch(ctx: ToolContext, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
    """Run a tool by name. Never raises: errors come back as data."""
    spec = REGISTRY.get(name)
    if spec is None:
        return {"error": f"unknown tool {name!r}", "hint": f"tools are: {', '.join(REGISTRY)}"}
    if arguments is not None and not isinstance(arguments, dict):
        return {"error": f"arguments for {name} must be a JSON object"}
    try:
        params = spec.params.model_validate(arguments or {})
    except ValidationError as exc:
        return _validation_error(spec, exc)
    try:
        result = spec.run(ctx, params)
    except ConflictError as exc:
        return {"error": exc.message, "conflict": True, "hint": "look it up again, then retry"}
    except UnknownThingError as exc:
        # Never a silent zero: say the name was not found, and what the user does have.
        return {
            "error": exc.message,
            "unresolved": exc.mention,
            "suggestions": list(exc.suggestions),
            "hint": "ask again with one of the suggestions, or the exact app, site or category",
        }
    except DatabaseError as exc:
        return {"error": exc.message, "retry": True, "hint": "the database is busy: try again"}
    except TimeTraceError as exc:
        return {"error": exc.message}
    except Exception:
        log.exception("tool %s failed", name)
        return {"error": f"{name} failed inside TimeTrace", "hint": "try a narrower question"}
    return cap_output(result, cap=spec.cap_tokens)
