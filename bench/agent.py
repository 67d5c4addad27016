"""Asking in words, as people ask: ≥ 300 questions (English and Chinese; apps by
their nicknames, sites inside browsers, categories, idle time, comparisons, "when
did I last", "how many days" / "which days", habits over a period, relative
periods, the moment on screen, follow-ups, names the data does not hold) through
the OpenAI-compatible door with no chat model configured.

    python bench/agent.py            # [--held-back-only] [--verbose]

Loads 35 days of the sample ending yesterday (the run's logical day, in the
sample's zone) through the real ingest code, builds the pyramid with no model and
serves the API in-process. Each question (with its conversation's earlier turns,
for follow-ups) is POSTed to /v1/chat/completions; the truth is computed by SQL
over the records layer at run time, relative to the run's day. The questions are
bench/agent_questions.py (the parser was developed against them) and
bench/agent_heldout.py (a third, written first and kept out of development).
Ends with one JSON line: {"correct", "questions", "by_kind", "held_back_correct",
"held_back_questions", "p95_ms", "tool_tokens_median", "raw_tokens_median",
"ratio"}; p95_ms is the door's round trip for the asked turn.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
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
from app.text import estimate_tokens
from app.timeutil import logical_day
from bench import agent_heldout, agent_questions
from bench._common import bench_database, load_sample
from bench.agent_cases import (
    BROWSERS,
    SITE_TITLES,
    Case,
    Compare,
    Days,
    Hours,
    LastSeen,
    Moment,
    SignalDays,
    Thing,
    Unknown,
)

SAMPLE_DAYS = 35
NONE_WORDS = ("没有", "no ", "No ", "nothing", "Nothing", "none", "None")
ZERO_HOURS = re.compile(r"(?<![\d.])0(?:\.0+)?\s*(?:h\b|hours?|小时)")


def _thing_sql(thing: Thing) -> tuple[str, list[Any]]:
    match thing.kind:
        case "app":
            return "NOT is_idle AND app = ANY(%s)", [list(thing.names)]
        case "site":
            titles = [t for d in thing.names for t in SITE_TITLES.get(d, ())]
            return (
                "NOT is_idle AND (domain = ANY(%s) OR (domain IS NULL AND app = ANY(%s) "
                "AND window_title LIKE ANY(%s)))",
                [list(thing.names), list(BROWSERS), titles],
            )
        case "category":
            return "category = %s", [thing.names[0]]
        case _:
            return "is_idle", []


class Truth:
    """The expected answer of each case, by SQL over the records layer."""

    def __init__(self, conn: Any, user_id: int, today: date, zone: ZoneInfo) -> None:
        self.conn, self.user_id, self.today, self.zone = conn, user_id, today, zone
        row = conn.execute(
            "SELECT max(day_local) AS d, max(ts_start) AS t FROM records "
            "WHERE user_id = %s AND deleted_at IS NULL",
            [user_id],
        ).fetchone()
        self.newest: date = row["d"]
        self.newest_at = f"{row['t'].astimezone(zone):%Y-%m-%d %H:%M}"  # "no data after" it

    def seconds(self, thing: Thing, first: date, last: date) -> float:
        where, params = _thing_sql(thing)
        row = self.conn.execute(
            "SELECT coalesce(sum(duration_s), 0) AS s FROM v_record_durations "
            f"WHERE user_id = %s AND day_local BETWEEN %s AND %s AND {where}",
            [self.user_id, first, last, *params],
        ).fetchone()
        return float(row["s"])

    def hours(self, thing: Thing, first: date, last: date) -> str:
        return str(round(self.seconds(thing, first, last) / 3600, 2))

    def days(self, thing: Thing, first: date, last: date, minutes: int) -> list[date]:
        where, params = _thing_sql(thing)
        rows = self.conn.execute(
            "SELECT day_local FROM v_record_durations "
            f"WHERE user_id = %s AND day_local BETWEEN %s AND %s AND {where} "
            "GROUP BY day_local HAVING sum(duration_s) >= %s ORDER BY day_local",
            [self.user_id, first, last, *params, minutes * 60],
        ).fetchall()
        return [r["day_local"] for r in rows]

    def signal_days(self, kind: str, first: date, last: date) -> list[date]:
        rows = self.conn.execute(
            "SELECT DISTINCT day_local FROM signals WHERE user_id = %s AND kind = %s "
            "AND day_local BETWEEN %s AND %s ORDER BY day_local",
            [self.user_id, kind, first, last],
        ).fetchall()
        return [r["day_local"] for r in rows]

    def check(self, case: Case, answer: str) -> tuple[bool, str]:
        """Whether the answer states the truth, and what was expected."""
        truth, zh = case.truth, bool(re.search(r"[\u4e00-\u9fff]", case.text))
        if isinstance(truth, Hours):
            first, last = truth.span(self.today)
            if first > self.newest:  # "I have no data after …"
                return self.newest_at in answer, f"no data after {self.newest_at}"
            want = self.hours(truth.thing, first, last)
            return want in answer, f"{want} h ({first}–{last})"
        if isinstance(truth, Compare):
            first, last = truth.span(self.today)
            wants = [self.hours(t, first, last) for t in truth.things]
            return all(w in answer for w in wants), f"{wants} h ({first}–{last})"
        if isinstance(truth, LastSeen):
            where, params = _thing_sql(truth.thing)
            row = self.conn.execute(
                "SELECT ts_start, duration_s FROM v_record_durations "
                f"WHERE user_id = %s AND {where} ORDER BY ts_start DESC LIMIT 1",
                [self.user_id, *params],
            ).fetchone()
            start = row["ts_start"].astimezone(self.zone)
            end = start + timedelta(seconds=row["duration_s"])
            ok = start.date().isoformat() in answer and (
                f"{start:%H:%M}" in answer or f"{end:%H:%M}" in answer
            )
            return ok, f"{start:%Y-%m-%d %H:%M}–{end:%H:%M}"
        if isinstance(truth, Days):
            first, last = truth.span(self.today)
            days = self.days(truth.thing, first, last, truth.minutes)
            return self._days(days, answer, counted=not truth.listed, zh=zh)
        if isinstance(truth, SignalDays):
            first, last = truth.span(self.today)
            days = self.signal_days(truth.kind, first, last)
            return self._days(days, answer, counted=truth.counted, zh=zh)
        if isinstance(truth, Moment):
            day = self.today - timedelta(days=truth.back)
            at = datetime(day.year, day.month, day.day, truth.hour, truth.minute, tzinfo=self.zone)
            rows = self.conn.execute(
                "SELECT DISTINCT app FROM v_record_durations WHERE user_id = %s "
                "AND ts_start <= %s AND ts_start + make_interval(secs => duration_s) > %s",
                [self.user_id, at, at],
            ).fetchall()
            apps = [r["app"] for r in rows]
            if not apps:
                return any(w in answer for w in NONE_WORDS), f"nothing at {at:%m-%d %H:%M}"
            return any(a in answer for a in apps), f"one of {apps} at {at:%m-%d %H:%M}"
        assert isinstance(truth, Unknown)
        ok = not ZERO_HOURS.search(answer) and truth.name.casefold() in answer.casefold()
        return ok, f"no zero hours for unknown {truth.name!r}"

    def _days(self, days: list[date], answer: str, *, counted: bool, zh: bool) -> tuple[bool, str]:
        if counted:
            n = len(days)
            want = f"{n} 天" if zh else f"{n} day"
            return want in answer, want
        if not days:
            return any(w in answer for w in NONE_WORDS), "no days"
        wants = [d.isoformat() for d in days]
        return all(w in answer for w in wants), ", ".join(wants)


def raw_tokens(conn: Any, user_id: int, first: date, last: date) -> int:
    """What a raw-frame reader would read for the question: every record of its days."""
    rows = conn.execute(
        "SELECT ts_start, app, window_title, url FROM records WHERE user_id = %s "
        "AND deleted_at IS NULL AND day_local BETWEEN %s AND %s",
        [user_id, first, last],
    )
    return sum(
        estimate_tokens(
            f"{r['ts_start']:%Y-%m-%d %H:%M:%S} {r['app']} — {r['window_title']} {r['url'] or ''}"
        )
        for r in rows
    )


def _span(case: Case, today: date) -> tuple[date, date]:
    truth = case.truth
    if isinstance(truth, Hours | Compare | Days | SignalDays):
        return truth.span(today)
    if isinstance(truth, Moment):
        day = today - timedelta(days=truth.back)
        return day, day
    return today - timedelta(days=SAMPLE_DAYS), today  # a search over all of history


def _p95_ms(samples: list[float]) -> float:
    ordered = sorted(samples)
    return round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--verbose", action="store_true", help="print every answer")
    parser.add_argument(
        "--held-back-only", action="store_true", help="ask only the held-back third"
    )
    parser.add_argument(
        "--dev-only", action="store_true", help="ask only the development questions"
    )
    args = parser.parse_args()
    time_zone = "Asia/Shanghai"
    zone = ZoneInfo(time_zone)
    today = logical_day(datetime.now(UTC), tz=zone, cut_hour=4)
    data = generate_sample(start=today - timedelta(days=SAMPLE_DAYS), days=SAMPLE_DAYS, seed=5)
    cases: list[tuple[bool, Case]] = []
    if not args.held_back_only:
        cases += [(False, c) for c in agent_questions.questions(today)]
    if not args.dev_only:
        cases += [(True, c) for c in agent_heldout.questions(today)]
    with bench_database("timetrace_bench_agent") as (url, settings):
        settings = settings.model_copy(update={"llm_base_url": None, "embedding_base_url": None})
        with open_services(settings, url=url, auto_migrate=False) as services:
            user = load_sample(services, data)
            backfill(services.store, now=datetime.now(UTC), settings=settings)
            with connect(url, settings=settings, autocommit=True) as conn:
                conn.execute("VACUUM ANALYZE")  # what autovacuum does after a big load
            token = new_token()
            services.store.add_token(user_id=user.user_id, token_hash=hash_token(token), name="b")
            rows = []
            with (
                connect(url, settings=settings) as conn,
                serve_in_thread(services) as base,
                httpx.Client(
                    base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=60
                ) as client,
            ):
                truth = Truth(conn, user.user_id, today, zone)

                def ask(messages: list[dict[str, str]]) -> tuple[str, int, float]:
                    started = time.perf_counter()
                    reply = client.post(
                        "/v1/chat/completions", json={"model": "timetrace", "messages": messages}
                    )
                    elapsed = time.perf_counter() - started
                    reply.raise_for_status()
                    body = reply.json()
                    tokens = body["timetrace"]["tool_tokens"] or 0
                    return body["choices"][0]["message"]["content"], tokens, elapsed

                for held_back, case in cases:
                    messages: list[dict[str, str]] = []
                    for earlier in case.before:
                        messages.append({"role": "user", "content": earlier})
                        answer, _, _ = ask(messages)
                        messages.append({"role": "assistant", "content": answer})
                    messages.append({"role": "user", "content": case.text})
                    answer, tokens, elapsed = ask(messages)
                    ok, expected = truth.check(case, answer)
                    first, last = _span(case, today)
                    rows.append(
                        {
                            "kind": case.kind,
                            "held_back": held_back,
                            "correct": ok,
                            "seconds": elapsed,
                            "tokens": tokens,
                            "raw": raw_tokens(conn, user.user_id, first, last),
                        }
                    )
                    if args.verbose or not ok:
                        mark = "ok " if ok else "BAD"
                        print(
                            f"{mark} {case.kind:<10} {'H' if held_back else ' '} "
                            f"{1000 * elapsed:6.1f} ms  {' / '.join([*case.before, case.text])}\n"
                            f"    expected {expected}; answer: {answer!r}",
                            file=sys.stderr,
                        )
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        by_kind[row["kind"]][0] += row["correct"]
        by_kind[row["kind"]][1] += 1
    held = [r for r in rows if r["held_back"]]
    tool_median = statistics.median(r["tokens"] for r in rows)
    raw_median = statistics.median(r["raw"] for r in rows)
    print(
        json.dumps(
            {
                "correct": sum(r["correct"] for r in rows),
                "questions": len(rows),
                "by_kind": {k: f"{c}/{n}" for k, (c, n) in sorted(by_kind.items())},
                "held_back_correct": sum(r["correct"] for r in held),
                "held_back_questions": len(held),
                "p95_ms": _p95_ms([r["seconds"] for r in rows]),
                "tool_tokens_median": tool_median,
                "raw_tokens_median": raw_median,
                "ratio": round(raw_median / max(tool_median, 1)),
            },
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main()
