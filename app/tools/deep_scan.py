"""deep_scan: one question over a wide window of raw records, by map-reduce.

The window's records are written out as a model would read them and their
tokens estimated. Within the single-pass budget (TIMETRACE_DEEP_SCAN_PASS_TOKENS,
40K) one summariser call reads them all; above it the window is cut into
non-overlapping slices of at most that budget, each read by its own one-shot
summariser call (no tools, at most TIMETRACE_DEEP_SCAN_CONCURRENCY at once,
default 2), and one more call reduces the findings. Every finding is at most 2K
tokens and keeps the ids of the records it rests on; a slice that fails makes
the result `degraded: true` and names the missing slices. Raw records never
leave this tool: callers (the agent's conversation) see only findings.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Annotated, ClassVar

from pydantic import Field

from app.enrich.answers import Answer
from app.enrich.client import ModelClient
from app.errors import InvalidInputError, TimeTraceError
from app.store.accounts import DEVICE_ID_PATTERN
from app.store.records import RecordLine
from app.text import StorableStr, estimate_tokens, language_of
from app.timeutil import zone
from app.tools.instants import ZONED_HELP, ZonedInstant
from app.tools.registry import ToolArgs, ToolContext, tool
from app.tools.results import Shape, Stamp, ToolResult, opt

MAX_WINDOW = timedelta(days=7)
MAX_RECORDS = 100_000
FINDING_TOKENS = 2_000  # what one summariser call may answer
SHOWN_FINDING_TOKENS = 1_400  # what the result carries, so that it fits the cap
TITLE_MAX, DESCRIPTION_MAX = 160, 300


class DeepScanArgs(ToolArgs):
    ts_from: ZonedInstant = Field(description=f"start: {ZONED_HELP}")
    ts_to: ZonedInstant = Field(description="end, at most 7 days later (the same forms)")
    question: StorableStr = Field(min_length=1, max_length=500, description="what to look for")
    device_id: Annotated[str, Field(pattern=DEVICE_ID_PATTERN)] | None = None


class Finding(Answer):
    """What a slice of raw screen activity says about the question, with the ids of
    the records it rests on."""

    name: ClassVar[str] = "deep_scan_finding"
    finding: str = Field(min_length=1, max_length=8_000)
    record_ids: list[int] = Field(max_length=40)


@dataclass(frozen=True, slots=True)
class Slice:
    index: int
    start: datetime
    end: datetime
    lines: list[str]
    ids: frozenset[int]


@dataclass(frozen=True, slots=True)
class SliceResult:
    slice: Slice
    finding: Finding | None
    error: str | None


def _clip(text: str | None, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _line(record: RecordLine, ctx: ToolContext) -> str:
    local = record.ts_start.astimezone(zone(ctx.user.time_zone))
    line = f"#{record.record_id} {local:%m-%d %H:%M:%S} {record.device_id} {record.app}"
    line += f" — {_clip(record.window_title, TITLE_MAX)}"
    if record.description:
        line += f" | {_clip(record.description, DESCRIPTION_MAX)}"
    return line + (" [idle]" if record.is_idle else "")


def clip_tokens(text: str, limit: int) -> str:
    """The longest prefix of `text` within `limit` estimated tokens."""
    if estimate_tokens(text) <= limit:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if estimate_tokens(text[:mid]) + 1 <= limit:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + "…"


def split_window(
    rows: list[RecordLine], lines: list[str], *, budget: int, window_end: datetime
) -> list[Slice]:
    """Consecutive, non-overlapping slices of at most `budget` tokens each (a single
    record larger than the budget gets a slice of its own)."""
    groups: list[list[int]] = [[]]
    used = 0
    for i, line in enumerate(lines):
        cost = estimate_tokens(line) + 1
        if groups[-1] and used + cost > budget:
            groups.append([])
            used = 0
        groups[-1].append(i)
        used += cost
    slices = []
    for n, group in enumerate(groups):
        end = rows[groups[n + 1][0]].ts_start if n + 1 < len(groups) else window_end
        slices.append(
            Slice(
                index=n,
                start=rows[group[0]].ts_start,
                end=end,
                lines=[lines[i] for i in group],
                ids=frozenset(rows[i].record_id for i in group),
            )
        )
    return slices


def _instructions(question: str) -> str:
    language = "Chinese (中文)" if language_of(question) == "zh" else "English"
    return (
        "You read screen-activity records (one per line: #id, local time, device, app — "
        "window title | description) and answer a question about them. Use only what the "
        "records show; say so when they do not answer it. Cite the ids (#123) of the records "
        "your finding rests on in record_ids. Be brief: at most 300 words, in "
        f"{language}. Reply with a JSON object: finding, record_ids."
    )


def _summarise(models: ModelClient, question: str, part: Slice, total: int) -> SliceResult:
    prompt = (
        f"QUESTION: {question}\n"
        f"SLICE {part.index + 1}/{total}: {part.start.isoformat()} – {part.end.isoformat()}\n"
        "RECORDS:\n" + "\n".join(part.lines)
    )
    messages = [
        {"role": "system", "content": _instructions(question)},
        {"role": "user", "content": prompt},
    ]
    try:
        answer = models.chat_answer(
            messages=messages, answer=Finding, max_tokens=FINDING_TOKENS, interactive=True
        )
    except TimeTraceError as exc:
        return SliceResult(slice=part, finding=None, error=exc.message)
    kept = [i for i in answer.record_ids if i in part.ids]  # only ids this slice holds
    finding = Finding(finding=clip_tokens(answer.finding, FINDING_TOKENS), record_ids=kept)
    return SliceResult(slice=part, finding=finding, error=None)


def _reduce(models: ModelClient, question: str, found: list[SliceResult]) -> Finding:
    parts = [
        f"[slice {r.slice.index + 1}: {r.slice.start.isoformat()} – {r.slice.end.isoformat()}]\n"
        f"{r.finding.finding}\nrecords: {r.finding.record_ids}"
        for r in found
        if r.finding is not None
    ]
    messages = [
        {"role": "system", "content": _instructions(question)},
        {
            "role": "user",
            "content": f"QUESTION: {question}\nCombine these findings of consecutive slices "
            "into one answer; keep the record ids it rests on.\nFINDINGS:\n" + "\n\n".join(parts),
        },
    ]
    return models.chat_answer(
        messages=messages, answer=Finding, max_tokens=FINDING_TOKENS, interactive=True
    )


class MissingSlice(Shape):
    slice: int
    from_: Stamp = Field(alias="from")
    to: Stamp
    why: str | None


class DeepScanResult(ToolResult):
    question: str
    from_: Stamp = Field(alias="from")
    to: Stamp
    records_scanned: int
    note: str | None = opt()
    raw_tokens: int | None = opt("what reading the window raw would cost")
    slices: int | None = opt()
    fanout: bool | None = opt("more than one slice")
    finding: str | None = opt()
    record_ids: list[int] | None = opt("the records the finding rests on")
    episode_ids: list[int] | None = opt("their episodes")
    degraded: bool | None = opt("a slice or the reduce failed")
    reduce: str | None = opt()
    missing_slices: list[MissingSlice] | None = opt()
    more_missing: int | None = opt()
    raw_expired_before: Stamp | None = opt(
        "records before this instant have expired (retention): their episodes and digests "
        "still answer"
    )


@tool(
    tier="fallback",
    cap_tokens=2_000,
    description="""
Last resort for a question the episodes and digests cannot answer and that needs a wide raw
window (more than get_raw's 2 hours, at most 7 days): isolated summariser calls read the raw
records slice by slice and return one finding of at most 2K tokens with the record ids it rests
on. Slow and costly: never for totals or summaries. 深度扫描：大窗口原始记录的分片总结（兜底）。
""",
)
def deep_scan(ctx: ToolContext, args: DeepScanArgs) -> DeepScanResult:
    if args.ts_to <= args.ts_from:
        raise InvalidInputError("ts_to must be after ts_from")
    if args.ts_to - args.ts_from > MAX_WINDOW:
        raise InvalidInputError("deep_scan reads at most 7 days; narrow the window")
    expired = ctx.store.raw_expired_before(user_id=ctx.user.user_id)
    if expired is not None and args.ts_from < expired:
        if args.ts_to <= expired:  # nothing left to read: say so, with no model call
            return DeepScanResult(
                question=args.question,
                from_=args.ts_from,
                to=args.ts_to,
                records_scanned=0,
                note=f"raw records expired before {expired.isoformat()}: use get_episodes "
                "or get_digest for that time",
                raw_expired_before=expired,
            )
    else:
        expired = None
    models = ctx.models
    if models is None or not models.chat_enabled:
        raise InvalidInputError(
            "deep_scan needs a chat model (TIMETRACE_LLM_BASE_URL); use get_episodes, or "
            "get_raw on a window of at most 2 hours"
        )
    rows = ctx.store.raw_records(
        user_id=ctx.user.user_id,
        ts_from=args.ts_from,
        ts_to=args.ts_to,
        device_id=args.device_id,
        limit=MAX_RECORDS,
    )
    if not rows:
        return DeepScanResult(
            question=args.question,
            from_=args.ts_from,
            to=args.ts_to,
            records_scanned=0,
            note="no records in that window",
            raw_expired_before=expired,
        )
    lines = [_line(r, ctx) for r in rows]
    raw_tokens = sum(estimate_tokens(line) + 1 for line in lines)
    slices = split_window(
        rows, lines, budget=ctx.settings.deep_scan_pass_tokens, window_end=args.ts_to
    )
    ctx.report({"phase": "fanout", "slices": len(slices), "records": len(rows)})

    def run(part: Slice) -> SliceResult:
        if ctx.cancelled():
            return SliceResult(slice=part, finding=None, error="cancelled")
        result = _summarise(models, args.question, part, len(slices))
        ctx.report({"phase": "slice", "index": part.index + 1, "ok": result.finding is not None})
        return result

    workers = min(ctx.settings.deep_scan_concurrency, len(slices))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="deep-scan") as pool:
        results = list(pool.map(run, slices))
    found = [r for r in results if r.finding is not None]
    missing = [r for r in results if r.finding is None]
    finding: Finding | None = found[0].finding if len(found) == 1 else None
    reduce_failed = False
    if len(found) > 1 and not ctx.cancelled():
        ctx.report({"phase": "reduce", "findings": len(found)})
        try:
            finding = _reduce(models, args.question, found)
        except TimeTraceError:
            reduce_failed = True
    if finding is None and found:  # the reduce failed: the findings as they came
        finding = Finding(
            finding="\n".join(r.finding.finding for r in found if r.finding),
            record_ids=[i for r in found if r.finding for i in r.finding.record_ids],
        )
    scanned = {r.record_id: r.episode_id for r in rows}
    record_ids = [i for i in dict.fromkeys(finding.record_ids if finding else []) if i in scanned]
    episode_ids = list(dict.fromkeys(e for i in record_ids if (e := scanned[i]) is not None))
    return DeepScanResult(
        question=args.question,
        from_=args.ts_from,
        to=args.ts_to,
        records_scanned=len(rows),
        raw_tokens=raw_tokens,
        slices=len(slices),
        fanout=len(slices) > 1,
        finding=clip_tokens(finding.finding, SHOWN_FINDING_TOKENS) if finding else None,
        record_ids=record_ids[:30],
        episode_ids=episode_ids[:30],
        degraded=bool(missing) or reduce_failed,
        reduce="failed: findings as they came" if reduce_failed else None,
        missing_slices=[
            MissingSlice(slice=r.slice.index + 1, from_=r.slice.start, to=r.slice.end, why=r.error)
            for r in missing[:10]
        ],
        more_missing=len(missing) - 10 if len(missing) > 10 else None,
        raw_expired_before=expired,
    )
