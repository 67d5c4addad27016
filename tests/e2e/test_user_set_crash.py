"""`timetrace user set --time-zone` killed with SIGKILL while it rebuilds: the new clock
and the moved days are committed before the rebuild starts, so `timetrace backfill`
finishes the work and the pyramid is exactly that of an uninterrupted change."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.runtime.services import Services
from tests.e2e.test_crash import TWO_MONTHS
from tests.faults import kill9, pyramid_snapshot, reaped, spawn, timetrace_env, wait_for
from tests.helpers import Preloaded

NEW_CLOCK = ["--time-zone", "America/New_York", "--day-cut", "6"]


def _digests(conn: Any, grain: str) -> int:
    row = conn.execute("SELECT count(*) AS n FROM digests WHERE grain = %s", [grain]).fetchone()
    return int(row["n"])


def _zone(conn: Any, user_id: int) -> str:
    row = conn.execute("SELECT time_zone FROM users WHERE user_id = %s", [user_id]).fetchone()
    return str(row["time_zone"])


@pytest.mark.slow
@pytest.mark.preloaded(TWO_MONTHS)
def test_a_user_set_killed_while_rebuilding_is_finished_by_backfill(
    preloaded: Preloaded,
    services: Services,
    db_url: str,
    conn: Any,
    tmp_path: Path,
    other_db: Any,
) -> None:
    user = preloaded.user
    args = ["user", "set", "--user", user.name, *NEW_CLOCK]
    before = _digests(conn, "day")
    assert before >= 61 and _zone(conn, user.user_id) == "Asia/Shanghai"
    log = tmp_path / "user-set.log"
    changing = spawn(args, timetrace_env(db_url, tmp_path), log)
    with reaped([changing]):
        # The clock is saved and the old digests dropped in one transaction; the rebuild
        # then writes day digests one by one, and the weeks and months at the end.
        assert wait_for(
            lambda: _zone(conn, user.user_id) == "America/New_York" and _digests(conn, "day") >= 20,
            timeout=120,
            interval=0.005,
        ), log.read_text()[-3000:]
        kill9(changing)
    # It died while rebuilding: some days rebuilt, no week or month yet.
    assert 20 <= _digests(conn, "day") < before
    assert _digests(conn, "week") == 0 and _digests(conn, "month") == 0
    finish = spawn(["backfill"], timetrace_env(db_url, tmp_path), log)
    with reaped([finish]):
        assert finish.wait(180) == 0, log.read_text()[-3000:]
    got = pyramid_snapshot(conn)

    with other_db(TWO_MONTHS) as (other, other_conn):
        whole = spawn(args, timetrace_env(other.url, tmp_path / "other"), log)
        with reaped([whole]):
            assert whole.wait(180) == 0, log.read_text()[-3000:]
        want = pyramid_snapshot(other_conn)
    assert "day:2003-02-28" in want["digests"]  # the days did move
    for layer in want:
        assert got[layer] == want[layer], layer
