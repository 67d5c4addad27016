"""A capture client's batch goes by COPY straight into records only when nothing can be
in its way: a device with no tombstone, nothing stored inside its span, all of it after
the device's watermark. Every other batch takes the staged insert, which skips stored
keys, keeps deleted ones out and marks a late record's day; a batch that meets a key
anyway (it repeats one) falls back to it with nothing half-written."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.db import store_records
from app.pyramid.build import backfill
from app.runtime.services import Services
from tests.helpers import NOW, load_golden, make_api

T0 = datetime(2003, 3, 20, 1, 0, tzinfo=UTC)


def _rec(key: str, start: datetime, length_s: int = 60) -> dict[str, Any]:
    return {
        "client_record_id": key,
        "ts_start": start.isoformat(),
        "ts_end": (start + timedelta(seconds=length_s)).isoformat(),
        "app": "Code.exe",
        "window_title": f"{key}.py — 时间线",
    }


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The ways each batch was written, in order: "copy" (straight into records, a
    None when it met a key and wrote nothing) and "staged"."""
    taken: list[str] = []
    copy, staged = store_records._copy_records, store_records._insert_staged

    def copying(*args: Any) -> int | None:
        new = copy(*args)
        taken.append("copy" if new is not None else "copy met a key")
        return new

    def staging(*args: Any) -> int:
        taken.append("staged")
        return staged(*args)

    monkeypatch.setattr(store_records, "_copy_records", copying)
    monkeypatch.setattr(store_records, "_insert_staged", staging)
    yield taken


def _count(conn: Any) -> int:
    return int(conn.execute("SELECT count(*) AS n FROM records").fetchone()["n"])


def test_a_new_batch_is_copied_and_a_replay_is_staged(
    services: Services, conn: Any, paths: list[str]
) -> None:
    api = make_api(services)
    batch = [_rec(f"k{i}", T0 + timedelta(minutes=i), 90) for i in range(40)]
    first = api.ingest("laptop", batch).json()
    assert (first["new"], first["clipped_s"]) == (40, 39 * 30.0)
    again = api.ingest("laptop", batch).json()
    assert (again["new"], again["duplicate"], again["clipped_s"]) == (0, 40, 39 * 30.0)
    assert paths == ["copy", "staged"] and _count(conn) == 40


def test_a_batch_repeating_a_key_falls_back_with_nothing_half_written(
    services: Services, conn: Any, paths: list[str]
) -> None:
    api = make_api(services)
    batch = [_rec(f"k{i}", T0 + timedelta(minutes=i)) for i in range(10)]
    reply = api.ingest("laptop", [*batch, batch[3]]).json()
    assert (reply["received"], reply["new"], reply["duplicate"]) == (11, 10, 1)
    assert paths == ["copy met a key", "staged"] and _count(conn) == 10


def test_a_device_with_a_tombstone_stages_and_a_deleted_key_stays_deleted(
    services: Services, conn: Any, paths: list[str]
) -> None:
    api = make_api(services)
    batch = [_rec(f"k{i}", T0 + timedelta(minutes=i)) for i in range(5)]
    assert api.ingest("laptop", batch).json()["new"] == 5
    ids = [r["record_id"] for r in conn.execute("SELECT record_id FROM records ORDER BY 1")]
    body = {"record_ids": ids}
    deleted = api.client.request("DELETE", "/api/v1/records", json=body, headers=api.auth)
    assert deleted.json() == {"deleted": 5}
    # Nothing live is left inside the span: only the tombstones keep the keys out.
    reply = api.ingest("laptop", [*batch, _rec("k9", T0 + timedelta(hours=2))]).json()
    assert (reply["new"], reply["duplicate"]) == (1, 5)
    assert paths == ["copy", "staged"]
    live = conn.execute("SELECT client_record_id FROM records WHERE deleted_at IS NULL")
    assert [r["client_record_id"] for r in live] == ["k9"]


def test_after_a_build_the_tail_is_copied_and_a_late_record_staged_marks_its_day(
    services: Services, golden_day: dict[str, Any], conn: Any, paths: list[str]
) -> None:
    api = load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    paths.clear()
    later = datetime(2003, 3, 13, 2, 0, tzinfo=UTC)
    assert api.ingest("laptop", [_rec("tail", later)]).json()["new"] == 1
    assert conn.execute("SELECT count(*) AS n FROM build_marks").fetchone()["n"] == 0
    # Before the golden day's first record, in a gap: nothing stored inside its span,
    # but below the watermark, so late.
    early = datetime(2003, 3, 11, 17, 0, tzinfo=UTC)  # 01:00 on the golden day, Shanghai
    assert api.ingest("laptop", [_rec("early", early)]).json()["new"] == 1
    assert paths == ["copy", "staged"]
    marks = conn.execute("SELECT device_id, first_ts FROM build_marks").fetchall()
    assert marks == [{"device_id": "laptop", "first_ts": early}]
