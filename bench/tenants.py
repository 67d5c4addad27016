"""search_episodes at many tenants: `python bench/tools.py --tenants 30`.

Loads --tenants users with --tenant-episodes episodes each (30 × 10,000 = 300k),
interleaved in time as a shared server writes them, with summary embeddings clustered
the way real summaries cluster: topic centroids shared by every user (each user works
on a dozen of them, some much more than others), a sub-topic offset (a project), a
task offset (the same bug or report on several days), a direction common to all
(sentence embeddings are anisotropic) and per-episode noise.
Vectors are made by the server from the centroids (COPY the episodes' rows into a
staging table, one INSERT … SELECT, then CREATE INDEX for HNSW).

Then, for --queries random (user, topic) queries:
- `search_episodes` through `dispatch`, as the agent calls it (the query's vector comes
  from a scripted endpoint that knows each query's topic): p50/p95;
- recall@10 of its semantic side (the store's search with no keywords, k = 10) against
  an exact scan of that user's embedded episodes (no index);
- the exact scan's own latency, to compare;
- the same queries over two weeks (a few hundred of the user's episodes), by the exact
  scan search_episodes takes for few episodes and by the HNSW index (`window_*`).
Ends with one JSON line: {"tenants", "episodes", "search_episodes_p95_ms",
"search_recall_at_10", …}.
"""

from __future__ import annotations

import dataclasses
import json
import math
import random
import sys
import time
from datetime import UTC, date, datetime, timedelta
from typing import Any

from app.db import store_tools
from app.db.connection import connect
from app.enrich.client import ModelClient
from app.runtime.services import open_services
from app.text import fts_document
from app.tools import ToolContext, dispatch
from app.tools.results import ToolError
from bench._common import bench_database, p50_p95_ms
from tests.fake_openai import FakeOpenAI

BASES = [
    ("调试 支付回调超时", "排查支付回调超时，反复运行 pytest，回滚了 git reset。", "支付回调"),
    ("Refactor the ingest pipeline", "Split ingest into validation, storage.", "ingest pipeline"),
    ("阅读 EM-LLM 论文", "在 arXiv 上读情景记忆论文，记笔记。", "论文"),
    ("Weekly sync meeting", "Zoom call with the team about the roadmap.", "meeting"),
    ("看 B 站视频", "哔哩哔哩 城市夜景漫步 视频。", "B站 视频"),
    ("Code review on GitHub", "Reviewed pull requests and left comments.", "code review"),
    ("写周报", "在 Notion 里写本周周报和下周计划。", "周报"),
    ("Fixing flaky CI", "Error then retry loop on the CI job; 3 failed, then passed.", "flaky CI"),
]
PROJECTS = ["payments", "search", "billing", "mobile", "docs", "infra"]
SUBTOPICS = 6  # per topic: a project
TASKS = 16  # per sub-topic: a task worked on again and again (a bug, a paper, a report)
TOPICS_PER_USER = 12
START = datetime(2001, 1, 1, 1, tzinfo=UTC)


@dataclasses.dataclass(frozen=True)
class Topic:
    title: str
    summary: str
    query: str


def topics() -> list[Topic]:
    """48 topics: each base activity on each project."""
    return [
        Topic(f"{title} · {project}", f"{summary} Project {project}.", f"{query} {project}")
        for title, summary, query in BASES
        for project in PROJECTS
    ]


def _unit(rng: random.Random, dim: int, scale: float = 1.0) -> list[float]:
    v = [rng.gauss(0.0, 1.0) for _ in range(dim)]
    norm = math.sqrt(sum(x * x for x in v))
    return [scale * x / norm for x in v]


def _vector_text(v: list[float]) -> str:
    return "[" + ",".join(f"{x:.6f}" for x in v) + "]"


class TopicEmbedder(FakeOpenAI):
    """The scripted endpoint, answering each bench query with its topic's vector."""

    def __init__(self, *, dim: int, vectors: dict[str, list[float]]) -> None:
        super().__init__(dim=dim)
        self.vectors = vectors

    def _embedding(self, text: str) -> list[float] | list[list[float]]:
        return self.vectors.get(text) or super()._embedding(text)


def load(conn: Any, *, users: list[int], per_user: int, dim: int, seed: int) -> dict[str, Any]:
    """Episodes and their vectors for every user; the model to draw queries from."""
    rng = random.Random(seed)
    all_topics = topics()
    common = _unit(rng, dim, 0.5)
    centroids = [_unit(rng, dim) for _ in all_topics]
    subs = [[_unit(rng, dim, 0.7) for _ in range(SUBTOPICS)] for _ in all_topics]
    cells: list[list[float]] = []  # topic × sub-topic × task
    conn.execute(
        "CREATE TEMP TABLE bench_topic (topic int PRIMARY KEY, v vector, title text,"
        " summary text, fts text)"
    )
    with conn.cursor().copy("COPY bench_topic (topic, v, title, summary, fts) FROM STDIN") as copy:
        for t, topic in enumerate(all_topics):
            text = fts_document(topic.title, topic.summary)
            for s in range(SUBTOPICS):
                for _k in range(TASKS):
                    # centroid + sub-topic + task + the common direction, summed once here
                    task = _unit(rng, dim, 0.6)
                    v = [
                        c + x + y + m
                        for c, x, y, m in zip(centroids[t], subs[t][s], task, common, strict=True)
                    ]
                    cells.append(v)
                    copy.write_row(
                        (len(cells) - 1, _vector_text(v), topic.title, topic.summary, text)
                    )
    # Each user's topics: a dozen, by a Zipf-like weight (a few dominate).
    mix = {u: rng.sample(range(len(all_topics)), TOPICS_PER_USER) for u in users}
    weights = [1 / (r + 1) for r in range(TOPICS_PER_USER)]
    conn.execute(
        "CREATE TEMP TABLE bench_staging (user_id bigint, n int, topic int, ts_start timestamptz)"
    )
    span_min = 365 * 1440
    started = time.perf_counter()
    rows = []
    for u in users:
        for n in range(per_user):
            t = rng.choices(mix[u], weights)[0]
            ts = START + timedelta(minutes=rng.randrange(span_min))
            rows.append((u, n, t * SUBTOPICS * TASKS + rng.randrange(SUBTOPICS * TASKS), ts))
    rows.sort(key=lambda r: r[3])  # a shared server writes every user's episodes in time
    with conn.cursor().copy("COPY bench_staging (user_id, n, topic, ts_start) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
    conn.execute("DROP INDEX IF EXISTS episodes_embedding")
    noise = 0.7 / math.sqrt(dim)  # per coordinate: a noise vector of norm ≈ 0.7
    conn.execute(
        "INSERT INTO episodes (user_id, episode_key, device_id, ts_start, ts_end, day_local,"
        " primary_app, cluster_key, category, title, auto_title, summary, summary_status,"
        " embedding_status, fts, closed, duration_s, active_s, summary_embedding,"
        " first_key, last_start, last_key)"
        " SELECT s.user_id, 'synthetic:' || s.n, 'synthetic', s.ts_start,"
        " s.ts_start + interval '30 minutes', (s.ts_start + interval '8 hours')::date, 'Code',"
        " 'code', 'work', t.title || ' #' || s.n, t.title || ' #' || s.n, t.summary,"
        " 'done', 'done', to_tsvector('simple', t.fts), true, 1800, 1800,"
        " t.v + (SELECT array_agg(random_normal(0, %(noise)s))::vector"
        "        FROM generate_series(1, %(dim)s + 0 * s.n)),"
        " 's' || s.n, s.ts_start, 's' || s.n"
        " FROM bench_staging s JOIN bench_topic t ON t.topic = s.topic ORDER BY s.ts_start",
        {
            "noise": noise,
            "dim": dim,
        },
    )
    loaded_s = time.perf_counter() - started
    started = time.perf_counter()
    conn.execute("SET maintenance_work_mem = '1GB'")
    conn.execute(
        "CREATE INDEX episodes_embedding ON episodes USING hnsw "
        "(summary_embedding vector_cosine_ops)"
    )
    index_s = time.perf_counter() - started
    conn.execute("VACUUM ANALYZE episodes")
    return {
        "mix": mix,
        "weights": weights,
        "cells": cells,
        "topics": all_topics,
        "load_s": round(loaded_s, 1),
        "index_s": round(index_s, 1),
    }


def query_vector(model: dict[str, Any], topic: int, rng: random.Random, dim: int) -> list[float]:
    """A short query about one task of a topic: near that task, not on any one episode."""
    cell = topic * SUBTOPICS * TASKS + rng.randrange(SUBTOPICS * TASKS)
    noise = _unit(rng, dim, 0.5)
    return [c + x for c, x in zip(model["cells"][cell], noise, strict=True)]


def exact_top(
    conn: Any, *, user_id: int, vector: str, k: int, days: tuple[date, date] | None = None
) -> list[int]:
    """The user's k nearest embedded episodes by an exact scan (no vector index)."""
    first, last = days or (None, None)
    with conn.transaction():
        conn.execute("SET LOCAL enable_indexscan = off")  # the HNSW index is an index scan
        rows = conn.execute(
            "SELECT episode_id FROM episodes WHERE user_id = %s AND NOT stale"
            " AND summary_embedding IS NOT NULL"
            " AND (%s::date IS NULL OR day_local BETWEEN %s AND %s)"
            " ORDER BY summary_embedding <=> %s::vector, episode_id LIMIT %s",
            [user_id, first, first, last, vector, k],
        ).fetchall()
    return [r["episode_id"] for r in rows]


WINDOW_DAYS = 14  # a search over two weeks: about 400 of a user's 10,000 episodes


def windowed(
    store: Any, conn: Any, wanted: list[tuple[int, str, list[float]]], rng: random.Random
) -> dict[str, Any]:
    """Searches over two weeks, by an exact scan of the user's episodes in range (what
    search_episodes does for few) and by the HNSW index filtered to them: which wins."""
    cases = []
    for user_id, _, vector in wanted:
        first = START.date() + timedelta(days=rng.randrange(365 - WINDOW_DAYS))
        days = (first, first + timedelta(days=WINDOW_DAYS - 1))
        truth = exact_top(conn, user_id=user_id, vector=_vector_text(vector), k=10, days=days)
        cases.append((user_id, vector, days, truth))
    out: dict[str, Any] = {}
    default = store_tools.EXACT_BELOW
    for name, below in (("exact", default), ("index", -1)):
        store_tools.EXACT_BELOW = below  # -1: never exact
        took, recall = [], []
        for user_id, vector, (first, last), truth in cases:
            started = time.perf_counter()
            hits = store.search_episodes(
                user_id=user_id,
                terms=[],
                embedding=vector,
                day_from=first,
                day_to=last,
                category=None,
                k=10,
                candidates=40,
            )
            took.append(time.perf_counter() - started)
            found = {h.episode_id for h in hits}
            recall.append(len(found & set(truth)) / max(len(truth), 1))
        out[f"window_{name}_p50_p95_ms"] = p50_p95_ms(took)
        out[f"window_{name}_recall_at_10"] = round(sum(recall) / len(recall), 4)
    store_tools.EXACT_BELOW = default
    return out


def run(*, tenants: int, per_user: int, queries: int, seed: int = 11) -> None:
    rng = random.Random(seed)
    with bench_database("timetrace_bench_tenants") as (url, settings):
        dim = settings.embedding_dim
        wanted: list[tuple[int, str, list[float]]] = []  # (user, query text, vector)
        vectors: dict[str, list[float]] = {}
        with connect(url, settings=settings, autocommit=True) as conn:
            users = []
            for i in range(tenants):
                row = conn.execute(
                    "INSERT INTO users (name, time_zone, day_cut_hour) VALUES (%s, 'UTC', 4)"
                    " RETURNING user_id",
                    [f"tenant{i:03d}"],
                ).fetchone()
                users.append(row["user_id"])
                conn.execute(
                    "INSERT INTO devices (user_id, device_id, name, kind)"
                    " VALUES (%s, 'synthetic', 'bench', 'other')",
                    [row["user_id"]],
                )
            model = load(conn, users=users, per_user=per_user, dim=dim, seed=seed)
            episodes = conn.execute("SELECT count(*) AS n FROM episodes").fetchone()["n"]
            for q in range(queries):
                user = rng.choice(users)
                topic = rng.choices(model["mix"][user], model["weights"])[0]
                # Distinct text per query: the embedder answers by text.
                text = f"{model['topics'][topic].query} {q}"
                vectors[text] = query_vector(model, topic, rng, dim)
                wanted.append((user, text, vectors[text]))
            exact: list[list[int]] = []
            exact_s: list[float] = []
            for user, _, vector in wanted:
                started = time.perf_counter()
                exact.append(exact_top(conn, user_id=user, vector=_vector_text(vector), k=10))
                exact_s.append(time.perf_counter() - started)
        with (
            TopicEmbedder(dim=dim, vectors=vectors) as fake,
            open_services(
                settings.model_copy(update={"embedding_base_url": fake.url}),
                url=url,
                auto_migrate=False,
            ) as services,
        ):
            store = services.store
            models = ModelClient(services.settings)
            contexts: dict[int, ToolContext] = {}
            now = START + timedelta(days=366)
            for user_id in set(u for u, _, _ in wanted):
                user = store.get_user_by_id(user_id=user_id)
                assert user is not None
                contexts[user_id] = dataclasses.replace(
                    services.tool_context(user=user, now=now), models=models
                )
            recall = []
            semantic_s = []
            for (user_id, _, vector), truth in zip(wanted, exact, strict=True):
                started = time.perf_counter()
                hits = store.search_episodes(
                    user_id=user_id,
                    terms=[],
                    embedding=vector,
                    day_from=None,
                    day_to=None,
                    category=None,
                    k=10,
                    candidates=40,
                )
                semantic_s.append(time.perf_counter() - started)
                found = {h.episode_id for h in hits}
                recall.append(len(found & set(truth)) / max(len(truth), 1))
            search_s = []
            for user_id, text, _ in wanted:
                started = time.perf_counter()
                result = dispatch(contexts[user_id], "search_episodes", {"query": text})
                search_s.append(time.perf_counter() - started)
                if isinstance(result, ToolError):
                    raise SystemExit(f"search_episodes {text}: {result.error}")
                if getattr(result, "mode", None) != "hybrid" or not result.items:
                    raise SystemExit(f"search_episodes {text}: {result}")
            with connect(url, settings=settings, autocommit=True) as conn:
                window = windowed(store, conn, wanted[:60], rng)
    p50, p95 = p50_p95_ms(search_s)
    out = {
        "tenants": tenants,
        "episodes": episodes,
        "queries": queries,
        "search_episodes_p50_ms": p50,
        "search_episodes_p95_ms": p95,
        "search_recall_at_10": round(sum(recall) / len(recall), 4),
        "semantic_p50_p95_ms": p50_p95_ms(semantic_s),
        "exact_scan_p50_p95_ms": p50_p95_ms(exact_s),
        "load_s": model["load_s"],
        "index_s": model["index_s"],
        **window,
    }
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":  # pragma: no cover - run through bench/tools.py
    sys.exit("run: python bench/tools.py --tenants N")
