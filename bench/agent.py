"""Asking the sample month: a fixed set of questions (Chinese and English, every read
tool the offline answerer uses) answered with no model, against what a naive
raw-frame reader would read for the same question.

    python bench/agent.py                                  # the offline answerer
    python bench/agent.py --base-url http://127.0.0.1:1234/v1 --model qwen3-8b [--api-key K]

Loads March 2003 of the sample (seed 5) through the real ingest code and builds
the pyramid with no model. Each question is answered (offline, or with
--base-url/--model by the real agent against that OpenAI-compatible endpoint);
an answer is correct when it states every number (and id) that SQL over the
records layer gives for it. The raw-frame reader's cost is the records of the
question's window written out as a model would read them. Ends with one JSON line:
{"questions": …, "answered": …, "correct": …, "tool_tokens_median": …,
 "raw_tokens_median": …, "ratio": …, "p95_ms": …} (+ "model_calls" with a model).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.agent import ask
from app.agent.intents import Intent, parse_intent
from app.agent.offline import answer_offline
from app.db.connection import connect
from app.demo.sample import generate_sample
from app.pyramid.build import backfill
from app.runtime.services import open_services
from app.text import estimate_tokens
from app.tools import ToolContext
from bench._common import bench_database, load_sample

START = date(2003, 3, 1)
NOW = datetime(2003, 3, 31, 19, 0, tzinfo=UTC)  # 2003-04-01 03:00 in Shanghai: still 03-31
TODAY, YESTERDAY = date(2003, 3, 31), date(2003, 3, 30)
LAST_WEEK = (date(2003, 3, 24), date(2003, 3, 30))
MONTH = (START, TODAY)


def d(day: int) -> date:
    return date(2003, 3, day)


class Sql:
    """Expected answers from SQL over the records layer (and the pyramid's own ids)."""

    def __init__(self, conn: Any, user_id: int) -> None:
        self.conn, self.user_id = conn, user_id

    def value(self, query: str, *params: Any) -> Any:
        row = self.conn.execute(query, [self.user_id, *params]).fetchone()
        return next(iter(row.values()))

    def hours(self, first: date, last: date, where: str = "true", *params: Any) -> str:
        seconds = self.value(
            "SELECT coalesce(sum(duration_s), 0) FROM v_record_durations WHERE user_id = %s "
            f"AND day_local BETWEEN %s AND %s AND {where}",
            first,
            last,
            *params,
        )
        return str(round(seconds / 3600, 2))

    def category(self, first: date, last: date, name: str) -> list[str]:
        return [self.hours(first, last, "category = %s", name)]

    def app(self, first: date, last: date, name: str) -> list[str]:
        return [name, self.hours(first, last, "app = %s", name)]

    def active(self, first: date, last: date) -> list[str]:
        return [self.hours(first, last, "NOT is_idle")]

    def episodes(self, first: date, last: date) -> list[str]:
        return [
            str(
                self.value(
                    "SELECT count(*) FROM episodes WHERE user_id = %s AND day_local BETWEEN %s "
                    "AND %s AND closed AND NOT stale",
                    first,
                    last,
                )
            )
        ]

    def signals(self, first: date, last: date, kind: str) -> list[str]:
        return [
            str(
                self.value(
                    "SELECT count(*) FROM signals WHERE user_id = %s AND day_local BETWEEN %s "
                    "AND %s AND kind = %s",
                    first,
                    last,
                    kind,
                )
            )
        ]

    def latest(self) -> list[str]:
        row = self.conn.execute(
            "SELECT app, window_title FROM records WHERE user_id = %s AND deleted_at IS NULL "
            "ORDER BY ts_start DESC, record_id DESC LIMIT 1",
            [self.user_id],
        ).fetchone()
        return [row["app"], row["window_title"]]

    def newest_episode(self, word: str) -> list[str]:
        ident = self.value(
            "SELECT episode_id FROM episodes WHERE user_id = %s AND title ILIKE %s "
            "AND NOT stale ORDER BY ts_start DESC LIMIT 1",
            f"%{word}%",
        )
        return [f"#{ident}"]

    def records(self, start: str, end: str) -> list[str]:
        count = self.value(
            "SELECT count(*) FROM records WHERE user_id = %s AND deleted_at IS NULL "
            "AND ts_start >= %s AND ts_start < %s",
            start,
            end,
        )
        return [f"{count} "]

    def month_categories(self, first: date, last: date) -> list[str]:
        names = ("work", "entertainment", "social", "study")
        return [h for name in names for h in self.category(first, last, name) if h != "0.0"]


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    expect: Callable[[Sql], list[str]]


QUESTIONS = [
    Question("我现在在做什么？", Sql.latest),
    Question("what am I doing right now?", Sql.latest),
    Question("这个月娱乐花了多少小时？", lambda s: s.category(*MONTH, "entertainment")),
    Question(
        "How many hours of entertainment this month?", lambda s: s.category(*MONTH, "entertainment")
    ),
    Question("写代码时哪些坏习惯导致返工或回滚？", lambda s: s.signals(*MONTH, "forced_rollback")),
    Question("Which coding habits cause rework?", lambda s: s.signals(*MONTH, "forced_rollback")),
    Question("上周工作了多久？", lambda s: s.category(*LAST_WEEK, "work")),
    Question("How long did I study last week?", lambda s: s.category(*LAST_WEEK, "study")),
    Question("昨天学习了多少小时？", lambda s: s.category(YESTERDAY, YESTERDAY, "study")),
    Question("3月1日到3月7日娱乐一共多少小时？", lambda s: s.category(d(1), d(7), "entertainment")),
    Question("How many hours of work on March 12?", lambda s: s.category(d(12), d(12), "work")),
    Question("过去7天各类别花了多少时间？", lambda s: s.month_categories(d(25), d(31))),
    Question("本周用了多少小时 Slack？", lambda s: s.app(TODAY, TODAY, "Slack")),
    Question("How many hours in Zoom last week?", lambda s: s.app(*LAST_WEEK, "Zoom")),
    Question("微信这个月用了多少小时？", lambda s: s.app(*MONTH, "微信")),
    Question("今天一共活跃了多久？", lambda s: s.active(TODAY, TODAY)),
    Question(
        "How many active hours did I have yesterday?", lambda s: s.active(YESTERDAY, YESTERDAY)
    ),
    Question("昨天有几段 episode？", lambda s: s.episodes(YESTERDAY, YESTERDAY)),
    Question("How many episodes last week?", lambda s: s.episodes(*LAST_WEEK)),
    Question("本月熬夜了几次？", lambda s: s.signals(*MONTH, "late_night")),
    Question(
        "How many forced rollbacks this month?", lambda s: s.signals(*MONTH, "forced_rollback")
    ),
    Question("昨天我做了什么？", lambda s: s.episodes(YESTERDAY, YESTERDAY)),
    Question("What did I do on March 12?", lambda s: s.episodes(d(12), d(12))),
    Question("上周三我在做什么？", lambda s: s.episodes(d(26), d(26))),
    Question("我上次看 Coursera 是什么时候？", lambda s: s.newest_episode("Coursera")),
    Question("When did I last read arXiv?", lambda s: s.newest_episode("arXiv")),
    Question("找一下周报", lambda s: s.newest_episode("周报")),
    Question("总结一下上周", lambda s: s.month_categories(*LAST_WEEK)),
    Question("Summarize this month", lambda s: s.month_categories(*MONTH)),
    Question("Give me a recap of March 12", lambda s: s.month_categories(d(12), d(12))),
    Question("这周专注得怎么样？", lambda s: s.signals(TODAY, TODAY, "focus_block")),
    Question("Was I distracted last week?", lambda s: s.signals(*LAST_WEEK, "distraction")),
    Question(
        "3月12日下午2点半我在看什么？",
        lambda s: s.records("2003-03-12T14:20:00+08:00", "2003-03-12T14:40:00+08:00"),
    ),
    Question(
        "What was on my screen at 10:05 on March 12?",
        lambda s: s.records("2003-03-12T09:55:00+08:00", "2003-03-12T10:15:00+08:00"),
    ),
]


def states(answer: str, expected: list[str], *, lenient: bool) -> bool:
    """Every expected string is in the answer; a model may round hours to one decimal."""
    for want in expected:
        if want in answer:
            continue
        try:
            shorter = str(round(float(want), 1))
        except ValueError:
            return False
        if not (lenient and shorter in answer):
            return False
    return True


def raw_tokens(conn: Any, user_id: int, intent: Intent) -> int:
    """What a raw-frame reader would read: every record of the question's window."""
    if intent.tool == "get_raw":
        where, params = (
            "ts_start >= %s AND ts_start < %s",
            [
                intent.arguments["ts_from"],
                intent.arguments["ts_to"],
            ],
        )
    elif intent.period is not None:
        where, params = (
            "day_local BETWEEN %s AND %s",
            [intent.period.date_from, intent.period.date_to],
        )
    elif intent.tool == "get_now":
        where, params = "day_local = %s", [TODAY]
    else:  # a search over all of history
        where, params = "true", []
    rows = conn.execute(
        "SELECT ts_start, app, window_title, url FROM records WHERE user_id = %s "
        f"AND deleted_at IS NULL AND {where} ORDER BY ts_start",
        [user_id, *params],
    )
    return sum(
        estimate_tokens(
            f"{r['ts_start']:%Y-%m-%d %H:%M:%S} {r['app']} — {r['window_title']} {r['url'] or ''}"
        )
        for r in rows
    )


def _ms(samples: list[float]) -> float:
    ordered = sorted(samples)
    return round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-url", help="an OpenAI-compatible endpoint: run the real agent")
    parser.add_argument("--model", help="the chat model at --base-url")
    parser.add_argument("--api-key", default="", help="the endpoint's key, if it wants one")
    args = parser.parse_args()
    if bool(args.base_url) != bool(args.model):
        parser.error("--base-url and --model go together")
    data = generate_sample(start=START, days=31, seed=5)
    with bench_database("timetrace_bench_agent") as (url, settings):
        if args.base_url:
            settings = settings.model_copy(
                update={"llm_base_url": args.base_url, "llm_model": args.model}
            )
            if args.api_key:
                from pydantic import SecretStr

                settings = settings.model_copy(update={"llm_api_key": SecretStr(args.api_key)})
        with open_services(settings, url=url, auto_migrate=False) as services:
            user = load_sample(services, data)
            backfill(services.store, now=datetime.now(UTC), settings=settings)
            with connect(url, settings=settings, autocommit=True) as conn:
                conn.execute("VACUUM ANALYZE")  # what autovacuum does after a big load
            ctx: ToolContext = services.tool_context(user=user, now=NOW)
            rows = []
            with connect(url, settings=settings) as conn:
                sql = Sql(conn, user.user_id)
                for question in QUESTIONS:
                    intent = parse_intent(question.text, today=TODAY, time_zone=data.time_zone)
                    started = time.perf_counter()
                    if args.base_url:
                        done = ask(
                            ctx=ctx,
                            question=question.text,
                            history=[],
                            emit=lambda kind, event: None,
                            cancelled=lambda: False,
                        )
                        text, tokens, failed = (
                            done["answer"],
                            done["tool_tokens"],
                            not done["answer"],
                        )
                        calls = done["model_calls"]
                    else:
                        answer = answer_offline(ctx, question.text)
                        text, tokens, calls = answer.text, answer.tokens, 0
                        failed = "error" in answer.result
                    elapsed = time.perf_counter() - started
                    expected = question.expect(sql)
                    correct = states(text, expected, lenient=bool(args.base_url))
                    rows.append(
                        {
                            "tokens": tokens,
                            "raw": raw_tokens(conn, user.user_id, intent),
                            "seconds": elapsed,
                            "answered": not failed and bool(text),
                            "correct": correct,
                            "model_calls": calls,
                        }
                    )
                    mark = "ok " if correct else "BAD"
                    print(
                        f"{mark} {1000 * elapsed:7.1f} ms {tokens:>6} tok  {question.text}"
                        + ("" if correct else f"\n    expected {expected} in: {text!r}"),
                        file=sys.stderr,
                    )
    tool_median = statistics.median(r["tokens"] for r in rows)
    raw_median = statistics.median(r["raw"] for r in rows)
    result: dict[str, Any] = {
        "questions": len(rows),
        "answered": sum(r["answered"] for r in rows),
        "correct": sum(r["correct"] for r in rows),
        "tool_tokens_median": tool_median,
        "raw_tokens_median": raw_median,
        "ratio": round(raw_median / max(tool_median, 1)),
        "p95_ms": _ms([r["seconds"] for r in rows]),
    }
    if args.base_url:
        result["model_calls"] = sum(r["model_calls"] for r in rows)
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
