"""`timetrace user set --time-zone Z --day-cut H`: the user's day boundaries move, and
the pyramid rebuilt by the command then equals the live SQL over the records in the
new zone (on the sample month, built in Asia/Shanghai with days starting at 4:00)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from app.cli import main
from app.runtime.services import Services
from app.timeutil import logical_day, period_days, zone
from tests.helpers import SAMPLE_MONTH, Preloaded, make_api, span_violations, unbuilt_keys

NEW_ZONE, NEW_CUT = "America/New_York", 6

# The live answer, from the records alone: each one's day computed here from its start in
# the new zone (not the day_local the command wrote), its seconds by the duration rule.
LIVE_DAYS = """
SELECT ((ts_start AT TIME ZONE %(zone)s) - make_interval(hours => %(cut)s))::date AS day,
       category, sum(duration_s) AS seconds
FROM v_record_durations WHERE user_id = %(user_id)s GROUP BY 1, 2
"""
CHECKED = ("seconds_by_category", "active_seconds", "idle_seconds", "switch_count")


def _cli(db_url: str, data_dir: Path, *args: str) -> Result:
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(data_dir)}
    return CliRunner().invoke(main, list(args), env=env)


def _day_digests(conn: Any) -> dict[str, dict[str, Any]]:
    rows = conn.execute("SELECT scope_key, metrics FROM digests WHERE grain = 'day'")
    return {r["scope_key"]: r["metrics"] for r in rows}


def _live(conn: Any, user_id: int) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = defaultdict(dict)
    params = {"zone": NEW_ZONE, "cut": NEW_CUT, "user_id": user_id}
    for r in conn.execute(LIVE_DAYS, params):
        out[r["day"].isoformat()][r["category"]] = float(r["seconds"])
    return dict(out)


@pytest.mark.preloaded(SAMPLE_MONTH)
def test_a_new_time_zone_moves_the_days_and_the_digests_equal_the_live_sql(
    preloaded: Preloaded, services: Services, conn: Any, db_url: str, tmp_path: Path
) -> None:
    user = preloaded.user
    assert (user.time_zone, user.day_cut_hour) == ("Asia/Shanghai", 4)
    before = _day_digests(conn)
    total_before = sum(sum(m["seconds_by_category"].values()) for m in before.values())

    result = _cli(
        db_url,
        tmp_path,
        "user",
        "set",
        "--user",
        user.name,
        "--time-zone",
        NEW_ZONE,
        "--day-cut",
        str(NEW_CUT),
    )
    assert result.exit_code == 0, result.output
    assert f"time zone Asia/Shanghai → {NEW_ZONE}, day cut 4 → {NEW_CUT}" in result.output
    assert "rebuilt: " in result.output

    changed = services.store.get_user(name=user.name)
    assert changed is not None and (changed.time_zone, changed.day_cut_hour) == (NEW_ZONE, NEW_CUT)
    # Every record sits on its logical day in the new zone; the boundaries moved by 13
    # hours less 2, so the month now starts on the last day of February.
    tz = zone(NEW_ZONE)
    for r in conn.execute("SELECT ts_start, day_local FROM records"):
        assert r["day_local"] == logical_day(r["ts_start"], tz=tz, cut_hour=NEW_CUT)
    after = _day_digests(conn)
    assert "2003-02-28" in after and "2003-02-28" not in before
    assert after.keys() != before.keys()

    # The day digests are the live SQL in the new zone, category by category.
    live = _live(conn, user.user_id)
    assert set(after) == set(live)
    for day, metrics in after.items():
        stored = metrics["seconds_by_category"]
        assert stored.keys() == live[day].keys(), day
        for category, seconds in live[day].items():
            assert stored[category] == pytest.approx(seconds, abs=1e-6), (day, category)
    # Nothing was lost or counted twice.
    total_after = sum(sum(m["seconds_by_category"].values()) for m in after.values())
    assert total_after == pytest.approx(total_before, abs=1e-6)

    # The pyramid's own invariants hold on the new days.
    assert span_violations(conn) == []
    assert unbuilt_keys(conn) == []
    for grain, key in [("day", day) for day in sorted(after)] + [("month", "2003-03")]:
        first, last = period_days(grain, key)
        metrics = services.store.period_metrics(user_id=user.user_id, day_from=first, day_to=last)
        stored_row = conn.execute(
            "SELECT metrics FROM digests WHERE grain = %s AND scope_key = %s", [grain, key]
        ).fetchone()
        assert stored_row is not None, key
        assert {k: stored_row["metrics"][k] for k in CHECKED} == {
            k: metrics.metrics.get(k) for k in CHECKED
        }, key


def test_user_set_refuses_a_bad_zone_and_an_unknown_user_in_one_line(
    services: Services, db_url: str, tmp_path: Path
) -> None:
    services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)
    bad = _cli(db_url, tmp_path, "user", "set", "--time-zone", "Mars/Olympus")
    assert bad.exit_code == 2 and "unknown IANA time zone 'Mars/Olympus'" in bad.output
    nobody = _cli(db_url, tmp_path, "user", "set", "--user", "nobody", "--time-zone", "UTC")
    assert nobody.exit_code == 1
    assert (
        "Error: no user 'nobody': create one with `timetrace token create --user nobody`"
        in nobody.output
    )
    same = _cli(db_url, tmp_path, "user", "set", "--time-zone", "UTC")
    assert same.exit_code == 0 and "unchanged" in same.output
    assert "Traceback" not in bad.output + nobody.output + same.output


def test_after_raw_records_expired_the_zone_stays_and_nothing_is_dropped(
    services: Services, conn: Any, db_url: str, tmp_path: Path
) -> None:
    api = make_api(services, user_name="me", time_zone="Asia/Shanghai", devices=("laptop",))
    records = [
        {
            "client_record_id": f"r{i}",
            "ts_start": f"2003-03-12T0{i}:00:00+00:00",
            "ts_end": f"2003-03-12T0{i}:30:00+00:00",
            "app": "Code",
            "window_title": "main.py",
        }
        for i in range(3)
    ]
    assert api.ingest("laptop", records).status_code == 200
    assert _cli(db_url, tmp_path, "backfill").exit_code == 0
    assert _cli(db_url, tmp_path, "retention", "set", "--raw-days", "30").exit_code == 0
    assert _cli(db_url, tmp_path, "retention", "apply").exit_code == 0
    kept = conn.execute("SELECT count(*) AS n FROM digests").fetchone()["n"]
    assert kept > 0  # the digests are all that is left of 2003

    refused = _cli(db_url, tmp_path, "user", "set", "--time-zone", "UTC")
    assert refused.exit_code == 1
    assert "have expired (retention)" in refused.output and "the clock stays" in refused.output
    me = services.store.get_user(name="me")
    assert me is not None and me.time_zone == "Asia/Shanghai"
    assert conn.execute("SELECT count(*) AS n FROM digests").fetchone()["n"] == kept
