"""The pyramid without a model, on a real database: the golden day exactly, the
sample month against its ground truth, invariants, idempotency, deletion."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app.demo.sample import SampleData
from app.pyramid.build import backfill, build_device, rollup_day
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.timeutil import month_key, period_days, week_key
from tests.helpers import (
    NOW,
    SAMPLE_MONTH,
    Preloaded,
    episodes_by_first_record,
    load_golden,
    snapshot,
    span_violations,
    unbuilt_keys,
)

SHANGHAI = ZoneInfo("Asia/Shanghai")


def local(ts: datetime) -> str:
    return ts.astimezone(SHANGHAI).strftime("%Y-%m-%d %H:%M:%S")


# -- the golden day -----------------------------------------------------------------------


def test_golden_day_episode_boundaries_match_the_fixture(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    got = defaultdict(list)
    for row in episodes_by_first_record(conn).values():
        got[row["device_id"]].append(
            {
                "start": local(row["ts_start"]),
                "end": local(row["ts_end"]),
                "category": row["category"],
                "records": row["members"],
                "interruption_s": row["interruption_s"],
            }
        )
    for device, expected in golden_day["expected_episodes"].items():
        if device == "about":
            continue
        want = [
            {
                "start": e["start"],
                "end": e["end"],
                "category": e["category"],
                "records": e["records"],
                "interruption_s": e.get("interruption_s", 0),
            }
            for e in expected
        ]
        assert got[device] == want, device


def test_golden_day_signals_and_metrics_match_the_fixture(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    first_record = {
        row["episode_id"]: first for first, row in episodes_by_first_record(conn).items()
    }
    got = sorted(
        (row["kind"], row["severity"], [first_record[i] for i in row["evidence"]["episode_ids"]])
        for row in conn.execute("SELECT * FROM signals WHERE scope = '2003-03-12'")
    )
    want = sorted(
        (s["kind"], s["severity"], s["episodes"]) for s in golden_day["expected_signals"]["signals"]
    )
    assert got == want
    metrics = conn.execute(
        "SELECT metrics FROM digests WHERE grain = 'day' AND scope_key = '2003-03-12'"
    ).fetchone()["metrics"]
    expected = {k: v for k, v in golden_day["expected_day_metrics"].items() if k != "why"}
    assert {k: metrics[k] for k in expected} == expected
    assert metrics["seconds_by_category"] == golden_day["expected_seconds"]["2003-03-12"]


def test_golden_day_rollback_evidence_names_the_command(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    cues = sorted(
        c
        for row in conn.execute("SELECT evidence FROM signals WHERE kind = 'forced_rollback'")
        for c in row["evidence"]["cues"]
    )
    assert cues == ["git reset --hard", "git revert"]


# -- the sample month --------------------------------------------------------------------


@pytest.fixture
def month(preloaded: Preloaded) -> tuple[SampleData, UserContext]:
    return preloaded.data, preloaded.user


def _truth(data: SampleData, first: date, last: date) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for (day, category), seconds in data.seconds.items():
        if first <= day <= last:
            out[category] += seconds
    return dict(out)


def _digest(conn: Any, grain: str, key: str) -> dict[str, Any]:
    row = conn.execute(
        "SELECT * FROM digests WHERE grain = %s AND scope_key = %s", [grain, key]
    ).fetchone()
    assert row is not None, (grain, key)
    return dict(row)


@pytest.mark.preloaded(SAMPLE_MONTH)
def test_sample_month_digests_equal_ground_truth_to_the_second(
    month: tuple[SampleData, UserContext], conn: Any
) -> None:
    data, _ = month
    for day in data.days:
        digest = _digest(conn, "day", day.isoformat())
        assert digest["finalized"]
        assert digest["metrics"]["seconds_by_category"] == _truth(data, day, day), day
    for key in sorted({week_key(d) for d in data.days} | {month_key(data.days[0])}):
        grain = "week" if "W" in key else "month"
        first, last = period_days(grain, key)
        digest = _digest(conn, grain, key)
        assert digest["metrics"]["seconds_by_category"] == _truth(data, first, last), key
    assert _digest(conn, "month", "2003-03")["finalized"]


@pytest.mark.preloaded(SAMPLE_MONTH)
def test_sample_month_has_at_most_80_episodes_per_day(
    month: tuple[SampleData, UserContext], conn: Any
) -> None:
    counts = [
        row["n"]
        for row in conn.execute("SELECT day_local, count(*) AS n FROM episodes GROUP BY day_local")
    ]
    assert len(counts) == 31 and max(counts) <= 80 and min(counts) >= 5


@pytest.mark.preloaded(SAMPLE_MONTH)
def test_invariants_hold_on_the_sample_month(
    month: tuple[SampleData, UserContext], services: Services, conn: Any
) -> None:
    data, user = month
    # Per day, episode durations add up to record durations.
    rows = conn.execute("""
        SELECT d.day_local, d.s AS records, e.s AS episodes FROM
          (SELECT day_local, sum(duration_s) s FROM v_record_durations GROUP BY 1) d
          FULL JOIN (SELECT day_local, sum(duration_s) s FROM episodes GROUP BY 1) e
          USING (day_local)
    """).fetchall()
    assert rows and all(abs(r["records"] - r["episodes"]) < 1e-6 for r in rows)
    # Every live record's start lies in exactly one closed episode span.
    assert span_violations(conn) == []
    assert unbuilt_keys(conn) == []
    # Every digest number equals the same GROUP BY computed live over episodes.
    checked = (
        "seconds_by_category",
        "seconds_by_app",
        "episode_count",
        "active_seconds",
        "idle_seconds",
        "switch_count",
        "interruption_seconds",
        "top_titles",
    )
    for grain, key in [("day", d.isoformat()) for d in data.days] + [
        ("week", week_key(data.days[10])),
        ("month", "2003-03"),
    ]:
        first, last = period_days(grain, key)
        live = services.store.period_metrics(user_id=user.user_id, day_from=first, day_to=last)
        stored = _digest(conn, grain, key)["metrics"]
        assert {k: stored[k] for k in checked} == {k: live.metrics.get(k) for k in checked}, key


@pytest.mark.preloaded(SAMPLE_MONTH)
def test_running_everything_twice_changes_nothing(
    month: tuple[SampleData, UserContext], services: Services, conn: Any
) -> None:
    before = snapshot(conn)
    again = backfill(services.store, now=NOW, settings=services.settings)
    assert again.episodes == 0
    data, user = month
    for day in data.days[:5]:
        rollup_day(services.store, user=user, day=day, now=NOW, settings=services.settings)
    assert snapshot(conn) == before


# -- crashes, late records, deletion ----------------------------------------------------


class CrashAfter:
    """A store that fails after N saves: a worker killed between two transactions."""

    def __init__(self, store: Any, saves: int) -> None:
        self._store = store
        self._left = saves

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def save_episodes(self, **kwargs: Any) -> Any:
        if self._left == 0:
            raise RuntimeError("killed")
        self._left -= 1
        return self._store.save_episodes(**kwargs)


def _numbers(conn: Any) -> Any:
    episodes = conn.execute(
        "SELECT device_id, ts_start, ts_end, category, duration_s, frame_count FROM episodes "
        "ORDER BY device_id, ts_start"
    ).fetchall()
    digests = conn.execute("SELECT grain, scope_key, metrics FROM digests ORDER BY 1, 2").fetchall()
    signals = conn.execute(
        "SELECT kind, scope, signal_key ~ '^(day|gap|file|storm)' AS stable, severity FROM signals "
        "ORDER BY 1, 2, 4"
    ).fetchall()
    return episodes, digests, signals


def test_a_build_killed_half_way_then_rerun_gives_the_same_numbers(
    services: Services, other_db: Any, golden_day: dict[str, Any], conn: Any
) -> None:
    api = load_golden(services, golden_day)
    crashing = CrashAfter(services.store, saves=1)
    with pytest.raises(RuntimeError, match="killed"):
        build_device(
            crashing,
            user=api.user,
            device_id="laptop",
            now=NOW,  # type: ignore[arg-type]
            settings=services.settings,
        )
    assert conn.execute("SELECT count(*) AS n FROM episodes").fetchone()["n"] > 0
    backfill(services.store, now=NOW, settings=services.settings)
    crashed = _numbers(conn)

    # The same day built in one go, in a database of its own.
    with other_db() as (clean, clean_conn):
        load_golden(clean, golden_day)
        backfill(clean.store, now=NOW, settings=clean.settings)
        assert _numbers(clean_conn) == crashed


class ChangeBeforeSave:
    """A store on which `change` commits between the builder's read of a day and its
    save of that day's episodes: a deletion, a re-label or a late record racing a build."""

    def __init__(self, store: Any, change: Any) -> None:
        self._store = store
        self._change = change

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def save_episodes(self, **kwargs: Any) -> Any:
        change, self._change = self._change, None
        if change is not None:
            change()
        return self._store.save_episodes(**kwargs)


@pytest.mark.parametrize("change", ["delete", "relabel", "late"])
def test_a_change_between_a_builds_read_and_its_save_is_not_built_over(
    change: str, services: Services, other_db: Any, golden_day: dict[str, Any], conn: Any
) -> None:
    late = next(r for r in golden_day["records"]["laptop"] if r["client_record_id"] == "g12")

    def apply(api: Any, db: Any, store: Any) -> None:
        g09 = db.execute("SELECT record_id FROM records WHERE client_record_id = 'g09'").fetchone()
        if change == "delete":
            body = {"record_ids": [g09["record_id"]]}
            reply = api.client.request("DELETE", "/api/v1/records", json=body, headers=api.auth)
        elif change == "relabel":  # the label alone: its rebuild is left to the worker
            assert store.relabel(
                user_id=api.user.user_id,
                target_kind="record",
                target_id=g09["record_id"],
                category="entertainment",
                actor="test",
                note="",
            )
            return
        else:
            reply = api.ingest("laptop", [late])
        assert reply.status_code == 200, reply.text

    api = load_golden(services, golden_day, skip={"g12"})
    racing = ChangeBeforeSave(services.store, lambda: apply(api, conn, services.store))
    build_device(racing, user=api.user, device_id="laptop", now=NOW, settings=services.settings)
    assert racing._change is None  # the change landed between a read and a save
    backfill(services.store, now=NOW, settings=services.settings)
    # Nothing stands on a record as it was before the change: every current span holds
    # exactly the live records it was built from.
    assert span_violations(conn) == []
    assert conn.execute("SELECT count(*) AS n FROM build_marks").fetchone()["n"] == 0
    raced = _numbers(conn)

    # The change made before any build, in a database of its own.
    with other_db() as (clean, clean_conn):
        clean_api = load_golden(clean, golden_day, skip={"g12"})
        apply(clean_api, clean_conn, clean.store)
        backfill(clean.store, now=NOW, settings=clean.settings)
        assert _numbers(clean_conn) == raced


def test_a_late_record_rebuilds_its_day(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    api = load_golden(services, golden_day, skip={"g12"})
    backfill(services.store, now=NOW, settings=services.settings)
    assert "g11" in episodes_by_first_record(conn)
    late = next(r for r in golden_day["records"]["laptop"] if r["client_record_id"] == "g12")
    assert api.ingest("laptop", [late]).json()["new"] == 1
    backfill(services.store, now=NOW, settings=services.settings)
    episodes = episodes_by_first_record(conn)
    assert episodes["g11"]["members"] == ["g11", "g12", "g13"]
    assert unbuilt_keys(conn) == []
    assert span_violations(conn) == []


def test_deleting_records_leaves_no_trace_in_any_layer(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    api = load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    assert (
        conn.execute("SELECT count(*) AS n FROM signals WHERE kind = 'forced_rollback'").fetchone()[
            "n"
        ]
        == 2
    )
    g09 = conn.execute("SELECT record_id FROM records WHERE client_record_id = 'g09'").fetchone()

    def everything() -> str:
        tables = [
            r["relname"]
            for r in conn.execute(
                "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                "WHERE n.nspname = 'public' AND c.relkind = 'r' "
                "AND relname NOT LIKE 'procrastinate%'"
            )
        ]
        return " ".join(str(row) for t in tables for row in conn.execute(f'SELECT * FROM "{t}"'))

    assert "reset --hard" in everything()
    reply = api.client.request(
        "DELETE", "/api/v1/records", json={"record_ids": [g09["record_id"]]}, headers=api.auth
    )
    assert reply.json() == {"deleted": 1}
    # At once, before any rebuild: no layer holds the deleted text.
    assert "reset --hard" not in everything() and "HEAD~1" not in everything()
    assert conn.execute(
        "SELECT stale, metrics FROM digests WHERE scope_key = '2003-03-12'"
    ).fetchone() == {"stale": True, "metrics": {}}
    backfill(services.store, now=NOW, settings=services.settings)
    dump = everything()
    assert "reset --hard" not in dump and "HEAD~1" not in dump
    assert conn.execute("SELECT count(*) AS n FROM episodes WHERE stale").fetchone()["n"] == 0
    assert (
        conn.execute("SELECT count(*) AS n FROM signals WHERE kind = 'forced_rollback'").fetchone()[
            "n"
        ]
        == 1
    )
    # The hours are the truth minus the 60 s of the deleted record.
    metrics = conn.execute("SELECT metrics FROM digests WHERE scope_key = '2003-03-12'").fetchone()[
        "metrics"
    ]
    assert (
        metrics["seconds_by_category"]["work"]
        == golden_day["expected_seconds"]["2003-03-12"]["work"] - 60
    )
    assert not conn.execute("SELECT stale FROM digests WHERE scope_key = '2003-03-12'").fetchone()[
        "stale"
    ]


def test_an_open_tail_stays_unassigned_until_time_closes_it(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    # "Now" is 12:03 local on the golden day; the devices sent what had ended by then.
    now = datetime(2003, 3, 12, 4, 3, tzinfo=UTC)
    api = load_golden(services, golden_day, until=now)
    build_device(
        services.store, user=api.user, device_id="laptop", now=now, settings=services.settings
    )
    # A, B, C are closed; D (11:00-12:00) may still grow: only 3 minutes have passed.
    assert sorted(episodes_by_first_record(conn)) == ["g01", "g02", "g08"]
    assert unbuilt_keys(conn) == ["g11", "g12", "g13"]
    later = now + timedelta(minutes=3)
    build_device(
        services.store, user=api.user, device_id="laptop", now=later, settings=services.settings
    )
    assert unbuilt_keys(conn) == []
    assert span_violations(conn) == []
    assert episodes_by_first_record(conn)["g11"]["members"] == ["g11", "g12", "g13"]


def test_day_digest_is_not_final_while_the_day_is_open(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    now = datetime(2003, 3, 12, 12, 0, tzinfo=UTC)  # 20:00 local
    api = load_golden(services, golden_day, until=now)
    for device in ("laptop", "desktop", "phone"):
        build_device(
            services.store, user=api.user, device_id=device, now=now, settings=services.settings
        )
    rollup_day(
        services.store, user=api.user, day=date(2003, 3, 12), now=now, settings=services.settings
    )
    digest = conn.execute("SELECT finalized, computed_through_ts FROM digests").fetchone()
    assert digest["finalized"] is False
    assert digest["computed_through_ts"] <= now
    load_golden(services, golden_day)  # the rest of the day arrives (same user, same token name)
    backfill(services.store, now=now + timedelta(days=2), settings=services.settings)
    assert conn.execute("SELECT finalized FROM digests WHERE scope_key = '2003-03-12'").fetchone()[
        "finalized"
    ]


@pytest.mark.preloaded(SAMPLE_MONTH)
def test_planted_rework_in_the_sample_month_is_detected_and_nothing_else(
    month: tuple[SampleData, UserContext], conn: Any
) -> None:
    data, _ = month
    kind_of = {
        "forced_rollback": ("forced_rollback", None),
        "undo_storm": ("rework", "undo_storm"),
        "error_retry": ("rework", "error_retry"),
    }
    planted = {(p.day, *kind_of[p.kind]) for p in data.rework}
    found = {
        (r["day_local"], r["kind"], r["pattern"])
        for r in conn.execute(
            "SELECT day_local, kind, metrics->>'pattern' AS pattern FROM signals "
            "WHERE kind = 'forced_rollback' OR metrics->>'pattern' IN ('undo_storm', 'error_retry')"
        )
    }
    assert planted and found == planted
    late = {
        r["day_local"]
        for r in conn.execute("SELECT day_local FROM signals WHERE kind = 'late_night'")
    }
    assert set(data.late_nights) <= late
