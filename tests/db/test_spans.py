"""L0 is append-only: an episode is a span of its device's timeline, and building never
writes a record. What is not built yet is the tail after a device's watermark plus the
days in `build_marks` (a late record, a deletion, a re-label, a reopened day)."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta
from typing import Any

import psycopg
from psycopg.rows import dict_row

from app.db.connection import drop_database, ensure_database
from app.db.migrate import list_migrations, migrate
from app.ingest.records import RecordBatch, store_records
from app.pyramid.build import backfill, build_device
from app.runtime.services import Services
from tests.faults import wait_for
from tests.helpers import (
    NOW,
    episodes_by_first_record,
    load_golden,
    make_api,
    span_violations,
    unbuilt_keys,
    url_for,
)

GOLDEN = date(2003, 3, 12)


def _xmins(conn: Any) -> dict[int, str]:
    return {
        r["record_id"]: r["xmin"] for r in conn.execute("SELECT record_id, xmin::text FROM records")
    }


def _marks(conn: Any) -> list[tuple[str, date]]:
    return [
        (r["device_id"], r["day_local"])
        for r in conn.execute("SELECT device_id, day_local FROM build_marks ORDER BY 1, 2")
    ]


def _stale_days(conn: Any) -> list[date]:
    return [
        r["day_local"]
        for r in conn.execute("SELECT DISTINCT day_local FROM episodes WHERE stale ORDER BY 1")
    ]


def test_a_build_writes_no_record(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    api = load_golden(services, golden_day)
    before = _xmins(conn)
    # Any UPDATE of a record during the build fails it, not only one that a count sees.
    conn.execute("""
        CREATE FUNCTION test_no_record_update() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'a build updated record %', OLD.record_id; END $$;
        CREATE TRIGGER test_no_record_update BEFORE UPDATE ON records
            FOR EACH ROW EXECUTE FUNCTION test_no_record_update();
    """)
    conn.execute("SELECT pg_stat_reset_single_table_counters('records'::regclass)")
    for device in ("laptop", "desktop", "phone"):
        build_device(
            services.store, user=api.user, device_id=device, now=NOW, settings=services.settings
        )
    conn.execute("SELECT pg_stat_force_next_flush()")
    assert episodes_by_first_record(conn)
    assert _xmins(conn) == before
    assert unbuilt_keys(conn) == [] and span_violations(conn) == []
    # The builder's connections flush their counters when they go back idle; this one's now.
    updated = conn.execute(
        "SELECT n_tup_upd FROM pg_stat_user_tables WHERE relname = 'records'"
    ).fetchone()["n_tup_upd"]
    assert updated == 0


def test_every_live_record_lies_in_exactly_one_closed_span(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    assert span_violations(conn) == []
    assert unbuilt_keys(conn) == []
    # And the check has teeth: a span cut one record short leaves that record outside.
    conn.execute(
        "UPDATE episodes e SET last_start = r.ts_start, last_key = r.client_record_id "
        "FROM records r WHERE r.client_record_id = 'g12' AND e.first_key = 'g11'"
    )
    assert span_violations(conn) == [
        "record g13 is below the watermark in no span",
        f"episode {episodes_by_first_record(conn)['g11']['episode_id']}: 2 members, built from 3",
    ]


def _record(key: str, start: datetime, end: datetime, app: str = "Code") -> dict[str, Any]:
    return {
        "client_record_id": key,
        "ts_start": start.isoformat(),
        "ts_end": end.isoformat(),
        "app": app,
        "window_title": f"{key}.py — timetrace",
    }


def test_two_records_at_one_instant_can_end_and_start_two_episodes(
    services: Services, conn: Any
) -> None:
    api = make_api(services, time_zone="UTC")
    t0 = datetime(2003, 5, 6, 9, 0, tzinfo=UTC)
    tie = t0 + timedelta(minutes=59)
    records = [
        _record("t1", t0, tie),
        _record("t2", tie, tie),  # zero long: its successor starts at the same instant
        _record("t3", tie, tie + timedelta(minutes=11)),  # past the hour's cap: cut here
        _record("t4", tie + timedelta(minutes=11), tie + timedelta(minutes=20)),
    ]
    assert api.ingest("laptop", records).json()["new"] == 4
    build_device(
        services.store, user=api.user, device_id="laptop", now=NOW, settings=services.settings
    )
    episodes = episodes_by_first_record(conn)
    assert [e["members"] for e in episodes.values()] == [["t1", "t2"], ["t3", "t4"]]
    first, second = episodes["t1"], episodes["t3"]
    assert first["last_start"] == second["ts_start"] == tie
    of = {
        r["client_record_id"]: r["episode_id"]
        for r in conn.execute("SELECT client_record_id, episode_id FROM v_record_episodes")
    }
    assert of == {
        "t1": first["episode_id"],
        "t2": first["episode_id"],
        "t3": second["episode_id"],
        "t4": second["episode_id"],
    }
    assert span_violations(conn) == []


def test_a_late_record_marks_its_day_and_the_next_build_absorbs_it(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    api = load_golden(services, golden_day, skip={"g12"})
    backfill(services.store, now=NOW, settings=services.settings)
    assert _marks(conn) == []
    late = next(r for r in golden_day["records"]["laptop"] if r["client_record_id"] == "g12")
    assert api.ingest("laptop", [late]).json()["new"] == 1
    # At once: the day is marked with the late record's start, and its episodes are stale.
    mark = conn.execute("SELECT device_id, day_local, first_ts FROM build_marks").fetchall()
    assert mark == [
        {
            "device_id": "laptop",
            "day_local": GOLDEN,
            "first_ts": datetime.fromisoformat(late["ts_start"]),
        }
    ]
    assert _stale_days(conn) == [GOLDEN]
    assert "g12" in unbuilt_keys(conn) and "g01" in unbuilt_keys(conn)
    assert span_violations(conn) == []  # a marked day's records are not yet built
    # A replay of it is no new record, and marks nothing again.
    marked_at = conn.execute("SELECT marked_at FROM build_marks").fetchone()["marked_at"]
    assert api.ingest("laptop", [late]).json()["new"] == 0
    assert conn.execute("SELECT marked_at FROM build_marks").fetchone()["marked_at"] == marked_at
    build_device(
        services.store, user=api.user, device_id="laptop", now=NOW, settings=services.settings
    )
    assert _marks(conn) == [] and _stale_days(conn) == []
    assert episodes_by_first_record(conn)["g11"]["members"] == ["g11", "g12", "g13"]
    assert unbuilt_keys(conn) == [] and span_violations(conn) == []


def test_a_tail_record_marks_nothing(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    api = load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    later = datetime(2003, 3, 13, 2, 0, tzinfo=UTC)
    reply = api.ingest("laptop", [_record("n1", later, later + timedelta(minutes=5))])
    assert reply.json()["new"] == 1
    assert _marks(conn) == [] and _stale_days(conn) == []
    assert unbuilt_keys(conn) == ["n1"]


def test_an_import_copies_the_tail_and_marks_a_late_records_day(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    """An importer's batch goes by COPY only when all of it lies after the watermark; a
    late record takes the staged insert, which marks its day."""
    api = load_golden(services, golden_day, skip={"g12"})
    backfill(services.store, now=NOW, settings=services.settings)
    late = next(r for r in golden_day["records"]["laptop"] if r["client_record_id"] == "g12")
    later = datetime(2003, 3, 14, 2, 0, tzinfo=UTC)

    def imported(rows: list[dict[str, Any]]) -> int:
        batch = RecordBatch.model_validate({"device_id": "laptop", "records": rows})
        return store_records(
            services.store,
            user=api.user,
            device_id="laptop",
            records=batch.records,
            rules=services.rules,
            source="test",
        ).new

    assert imported([_record("i1", later, later + timedelta(minutes=5))]) == 1
    assert _marks(conn) == []
    assert imported([{**late, "client_record_id": "i0"}]) == 1
    assert _marks(conn) == [("laptop", GOLDEN)] and _stale_days(conn) == [GOLDEN]
    build_device(
        services.store, user=api.user, device_id="laptop", now=NOW, settings=services.settings
    )
    assert _marks(conn) == [] and unbuilt_keys(conn) == [] and span_violations(conn) == []


def test_a_deletion_marks_its_day_and_the_rebuild_clears_it(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    api = load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    g09 = conn.execute(
        "SELECT record_id, ts_start FROM records WHERE client_record_id = 'g09'"
    ).fetchone()
    hit = services.store.delete_records(user_id=api.user.user_id, record_ids=[g09["record_id"]])
    assert [(h.device_id, h.day_local, h.records) for h in hit] == [("laptop", GOLDEN, 1)]
    gone = conn.execute("SELECT device_id, day_local, first_gone FROM build_marks").fetchall()
    assert gone == [{"device_id": "laptop", "day_local": GOLDEN, "first_gone": g09["ts_start"]}]
    assert (
        conn.execute(
            "SELECT count(*) AS n FROM episodes WHERE device_id = 'laptop' AND day_local = %s",
            [GOLDEN],
        ).fetchone()["n"]
        == 0
    )
    assert "g08" in unbuilt_keys(conn)
    build_device(
        services.store, user=api.user, device_id="laptop", now=NOW, settings=services.settings
    )
    assert _marks(conn) == []
    members = [m for e in episodes_by_first_record(conn).values() for m in e["members"]]
    assert "g08" in members and "g10" in members
    assert unbuilt_keys(conn) == [] and span_violations(conn) == []


def test_a_relabel_marks_its_day_and_the_rebuild_clears_it(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    api = load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    episode = episodes_by_first_record(conn)["g02"]
    done = services.store.relabel(
        user_id=api.user.user_id,
        target_kind="episode",
        target_id=episode["episode_id"],
        category="study",
        actor="test",
        note="",
    )
    assert done is not None
    assert [(d.device_id, d.day_local) for d in done.device_days] == [("laptop", GOLDEN)]
    assert _marks(conn) == [("laptop", GOLDEN)]
    assert _stale_days(conn) == [GOLDEN]
    touched = conn.execute("SELECT touched FROM labels").fetchone()["touched"]
    assert (touched.lower, touched.upper) == (episode["ts_start"], episode["last_start"])
    build_device(
        services.store, user=api.user, device_id="laptop", now=NOW, settings=services.settings
    )
    assert _marks(conn) == [] and _stale_days(conn) == []
    rebuilt = episodes_by_first_record(conn)["g02"]
    # Its span starts where it started: the rebuilt episode keeps its id (migration 0028).
    assert rebuilt["episode_id"] == episode["episode_id"] and rebuilt["category"] == "study"
    assert unbuilt_keys(conn) == [] and span_violations(conn) == []


def test_a_later_day_built_first_marks_the_earlier_days_open_records(
    services: Services, conn: Any
) -> None:
    """A save whose episodes would leave records of an earlier day below the watermark
    outside any episode marks that day; the next build takes it whole."""
    api = make_api(services, time_zone="UTC")
    d1, d2 = datetime(2003, 5, 6, 9, 0, tzinfo=UTC), datetime(2003, 5, 7, 9, 0, tzinfo=UTC)
    records = [
        _record(f"a{i}", d1 + timedelta(minutes=10 * i), d1 + timedelta(minutes=10 * i + 9))
        for i in range(3)
    ]
    records += [
        _record(f"b{i}", d2 + timedelta(minutes=10 * i), d2 + timedelta(minutes=10 * i + 9))
        for i in range(3)
    ]
    assert api.ingest("laptop", records).json()["new"] == 6
    build_device(
        services.store,
        user=api.user,
        device_id="laptop",
        now=NOW,
        settings=services.settings,
        days=[date(2003, 5, 7)],
    )
    assert _marks(conn) == [("laptop", date(2003, 5, 6))]
    assert span_violations(conn) == []
    build_device(
        services.store, user=api.user, device_id="laptop", now=NOW, settings=services.settings
    )
    assert _marks(conn) == []
    assert sorted(episodes_by_first_record(conn)) == ["a0", "b0"]
    assert unbuilt_keys(conn) == [] and span_violations(conn) == []


def test_an_open_day_holds_back_the_days_after_it(services: Services, conn: Any) -> None:
    """The tail of a day still open (its last record may still grow) is not jumped by a
    later day's episodes: the build stops after it."""
    api = make_api(services, time_zone="UTC")
    day_end = datetime(2003, 5, 7, 4, 0, tzinfo=UTC)  # the day cut (04:00)
    records = [
        _record("a0", day_end - timedelta(minutes=20), day_end - timedelta(minutes=1)),
        _record("b0", day_end, day_end + timedelta(minutes=3), app="Firefox"),
        _record("b1", day_end + timedelta(minutes=3), day_end + timedelta(minutes=6), app="Slack"),
        _record("b2", day_end + timedelta(minutes=6), day_end + timedelta(minutes=9), app="Code"),
    ]
    assert api.ingest("laptop", records).json()["new"] == 4
    now = day_end + timedelta(minutes=2)  # a0's day is still open: its idle gap has not passed
    build_device(
        services.store, user=api.user, device_id="laptop", now=now, settings=services.settings
    )
    assert episodes_by_first_record(conn) == {}
    assert _marks(conn) == [] and span_violations(conn) == []
    build_device(
        services.store, user=api.user, device_id="laptop", now=NOW, settings=services.settings
    )
    assert unbuilt_keys(conn) == [] and span_violations(conn) == []


def test_an_insert_waits_for_a_save_under_the_device_build_lock(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    api = load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    later = datetime(2003, 3, 13, 2, 0, tzinfo=UTC)
    key = conn.execute(
        "SELECT timetrace_build_lock_key(%s, 'laptop') AS k", [api.user.user_id]
    ).fetchone()["k"]
    done: list[Any] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [key])  # a save in progress
        thread = threading.Thread(
            target=lambda: done.append(
                api.ingest("laptop", [_record("n1", later, later + timedelta(minutes=5))])
            )
        )
        thread.start()
        # The insert waits on this very lock (pg_locks is the whole server's: other
        # databases' tests may wait on theirs).
        waiting = (
            "SELECT count(*) AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
            "WHERE l.locktype = 'advisory' AND NOT l.granted AND d.datname = current_database() "
            "AND ((l.classid::bigint << 32) | l.objid::bigint) = %s"
        )
        assert wait_for(lambda: conn.execute(waiting, [key]).fetchone()["n"] == 1, timeout=10)
        assert not done
    thread.join(10)
    assert done and done[0].json()["new"] == 1


def test_the_migration_keeps_todays_links_as_spans_and_marks_what_is_left(
    admin_url: str, monkeypatch: Any
) -> None:
    """0019 on a database built under the link model: each episode's span from its linked
    members, the days left to rebuild marked (stale episodes, late records below the
    watermark, an episode with no live member), the tail left alone."""
    everything = list_migrations()
    name = "tt_spans_migration"
    drop_database(admin_url, database=name)
    ensure_database(admin_url, database=name)
    try:
        with psycopg.connect(url_for(admin_url, name), autocommit=True, row_factory=dict_row) as db:
            monkeypatch.setattr(
                "app.db.migrate.list_migrations", lambda: [m for m in everything if m.version < 19]
            )
            migrate(db, embedding_dim=8)
            user = db.execute(
                "INSERT INTO users (name, time_zone) VALUES ('m', 'UTC') RETURNING user_id"
            ).fetchone()["user_id"]
            db.execute("INSERT INTO devices (user_id, device_id) VALUES (%s, 'laptop')", [user])

            def episode(key: str, day: str, start: str, end: str, *, stale: bool = False) -> int:
                return int(
                    db.execute(
                        "INSERT INTO episodes (user_id, episode_key, device_id, ts_start, ts_end, "
                        "day_local, closed, stale) VALUES (%s, %s, 'laptop', %s, %s, %s, true, %s) "
                        "RETURNING episode_id",
                        [user, key, start, end, day, stale],
                    ).fetchone()["episode_id"]
                )

            def record(key: str, start: str, day: str, episode_id: int | None) -> None:
                db.execute(
                    "INSERT INTO records (user_id, device_id, client_record_id, ts_start, "
                    "day_local, category, category_source, episode_id) "
                    "VALUES (%s, 'laptop', %s, %s, %s, 'work', 'rule', %s)",
                    [user, key, start, day, episode_id],
                )

            gone = episode("laptop:1", "2003-03-11", "2003-03-11T09:00Z", "2003-03-11T09:05Z")
            record("d1", "2003-03-11T09:00Z", "2003-03-11", gone)
            db.execute("UPDATE records SET deleted_at = now() WHERE client_record_id = 'd1'")
            e1 = episode("laptop:2", "2003-03-12", "2003-03-12T09:00Z", "2003-03-12T09:20Z")
            record("a1", "2003-03-12T09:00Z", "2003-03-12", e1)
            record("a2", "2003-03-12T09:10Z", "2003-03-12", e1)
            record("a0", "2003-03-12T09:10Z", "2003-03-12", e1)  # a tie: first by key
            record("a3", "2003-03-12T09:05Z", "2003-03-12", None)  # late
            e2 = episode(
                "laptop:3", "2003-03-13", "2003-03-13T09:00Z", "2003-03-13T09:09Z", stale=True
            )
            record("b1", "2003-03-13T09:00Z", "2003-03-13", e2)
            record("c1", "2003-03-14T09:00Z", "2003-03-14", None)  # the tail
            monkeypatch.setattr("app.db.migrate.list_migrations", lambda: everything)
            assert migrate(db, embedding_dim=8) == [m.name for m in everything if m.version >= 19]
            spans = db.execute(
                "SELECT episode_id, first_key, last_start, last_key, stale FROM episodes "
                "ORDER BY ts_start"
            ).fetchall()
            assert spans == [
                {
                    "episode_id": e1,
                    "first_key": "a1",
                    "last_start": datetime(2003, 3, 12, 9, 10, tzinfo=UTC),
                    "last_key": "a2",
                    "stale": True,
                },
                {
                    "episode_id": e2,
                    "first_key": "b1",
                    "last_start": datetime(2003, 3, 13, 9, 0, tzinfo=UTC),
                    "last_key": "b1",
                    "stale": True,
                },
            ]
            marks = db.execute(
                "SELECT day_local, first_ts FROM build_marks ORDER BY day_local"
            ).fetchall()
            assert marks == [
                {"day_local": date(2003, 3, 11), "first_ts": None},
                {
                    "day_local": date(2003, 3, 12),
                    "first_ts": datetime(2003, 3, 12, 9, 5, tzinfo=UTC),
                },
                {"day_local": date(2003, 3, 13), "first_ts": None},
            ]
            assert db.execute(
                "SELECT count(*) AS n FROM information_schema.columns "
                "WHERE table_name = 'records' AND column_name = 'episode_id'"
            ).fetchone() == {"n": 0}
    finally:
        drop_database(admin_url, database=name)
