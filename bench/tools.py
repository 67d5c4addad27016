"""Tool latency and output tokens on a synthetic year.

    python bench/tools.py [--days 365] [--episodes 30000] [--calls 60]
    python bench/tools.py --tenants 30 [--tenant-episodes 10000] [--queries 200]

--tenants runs search_episodes at many tenants instead (bench/tenants.py).
--keep DIR builds the database in DIR once and times it again on later runs (for
iteration: the build takes minutes, the timing seconds); new migrations are applied.

Loads a year of sample activity through the real ingest code, builds the
pyramid, then adds synthetic episodes (Chinese and English titles and
summaries) until there are at least --episodes, gives every episode a summary
embedding from the scripted endpoint's hashing embedder, and times each tool
through `dispatch` (search embeds its query through a loopback
OpenAI-compatible server). It also counts the output tokens of the tool calls
behind three questions and what a raw-frame reader would read for them.
Ends with one JSON line:
{"episodes": …, "query_stats_month_p95_ms": …, "search_episodes_p95_ms": …,
 "tokens_now": …, "tokens_month_entertainment": …, "tokens_rework": …}.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import random
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


from psycopg.conninfo import make_conninfo

from app.db.connection import connect, drop_database, ensure_database
from app.db.embedded import start_embedded
from app.enrich.client import ModelClient
from app.pyramid.build import backfill
from app.runtime.services import migrate_url, open_services
from app.settings import Settings
from app.text import estimate_tokens, fts_document
from app.tools import ToolContext, dispatch
from app.tools.registry import output_tokens
from app.tools.results import ToolError
from bench._common import bench_database, load_sample_year, p50_p95_ms
from tests.fake_openai import FakeOpenAI, fake_embedding

START = date(2001, 1, 1)
DATABASE = "timetrace_bench_tools"
TOPICS = [
    ("调试 支付回调超时", "排查支付回调超时，反复运行 pytest，最后回滚了 git reset --hard。"),
    ("Refactor the ingest pipeline", "Split ingest into validation and storage, reran tests."),
    ("阅读 EM-LLM 论文", "在 arXiv 上读情景记忆论文，记笔记。"),
    ("Weekly sync meeting", "Zoom call with the team about the roadmap."),
    ("看 B 站视频", "哔哩哔哩 城市夜景漫步 视频。"),
    ("Code review on GitHub", "Reviewed pull requests and left comments."),
    ("写周报", "在 Notion 里写本周周报和下周计划。"),
    ("Fixing flaky CI", "Error then retry loop on the CI job; 3 failed, then passed."),
]
QUERIES = [
    "支付回调",
    "ingest pipeline",
    "论文",
    "meeting",
    "B站 视频",
    "code review",
    "周报",
    "flaky CI",
    "回滚",
    "git reset",
    "读论文",
    "团队会议",
]


def _add_episodes(conn: Any, *, user_id: int, want: int, days: int) -> None:
    have = conn.execute("SELECT count(*) AS n FROM episodes").fetchone()["n"]
    rng = random.Random(3)
    conn.execute(
        "INSERT INTO devices (user_id, device_id, name, kind) VALUES (%s, 'synthetic', "
        "'bench', 'other') ON CONFLICT DO NOTHING",
        [user_id],
    )
    rows = []
    for i in range(max(0, want - have)):
        title, summary = rng.choice(TOPICS)
        start = datetime(2001, 1, 1, 1, tzinfo=UTC) + timedelta(minutes=rng.randrange(days * 1440))
        rows.append(
            (
                user_id,
                f"synthetic:{i}",
                "synthetic",
                start,
                start + timedelta(minutes=30),
                (start + timedelta(hours=4)).date(),
                "Code",
                "code",
                "work",
                f"{title} #{i}",
                f"{title} #{i}",
                summary,
                "done",
                fts_document(f"{title} #{i}", summary),
                f"synthetic:{i}",
                start,
                f"synthetic:{i}",
            )
        )
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO episodes (user_id, episode_key, device_id, ts_start, ts_end, day_local, "
            "primary_app, cluster_key, category, title, auto_title, summary, summary_status, fts, "
            "closed, duration_s, active_s, first_key, last_start, last_key) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
            "to_tsvector('simple', %s), true, 1800, 1800, %s, %s, %s)",
            rows,
        )


def _embed_all(conn: Any, *, dim: int) -> None:
    """Embeddings for every episode, loaded with the HNSW index dropped and rebuilt."""
    conn.execute("DROP INDEX IF EXISTS episodes_embedding")
    rows = conn.execute(
        "SELECT user_id, episode_id, title, coalesce(summary, '') AS summary FROM episodes"
    ).fetchall()
    with conn.cursor() as cur:
        cur.executemany(
            "UPDATE episodes SET summary_embedding = %s::vector "
            "WHERE user_id = %s AND episode_id = %s",
            [
                (
                    fake_embedding(f"{r['title']}\n{r['summary']}", dim),
                    r["user_id"],
                    r["episode_id"],
                )
                for r in rows
            ],
        )
    conn.execute(
        "CREATE INDEX episodes_embedding ON episodes USING hnsw "
        "(summary_embedding vector_cosine_ops)"
    )
    conn.execute("VACUUM ANALYZE episodes")
    conn.execute("VACUUM ANALYZE records")  # what autovacuum does after a big load


def _build(
    services: Any, user: Any, *, url: str, settings: Settings, args: argparse.Namespace
) -> dict[str, Any]:
    """Load the sample year, build it, add synthetic episodes and embeddings."""
    store = services.store
    raw_month_tokens = 0
    for chunk in load_sample_year(
        services, user, start=START, days=args.days, mean_record_s=args.mean_record_s
    ):
        if chunk.days[0] <= date(2001, 6, 15) <= chunk.days[-1]:
            # A raw-frame reader answering "this month" reads every frame's text.
            raw_month_tokens = sum(
                estimate_tokens(f"{r.ts_start:%H:%M:%S} {r.app} {r.window_title}")
                for r in chunk.records
                if r.ts_start.date().month == 6
            )
    backfill(store, now=datetime.now(UTC), settings=settings)
    with connect(url, settings=settings, autocommit=True) as conn:
        _add_episodes(conn, user_id=user.user_id, want=args.episodes, days=args.days)
        _embed_all(conn, dim=settings.embedding_dim)
        episodes = conn.execute("SELECT count(*) AS n FROM episodes").fetchone()["n"]
    return {"episodes": episodes, "raw_month_tokens": raw_month_tokens}


@contextlib.contextmanager
def _database(keep: Path | None) -> Iterator[tuple[str, Settings, dict[str, Any] | None]]:
    """The bench's database and, when it was built by an earlier run kept in `keep`, what
    that run recorded of the build (else None: build it)."""
    if keep is None:
        with bench_database(DATABASE) as (url, settings):
            yield url, settings, None
        return
    settings = Settings(data_dir=keep)
    server = start_embedded(pgdata=keep / "pgdata")
    try:
        admin = server.get_uri(database="postgres")
        marker = keep / "built.json"
        if not marker.exists():  # never built, or a build that was cut short
            drop_database(admin, database=DATABASE)
        ensure_database(admin, database=DATABASE)
        url = make_conninfo(admin, dbname=DATABASE)
        migrate_url(url, settings=settings)
        yield url, settings, json.loads(marker.read_text()) if marker.exists() else None
    finally:
        server.cleanup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--mean-record-s", type=int, default=4)
    parser.add_argument("--episodes", type=int, default=30_000)
    parser.add_argument("--calls", type=int, default=60)
    parser.add_argument("--tenants", type=int, default=0, help="search at many tenants")
    parser.add_argument("--tenant-episodes", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="build once in this directory, reuse later")
    args = parser.parse_args()
    if args.tenants:
        from bench.tenants import run

        run(tenants=args.tenants, per_user=args.tenant_episodes, queries=args.queries)
        return
    rng = random.Random(7)
    with (
        _database(args.keep) as (url, settings, built),
        FakeOpenAI(dim=settings.embedding_dim) as fake,
    ):
        settings = settings.model_copy(update={"embedding_base_url": fake.url})
        with open_services(settings, url=url, auto_migrate=False) as services:
            store = services.store
            user = store.ensure_user(name="bench", time_zone="Asia/Shanghai", day_cut_hour=4)
            if built is None:
                built = _build(services, user, url=url, settings=settings, args=args)
                if args.keep is not None:
                    (args.keep / "built.json").write_text(json.dumps(built))
            episodes, raw_month_tokens = built["episodes"], built["raw_month_tokens"]
            models = ModelClient(settings)
            now = datetime(2001, 6, 20, 6, tzinfo=UTC)

            def ctx(at: datetime = now) -> ToolContext:
                return dataclasses.replace(services.tool_context(user=user, now=at), models=models)

            def month_args() -> dict[str, Any]:
                month = rng.randrange(1, 12)
                first = date(2001, month, 1)
                last = date(2001 + month // 12, month % 12 + 1, 1) - timedelta(days=1)
                return {
                    "period": "custom",
                    "date_from": first.isoformat(),
                    "date_to": last.isoformat(),
                    "category": "entertainment",
                }

            def day_args() -> dict[str, Any]:
                day = START + timedelta(days=rng.randrange(args.days - 1))
                return {
                    "period": "custom",
                    "date_from": day.isoformat(),
                    "date_to": day.isoformat(),
                }

            def raw_args() -> dict[str, Any]:
                start = datetime(2001, 3, 1, 1, tzinfo=UTC) + timedelta(days=rng.randrange(200))
                return {
                    "ts_from": start.isoformat(),
                    "ts_to": (start + timedelta(hours=2)).isoformat(),
                }

            plans: dict[str, tuple[str, Callable[[], dict[str, Any]]]] = {
                "query_stats_month": ("query_stats", month_args),
                "query_stats_day": ("query_stats", day_args),
                "get_now": ("get_now", lambda: {}),
                "get_digest": (
                    "get_digest",
                    lambda: {"grain": "day", "date": day_args()["date_from"]},
                ),
                "get_episodes": ("get_episodes", day_args),
                "search_episodes": ("search_episodes", lambda: {"query": rng.choice(QUERIES)}),
                "get_signals": (
                    "get_signals",
                    lambda: {**month_args(), "kinds": ["rework", "forced_rollback"]},
                ),
                "get_raw": ("get_raw", raw_args),
                # Counted from records, clipped: not under the month target above.
                "query_stats_month_window": (
                    "query_stats",
                    lambda: {**month_args(), "time_from": "22:00", "time_to": "02:00"},
                ),
                "days_with_month": ("days_with", lambda: {**month_args(), "thing": "Steam"}),
            }
            latency: dict[str, tuple[float, float]] = {}
            for label, (name, make) in plans.items():
                samples = []
                for _ in range(args.calls):
                    arguments = make()
                    if name in ("get_signals", "days_with"):
                        arguments.pop("category")
                    started = time.perf_counter()
                    result = dispatch(ctx(), name, arguments)
                    samples.append(time.perf_counter() - started)
                    if isinstance(result, ToolError):
                        raise SystemExit(f"{name} {arguments}: {result.error}")
                latency[label] = p50_p95_ms(samples)
                print(
                    f"{label:<20} p50 {latency[label][0]:>7} ms  p95 {latency[label][1]:>7} ms",
                    file=sys.stderr,
                )
            tokens_now = output_tokens(dispatch(ctx(), "get_now", {}))
            tokens_month = output_tokens(
                dispatch(
                    ctx(), "query_stats", {"period": "this_month", "category": "entertainment"}
                )
            )
            tokens_rework = output_tokens(
                dispatch(
                    ctx(),
                    "get_signals",
                    {"period": "this_month", "kinds": ["rework", "forced_rollback"]},
                )
            )
    tool_tokens = tokens_month
    print(
        json.dumps(
            {
                "episodes": episodes,
                "query_stats_month_p95_ms": latency["query_stats_month"][1],
                "search_episodes_p95_ms": latency["search_episodes"][1],
                "tokens_now": tokens_now,
                "tokens_month_entertainment": tokens_month,
                "tokens_rework": tokens_rework,
                "latency_ms_p50_p95": latency,
                "raw_reader_tokens_month": raw_month_tokens,
                "raw_vs_tool_tokens_month": round(raw_month_tokens / max(tool_tokens, 1)),
            },
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main()
