"""The privacy page's storage section: each layer's and tier's real size (the tables'
bytes on disk, a user's share of them, or "–" when nothing says how much is theirs),
and tiers named in words in both languages."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api import create_app
from app.pyramid.retention import size_text
from app.runtime.services import Services
from tests.helpers import SAMPLE_MONTH, Preloaded, new_token_for

pytestmark = pytest.mark.preloaded(SAMPLE_MONTH)
ROW = re.compile(r'<tr data-(layer|tier)="(\w+)"><td>([^<]*)</td><td>(\d*)</td><td>([^<]*)</td>')


def _client(services: Services, preloaded: Preloaded) -> TestClient:
    client = TestClient(create_app(services=services), follow_redirects=False)
    token = new_token_for(services, preloaded.user, name="privacy")
    assert client.post("/signin", data={"token": token, "next": "/day"}).status_code == 303
    return client


def _rows(page: str) -> dict[str, tuple[str, str, str]]:
    """A layer's name, or "tier:" and a tier's → (label, rows, size) as the page shows them."""
    return {
        ("tier:" if kind == "tier" else "") + name: (label, rows, size)
        for kind, name, label, rows, size in ROW.findall(page)
    }


def _sql(services: Services, query: str) -> Any:
    with services.store.pool.connection() as conn:
        return conn.execute(query).fetchone()


def _table_bytes(services: Services, table: str) -> int:
    """A table's bytes with its indexes and TOAST; a partitioned one's over its leaves."""
    return int(
        _sql(
            services,
            "SELECT COALESCE(sum(pg_total_relation_size(relid)), 0)::bigint AS n FROM "
            f"pg_partition_tree('{table}') WHERE isleaf",
        )["n"]
        or _sql(services, f"SELECT pg_total_relation_size('{table}')::bigint AS n")["n"]
    )


def test_the_only_user_sees_each_tables_bytes_and_tiers_in_words(
    services: Services, preloaded: Preloaded
) -> None:
    client = _client(services, preloaded)
    rows = _rows(client.get("/privacy", headers={"Accept-Language": "en"}).text)
    sizes = {t: _table_bytes(services, t) for t in ("records", "episodes", "digests", "signals")}
    assert all(sizes.values())  # the sample month fills every one of them
    assert rows["records"][2] == size_text(sizes["records"])
    assert rows["episodes"] == ("Episodes", "790", size_text(sizes["episodes"]))
    assert rows["digests"] == ("Digests", "38", size_text(sizes["digests"]))
    assert rows["aw_events"][1:] == ("0", "0 B")  # none of theirs: nothing, and known
    both = size_text(sizes["digests"] + sizes["signals"])
    assert rows["tier:digests"] == ("Tier: digests and signals", "", both)
    page = client.get("/privacy", headers={"Accept-Language": "en"}).text
    assert "Raw records: kept forever; episode text: kept forever;" in page
    assert "off days" not in page

    services.store.set_retention(user_id=preloaded.user.user_id, raw_days=30, episode_days=60)
    chinese = client.get("/privacy", headers={"Accept-Language": "zh"}).text
    assert "原始记录：30 天；片段文字：60 天；摘要与信号：永久保留。" in chinese
    assert _rows(chinese)["episodes"][0] == "片段"
    assert _rows(chinese)["tier:digests"][0] == "层级：摘要与信号" and "不限" not in chinese


def test_with_another_user_a_share_is_estimated_or_shown_unknown(
    services: Services, preloaded: Preloaded
) -> None:
    services.store.ensure_user(name="someone-else", time_zone="UTC", day_cut_hour=4)
    client = _client(services, preloaded)
    estimate = "SELECT reltuples AS n FROM pg_class WHERE oid = 'episodes'::regclass"
    # Never analysed: no estimate of all rows. Autovacuum may have analysed the table
    # already on a busy machine, so the test puts back the state of a fresh install.
    with services.store.pool.connection() as conn:
        conn.execute("ALTER TABLE episodes SET (autovacuum_enabled = off)")
        conn.execute("UPDATE pg_class SET reltuples = -1 WHERE oid = 'episodes'::regclass")
    assert _sql(services, estimate)["n"] < 0
    unknown = _rows(client.get("/privacy", headers={"Accept-Language": "zh"}).text)
    assert unknown["episodes"] == ("片段", "790", "–")
    assert unknown["tier:episodes"] == ("层级：片段文字", "", "–")

    with services.store.pool.connection() as conn:
        conn.execute("ANALYZE episodes")
    share = round(
        790 * _table_bytes(services, "episodes") / max(_sql(services, estimate)["n"], 790)
    )
    shown = _rows(client.get("/privacy", headers={"Accept-Language": "en"}).text)
    assert shown["episodes"][1:] == ("790", size_text(share))
