"""Reading the memory: tools, questions, reports, rules coverage, and MCP.

timetrace tool query_stats --period this_month
timetrace ask "这个月娱乐花了多少小时？"
timetrace report week 2026-W23 --format html
timetrace rules check --period last_week
timetrace mcp --user me
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

import click

from app.cli import mcp_config, user_rules
from app.cli.common import (
    DATABASE_HELP,
    LazyChoice,
    database_url_for,
    edge,
    settings_from_env,
    user_named,
)

if TYPE_CHECKING:
    from app.tools.results import ToolOutcome


def _periods() -> Sequence[str]:
    from app.tools.periods import Period

    return [p for p in get_args(Period) if p != "custom"]


@click.command("report")
@click.argument("grain", type=click.Choice(["day", "week", "month"]))
@click.argument("scope")
@click.option("--user", "user_name", default="me", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["md", "html"]), default="md", show_default=True)
@click.option("--lang", type=click.Choice(["en", "zh"]), default="en", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path), default=None)
@click.option("--database", help=DATABASE_HELP)
@edge
def report_command(
    grain: str,
    scope: str,
    user_name: str,
    fmt: str,
    lang: str,
    output: Path | None,
    database: str | None,
) -> None:
    """A period from its digests and signals: timetrace report week 2026-W23 --format html."""
    from datetime import UTC, datetime

    from app.runtime.services import open_services
    from app.web.i18n import Translator
    from app.web.report import build_report, render_html, render_markdown

    settings = settings_from_env()
    with open_services(settings, url=database_url_for(settings, database)) as services:
        user = user_named(services.store, user_name)
        report = build_report(
            services.tool_context(user=user, now=datetime.now(UTC)),
            grain=grain,
            key=scope,
            language="zh" if lang == "zh" else "en",
        )
    t = Translator("zh" if lang == "zh" else "en")
    text = render_html(report, t=t) if fmt == "html" else render_markdown(report, t=t)
    if output is None:
        click.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        click.echo(f"wrote {output}", err=True)


@click.group()
def rules() -> None:
    """Category and privacy rules."""


@rules.command("check")
@click.option("--user", "user_name", default="me", show_default=True)
@click.option(
    "--period",
    type=LazyChoice(_periods),
    default="last_week",
    show_default=True,
)
@click.option("--top", type=click.IntRange(1, 50), default=10, show_default=True)
@edge
def rules_check(user_name: str, period: str, top: int) -> None:
    """The apps and sites with the most uncategorized time, and a rule for each."""
    from app.tools.coverage import Uncovered, rule_add_command, rules_snippet
    from app.tools.results import ToolError
    from app.tools.stats import StatsResult

    result = _run_tool(
        user_name, "query_stats", {"period": period, "metric": "uncategorized", "top_n": top}
    )
    if isinstance(result, ToolError):
        raise click.ClickException(result.error)
    assert isinstance(result, StatsResult)  # query_stats answers its own model
    active = result.active_seconds or 0
    uncategorized = result.uncategorized_seconds or 0
    share = uncategorized / active if active else 0.0
    click.echo(
        f"{result.from_} – {result.to}: {uncategorized / 3600:.2f} h "
        f"uncategorized of {active / 3600:.2f} h active ({share:.1%})"
    )
    items = [i for i in result.items or [] if isinstance(i, Uncovered)]
    for item in items:
        where = f"{item.app} · {item.site}" if item.site else item.app
        note = "" if item.rule else "  (private or untitled windows: no rule to suggest)"
        click.echo(f"{item.hours:>8.2f} h  {where}{note}")
    commands = [c for c in (rule_add_command(i) for i in items) if c]
    if commands:
        click.echo("\nCount each as a category from now on and in the history (pick one):\n")
        click.echo("\n".join(f"  {c}" for c in commands))
    snippet = rules_snippet(items)
    if snippet:
        click.echo(
            "\nOr add these to your rules file (TIMETRACE_RULES_FILE), each with its category:\n"
        )
        click.echo(snippet)


@click.command("tool", context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.argument("name", required=False)
@click.option("--user", "user_name", default="me", show_default=True)
@click.option("--list", "show_list", is_flag=True, help="List the tools and their arguments.")
@click.option("--database", help=DATABASE_HELP)
@click.pass_context
@edge
def tool_command(
    ctx: click.Context, name: str | None, user_name: str, show_list: bool, database: str | None
) -> None:
    """Run a tool and print its JSON: timetrace tool query_stats --period this_month."""
    import json

    from app.tools import list_tools
    from app.tools.registry import dump
    from app.tools.results import ToolError

    if show_list or not name:
        for spec in list_tools():
            args = ", ".join(spec["input_schema"].get("properties", {}))
            click.echo(f"{spec['name']:<16} tier {spec['tier']:<5} {args}")
        return
    result = _run_tool(user_name, name, _parse_tool_args(ctx.args), database=database)
    click.echo(json.dumps(dump(result), ensure_ascii=False, indent=2))
    if isinstance(result, ToolError):
        raise SystemExit(1)


def _run_tool(
    user_name: str, name: str, arguments: dict[str, Any], *, database: str | None = None
) -> ToolOutcome:
    """One tool call for a user, now, through the registry (never raises: errors are data)."""
    from datetime import UTC, datetime

    from app.runtime.services import open_services
    from app.tools import dispatch

    settings = settings_from_env()
    with open_services(settings, url=database_url_for(settings, database)) as services:
        user = user_named(services.store, user_name)
        context = services.tool_context(user=user, now=datetime.now(UTC))
        return dispatch(context, name, arguments)


@click.command("ask")
@click.argument("question")
@click.option("--user", "user_name", default="me", show_default=True)
@click.option("--conversation", "conversation_id", type=int, help="Continue this conversation.")
@click.option("--json", "as_json", is_flag=True, help="Print only the done event, as JSON.")
@click.option("--database", help=DATABASE_HELP)
@edge
def ask_command(
    question: str,
    user_name: str,
    conversation_id: int | None,
    as_json: bool,
    database: str | None,
) -> None:
    """Ask the memory in words: timetrace ask "这个月娱乐花了多少小时？"."""
    import json
    from datetime import UTC, datetime

    from app.agent import ask, start_conversation
    from app.runtime.services import open_services

    def show(kind: str, data: dict[str, Any]) -> None:
        if as_json:
            return
        if kind == "token":
            click.echo(data["text"], nl=False)
        elif kind == "step" and data["phase"] == "result":
            failed = f", error: {data['error']}" if "error" in data else ""
            click.echo(f"· {data['tool']} ({data['tokens']} tokens{failed})", err=True)

    settings = settings_from_env()
    with open_services(settings, url=database_url_for(settings, database)) as services:
        user = user_named(services.store, user_name)
        conversation_id, history = start_conversation(
            services.store, user_id=user.user_id, question=question, conversation_id=conversation_id
        )
        done = ask(
            ctx=services.tool_context(user=user, now=datetime.now(UTC)),
            question=question,
            history=history,
            emit=show,
            cancelled=lambda: False,
            conversations=services.store,
            conversation_id=conversation_id,
        )
    if as_json:
        click.echo(json.dumps(done, ensure_ascii=False, indent=2))
        return
    tools = ", ".join(done["tools_called"]) or "none"
    click.echo(
        f"\n— tools: {tools} · {done['tool_tokens']:,} tokens read · "
        f"{done['model_calls']} model calls · {done['elapsed_ms'] / 1000:.2f} s · {done['mode']} · "
        f"conversation {conversation_id}"
    )


def _parse_tool_args(extra: list[str]) -> dict[str, Any]:
    """--key value pairs; values are JSON when they parse as JSON (numbers, true), else text."""
    import json

    out: dict[str, Any] = {}
    items = iter(extra)
    for item in items:
        if not item.startswith("--"):
            raise click.UsageError(f"expected --key value, got {item!r}")
        key = item[2:].replace("-", "_")
        value = next(items, None)
        if value is None:
            raise click.UsageError(f"--{key} needs a value")
        try:
            out[key] = json.loads(value)
        except (ValueError, RecursionError):  # not JSON (or absurdly nested): the text
            out[key] = value
    return out


@click.group("mcp", invoke_without_command=True)
@click.option("--user", "user_name", help="Serve this user's memory.")
@click.option(
    "--token",
    envvar="TIMETRACE_TOKEN",
    help="Or serve the user of this API token (best set as TIMETRACE_TOKEN).",
)
@click.option(
    "--token-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Or serve as the API token in this file (it holds the token only): what it allows.",
)
@click.option("--database", help=DATABASE_HELP)
@click.pass_context
@edge
def mcp_command(
    ctx: click.Context,
    user_name: str | None,
    token: str | None,
    token_file: Path | None,
    database: str | None,
) -> None:
    """Serve every tool over MCP on stdio, for Claude Desktop, Cursor or Cline;
    `timetrace mcp config` prints the config that starts it."""
    import asyncio

    from app.mcp import serve_stdio
    from app.runtime.auth import user_for_token
    from app.runtime.services import open_services

    if ctx.invoked_subcommand is not None:
        return
    if user_name is not None and token_file is not None:
        raise click.UsageError("give --user or --token-file, not both")
    if user_name is None and token is None and token_file is None:
        raise click.UsageError(
            "say whose memory to serve: --user NAME or TIMETRACE_TOKEN (or --token-file PATH)"
        )
    settings = settings_from_env()
    with open_services(settings, url=database_url_for(settings, database)) as services:
        if token_file is not None:
            user = mcp_config.user_of_token_file(services.store, token_file)
        elif user_name is None:
            user = user_for_token(services.store, token=token)
        else:
            user = user_named(services.store, user_name)
        asyncio.run(serve_stdio(services=services, user=user))


mcp_command.add_command(mcp_config.mcp_config)
user_rules.register(rules)  # list, add, edit, move, delete, preview: the user's own rules

COMMANDS = (report_command, rules, tool_command, ask_command, mcp_command)
