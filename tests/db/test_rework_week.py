"""Rework means undoing work: over a week of ordinary coding (the same files revisited
across sittings, docs, chat and a locked screen between) the pyramid reports no rework,
and over the same week with undoing planted on two days it reports rework on exactly
those days, each with the cue that made it (tests/rework_week.py builds both weeks)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from app.ingest.records import RecordBatch, ingest_batch
from app.pyramid.build import backfill
from app.runtime.services import Services
from tests.rework_week import MONDAY, ZONE, Week

PLANTED = {1, 3}


def _load(services: Services, name: str, records: list[dict[str, Any]]) -> int:
    store = services.store
    user = store.ensure_user(name=name, time_zone=ZONE.key, day_cut_hour=4)
    store.add_device(user_id=user.user_id, device_id="laptop", name="laptop", kind="desktop")
    body = {"device_id": "laptop", "records": records}
    ingest_batch(store, user=user, batch=RecordBatch.model_validate(body), rules=services.rules)
    return user.user_id


def _rework(services: Services, user_id: int) -> dict[date, list[dict[str, Any]]]:
    with services.store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT day_local, metrics, evidence FROM signals "
            "WHERE user_id = %s AND kind = 'rework' AND NOT stale ORDER BY day_local, signal_key",
            [user_id],
        ).fetchall()
    out: dict[date, list[dict[str, Any]]] = {}
    for row in rows:
        out.setdefault(row["day_local"], []).append({**row["metrics"], **row["evidence"]})
    return out


def test_an_ordinary_week_has_no_rework_and_planted_undoing_is_found_on_its_days(
    services: Services,
) -> None:
    planted = _load(services, "planted", Week(planted=PLANTED).build())
    ordinary = _load(services, "ordinary", Week(planted=set()).build())
    backfill(services.store, now=datetime(2003, 6, 10, tzinfo=UTC), settings=services.settings)
    with services.store.pool.connection() as conn:
        built = conn.execute(
            "SELECT count(*) AS n FROM digests WHERE user_id = %s AND grain = 'day'",
            [ordinary],
        ).fetchone()
    assert built is not None and built["n"] == 7  # the whole ordinary week was built
    assert _rework(services, ordinary) == {}
    found = _rework(services, planted)
    assert set(found) == {MONDAY + timedelta(days=d) for d in PLANTED}
    for signals in found.values():
        assert len(signals) == 1, signals
        (signal,) = signals
        assert (signal["pattern"], signal["file"]) == ("repeated_edit", "api.py")
        assert signal["visits"] >= 3 and signal["cues"][0] == "api.py"
        assert signal["cues"][1] in {"git checkout", "git revert", "git reset", "3 failed", "撤销"}
