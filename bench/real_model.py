"""The model layer against a real OpenAI-compatible server, the way the worker runs it.

    python bench/real_model.py --base-url http://127.0.0.1:8765/v1 \\
        [--embedding-base-url http://127.0.0.1:8766/v1 --embedding-dim 576] [--days 3]
    python bench/real_model.py --scripted llamacpp    # the scripted llama.cpp-like server

Three sample days arrive one after another while the real worker runs (the
pyramid's queues and the model queue on their own slots); the model sweep is
asked for every few seconds instead of every two minutes. It stops when every
non-idle episode is `done` or `failed` (or at --max-minutes, or on Ctrl+C) and
ends with one JSON line:
{"summaries_done": …, "summaries_failed": …, "failure_reasons": {…},
 "s_per_call_median": …, "pyramid_delay_max_s": …, "accepted_scraps": …,
 "asks": [{"question": …, "mode": …, "path": …, "tools": […], "seconds": …}, …],
 "agent_mode_share": …}
`pyramid_delay_max_s` is the longest any episode, rollup or sweep job waited
between being deferred and starting. `accepted_scraps` counts the done summaries
and narratives the scrap gate would refuse (a cross-check: it should be 0). Then
three questions go through `ask`, as `timetrace ask` sends them;
`agent_mode_share` is the share answered in agent mode with at least one tool
call. `--asks-only` skips the model layer and only asks.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.agent import ask
from app.db.connection import connect
from app.demo.sample import SampleData, generate_sample
from app.enrich.failures import reason_kind
from app.enrich.quality import scrap_problems
from app.ingest.records import RecordBatch, ingest_batch
from app.jobs import PYRAMID_QUEUES, run_worker
from app.jobs.enrich import model_jobs
from app.pyramid.build import backfill
from app.runtime.services import Services, open_services
from app.settings import Settings
from app.store.accounts import UserContext
from app.text import language_of
from app.timeutil import logical_day, zone
from bench._common import bench_database

SWEEP_EVERY_S = 5.0
QUESTIONS = (
    "What am I doing right now?",
    "How many hours of entertainment this month?",
    "这个月我回滚或返工了几次？",
)


@contextlib.contextmanager
def scripted(kind: str | None, dim: int) -> Iterator[str | None]:
    """A scripted server of the given kind (tests/fake_openai.py), or nothing."""
    if kind is None:
        yield None
        return
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI(dim=dim) as fake:
        fake.server = kind  # type: ignore[assignment]
        fake.raw_newlines = True
        fake.max_chars = 330
        yield fake.url


def days_of(data: SampleData) -> dict[date, dict[str, list[dict[str, Any]]]]:
    """The sample's records by logical day, then by device, in time order."""
    out: dict[date, dict[str, list[dict[str, Any]]]] = {}
    tz = zone(data.time_zone)
    for rec in data.records:
        day = logical_day(rec.ts_start, tz=tz, cut_hour=data.cut_hour)
        out.setdefault(day, {}).setdefault(rec.device_id, []).append(rec.payload())
    return dict(sorted(out.items()))


def ingest_day(services: Services, user: UserContext, records: dict[str, list[Any]]) -> None:
    for device_id, payloads in records.items():
        for i in range(0, len(payloads), 5_000):
            batch = {"device_id": device_id, "records": payloads[i : i + 5_000]}
            ingest_batch(
                services.store,
                user=user,
                batch=RecordBatch.model_validate(batch),
                rules=services.rules,
            )


def summary_counts(url: str, settings: Settings) -> Counter[str]:
    with connect(url, settings=settings, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT summary_status AS status, count(*) AS n FROM episodes "
            "WHERE closed AND NOT stale GROUP BY 1"
        ).fetchall()
    return Counter({r["status"]: r["n"] for r in rows})


def model_jobs_open(url: str, settings: Settings) -> int:
    with connect(url, settings=settings, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) AS n FROM procrastinate_jobs "
            "WHERE queue_name = 'models' AND status IN ('todo', 'doing')"
        ).fetchone()
    return int(row["n"])


def results(url: str, settings: Settings) -> dict[str, Any]:
    with connect(url, settings=settings, autocommit=True) as conn:
        reasons: Counter[str] = Counter()
        for row in conn.execute(
            "SELECT summary_reason FROM episodes WHERE summary_status = 'failed' AND NOT stale"
        ):
            for problem in (row["summary_reason"] or "no reason stored").split("; "):
                reasons[reason_kind(problem)] += 1
        delay = conn.execute(
            "SELECT COALESCE(max(EXTRACT(EPOCH FROM s.at - d.at)), 0)::float AS s "
            "FROM procrastinate_jobs j "
            "JOIN procrastinate_events d ON d.job_id = j.id AND d.type = 'deferred' "
            "JOIN procrastinate_events s ON s.job_id = j.id AND s.type = 'started' "
            "WHERE j.queue_name = ANY(%s)",
            [list(PYRAMID_QUEUES)],
        ).fetchone()["s"]
        narratives = {
            r["status"]: r["n"]
            for r in conn.execute(
                "SELECT narrative_status AS status, count(*) AS n FROM digests GROUP BY 1"
            )
        }
    counts = summary_counts(url, settings)
    return {
        "narratives": narratives,
        "summaries_done": counts["done"],
        "summaries_failed": counts["failed"],
        "summaries_pending": counts["pending"],
        "failure_reasons": dict(reasons.most_common()),
        "pyramid_delay_max_s": round(delay, 1),
    }


def accepted_scraps(url: str, settings: Settings) -> int:
    """Done summaries and narratives that the scrap gate refuses (should be none)."""
    with connect(url, settings=settings, autocommit=True) as conn:
        summaries = conn.execute(
            "SELECT e.title, e.summary, e.auto_title FROM episodes e "
            "WHERE e.summary_status = 'done' AND NOT e.stale"
        ).fetchall()
        narratives = conn.execute(
            "SELECT narrative FROM digests WHERE narrative_status = 'done'"
        ).fetchall()
    bad = 0
    for row in summaries:
        language = language_of(f"{row['auto_title']} {row['summary']}")
        bad += bool(
            scrap_problems(row["title"], what="title", language=language)
            or scrap_problems(row["summary"] or "", what="summary", language=language)
        )
    for row in narratives:
        text = row["narrative"] or ""
        bad += bool(scrap_problems(text, what="narrative", language=language_of(text)))
    return bad


def ask_questions(services: Services, data: SampleData) -> list[dict[str, Any]]:
    """The three questions through `ask`, "now" being the end of the sample."""
    user = services.store.ensure_user(
        name="bench", time_zone=data.time_zone, day_cut_hour=data.cut_hour
    )
    now = max(r.ts_start for r in data.records)
    out = []
    for question in QUESTIONS:
        ctx = services.tool_context(user=user, now=now)
        started = time.monotonic()
        done = ask(
            ctx=ctx, question=question, history=[], emit=lambda k, d: None, cancelled=lambda: False
        )
        out.append(
            {
                "question": question,
                "mode": done["mode"],
                "path": done["path"],
                "tools": done["tools_called"],
                "model_calls": done["model_calls"],
                "seconds": round(time.monotonic() - started, 1),
                "answer": done["answer"][:160],
                **({"fallback": done["fallback"]} if "fallback" in done else {}),
            }
        )
        print(json.dumps(out[-1], ensure_ascii=False), file=sys.stderr)
    return out


async def run(services: Services, data: SampleData, *, gap_s: float, max_s: float) -> None:
    """Feed the days in while the worker runs; return once the model layer is through."""
    store, settings = services.store, services.settings
    user = await asyncio.to_thread(
        store.ensure_user, name="bench", time_zone=data.time_zone, day_cut_hour=data.cut_hour
    )
    for device_id, kind, name in data.devices:
        await asyncio.to_thread(
            store.add_device, user_id=user.user_id, device_id=device_id, name=name, kind=kind
        )
    worker = asyncio.create_task(run_worker(services, install_signal_handlers=False))
    started = time.monotonic()
    next_day = started
    todo = list(days_of(data).values())
    try:
        while time.monotonic() - started < max_s:
            if todo and time.monotonic() >= next_day:
                await asyncio.to_thread(ingest_day, services, user, todo.pop(0))
                next_day = time.monotonic() + gap_s
                print(f"day {len(data.days) - len(todo)} in", file=sys.stderr)
            jobs = await asyncio.to_thread(
                model_jobs,
                store,
                chat=True,
                embedding=services.models.embeddings_enabled,
                vision=False,
            )
            await asyncio.to_thread(store.defer, jobs)
            counts = await asyncio.to_thread(summary_counts, services.url, settings)
            open_jobs = await asyncio.to_thread(model_jobs_open, services.url, settings)
            print(f"summaries {dict(counts)}, model jobs open {open_jobs}", file=sys.stderr)
            if not todo and not counts["pending"] and not open_jobs:
                return
            await asyncio.sleep(SWEEP_EVERY_S)
    finally:
        worker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await worker


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-url", help="an OpenAI-compatible chat endpoint")
    parser.add_argument("--model", default="local")
    parser.add_argument("--embedding-base-url", default=None)
    parser.add_argument("--embedding-model", default="local")
    parser.add_argument("--embedding-dim", type=int, default=None)
    parser.add_argument("--scripted", choices=["openai", "llamacpp", "ollama"], default=None)
    parser.add_argument("--days", type=int, default=3)
    parser.add_argument("--gap-s", type=float, default=30.0, help="between two days' arrival")
    parser.add_argument("--max-minutes", type=float, default=120.0)
    parser.add_argument("--timeout-s", type=float, default=300.0, help="per model call")
    parser.add_argument("--asks-only", action="store_true", help="skip the model layer")
    args = parser.parse_args()
    if not args.base_url and not args.scripted:
        parser.error("give --base-url (a real server) or --scripted KIND")
    data = generate_sample(start=date(2026, 6, 1), days=args.days)
    dim = args.embedding_dim or Settings().embedding_dim
    with (
        scripted(args.scripted, dim) as fake_url,
        bench_database("timetrace_bench_real_model", embedding_dim=dim) as (url, base),
    ):
        settings = base.model_copy(
            update={
                "llm_base_url": args.base_url or fake_url,
                "llm_model": args.model,
                "embedding_base_url": args.embedding_base_url,
                "embedding_model": args.embedding_model,
                "llm_timeout_s": args.timeout_s,
            }
        )
        with open_services(settings, url=url, auto_migrate=False) as services:
            began = datetime.now(UTC)
            max_s = 0.0 if args.asks_only else args.max_minutes * 60
            try:
                asyncio.run(run(services, data, gap_s=args.gap_s, max_s=max_s))
            except KeyboardInterrupt:  # cut short by hand: report what was done so far
                print("interrupted", file=sys.stderr)
            if args.asks_only:  # the days, without the model layer
                for day in days_of(data).values():
                    ingest_day(
                        services,
                        services.store.ensure_user(
                            name="bench", time_zone=data.time_zone, day_cut_hour=data.cut_hour
                        ),
                        day,
                    )
                backfill(services.store, now=datetime.now(UTC), settings=settings)
            out = results(url, settings)
            median = services.models.usage.median_seconds("chat")
            out["accepted_scraps"] = accepted_scraps(url, settings)
            asks = ask_questions(services, data)
            out["asks"] = asks
            agent = [a for a in asks if a["mode"] == "agent" and a["tools"]]
            out["agent_mode_share"] = round(len(agent) / len(asks), 2)
            out["ask_s_median"] = sorted(a["seconds"] for a in asks)[len(asks) // 2]
    out["s_per_call_median"] = round(median, 2) if median is not None else None
    out["chat_calls"] = services.models.usage.calls["chat"]
    out["breaker_openings"] = services.models.usage.breaker_openings["chat"]
    out["wall_s"] = round((datetime.now(UTC) - began).total_seconds())
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
