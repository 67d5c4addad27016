"""A live day's build plans only the months of its window: at months of history, every
statement over `records` that `build_device` and `rollup_day` run is planned with the
other months pruned (EXPLAIN, not run). A bound that comes only from the device's
watermark (a subquery) or from an episode's span prunes nothing when planning, and
each call plans every month of the history: the day's cost then grows with it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import psycopg
import pytest

from app.db.queries import load_queries
from app.pyramid.build import build_device, rollup_day
from app.runtime.services import Services
from tests.helpers import NOW, make_api

LAST_DAY = date(2003, 7, 15)  # mid-month: the day's read window lies in July
# Six months, the last days in July: the watermark (the last episode's end) is in July too.
HISTORY = [date(2003, m, d) for m in range(1, 7) for d in (3, 17)] + [date(2003, 7, 10)]
# A statement reads records itself or through timetrace_spans_v1 (inlined: its plan
# shows the partitions it reads, as a statement over records does).
OVER_RECORDS = re.compile(r"\b(?:FROM|JOIN)\s+(?:records|timetrace_spans_v1)\b", re.IGNORECASE)


def _day(day: date, *, tag: str) -> list[dict[str, Any]]:
    """Two hours of work from 10:00 in Shanghai, a record a minute, in two apps."""
    start = datetime(day.year, day.month, day.day, 2, 0, tzinfo=UTC)
    return [
        {
            "client_record_id": f"{tag}-{i:03d}",
            "ts_start": (start + timedelta(minutes=i)).isoformat(),
            "ts_end": (start + timedelta(minutes=i + 1)).isoformat(),
            "app": "Code" if i < 70 else "Firefox",
            "window_title": "build.py — 时间" if i < 70 else "Docs — 文档",
        }
        for i in range(120)
    ]


def _partitions(plan: Any) -> Iterator[str]:
    if isinstance(plan, dict):
        name = plan.get("Relation Name", "")
        if re.fullmatch(r"records_\d{4}_\d{2}", name):
            yield name
        for value in plan.values():
            yield from _partitions(value)
    elif isinstance(plan, list):
        for item in plan:
            yield from _partitions(item)


def test_a_live_day_plans_only_its_months(
    services: Services, conn: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = make_api(services, devices=("laptop",))
    store, settings = services.store, services.settings
    for day in HISTORY:
        assert api.ingest("laptop", _day(day, tag=day.isoformat())).status_code == 200
    build_device(store, user=api.user, device_id="laptop", now=NOW, settings=settings)
    months = conn.execute(
        "SELECT count(*) AS n FROM pg_inherits WHERE inhparent = 'records'::regclass"
    ).fetchone()["n"]
    assert months == 7
    assert api.ingest("laptop", _day(LAST_DAY, tag="last")).status_code == 200

    seen: list[tuple[str, Any]] = []
    original = psycopg.Cursor.execute

    def spy(self: Any, query: Any, params: Any = None, **kwargs: Any) -> Any:
        seen.append((query, params))
        return original(self, query, params, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", spy)
    built = build_device(store, user=api.user, device_id="laptop", now=NOW, settings=settings)
    rollup_day(store, user=api.user, day=LAST_DAY, now=NOW, settings=settings)
    monkeypatch.undo()
    assert built.episodes > 0 and built.days == {LAST_DAY}

    names = {text: name for name, text in load_queries().items()}
    planned: dict[str, set[str]] = {}
    for query, params in seen:
        text = query if isinstance(query, str) else ""
        if not OVER_RECORDS.search(re.sub(r"--[^\n]*", "", text)):
            continue
        with conn.transaction(force_rollback=True):
            plan = conn.execute(f"EXPLAIN (FORMAT JSON) {text}", params).fetchone()
        planned.setdefault(names.get(text, text[:60]), set()).update(
            _partitions(plan["QUERY PLAN"])
        )
    # The statements that bound records by the watermark, the day or an episode's span.
    assert {
        "days_to_build",
        "days_to_reopen",
        "records_to_segment",
        "read_window_stamp",
        "mark_jumped_days",
        "day_member_facts",
        "day_is_settled",
    } <= set(planned)
    unpruned = {
        name: sorted(parts) for name, parts in planned.items() if parts - {"records_2003_07"}
    }
    assert unpruned == {}
    # The duration rule's function is inlined (a function scan would show no partition),
    # and its window's month is all it reads, also for its last record's successor.
    assert planned["records_to_segment"] == {"records_2003_07"}
    assert planned["device_overlap_seconds"] == {"records_2003_07"}
