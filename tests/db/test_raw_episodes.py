"""raw_records names each record's episode by one join against the window's episodes;
it must name the one `timetrace_episode_of` (the per-record probe) names, in any window:
one that starts inside an episode, at an episode's first record or between two, with
nothing built yet, with a day marked and its episodes stale, and with an open tail."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from app.pyramid.build import backfill, build_device
from app.runtime.services import Services
from app.store.accounts import UserContext
from tests.helpers import NOW, load_golden

LATER = datetime(2003, 3, 13, 2, 0, tzinfo=UTC)


def _probed(conn: Any, user_id: int) -> dict[int, int | None]:
    rows = conn.execute(
        "SELECT record_id, timetrace_episode_of(user_id, device_id, ts_start, client_record_id)"
        " AS episode_id FROM records WHERE user_id = %s AND deleted_at IS NULL",
        [user_id],
    ).fetchall()
    return {r["record_id"]: r["episode_id"] for r in rows}


def _edges(conn: Any, user_id: int) -> list[datetime]:
    """Every record's start and every episode's first and last start."""
    rows = conn.execute(
        "SELECT ts_start AS t FROM records WHERE user_id = %(u)s"
        " UNION SELECT ts_start FROM episodes WHERE user_id = %(u)s"
        " UNION SELECT last_start FROM episodes WHERE user_id = %(u)s ORDER BY 1",
        {"u": user_id},
    ).fetchall()
    return [r["t"] for r in rows]


def _agree(services: Services, conn: Any, user: UserContext) -> tuple[int, int]:
    """Checks every window from each edge (at it, and a microsecond either side); returns
    how many records had an episode and how many had none, over all windows."""
    probed = _probed(conn, user.user_id)
    built = unbuilt = 0
    tick = timedelta(microseconds=1)
    for edge in _edges(conn, user.user_id):
        for start, length, device, limit in [
            (edge, timedelta(hours=2), None, 2_000),
            (edge - tick, timedelta(minutes=20), "laptop", 2_000),
            (edge + tick, timedelta(hours=1), None, 3),
        ]:
            rows = services.store.raw_records(
                user_id=user.user_id,
                ts_from=start,
                ts_to=start + length,
                device_id=device,
                limit=limit,
            )
            got = {r.record_id: r.episode_id for r in rows}
            assert got == {record_id: probed[record_id] for record_id in got}, (start, device)
            built += sum(1 for e in got.values() if e is not None)
            unbuilt += sum(1 for e in got.values() if e is None)
    return built, unbuilt


def _record(key: str, start: datetime) -> dict[str, Any]:
    return {
        "client_record_id": key,
        "ts_start": start.isoformat(),
        "ts_end": (start + timedelta(minutes=5)).isoformat(),
        "app": "Code",
        "window_title": "tail",
    }


def test_raw_records_name_the_episode_the_probe_names(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    api = load_golden(services, golden_day, skip={"g12"})
    assert _agree(services, conn, api.user)[0] == 0  # nothing built: every episode is NULL
    backfill(services.store, now=NOW, settings=services.settings)
    built, _ = _agree(services, conn, api.user)
    assert built > 0
    # A late record marks its day: that day's episodes are stale, its records unbuilt.
    late = next(r for r in golden_day["records"]["laptop"] if r["client_record_id"] == "g12")
    assert api.ingest("laptop", [late, _record("n1", LATER)]).json()["new"] == 2
    assert conn.execute("SELECT count(*) AS n FROM episodes WHERE stale").fetchone()["n"] > 0
    built, unbuilt = _agree(services, conn, api.user)
    assert built > 0 and unbuilt > 0
    build_device(
        services.store, user=api.user, device_id="laptop", now=NOW, settings=services.settings
    )
    assert _agree(services, conn, api.user)[0] > built  # the marked day is built again
