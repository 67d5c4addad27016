"""`timetrace export --format activitywatch`: the file loads into the real aw-server
(`POST /api/0/import`), and aw-webui's canonical query, run there per device, gives each
app the active seconds TimeTrace's query_stats gives it for the same days."""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any

import httpx
import pytest
from aw_client import ActivityWatchClient

from app.db.export import ExportRequest, export_chunks
from app.runtime.services import Services
from app.tools import dispatch_json
from tests.aw_real import AwServer, canonical_app_seconds
from tests.helpers import NOW, SAMPLE_MONTH, Preloaded

DAY_FROM, DAY_TO = date(2003, 3, 10), date(2003, 3, 12)


def _query_stats(services: Services, preloaded: Preloaded, metric: str) -> dict[str, Any]:
    ctx = services.tool_context(user=preloaded.user, now=NOW)
    return dispatch_json(
        ctx,
        "query_stats",
        {"period": "custom", "date_from": str(DAY_FROM), "date_to": str(DAY_TO)}
        | {"metric": metric, "top_n": 50},
    )


def _digests_by_app(conn: Any, user_id: int) -> dict[str, float]:
    """Every app's seconds in the days' digests: what query_stats sums (it lists only as
    many apps as its output cap holds)."""
    rows = conn.execute(
        "SELECT k AS app, sum(v::float) AS s FROM digests,"
        " jsonb_each_text(metrics -> 'seconds_by_app') AS x(k, v)"
        " WHERE user_id = %s AND grain = 'day' AND scope_key BETWEEN %s AND %s GROUP BY k",
        [user_id, str(DAY_FROM), str(DAY_TO)],
    ).fetchall()
    return {r["app"]: r["s"] for r in rows if r["s"]}


@pytest.mark.slow
@pytest.mark.preloaded(SAMPLE_MONTH)
def test_the_activitywatch_export_loads_into_aw_server_and_counts_as_timetrace(
    services: Services,
    conn: Any,
    preloaded: Preloaded,
    aw_server: AwServer,
    aw_client: ActivityWatchClient,
) -> None:
    request = ExportRequest(
        user=preloaded.user, fmt="activitywatch", day_from=DAY_FROM, day_to=DAY_TO
    )
    body = b"".join(export_chunks(conn, request=request))
    buckets = json.loads(body)["buckets"]
    devices = sorted({b["hostname"] for b in buckets.values()})
    assert devices == sorted(d for d, _, _ in preloaded.data.devices)
    assert {b["type"] for b in buckets.values()} == {
        "currentwindow",
        "afkstatus",
        "web.tab.current",
    }

    loaded = httpx.post(
        f"{aw_server.url}/api/0/import",
        content=body,
        headers={"Content-Type": "application/json"},
        timeout=120,
    )
    assert loaded.status_code == 200, loaded.text
    served = httpx.get(f"{aw_server.url}/api/0/buckets/", timeout=30).json()
    assert set(served) == set(buckets)
    some = next(b for b in buckets if b.startswith("aw-watcher-window_"))
    events = httpx.get(f"{aw_server.url}/api/0/buckets/{some}/events?limit=-1", timeout=60)
    assert len(events.json()) == len(buckets[some]["events"])

    lo, hi = request.instants()
    seconds: dict[str, float] = {}
    for device in devices:
        per_device = canonical_app_seconds(
            aw_client,
            window=f"aw-watcher-window_{device}",
            afk=f"aw-watcher-afk_{device}",
            browsers=[b for b in buckets if b.startswith("aw-watcher-web-") and device in b],
            start=lo - timedelta(days=1),
            end=hi + timedelta(days=1),
        )
        for app, s in per_device.items():
            seconds[app] = seconds.get(app, 0.0) + s
    by_app = _query_stats(services, preloaded, "seconds_by_app")
    listed = {item["app"]: item["seconds"] for item in by_app["items"]}
    assert len(listed) >= 5, by_app
    # Within 1 s per app (query_stats rounds to whole seconds).
    off = {
        app: (seconds.get(app), s) for app, s in listed.items() if abs(seconds.get(app, 0) - s) > 1
    }
    assert off == {}, off
    # The apps past query_stats' output cap, from the digests it reads.
    every = _digests_by_app(conn, preloaded.user.user_id)
    assert set(every) == set(seconds)
    off = {app: (seconds[app], s) for app, s in every.items() if abs(seconds[app] - s) > 1}
    assert off == {}, off
    active = _query_stats(services, preloaded, "active_seconds")["value"]
    assert abs(sum(seconds.values()) - active) <= 1
