"""The tools on things, on a real database: every number equals the same SQL computed
live over the records by the duration rule (`v_record_durations`), before the pyramid
is built (the open tail) and after it, across idle time, an overlap on one device and
two devices active at once."""

from __future__ import annotations

import dataclasses
import json
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner

from app.cli import main
from app.ingest.records import RecordBatch, ingest_batch
from app.pyramid.build import backfill
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.tools import ToolContext, dispatch_json
from app.tools.things import resolve_thing
from tests.helpers import NOW, SAMPLE_MONTH, Preloaded, make_api, unbuilt_keys

D1, D2 = date(2004, 5, 10), date(2004, 5, 11)
SHANGHAI = ZoneInfo("Asia/Shanghai")
PERIOD = {"period": "custom", "date_from": "2004-05-10", "date_to": "2004-05-11"}


def r(
    key: str, start: str, end: str | None, app: str, title: str = "", **more: Any
) -> dict[str, Any]:
    day = "2004-05-10" if key.startswith("a") else "2004-05-11"
    return {
        "client_record_id": key,
        "ts_start": f"{day}T{start}:00+08:00",
        **({"ts_end": f"{day}T{end}:00+08:00"} if end else {}),
        "app": app,
        "window_title": title,
        **more,
    }


# A Windows PC that reports executables and no URLs (the site is only in the title), and
# a Mac with URLs. Keys starting with "a" are on 2004-05-10, with "b" on 2004-05-11.
PC = [
    r("a1", "09:00", "09:30", "pycharm64.exe", "main.py - proj"),
    r("a2", "09:30", "09:40", "chrome.exe", "如何评价 PostgreSQL 18？ - 知乎 - Google Chrome"),
    r("a3", "09:40", "09:50", "powershell.exe", "pytest"),
    r("a4", "09:50", "10:00", "chrome.exe", "Pull requests · GitHub - Google Chrome"),
    r("a5", "10:00", "10:20", "LockApp.exe", "Windows 默认锁屏界面", is_idle=True),
    r("a6", "10:20", "10:45", "steam.exe", "Hades II"),  # runs past the next start: clipped
    r("a7", "10:40", "10:50", "chrome.exe", "知乎 - 有问题，就会有答案 - Google Chrome"),
    r("b1", "14:00", "14:30", "pycharm64.exe", "main.py - proj"),
    # Names 知乎 in its title but is a search page, not the site.
    r("b2", "14:30", "14:35", "chrome.exe", "我在知乎上看到的 - 百度搜索 - Google Chrome"),
    # Sites whose rules are title patterns, not names.
    r(
        "b3",
        "14:35",
        "14:40",
        "chrome.exe",
        "3. Tutorial — Python 3.13.1 documentation - Google Chrome",
    ),
    r("b4", "14:40", "14:45", "chrome.exe", "TIL about tea : r/todayilearned - Google Chrome"),
]
MAC = [
    # Zhihu on the Mac while the PC shows it too: two devices, each counts its own time.
    r("a1m", "09:35", "09:55", "Google Chrome", "问题 - 知乎", url="https://www.zhihu.com/q/1"),
    r("a2m", "10:00", "10:10", "iTerm2", "zsh"),
    r("a3m", "10:10", "10:30", "loginwindow", "", is_idle=True),
    r("b1m", "15:00", "15:20", "Code", "x.py — proj"),
    r("b2m", "15:20", "15:30", "Google Chrome", "回答 - 知乎", url="https://m.zhihu.com/a/2"),
    r("b3m", "15:30", None, "Slack", "#general"),  # a point event: the duration rule caps it
]
ZHIHU = ["a2", "a7", "a1m", "b2m"]


@pytest.fixture
def user(services: Services) -> UserContext:
    store = services.store
    user = store.ensure_user(name="things", time_zone="Asia/Shanghai", day_cut_hour=4)
    for device_id, records in (("pc", PC), ("mac", MAC)):
        store.add_device(user_id=user.user_id, device_id=device_id, name="", kind="other")
        batch = RecordBatch.model_validate({"device_id": device_id, "records": records})
        ingest_batch(store, user=user, batch=batch, rules=services.rules)
    return user


def ctx_for(services: Services, user: UserContext, now: datetime = NOW) -> ToolContext:
    return dataclasses.replace(services.tool_context(user=user, now=now), models=None)


def sql_by_day(conn: Any, user: UserContext, where: str, **params: Any) -> dict[date, float]:
    """The truth: seconds by logical day by the duration rule, computed live over records."""
    rows = conn.execute(
        "SELECT d.day_local, sum(d.duration_s) AS s FROM v_record_durations d "
        f"JOIN records r USING (user_id, record_id) WHERE d.user_id = %(u)s AND ({where}) "
        "GROUP BY 1 ORDER BY 1",
        {"u": user.user_id, **params},
    ).fetchall()
    return {row["day_local"]: float(row["s"]) for row in rows if row["s"]}


TRUTHS: dict[str, tuple[str, dict[str, Any]]] = {
    "知乎": ("r.client_record_id = ANY(%(keys)s)", {"keys": ZHIHU}),
    "Zhihu": ("r.client_record_id = ANY(%(keys)s)", {"keys": ZHIHU}),
    "PyCharm": ("NOT r.is_idle AND r.app = 'PyCharm'", {}),
    "命令行": ("NOT r.is_idle AND r.app IN ('PowerShell', 'iTerm2')", {}),
    "VS Code": ("NOT r.is_idle AND r.app = 'Visual Studio Code'", {}),
    "离开电脑": ("r.is_idle OR r.app = 'Lock screen'", {}),
    "娱乐": ("r.category = 'entertainment'", {}),
    "GitHub": ("r.client_record_id = 'a4'", {}),
    "Steam": ("NOT r.is_idle AND r.app = 'Steam'", {}),
}


def check_days_with(ctx: ToolContext, conn: Any, user: UserContext) -> None:
    for mention, (where, params) in TRUTHS.items():
        truth = sql_by_day(conn, user, where, **params)
        got = dispatch_json(ctx, "days_with", {**PERIOD, "thing": mention, "min_minutes": 0})
        assert "error" not in got, got
        assert got["count"] == len(truth), mention
        assert [(i["day"], i["minutes"]) for i in got["items"]] == [
            (d.isoformat(), round(s / 60, 1)) for d, s in truth.items()
        ], mention
        assert got["total_seconds"] == round(sum(truth.values())), mention


def test_days_with_equals_sql_before_and_after_the_pyramid_is_built(
    services: Services, user: UserContext, conn: Any
) -> None:
    ctx = ctx_for(services, user)
    check_days_with(ctx, conn, user)  # every record in the open tail
    backfill(services.store, now=NOW, settings=services.settings)
    assert unbuilt_keys(conn) == []
    check_days_with(ctx, conn, user)  # from episodes


def test_days_with_keeps_the_days_with_enough_minutes(
    services: Services, user: UserContext, conn: Any
) -> None:
    ctx = ctx_for(services, user)
    truth = sql_by_day(conn, user, "NOT r.is_idle AND r.app = 'PyCharm'")
    assert truth == {D1: 1800.0, D2: 1800.0}
    got = dispatch_json(ctx, "days_with", {**PERIOD, "thing": "PyCharm", "min_minutes": 31})
    assert (got["count"], got["items"], got["days_in_period"]) == (0, [], 2)
    zhihu = sql_by_day(conn, user, "r.client_record_id = ANY(%(keys)s)", keys=ZHIHU)
    got = dispatch_json(ctx, "days_with", {**PERIOD, "thing": "知乎", "min_minutes": 25})
    assert [i["day"] for i in got["items"]] == [
        d.isoformat() for d, s in zhihu.items() if s >= 1500
    ]


def test_a_site_in_a_title_without_url_counts_and_a_mere_mention_does_not(
    services: Services, user: UserContext, conn: Any
) -> None:
    ctx = ctx_for(services, user)
    got = dispatch_json(ctx, "query_stats", {**PERIOD, "thing": "Zhihu"})
    truth = sql_by_day(conn, user, "r.client_record_id = ANY(%(keys)s)", keys=ZHIHU)
    # a2 (10 min) + a7 (10 min) on the PC from titles, a1m (20) + b2m (10) on the Mac.
    assert got["seconds"] == round(sum(truth.values())) == 50 * 60
    assert got["thing"]["kind"] == "site" and got["thing"]["name"] == "zhihu.com"
    searched = sql_by_day(conn, user, "r.client_record_id = 'b2'")
    assert searched == {D2: 300.0}  # the search page naming 知乎 is not counted


def test_compare_equals_sql_side_by_side(services: Services, user: UserContext, conn: Any) -> None:
    backfill(services.store, now=NOW, settings=services.settings)
    ctx = ctx_for(services, user)
    names = ["知乎", "PyCharm", "娱乐", "离开电脑", "命令行"]
    got = dispatch_json(ctx, "compare", {**PERIOD, "things": names})
    truth = {
        n: round(sum(sql_by_day(conn, user, TRUTHS[n][0], **TRUTHS[n][1]).values())) for n in names
    }
    assert {i["mention"]: i["seconds"] for i in got["items"]} == truth
    assert [i["mention"] for i in got["items"]] == names
    most = max(truth, key=lambda n: truth[n])
    assert got["max_minus_min_s"] == truth[most] - min(truth.values())
    pair = dispatch_json(ctx, "compare", {**PERIOD, "things": ["Steam", "VS Code"]})
    assert pair["first_minus_second_s"] == truth_of(conn, user, "Steam") - truth_of(
        conn, user, "VS Code"
    )


def truth_of(conn: Any, user: UserContext, mention: str) -> int:
    where, params = TRUTHS[mention]
    return round(sum(sql_by_day(conn, user, where, **params).values()))


def test_last_seen_equals_the_newest_matching_record(
    services: Services, user: UserContext, conn: Any
) -> None:
    ctx = ctx_for(services, user)
    for mention, (where, params) in TRUTHS.items():
        newest = conn.execute(
            "SELECT max(ts_start) AS ts FROM records r WHERE r.user_id = %(u)s AND " + f"({where})",
            {"u": user.user_id, **params},
        ).fetchone()["ts"]
        got = dispatch_json(ctx, "last_seen", {"thing": mention})
        assert got["found"] is True, mention
        assert got["at"] == newest.astimezone(SHANGHAI).strftime("%Y-%m-%d %H:%M"), mention
    before = dispatch_json(ctx, "last_seen", {"thing": "知乎", "before": "2004-05-11T00:00"})
    assert (before["at"], before["device"], before["site"]) == (
        "2004-05-10 10:40",
        "pc",
        "zhihu.com",
    )
    hades = dispatch_json(ctx, "last_seen", {"title": "hades"})
    assert (hades["at"], hades["app"]) == ("2004-05-10 10:20", "Steam")
    both = dispatch_json(ctx, "last_seen", {"thing": "Chrome", "title": "知乎"})
    assert (both["at"], both["device"]) == ("2004-05-11 15:20", "mac")
    never = dispatch_json(ctx, "last_seen", {"thing": "Zoom"})
    assert never["found"] is False and "note" in never


def test_the_moment_shows_the_covering_record_first(services: Services, user: UserContext) -> None:
    ctx = ctx_for(services, user)
    # At 10:42 Steam (10:20-10:45) was already cut off by Zhihu starting at 10:40.
    got = dispatch_json(ctx, "get_moment", {"at": "2004-05-10T10:42"})
    pc = next(d for d in got["items"] if d["device"] == "pc")
    assert (
        pc["covering"]["title"].startswith("知乎 - 有问题")
        and pc["covering"]["site"] == "zhihu.com"
    )
    assert [b["app"] for b in pc["before"]] == ["Lock screen", "Steam"]
    mac = next(d for d in got["items"] if d["device"] == "mac")
    assert mac["covering"] is None
    assert got["items"][0]["device"] == "pc"  # the device in use first
    # At 10:25 both devices are covered: Steam on the PC, the locked Mac.
    both = dispatch_json(ctx, "get_moment", {"at": "2004-05-10T02:25:00+00:00", "neighbours": 0})
    covering = {d["device"]: d["covering"] for d in both["items"]}
    assert covering["pc"]["app"] == "Steam" and covering["mac"]["idle"] is True
    assert all(d["before"] == [] and d["after"] == [] for d in both["items"])


def test_unresolved_names_are_errors_with_the_users_closest_names(
    services: Services, user: UserContext
) -> None:
    ctx = ctx_for(services, user)
    for tool, args in [
        ("query_stats", {**PERIOD, "thing": "Stem"}),
        ("days_with", {**PERIOD, "thing": "Stem"}),
        ("last_seen", {"thing": "Stem"}),
        ("compare", {**PERIOD, "things": ["PyCharm", "Stem"]}),
        ("query_stats", {**PERIOD, "metric": "seconds_by_app", "app": "Stem"}),
    ]:
        got = dispatch_json(ctx, tool, args)
        assert got["unresolved"] == "Stem", (tool, got)
        assert got["suggestions"][0] == "Steam", (tool, got)
        assert "seconds" not in got and "items" not in got
    pycharn = resolve_thing(ctx, mention="Pycharn")
    assert pycharn.thing is None and "PyCharm" in pycharn.suggestions


def test_the_users_own_names_resolve(services: Services, user: UserContext) -> None:
    ctx = ctx_for(services, user)
    hades = resolve_thing(ctx, mention="Hades II")
    assert hades.thing is not None and (hades.thing.kind, hades.thing.title) == (
        "title",
        "Hades II",
    )
    m = resolve_thing(ctx, mention="m.zhihu.com")
    assert m.thing is not None and m.thing.kind == "site"


def test_query_stats_resolves_app_and_refuses_a_category_as_site(
    services: Services, user: UserContext
) -> None:
    ctx = ctx_for(services, user)
    apps = dispatch_json(
        ctx, "query_stats", {**PERIOD, "metric": "seconds_by_app", "app": "VS Code"}
    )
    assert [i["app"] for i in apps["items"]] == ["Visual Studio Code"]
    assert apps["thing"]["matched_by"] == "nickname"
    wrong = dispatch_json(ctx, "query_stats", {**PERIOD, "site": "娱乐"})
    assert "not a site" in wrong["error"]
    both = dispatch_json(ctx, "query_stats", {**PERIOD, "thing": "知乎", "metric": "episode_count"})
    assert "leave out metric" in both["error"]


@pytest.mark.preloaded(SAMPLE_MONTH)
def test_on_a_month_of_sample_activity_the_tools_equal_sql(
    services: Services, preloaded: Preloaded, conn: Any
) -> None:
    user = preloaded.user
    ctx = ctx_for(services, user)
    month = {"period": "custom", "date_from": "2003-03-01", "date_to": "2003-03-31"}
    browsers = sorted(services.rules.apps.browsers)
    bilibili = (
        "NOT r.is_idle AND (r.domain = 'bilibili.com' OR (r.domain IS NULL "
        "AND r.app = ANY(%(browsers)s) AND r.window_title LIKE '%%哔哩哔哩%%'))"
    )
    truth = sql_by_day(conn, user, bilibili, browsers=browsers)
    titled = sql_by_day(conn, user, bilibili + " AND r.domain IS NULL", browsers=browsers)
    assert titled, "the sample has Bilibili pages without a URL"
    got = dispatch_json(ctx, "days_with", {**month, "thing": "B站", "min_minutes": 20})
    assert [(i["day"], i["minutes"]) for i in got["items"]] == [
        (d.isoformat(), round(s / 60, 1)) for d, s in truth.items() if s >= 1200
    ]
    steam = sql_by_day(conn, user, "NOT r.is_idle AND r.app = 'Steam'")
    work = sql_by_day(conn, user, "r.category = 'work'")
    side = dispatch_json(ctx, "compare", {**month, "things": ["哔哩哔哩", "Steam", "工作"]})
    assert [i["seconds"] for i in side["items"]] == [
        round(sum(t.values())) for t in (truth, steam, work)
    ]
    newest = conn.execute(
        "SELECT max(ts_start) AS ts FROM records WHERE user_id = %(u)s AND app = 'Steam' "
        "AND NOT is_idle",
        {"u": user.user_id},
    ).fetchone()["ts"]
    seen = dispatch_json(ctx, "last_seen", {"thing": "steam"})
    assert seen["at"] == newest.astimezone(SHANGHAI).strftime("%Y-%m-%d %H:%M")
    habits = dispatch_json(
        ctx, "get_signals", {**month, "by_day": True, "kinds": ["forced_rollback"]}
    )
    days = conn.execute(
        "SELECT DISTINCT day_local FROM signals WHERE user_id = %(u)s AND kind = 'forced_rollback' "
        "AND NOT stale ORDER BY 1",
        {"u": user.user_id},
    ).fetchall()
    assert [i["day"] for i in habits["items"]] == [d["day_local"].isoformat() for d in days]
    assert habits["days_count"] == len(days) > 0


def test_the_new_tools_reach_http_and_the_cli(
    services: Services, db_url: str, tmp_path: Any
) -> None:
    api = make_api(services, user_name="doors", devices=("pc", "mac"))
    assert api.ingest("pc", PC).status_code == 200 and api.ingest("mac", MAC).status_code == 200
    listed = {t["name"] for t in api.client.get("/api/v1/tools", headers=api.auth).json()}
    assert {"last_seen", "days_with", "compare", "get_moment"} <= listed
    side = api.post("/api/v1/tools/compare", {**PERIOD, "things": ["知乎", "PyCharm"]})
    assert side.status_code == 200
    assert [i["seconds"] for i in side.json()["items"]] == [3000, 3600]
    unknown = api.post("/api/v1/tools/days_with", {**PERIOD, "thing": "Stem"})
    assert unknown.status_code == 422 and unknown.json()["suggestions"][0] == "Steam"
    result = CliRunner().invoke(
        main,
        ["tool", "compare", "--user", "doors", "--things", '["命令行", "离开电脑"]', *CLI_PERIOD],
        env={"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path)},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    # PowerShell 10 min + iTerm2 10 min; the PC locked 20 min, the Mac 20 min.
    assert [i["seconds"] for i in json.loads(result.output)["items"]] == [1200, 2400]


CLI_PERIOD = ["--period", "custom", "--date-from", "2004-05-10", "--date-to", "2004-05-11"]


def test_sites_known_by_a_title_pattern_count_from_titles(
    services: Services, user: UserContext, conn: Any
) -> None:
    ctx = ctx_for(services, user)
    for mention, key in (("Reddit", "b4"), ("docs.python.org", "b3")):
        got = dispatch_json(ctx, "query_stats", {**PERIOD, "thing": mention})
        truth = sql_by_day(conn, user, "r.client_record_id = %(key)s", key=key)
        assert got["seconds"] == round(sum(truth.values())) == 300, mention
        days = dispatch_json(ctx, "days_with", {**PERIOD, "thing": mention})
        assert [i["day"] for i in days["items"]] == ["2004-05-11"], mention


NASTY = ["%", "_", "\\", "%_\\%", "'; DROP TABLE records; --", "🙂", "ＡＢＣ", "a" * 200, "知乎%"]


def test_any_name_is_an_answer_or_an_error_never_a_failure(
    services: Services, user: UserContext
) -> None:
    ctx = ctx_for(services, user)
    for name in NASTY:
        for tool, args in [
            ("query_stats", {**PERIOD, "thing": name}),
            ("last_seen", {"thing": name}),
            ("last_seen", {"title": name}),
            ("days_with", {**PERIOD, "thing": name}),
            ("compare", {**PERIOD, "things": [name, "PyCharm"]}),
        ]:
            got = dispatch_json(ctx, tool, args)
            assert "inside TimeTrace" not in got.get("error", ""), (tool, name, got)
            # A name with LIKE wildcards matches them literally: nothing here holds them.
            assert got.get("found") is not True, (tool, name, got)
    nul = dispatch_json(ctx, "days_with", {**PERIOD, "thing": "a\x00b"})
    assert "NUL" in nul["error"]
