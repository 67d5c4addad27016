"""`timetrace import activitywatch` counts what the real aw-server counts: a scripted day
of window, afk and web heartbeats goes through the real aw-client into the real
aw-server; its export, and the server itself (`--url`), imported into TimeTrace give
each app the active seconds aw-webui's canonical query gives it there."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
from aw_client import ActivityWatchClient
from click.testing import CliRunner

from app.cli import main
from app.importers.activitywatch import import_activitywatch_file
from app.pyramid.build import backfill
from app.runtime.services import Services
from app.settings import Settings
from app.tools import dispatch_json
from tests.aw_day import scripted_day
from tests.aw_real import AwServer, canonical_app_seconds, export, send
from tests.helpers import NOW

DAY = date(2026, 11, 24)  # the scripted day's logical day in Shanghai


def _active_seconds_by_raw_app(conn: Any) -> dict[str, float]:
    rows = conn.execute(
        "SELECT app_raw, sum(extract(epoch FROM ts_end - ts_start))::float AS s "
        "FROM records WHERE NOT is_idle GROUP BY app_raw"
    ).fetchall()
    return {r["app_raw"]: r["s"] for r in rows}


def _query_stats_by_app(services: Services, user: Any) -> dict[str, int]:
    backfill(services.store, now=NOW, settings=services.settings)
    ctx = services.tool_context(user=user, now=NOW)
    result = dispatch_json(
        ctx,
        "query_stats",
        {"period": "custom", "date_from": str(DAY), "date_to": str(DAY)}
        | {"metric": "seconds_by_app", "top_n": 50},
    )
    return {item["app"]: item["seconds"] for item in result["items"]}


@pytest.mark.slow
def test_imports_of_the_real_servers_export_and_of_the_server_count_its_seconds(
    aw_server: AwServer,
    aw_client: ActivityWatchClient,
    services: Services,
    conn: Any,
    other_db: Any,
    settings: Settings,
    db_url: str,
    tmp_path: Path,
) -> None:
    day = scripted_day()
    send(aw_client, day.buckets, day.beats)
    truth = canonical_app_seconds(
        aw_client,
        window=day.window_bucket,
        afk=day.afk_bucket,
        browsers=day.browser_buckets,
        start=day.start,
        end=day.end,
    )
    assert len(truth) == 7 and sum(truth.values()) > 3 * 3600, truth
    path = tmp_path / "aw-export.json"
    path.write_bytes(export(aw_server))

    # The export file, into a database of its own.
    with other_db() as (fresh, fresh_conn):
        user = fresh.store.ensure_user(name="me", time_zone="Asia/Shanghai", day_cut_hour=4)
        summary = import_activitywatch_file(fresh.store, path=path, user=user, rules=fresh.rules)
        assert summary.new > 0 and summary.devices == ["DESKTOP-7Q2K"]
        # Within 1 s per app is the promise; the sums agree to the millisecond.
        assert _active_seconds_by_raw_app(fresh_conn) == pytest.approx(truth, abs=1e-3)
        # And as the tools answer it: seconds by canonical app, rounded.
        canonical: dict[str, float] = {}
        for app, seconds in truth.items():
            name = fresh.rules.apps.canonical(app)
            canonical[name] = canonical.get(name, 0.0) + seconds
        stats = _query_stats_by_app(fresh, user)
        assert stats.keys() == canonical.keys()
        assert all(abs(stats[app] - canonical[app]) <= 1 for app in canonical), stats

    # The running server itself, read through its REST API by the CLI.
    services.store.ensure_user(name="me", time_zone="Asia/Shanghai", day_cut_hour=4)
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(settings.data_dir)}
    ran = CliRunner().invoke(
        main, ["import", "activitywatch", "--url", aw_server.url, "--user", "me"], env=env
    )
    assert ran.exit_code == 0, ran.output
    assert _active_seconds_by_raw_app(conn) == pytest.approx(truth, abs=1e-3)
    # aw-server 0.12 keeps no categories (no settings endpoint): the import says so.
    assert "keeps no categories" in " ".join(ran.output.split())
