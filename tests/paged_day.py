"""A day whose answers are too large for one page: for the cursor tests (over dispatch,
HTTP and MCP).

On 2003-03-12 in Shanghai the user `pager` has two dense hours (09:00-11:00, a record
every 5 seconds: far more than get_raw's cap) and, from 13:00, forty short sittings
about a ledger, each its own episode (an idle gap between them): more hits than
search_episodes' cap holds with their neighbours.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from app.ingest.records import RecordBatch, ingest_batch
from app.pyramid.build import rebuild_days
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.timeutil import logical_day, zone
from app.tools import REGISTRY
from app.tools.registry import ToolContext, dump, read_arguments

DAY = date(2003, 3, 12)
DENSE_FROM = datetime(2003, 3, 12, 1, 0, tzinfo=UTC)  # 09:00 in Shanghai
DENSE_RECORDS = 1_440
SITTINGS_FROM = datetime(2003, 3, 12, 5, 0, tzinfo=UTC)  # 13:00 in Shanghai
SITTINGS = 40
NOW = datetime(2003, 3, 12, 15, 0, tzinfo=UTC)  # 23:00 in Shanghai: after all of it
RAW = {"ts_from": "2003-03-12T09:00:00+08:00", "ts_to": "2003-03-12T11:00:00+08:00"}
SEARCH = {"query": "ledger", "k": 30, "include_neighbors": True}


def _record(key: str, start: datetime, seconds: int, app: str, title: str) -> dict[str, Any]:
    return {
        "client_record_id": key,
        "ts_start": start.isoformat(),
        "ts_end": (start + timedelta(seconds=seconds)).isoformat(),
        "app": app,
        "window_title": title,
    }


def dense_records() -> list[dict[str, Any]]:
    return [
        _record(
            f"dense-{i}",
            DENSE_FROM + timedelta(seconds=5 * i),
            5,
            "Numbers",
            f"quarterly report draft {i} with notes",
        )
        for i in range(DENSE_RECORDS)
    ]


def sittings(start: datetime, count: int, *, prefix: str = "sit") -> list[dict[str, Any]]:
    """`count` sittings of four minutes over a ledger, ten minutes apart."""
    out = []
    for n in range(count):
        begin = start + timedelta(minutes=10 * n)
        out += [
            _record(f"{prefix}-{n}-{i}", begin + timedelta(minutes=i), 60, "Excel", f"ledger {n}")
            for i in range(4)
        ]
    return out


def add_records(
    services: Services, user: UserContext, records: list[dict[str, Any]], *, now: datetime = NOW
) -> None:
    """Ingest the records on device `pc` and build their days at `now`."""
    batch = RecordBatch.model_validate({"device_id": "pc", "records": records})
    ingest_batch(services.store, user=user, batch=batch, rules=services.rules)
    tz = zone(user.time_zone)
    days = sorted(
        {logical_day(datetime.fromisoformat(r["ts_start"]), tz=tz, cut_hour=4) for r in records}
    )
    rebuild_days(
        services.store,
        user=user,
        device_days=[("pc", d) for d in days],
        now=now,
        settings=services.settings,
    )


def paged_user(services: Services, *, name: str = "pager") -> UserContext:
    user = services.store.ensure_user(name=name, time_zone="Asia/Shanghai", day_cut_hour=4)
    services.store.add_device(user_id=user.user_id, device_id="pc", name="", kind="desktop")
    add_records(services, user, dense_records() + sittings(SITTINGS_FROM, SITTINGS))
    return user


def uncapped(ctx: ToolContext, name: str, arguments: dict[str, Any]) -> list[Any]:
    """The items of one call with no output cap."""
    spec = REGISTRY[name]
    params, ctx = read_arguments(spec=spec, ctx=ctx, arguments=arguments)
    items: list[Any] = dump(spec.run(ctx, params))["items"]
    return items
