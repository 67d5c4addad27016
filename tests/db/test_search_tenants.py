"""search_episodes under the user filter: full and right for a small tenant beside a big
one, and the keyword side ranks a bounded set (bench/tools.py --tenants measures it at
scale)."""

from __future__ import annotations

from typing import Any

from pgvector import Vector

from app.db.store_tools import EXACT_BELOW, LEXICAL_CAP
from app.runtime.services import Services
from app.text import fts_document, keyword_terms

DIM = 384


def _tenant(services: Services, conn: Any, *, name: str, episodes: int, text: str) -> int:
    user = services.store.ensure_user(name=name, time_zone="UTC", day_cut_hour=4)
    services.store.add_device(user_id=user.user_id, device_id="d", name="d", kind="other")
    conn.execute(
        "INSERT INTO episodes (user_id, episode_key, device_id, ts_start, ts_end, day_local,"
        " title, summary, summary_status, embedding_status, closed, fts, summary_embedding,"
        " first_key, last_start, last_key)"
        " SELECT %(u)s, 'e' || n, 'd', ts, ts + interval '20 minutes', ts::date, %(text)s,"
        " %(text)s, 'done', 'done', true, to_tsvector('simple', %(fts)s),"
        " (SELECT array_agg(random_normal())::vector FROM generate_series(1, %(dim)s + 0 * n)),"
        " 'k' || n, ts, 'k' || n"
        " FROM generate_series(1, %(n)s) n,"
        " LATERAL (SELECT timestamptz '2001-01-01 00:00+00' + n * interval '1 hour') t(ts)",
        {"u": user.user_id, "n": episodes, "dim": DIM, "text": text, "fts": fts_document(text)},
    )
    return user.user_id


def _search(services: Services, user_id: int, *, vector: list[float], terms: Any = ()) -> Any:
    return services.store.search_episodes(
        user_id=user_id,
        terms=list(terms),
        embedding=vector,
        day_from=None,
        day_to=None,
        category=None,
        k=10,
        candidates=40,
    )


def _exact(conn: Any, user_id: int, vector: list[float]) -> list[int]:
    rows = conn.execute(
        "SELECT episode_id FROM episodes WHERE user_id = %s"
        " ORDER BY (summary_embedding <=> %s::vector) + 0, episode_id LIMIT 10",
        [user_id, str(Vector(vector).to_list())],
    ).fetchall()
    return [r["episode_id"] for r in rows]


def test_a_small_tenant_beside_a_big_one_gets_all_its_episodes(
    services: Services, conn: Any
) -> None:
    conn.execute("DROP INDEX episodes_embedding")  # built after the load, as a bulk load does
    big = _tenant(services, conn, name="big", episodes=3 * EXACT_BELOW, text="ledger review")
    small = _tenant(services, conn, name="small", episodes=6, text="ledger review")
    conn.execute(
        "CREATE INDEX episodes_embedding ON episodes USING hnsw"
        " (summary_embedding vector_cosine_ops)"
    )
    conn.execute("ANALYZE episodes")
    probe = conn.execute(
        "SELECT summary_embedding::real[] AS v FROM episodes WHERE user_id = %s LIMIT 1", [big]
    ).fetchone()["v"]
    # Few embedded episodes: every one of them, in exact order (a filtered index scan
    # would have to walk most of the big tenant's graph to find them).
    hits = _search(services, small, vector=probe)
    assert sorted(h.semantic_rank for h in hits) == [1, 2, 3, 4, 5, 6]
    by_rank = sorted(hits, key=lambda h: h.semantic_rank)
    assert [h.episode_id for h in by_rank] == _exact(conn, small, probe)[:6]
    # Many: the index, still filtered to the user and right at the top.
    hits = _search(services, big, vector=probe)
    top = [h.episode_id for h in sorted(hits, key=lambda h: h.semantic_rank)]
    assert top[0] == _exact(conn, big, probe)[0]
    assert len(set(top) & set(_exact(conn, big, probe))) >= 9
    owners = conn.execute(
        "SELECT DISTINCT user_id FROM episodes WHERE episode_id = ANY(%s)",
        [[h.episode_id for h in hits]],
    ).fetchall()
    assert [r["user_id"] for r in owners] == [big]


def test_the_keyword_side_ranks_only_the_newest_matches(services: Services, conn: Any) -> None:
    user = _tenant(services, conn, name="words", episodes=LEXICAL_CAP + 50, text="ledger")
    # The oldest episode says the word most often: ranked first if every match were ranked.
    conn.execute(
        "UPDATE episodes SET fts = to_tsvector('simple', 'ledger ledger ledger ledger')"
        " WHERE user_id = %s AND episode_key = 'e1'",
        [user],
    )
    hits = services.store.search_episodes(
        user_id=user,
        terms=keyword_terms("ledger"),
        embedding=None,
        day_from=None,
        day_to=None,
        category=None,
        k=10,
        candidates=40,
    )
    assert len(hits) == 10 and all(h.lexical_rank for h in hits)
    newest = conn.execute(
        "SELECT min(ts_start) AS t FROM (SELECT ts_start FROM episodes WHERE user_id = %s"
        " ORDER BY ts_start DESC LIMIT %s) x",
        [user, LEXICAL_CAP],
    ).fetchone()["t"]
    assert all(h.ts_start >= newest for h in hits)
    # Asked for more candidates than the cap, every match is ranked: the oldest leads.
    every = services.store.search_episodes(
        user_id=user,
        terms=keyword_terms("ledger"),
        embedding=None,
        day_from=None,
        day_to=None,
        category=None,
        k=1,
        candidates=LEXICAL_CAP + 50,
    )
    assert [h.lexical_rank for h in every] == [1]
    assert every[0].ts_start < newest
