"""Records partitioned by month (migration 0020): months made on demand, the timeline as
the idempotency key, tombstones under it, and the clipped seconds ingest works out in
Python for a batch stored alone inside its span."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from app.db.queries import QUERIES
from tests.helpers import Api, make_api

NEW_YORK = ZoneInfo("America/New_York")


def rec(key: str, start: datetime, *, length_s: int | None = 60, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "client_record_id": key,
        "ts_start": start.isoformat(),
        "app": "Code",
        "window_title": f"{key}.py — 项目",
    }
    if length_s is not None:
        out["ts_end"] = (start + timedelta(seconds=length_s)).isoformat()
    return {**out, **extra}


def _months(conn: Any) -> list[str]:
    rows = conn.execute(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "WHERE i.inhparent = 'records'::regclass ORDER BY c.relname"
    ).fetchall()
    return [r["relname"] for r in rows]


def _count(conn: Any) -> int:
    return int(conn.execute("SELECT count(*) AS n FROM records").fetchone()["n"])


def test_months_are_made_on_demand_in_utc_across_years_and_dst(services: Any, conn: Any) -> None:
    api = make_api(services, time_zone="America/New_York")
    # 2001 and 2003; the night DST began in 2003; and a local evening of 31 March that is
    # already April in UTC (its month is the UTC one, its logical day the local one).
    starts = [
        datetime(2001, 1, 1, 0, 30, tzinfo=UTC),
        datetime(2001, 12, 31, 23, 59, tzinfo=UTC),
        datetime(2003, 4, 6, 1, 59, tzinfo=NEW_YORK),
        datetime(2003, 4, 6, 3, 1, tzinfo=NEW_YORK),
        datetime(2003, 3, 31, 23, 30, tzinfo=NEW_YORK),
    ]
    reply = api.ingest("laptop", [rec(f"m{i}", t) for i, t in enumerate(starts)])
    assert reply.status_code == 200 and reply.json()["new"] == 5, reply.text
    assert _months(conn) == ["records_2001_01", "records_2001_12", "records_2003_04"]
    late = conn.execute(
        "SELECT tableoid::regclass::text AS part, day_local FROM records "
        "WHERE client_record_id = 'm4'"
    ).fetchone()
    assert late["part"] == "records_2003_04" and str(late["day_local"]) == "2003-03-31"
    # Made once: a second batch in those months makes none, a batch in another makes one.
    again = api.ingest("phone", [rec("p", datetime(2001, 1, 5, tzinfo=UTC))])
    assert again.json()["new"] == 1 and len(_months(conn)) == 3
    services.store.ensure_record_months(days=[datetime(2002, 2, 27).date()])
    assert "records_2002_02" in _months(conn)


def test_a_replay_adds_nothing_and_duplicates_in_a_batch_count_once(api: Api, conn: Any) -> None:
    t0 = datetime(2003, 3, 12, 1, 0, tzinfo=UTC)
    batch = [rec(f"r{i}", t0 + timedelta(minutes=i)) for i in range(20)]
    first = api.ingest("laptop", batch)
    assert first.json()["new"] == 20
    replay = api.ingest("laptop", batch)
    assert (replay.json()["new"], replay.json()["duplicate"]) == (0, 20)
    twice = [rec("d", t0 + timedelta(hours=2)), rec("d", t0 + timedelta(hours=2))]
    both = api.ingest("laptop", twice)
    assert (both.json()["new"], both.json()["duplicate"]) == (1, 1)
    assert _count(conn) == 21
    # The key is the timeline position: the same key at another start is another record.
    moved = api.ingest("laptop", [rec("r0", t0 - timedelta(minutes=5))])
    assert moved.json()["new"] == 1 and _count(conn) == 22


def test_a_deleted_record_is_not_brought_back_by_a_replay(api: Api, conn: Any) -> None:
    t0 = datetime(2003, 3, 12, 1, 0, tzinfo=UTC)
    batch = [rec(f"r{i}", t0 + timedelta(minutes=i)) for i in range(5)]
    assert api.ingest("laptop", batch).json()["new"] == 5
    flag = "SELECT has_tombstones AS t FROM devices WHERE device_id = 'laptop'"
    assert conn.execute(flag).fetchone()["t"] is False
    gone = api.client.request(
        "DELETE",
        "/api/v1/records",
        json={"ts_from": t0.isoformat(), "ts_to": (t0 + timedelta(minutes=2)).isoformat()},
        headers=api.auth,
    )
    assert gone.json() == {"deleted": 2}
    assert conn.execute(flag).fetchone()["t"] is True
    replay = api.ingest("laptop", batch)
    assert (replay.json()["new"], replay.json()["duplicate"]) == (0, 5)
    live = conn.execute("SELECT count(*) AS n FROM records WHERE deleted_at IS NULL").fetchone()
    assert live["n"] == 3 and _count(conn) == 5
    # The same key at a start no tombstone has is a new record, on that device too.
    assert api.ingest("laptop", [rec("r0", t0 + timedelta(hours=1))]).json()["new"] == 1


def test_clipped_seconds_in_python_match_the_stored_timeline(api: Api, conn: Any) -> None:
    t0 = datetime(2003, 3, 12, 1, 0, tzinfo=UTC)
    before = [rec("a", t0, length_s=300)]  # runs 4 minutes into the next batch
    assert api.ingest("laptop", before).json()["clipped_s"] == 0.0
    # Out of order, a tie on start broken by key, overlaps inside the batch, open ends.
    batch = [
        rec("c", t0 + timedelta(minutes=3), length_s=90),
        rec("b", t0 + timedelta(minutes=1), length_s=150),
        rec("e", t0 + timedelta(minutes=3), length_s=None),
        rec("d", t0 + timedelta(minutes=3), length_s=20),
        rec("f", t0 + timedelta(minutes=10), length_s=5),
    ]
    reply = api.ingest("laptop", batch)
    assert reply.status_code == 200, reply.text
    by_sql = conn.execute(
        QUERIES["clipped_seconds"],
        {
            "user_id": api.user.user_id,
            "device_id": "laptop",
            "keys": [r["client_record_id"] for r in batch],
            "ts_from": t0 + timedelta(minutes=1),
            "ts_to": t0 + timedelta(minutes=10, seconds=5),  # the batch's last end
        },
    ).fetchone()["clipped_s"]
    # a: 300 s cut at b (+1 min) → 240; b: ends 3:30, cut at c (3:00) → 30;
    # c and d tie at 3:00 (c < d by key): c cut at d → 90, d cut at e → 20.
    assert reply.json()["clipped_s"] == round(by_sql, 3) == 380.0
