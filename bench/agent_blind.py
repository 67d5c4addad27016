"""A blind question set through the OpenAI-compatible door with no chat model: questions
worded as people type them (short forms, typos, Chinese and English), written without
reading the offline answerer, scored against truth computed by SQL at run time.

    python bench/agent_blind.py --set before [--verbose] [--truth-only]

Loads 35 days of the sample ending yesterday (the run's logical day, in the sample's
zone) through the real ingest code, builds the pyramid with no model and serves the
API in-process. Each question of `bench/blind/<set>.py` (with its earlier turns, for
follow-ups) is POSTed to /v1/chat/completions and its answer checked by
`bench/blind/judge.py` over v_record_durations, relative to the run's day.
`--truth-only` prints each question with its truth and asks nothing; `--verbose`
prints every miss; `--answers FILE` keeps every answer (JSON lines) to re-read.
Ends with one JSON line: {"set", "correct", "questions", "pct", "by_kind": {kind:
[correct, total]}, "p95_ms"} (p95_ms: the asked turn's round trip).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TextIO
from zoneinfo import ZoneInfo

import httpx

sys.path.pop(0)  # bench/mcp.py would shadow the mcp package
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.api.server import serve_in_thread
from app.db.connection import connect
from app.demo.sample import generate_sample
from app.pyramid.build import backfill
from app.runtime.auth import hash_token, new_token
from app.runtime.services import open_services
from app.timeutil import logical_day
from bench._common import bench_database, load_sample
from bench.blind.judge import Judge
from bench.blind.spec import KINDS, Q

SAMPLE_DAYS = 35
TIME_ZONE = "Asia/Shanghai"
_EN_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


class RelDay:
    """A day before the run's, for question texts: {d3:iso} 2026-12-02, {d3:en} Dec 2,
    {d3:zh} 12月2日, {d3:md} 12/2."""

    def __init__(self, day: date) -> None:
        self.day = day

    def __format__(self, spec: str) -> str:
        d = self.day
        forms = {
            "iso": d.isoformat(),
            "en": f"{_EN_MONTHS[d.month - 1]} {d.day}",
            "zh": f"{d.month}月{d.day}日",
            "md": f"{d.month}/{d.day}",
        }
        return forms[spec or "iso"]


def render(text: str, today: date) -> str:
    days = {f"d{n}": RelDay(today - timedelta(days=n)) for n in range(41)}
    return text.format(**days)


def load_set(name: str) -> list[Q]:
    if not name.isidentifier():
        raise SystemExit(f"no such question set: {name}")
    module = importlib.import_module(f"bench.blind.{name}")
    questions: list[Q] = module.QUESTIONS
    for q in questions:
        if q.kind not in KINDS:
            raise SystemExit(f"unknown kind {q.kind!r} in {q.text!r}")
    return questions


def p95_ms(samples: list[float]) -> float:
    ordered = sorted(samples) or [0.0]
    return round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1)


def summary(name: str, rows: list[tuple[str, bool, float]]) -> dict[str, object]:
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for kind, ok, _ in rows:
        by_kind[kind][0] += ok
        by_kind[kind][1] += 1
    correct = sum(ok for _, ok, _ in rows)
    return {
        "set": name,
        "correct": correct,
        "questions": len(rows),
        "pct": round(100 * correct / max(1, len(rows)), 1),
        "by_kind": dict(sorted(by_kind.items())),
        "p95_ms": p95_ms([s for _, _, s in rows]),
    }


Ask = Callable[[list[dict[str, str]]], tuple[str, float]]


def run_set(
    questions: list[Q], *, judge: Judge, ask: Ask | None, verbose: bool, log: TextIO | None
) -> list[tuple[str, bool, float]]:
    """Ask each question (its earlier turns first) and judge the last answer; with no
    `ask`, print each question's truth instead. `log` gets one JSON line per question."""
    rows = []
    for q in questions:
        turns = [render(t, judge.today) for t in (*q.before, q.text)]
        verdict = judge.verdict(q)
        if ask is None:
            print(f"{q.kind:<12} {' / '.join(turns)}\n    truth: {verdict.expected}")
            continue
        messages: list[dict[str, str]] = []
        answer, elapsed = "", 0.0
        for turn in turns:
            messages.append({"role": "user", "content": turn})
            answer, elapsed = ask(messages)
            messages.append({"role": "assistant", "content": answer})
        ok = verdict.check(answer)
        rows.append((q.kind, ok, elapsed))
        if log is not None:
            line = {"kind": q.kind, "turns": turns, "expected": verdict.expected,
                    "answer": answer, "correct": ok}  # fmt: skip
            log.write(json.dumps(line, ensure_ascii=False) + "\n")
        if verbose and not ok:
            print(
                f"MISS {q.kind:<12} {' / '.join(turns)}\n    expected {verdict.expected}\n"
                f"    answer: {answer!r}",
                file=sys.stderr,
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--set", required=True, help="a module of bench/blind/, e.g. before")
    parser.add_argument("--verbose", action="store_true", help="print every miss")
    parser.add_argument("--truth-only", action="store_true", help="print truths, ask nothing")
    parser.add_argument(
        "--answers", type=argparse.FileType("w"), help="write every answer here (JSON lines)"
    )
    args = parser.parse_args()
    questions = load_set(args.set)
    zone = ZoneInfo(TIME_ZONE)
    today = logical_day(datetime.now(UTC), tz=zone, cut_hour=4)
    data = generate_sample(start=today - timedelta(days=SAMPLE_DAYS), days=SAMPLE_DAYS, seed=5)
    with bench_database("timetrace_bench_agent_blind") as (url, settings):
        settings = settings.model_copy(update={"llm_base_url": None, "embedding_base_url": None})
        with open_services(settings, url=url, auto_migrate=False) as services:
            user = load_sample(services, data)
            backfill(services.store, now=datetime.now(UTC), settings=settings)
            with connect(url, settings=settings, autocommit=True) as conn:
                conn.execute("VACUUM ANALYZE")  # what autovacuum does after a big load
            token = new_token()
            services.store.add_token(user_id=user.user_id, token_hash=hash_token(token), name="b")
            with (
                connect(url, settings=settings) as conn,
                serve_in_thread(services) as base,
                httpx.Client(
                    base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=60
                ) as client,
            ):
                judge = Judge(conn, user_id=user.user_id, today=today, zone=zone)

                def ask(messages: list[dict[str, str]]) -> tuple[str, float]:
                    started = time.perf_counter()
                    reply = client.post(
                        "/v1/chat/completions", json={"model": "timetrace", "messages": messages}
                    )
                    elapsed = time.perf_counter() - started
                    reply.raise_for_status()
                    return reply.json()["choices"][0]["message"]["content"], elapsed

                rows = run_set(
                    questions,
                    judge=judge,
                    ask=None if args.truth_only else ask,
                    verbose=args.verbose,
                    log=args.answers,
                )
    if not args.truth_only:
        print(json.dumps(summary(args.set, rows), ensure_ascii=False))


if __name__ == "__main__":
    main()
