"""Time in an app is active time: idle/locked records never count in an app, in any
report — on a day with afk periods inside app use, and on the sample month."""

from __future__ import annotations

import re
from datetime import date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app.pyramid.build import backfill
from app.runtime.services import Services
from app.store import UserContext
from app.tools import REGISTRY, dispatch_json
from tests.helpers import NOW, SAMPLE_MONTH, Preloaded, make_api

PSQL_PAGE = Path(__file__).resolve().parents[2] / "docs" / "psql.md"
SHANGHAI = ZoneInfo("Asia/Shanghai")
DAY = date(2003, 3, 12)
YT = "lofi hip hop radio - YouTube — Mozilla Firefox"
CODE_WIN = "main.py - timetrace - Visual Studio Code"


def _at(hhmm: str) -> str:
    hour, minute = (int(p) for p in hhmm.split(":"))
    return datetime(DAY.year, DAY.month, DAY.day, hour, minute, tzinfo=SHANGHAI).isoformat()


def _rec(cid: str, start: str, end: str | None, app: str, title: str, **extra: Any) -> Any:
    out = {"client_record_id": cid, "ts_start": _at(start), "app": app, "window_title": title}
    return out | ({"ts_end": _at(end)} if end else {}) | extra


# A Windows desktop recorded by ActivityWatch: firefox.exe stays focused while the user
# is away (afk records carry the focused app), and a Mac laptop later the same day.
AFK_DAY = {
    "desktop": [
        _rec("d1", "09:00", "09:40", "firefox.exe", YT),
        _rec("d2", "09:40", "10:10", "firefox.exe", YT, is_idle=True),  # 30 min away
        _rec("d3", "10:10", "10:30", "firefox.exe", YT),
        _rec("d4", "10:30", "10:50", "Code.exe", CODE_WIN),
        _rec("d5", "10:50", "10:51", "Code.exe", CODE_WIN, is_idle=True),  # a 1-min blip
        _rec("d6", "10:51", "11:20", "Code.exe", CODE_WIN),
        _rec("d7", "11:20", "11:30", "powershell.exe", "Windows PowerShell"),
    ],
    "laptop": [
        _rec("l1", "14:00", "14:10", "Code", "ingest.py — timetrace"),
        _rec("l2", "14:10", "14:12", "loginwindow", "", is_idle=True),
        _rec("l3", "14:12", "14:30", "Code", "ingest.py — timetrace"),
        # A point event: lasts until the idle gap (300 s), no successor.
        _rec("l4", "14:30", None, "Google Chrome", "ChatGPT", url="https://chatgpt.com/"),
    ],
}
EXPECTED_APPS = {
    "Visual Studio Code": 1200 + 1740 + 600 + 1080,  # Code.exe and Code are one app
    "Firefox": 2400 + 1200,  # not the 30 minutes away
    "PowerShell": 600,
    "Google Chrome": 300,
}
EXPECTED_IDLE = 1800 + 60 + 120


@pytest.fixture
def afk_day(services: Services) -> UserContext:
    api = make_api(services, devices=("desktop", "laptop"))
    for device_id, records in AFK_DAY.items():
        reply = api.ingest(device_id, records)
        assert reply.status_code == 200, reply.text
    return api.user


def _ask(services: Services, user: UserContext, now: datetime, **args: Any) -> Any:
    ctx = services.tool_context(user=user, now=now)
    name = args.pop("tool", "query_stats")
    custom = {"period": "custom", "date_from": DAY.isoformat(), "date_to": DAY.isoformat()}
    # Tools refuse arguments they do not take (get_digest has no period).
    if "period" not in REGISTRY[name].params.model_fields:
        custom = {}
    return dispatch_json(ctx, name, custom | args)


def _non_idle_seconds_by_app(conn: Any, *, first: date, last: date) -> dict[str, int]:
    rows = conn.execute(
        "SELECT app, sum(duration_s) AS s FROM v_record_durations "
        "WHERE NOT is_idle AND day_local BETWEEN %s AND %s GROUP BY app",
        [first, last],
    )
    return {r["app"]: round(r["s"]) for r in rows}


def _apps(result: dict[str, Any]) -> dict[str, int]:
    return {item["app"]: item["seconds"] for item in result["items"]}


def test_seconds_by_app_counts_no_afk_time_before_and_after_the_pyramid_is_built(
    services: Services, afk_day: UserContext, conn: Any
) -> None:
    assert _non_idle_seconds_by_app(conn, first=DAY, last=DAY) == EXPECTED_APPS
    raw = {r["app_raw"] for r in conn.execute("SELECT app_raw FROM records")}
    assert {"Code.exe", "Code", "firefox.exe"} <= raw  # the reported names are kept
    # Nothing built yet: every record is in the open tail.
    tail = _ask(services, afk_day, NOW, metric="seconds_by_app", top_n=10)
    assert (tail["source"], _apps(tail)) == ("live", EXPECTED_APPS)
    backfill(services.store, now=NOW, settings=services.settings)
    built = _ask(services, afk_day, NOW, metric="seconds_by_app", top_n=10)
    assert (built["source"], _apps(built)) == ("digest", EXPECTED_APPS)
    by_category = _ask(services, afk_day, NOW)
    assert by_category["idle_seconds"] == EXPECTED_IDLE
    assert {i["category"]: i["seconds"] for i in by_category["items"]}["system"] == EXPECTED_IDLE
    active = _ask(services, afk_day, NOW, metric="active_seconds")
    assert (active["value"], active["idle_seconds"]) == (sum(EXPECTED_APPS.values()), EXPECTED_IDLE)


def test_episode_minutes_top_titles_and_digest_apps_are_active_time(
    services: Services, afk_day: UserContext
) -> None:
    backfill(services.store, now=NOW, settings=services.settings)
    episodes = _ask(services, afk_day, NOW, tool="get_episodes")["items"]
    lines = {(e["title"], e["minutes"], e.get("idle_minutes", 0)) for e in episodes}
    # 10:30-11:30: Code.exe and PowerShell (both work) around a 1-minute blip away.
    assert ("Visual Studio Code · main.py - timetrace - Visual Studio Code", 59, 1) in lines
    assert ("空闲/锁屏 · idle or locked", 0, 30) in lines
    titles = _ask(services, afk_day, NOW, metric="top_titles")["items"]
    hours = {t["title"]: t["hours"] for t in titles}
    # Both Firefox sittings share a title; the VS Code one is an hour less its blip away.
    assert hours[f"Firefox · {YT}"] == 1.0
    assert hours[f"Visual Studio Code · {CODE_WIN}"] == round(3540 / 3600, 2)
    digest = _ask(services, afk_day, NOW, tool="get_digest", grain="day", date="2003-03-12")
    metrics = digest["metrics"]
    assert metrics["top_apps_hours"]["Firefox"] == 1.0
    assert metrics["idle_hours"] == round(EXPECTED_IDLE / 3600, 2)


def test_the_psql_page_query_for_app_hours_matches_query_stats(
    services: Services, afk_day: UserContext, conn: Any
) -> None:
    text = PSQL_PAGE.read_text(encoding="utf-8")
    block = re.search(r"-- The apps that took most of a day.*?\n(.*?;)", text, re.S)
    assert block is not None
    sql = block.group(1).replace("current_date - 2", f"date '{DAY.isoformat()}'")
    assert DAY.isoformat() in sql
    hours = {r["app"]: float(r["hours"]) for r in conn.execute(sql)}
    assert hours == {app: round(s / 3600, 2) for app, s in EXPECTED_APPS.items()}


@pytest.mark.preloaded(SAMPLE_MONTH)
def test_seconds_by_app_equals_non_idle_record_time_per_app_on_the_sample_month(
    services: Services, preloaded: Preloaded, conn: Any
) -> None:
    first, last = date(2003, 3, 1), date(2003, 3, 31)
    expected = _non_idle_seconds_by_app(conn, first=first, last=last)
    assert {"Visual Studio Code", "Firefox", "Google Chrome", "抖音", "微信"} <= set(expected)
    ctx = services.tool_context(user=preloaded.user, now=NOW)
    month = {"period": "custom", "date_from": first.isoformat(), "date_to": last.isoformat()}
    # The output cap lists the top ten: exactly the ten apps with the most active time.
    top = dict(sorted(expected.items(), key=lambda kv: (-kv[1], kv[0]))[:10])
    got = dispatch_json(ctx, "query_stats", month | {"metric": "seconds_by_app", "top_n": 10})
    assert (got["source"], got["truncated"], _apps(got)) == ("digest", False, top)
    # The same across every layer: digests to the 20th, live episodes, then an open tail.
    conn.execute(
        "DELETE FROM digests WHERE (grain = 'day' AND scope_key >= '2003-03-20') "
        "OR grain = 'month' OR scope_key IN ('2003-W12', '2003-W13')"
    )
    conn.execute("DELETE FROM episodes WHERE day_local = '2003-03-31'")
    got = dispatch_json(ctx, "query_stats", month | {"metric": "seconds_by_app", "top_n": 10})
    assert (got["source"], _apps(got)) == ("mixed", top)
