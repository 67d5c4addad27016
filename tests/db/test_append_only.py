"""L0 is append-only: building the pyramid (the batch backfill, then the live build of
a later day) updates no record. Three witnesses: the statistics collector's update
count on `records` (summed over its partitions, if it has any), each record's row
version (xmin), and a trigger that refuses any update while the build runs."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

import pytest

from app.pyramid.build import backfill, build_device
from app.runtime.services import open_services
from app.settings import Settings
from tests.faults import ingest_days, wait_for
from tests.helpers import NOW, SampleRecipe

# The end of September 2002 into October: the batch crosses a month (a chunk) boundary.
FIRST_DAYS = SampleRecipe(start=date(2002, 9, 27), days=6, seed=9, mean_record_s=120, built=False)
LATER_DAY = date(2002, 10, 3)

# Every table that is `records` or one of its partitions (declarative partitions are
# pg_inherits children; a plain table is counted alone).
UPDATES = """
SELECT COALESCE(sum(s.n_tup_upd), 0)::bigint AS n FROM pg_stat_user_tables s
WHERE s.relid = 'records'::regclass
   OR s.relid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'records'::regclass)
"""

REFUSE_UPDATES = """
CREATE FUNCTION test_refuse_record_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'a build updated record %', OLD.record_id; END $$;
CREATE TRIGGER test_refuse_record_update BEFORE UPDATE ON records
FOR EACH ROW EXECUTE FUNCTION test_refuse_record_update();
"""


def _versions(conn: Any) -> dict[int, str]:
    rows = conn.execute("SELECT record_id, xmin::text AS v FROM records").fetchall()
    return {r["record_id"]: r["v"] for r in rows}


def _other_sessions(conn: Any) -> int:
    row = conn.execute(
        "SELECT count(*) AS n FROM pg_stat_activity "
        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
    ).fetchone()
    return int(row["n"])


def _updates(conn: Any) -> int:
    conn.execute("SELECT pg_stat_clear_snapshot()")
    return int(conn.execute(UPDATES).fetchone()["n"])


@pytest.mark.preloaded(FIRST_DAYS)
def test_building_updates_no_record(
    db_url: str, settings: Settings, conn: Any, preloaded: Any
) -> None:
    conn.execute(REFUSE_UPDATES)
    before = _versions(conn)
    updates = _updates(conn)
    assert len(before) > 1_000
    # Its own pool: closing it ends its sessions, which flush their statistics.
    with open_services(settings, url=db_url, auto_migrate=False) as services:
        summary = backfill(services.store, now=NOW, settings=services.settings)
        assert summary.episodes > 50
        # A later day, built the way the per-minute job builds (the live path).
        data = SampleRecipe(start=LATER_DAY, days=1, seed=10, mean_record_s=120).data()
        # Keys of their own: the sample numbers its records from 0 each time.
        data.records = [
            replace(r, client_record_id=f"later-{r.client_record_id}") for r in data.records
        ]
        assert ingest_days(services, preloaded.user, data, lambda d: True) > 0
        built = build_device(
            services.store,
            user=preloaded.user,
            device_id="laptop",
            now=NOW,
            settings=services.settings,
        )
        assert built.episodes > 0
    after = _versions(conn)
    assert {k: after[k] for k in before} == before
    # A session flushes its counts as it exits: wait until the pool's have.
    assert wait_for(lambda: _other_sessions(conn) == 0, timeout=10)
    assert _updates(conn) == updates == 0
    # The counter does count: a record updated here shows up.
    conn.execute("DROP TRIGGER test_refuse_record_update ON records")
    conn.execute(
        "UPDATE records SET app = app WHERE record_id = (SELECT min(record_id) FROM records)"
    )
    conn.execute("SELECT pg_stat_force_next_flush()")
    assert wait_for(lambda: _updates(conn) == 1, timeout=5)
