"""Windows inside days, instants, shares, top sites and the per-day series, on the sample
month: every number equals SQL over `v_record_durations` computed here, with each
record's effective span clipped to the window in SQL (the windows themselves are built
in SQL from the clock times, not by the code under test)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from psycopg import Connection

from app.cli import main
from app.db.connection import connect
from app.ingest.records import RecordBatch, ingest_batch
from app.runtime.services import Services
from app.tools import ToolContext, dispatch_json
from tests.agent_month import NOW, Month, month_fixture
from tests.helpers import Api

month = month_fixture()
ZONE = "Asia/Shanghai"
CUT = 4  # the sample user's day cut hour
LAST_WEEK = (date(2003, 3, 24), date(2003, 3, 30))
MARCH = (date(2003, 3, 1), date(2003, 3, 31))
VSCODE = "NOT v.is_idle AND v.app = 'Visual Studio Code'"
ACTIVE = "NOT v.is_idle"
IDLE = "v.is_idle"
FUN = "v.category = 'entertainment'"

# The windows of each logical day, in SQL: a clock time before the cut hour is on the next
# calendar date; an end at or before the start is on the date after the start's.
DAY_WINDOWS = """
    SELECT d::date AS day,
           ((d::date + (%(tf)s::time < make_time(%(cut)s, 0, 0))::int + %(tf)s::time)
               AT TIME ZONE %(tz)s) AS s,
           ((d::date + (%(tf)s::time < make_time(%(cut)s, 0, 0))::int
                     + (%(tt)s::time <= %(tf)s::time)::int + %(tt)s::time)
               AT TIME ZONE %(tz)s) AS e
    FROM generate_series(%(first)s::date, %(last)s::date, interval '1 day') AS d
"""
CLIPPED = """
    WITH w AS ({windows})
    SELECT w.day, {key} AS k,
           COALESCE(sum(EXTRACT(EPOCH FROM
               LEAST(v.ts_start + make_interval(secs => v.duration_s), w.e)
               - GREATEST(v.ts_start, w.s))) FILTER (WHERE v.record_id IS NOT NULL), 0)::float
               AS s
    FROM w LEFT JOIN v_record_durations v
      ON v.user_id = %(u)s AND v.ts_start < w.e
     AND v.ts_start + make_interval(secs => v.duration_s) > w.s AND ({where})
    GROUP BY 1, 2 ORDER BY 1, 2
"""


@pytest.fixture(scope="module")
def conn(month: Month) -> Iterator[Connection[Any]]:
    with connect(month.services.url, settings=month.services.settings) as c:
        yield c


@pytest.fixture(scope="module")
def ctx(month: Month) -> ToolContext:
    return month.services.tool_context(user=month.user, now=NOW)


class Truth:
    def __init__(self, conn: Connection[Any], user_id: int) -> None:
        self.conn, self.user_id = conn, user_id

    def by_day(
        self, where: str, first: date, last: date, tf: str, tt: str, key: str = "''"
    ) -> dict[tuple[date, str], float]:
        """Seconds inside the window of every day (zero days included) by key."""
        query = CLIPPED.format(windows=DAY_WINDOWS, key=key, where=where)
        params = {"u": self.user_id, "first": first, "last": last, "tf": tf, "tt": tt}
        rows = self.conn.execute(query, {**params, "cut": CUT, "tz": ZONE}).fetchall()
        return {(r["day"], r["k"]): r["s"] for r in rows}

    def days(self, where: str, first: date, last: date, tf: str, tt: str) -> dict[date, float]:
        return {day: s for (day, _), s in self.by_day(where, first, last, tf, tt).items()}

    def total(self, where: str, first: date, last: date, tf: str, tt: str) -> int:
        return round(sum(self.days(where, first, last, tf, tt).values()))

    def keyed(self, where: str, first: date, last: date, tf: str, tt: str, key: str) -> dict:
        out: dict[str, float] = {}
        for (_, k), s in self.by_day(where, first, last, tf, tt, key).items():
            if k is not None and s:
                out[k] = out.get(k, 0.0) + s
        return out

    def between(self, where: str, ts_from: datetime | str, ts_to: datetime | str) -> int:
        # One parameter, one type: the instant (a string cast to date first would be a date).
        windows = (
            "SELECT a::date AS day, a AS s, %(b)s::timestamptz AS e "
            "FROM CAST(%(a)s AS timestamptz) AS a"
        )
        query = CLIPPED.format(windows=windows, key="''", where=where)
        rows = self.conn.execute(query, {"u": self.user_id, "a": ts_from, "b": ts_to}).fetchall()
        return round(sum(r["s"] for r in rows))

    def day_series(self, where: str, first: date, last: date) -> dict[date, float]:
        """Seconds of whole records on every logical day (zero days included)."""
        rows = self.conn.execute(
            "SELECT d::date AS day, COALESCE(sum(v.duration_s), 0)::float AS s "
            "FROM generate_series(%s::date, %s::date, interval '1 day') d "
            "LEFT JOIN v_record_durations v ON v.user_id = %s AND v.day_local = d::date "
            f"AND ({where}) GROUP BY 1 ORDER BY 1",
            [first, last, self.user_id],
        ).fetchall()
        return {r["day"]: r["s"] for r in rows}

    def whole_days(self, where: str, first: date, last: date) -> int:
        row = self.conn.execute(
            "SELECT COALESCE(sum(duration_s), 0)::float AS s FROM v_record_durations v "
            f"WHERE v.user_id = %s AND v.day_local BETWEEN %s AND %s AND ({where})",
            [self.user_id, first, last],
        ).fetchone()
        assert row is not None
        return round(row["s"])


@pytest.fixture(scope="module")
def truth(conn: Connection[Any], month: Month) -> Truth:
    return Truth(conn, month.user.user_id)


def _custom(first: date, last: date) -> dict[str, str]:
    return {"period": "custom", "date_from": first.isoformat(), "date_to": last.isoformat()}


def ok(ctx: ToolContext, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    got = dispatch_json(ctx, tool, arguments)
    assert "error" not in got, got
    return got


# -- windows inside a day --------------------------------------------------------------------


def test_a_window_inside_each_day_counts_only_the_time_inside_it(
    ctx: ToolContext, truth: Truth
) -> None:
    window = {"period": "last_week", "time_from": "09:00", "time_to": "12:00"}
    got = ok(ctx, "query_stats", {**window, "thing": "VS Code"})
    want = truth.total(VSCODE, *LAST_WEEK, "09:00", "12:00")
    assert got["seconds"] == want > 0
    assert got["window"] == "09:00-12:00 each day"
    # The window cuts: less than the whole days, more than nothing.
    assert want < truth.whole_days(VSCODE, *LAST_WEEK)
    active = ok(ctx, "query_stats", {**window, "metric": "active_seconds"})
    assert active["value"] == truth.total(ACTIVE, *LAST_WEEK, "09:00", "12:00")
    assert active["idle_seconds"] == truth.total(IDLE, *LAST_WEEK, "09:00", "12:00")
    categories = ok(ctx, "query_stats", {**window, "metric": "seconds_by_category"})
    key = "CASE WHEN v.is_idle THEN 'system' ELSE v.category END"
    by_category = truth.keyed("true", *LAST_WEEK, "09:00", "12:00", key)
    assert {i["category"]: i["seconds"] for i in categories["items"]} == {
        k: round(s) for k, s in by_category.items()
    }
    apps = ok(ctx, "query_stats", {**window, "metric": "seconds_by_app", "limit": 3})
    by_app = truth.keyed(ACTIVE, *LAST_WEEK, "09:00", "12:00", "v.app")
    top = sorted(by_app.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    assert [(i["app"], i["seconds"]) for i in apps["items"]] == [(a, round(s)) for a, s in top]


def test_a_window_across_midnight_belongs_to_the_day_it_starts_on(
    ctx: ToolContext, truth: Truth
) -> None:
    window = {"time_from": "22:00", "time_to": "02:00"}
    got = ok(ctx, "days_with", {**_custom(*MARCH), **window, "thing": "娱乐", "min_minutes": 0})
    want = truth.days(FUN, *MARCH, "22:00", "02:00")
    assert [(s["day"], s["seconds"]) for s in got["series"]] == [
        (d.isoformat(), round(s)) for d, s in sorted(want.items())
    ]
    assert sum(1 for s in want.values() if s) > 0
    # Given to the day it ends on, each night would move a day later: not what it counts.
    series = [s["seconds"] for s in got["series"]]
    assert series != [0, *series[:-1]]
    active = ok(ctx, "query_stats", {**_custom(*MARCH), **window, "metric": "active_seconds"})
    assert active["value"] == truth.total(ACTIVE, *MARCH, "22:00", "02:00") > 0
    assert active["window"] == "22:00-02:00 each day (across midnight)"


def test_a_window_before_the_day_cut_is_on_the_next_calendar_date(
    ctx: ToolContext, truth: Truth
) -> None:
    # 01:00-03:00 of the logical day 03-24 is 03-25 01:00 to 03:00 (days start at 04:00).
    got = ok(
        ctx,
        "query_stats",
        {
            **_custom(*LAST_WEEK),
            "time_from": "01:00",
            "time_to": "03:00",
            "metric": "active_seconds",
        },
    )
    assert got["value"] == truth.total(ACTIVE, *LAST_WEEK, "01:00", "03:00")


# -- instants ------------------------------------------------------------------------------


def test_instants_replace_the_period_and_cut_the_records_at_both_ends(
    ctx: ToolContext, truth: Truth
) -> None:
    ts_from, ts_to = "2003-03-12T09:17:30+08:00", "2003-03-13T11:02:00+08:00"
    instants = {"ts_from": ts_from, "ts_to": ts_to}
    active = ok(ctx, "query_stats", {**instants, "metric": "active_seconds"})
    assert active["value"] == truth.between(ACTIVE, ts_from, ts_to) > 0
    assert (active["from"], active["to"]) == ("2003-03-12", "2003-03-13")
    thing = ok(ctx, "query_stats", {**instants, "thing": "VS Code"})
    assert thing["seconds"] == truth.between(VSCODE, ts_from, ts_to) > 0
    compared = ok(ctx, "compare", {**instants, "things": ["VS Code", "Google Chrome"]})
    chrome = "NOT v.is_idle AND v.app = 'Google Chrome'"
    assert [i["seconds"] for i in compared["items"]] == [
        truth.between(VSCODE, ts_from, ts_to),
        truth.between(chrome, ts_from, ts_to),
    ]
    windowed = ok(
        ctx,
        "compare",
        {
            **_custom(*LAST_WEEK),
            "time_from": "09:00",
            "time_to": "12:00",
            "things": ["VS Code", "娱乐"],
        },
    )
    assert [i["seconds"] for i in windowed["items"]] == [
        truth.total(VSCODE, *LAST_WEEK, "09:00", "12:00"),
        truth.total(FUN, *LAST_WEEK, "09:00", "12:00"),
    ]


# -- shares ----------------------------------------------------------------------------------


def test_a_share_is_the_part_of_the_active_time_of_the_same_period_and_window(
    ctx: ToolContext, truth: Truth
) -> None:
    whole = ok(ctx, "query_stats", {"period": "last_week", "thing": "VS Code"})
    active = truth.whole_days(ACTIVE, *LAST_WEEK)
    assert whole["window_active_seconds"] == active
    assert whole["share"] == pytest.approx(truth.whole_days(VSCODE, *LAST_WEEK) / active, abs=1e-4)
    window = {"period": "last_week", "time_from": "09:00", "time_to": "12:00"}
    part = ok(ctx, "query_stats", {**window, "thing": "VS Code"})
    active_in = truth.total(ACTIVE, *LAST_WEEK, "09:00", "12:00")
    assert part["window_active_seconds"] == active_in
    assert part["share"] == pytest.approx(
        truth.total(VSCODE, *LAST_WEEK, "09:00", "12:00") / active_in, abs=1e-4
    )
    assert part["share"] != whole["share"]
    category = ok(ctx, "query_stats", {**window, "category": "entertainment"})
    assert category["share"] == pytest.approx(
        truth.total(FUN, *LAST_WEEK, "09:00", "12:00") / active_in, abs=1e-4
    )
    app = ok(ctx, "query_stats", {"period": "last_week", "metric": "seconds_by_app", "app": "Zoom"})
    zoom = truth.whole_days("NOT v.is_idle AND v.app = 'Zoom'", *LAST_WEEK)
    assert app["share"] == pytest.approx(zoom / active, abs=1e-4) and zoom > 0


# -- top sites -------------------------------------------------------------------------------

# The sites of the sample month: by URL (Chrome), and by the site a Firefox title names.
SITES = {
    "bilibili.com": "v.window_title LIKE '%%\\_bilibili — Mozilla Firefox'",
    "youtube.com": "v.window_title LIKE '%% - YouTube — Mozilla Firefox'",
    "coursera.org": "v.window_title LIKE '%%| Coursera — Mozilla Firefox'",
    "arxiv.org": "(v.window_title LIKE '%%arXiv — Mozilla Firefox' "
    "OR v.window_title ~ '^\\[\\d{4}\\.\\d{5}\\] ')",
    "github.com": "false",
    "stackoverflow.com": "false",
}


def _site_where(domain: str) -> str:
    return (
        f"NOT v.is_idle AND (v.domain = '{domain}' OR (v.domain IS NULL AND v.app = 'Firefox' "
        f"AND {SITES[domain]}))"
    )


def test_top_sites_are_the_sites_inside_browsers_with_the_most_time(
    ctx: ToolContext, truth: Truth
) -> None:
    got = ok(ctx, "query_stats", {"period": "this_month", "metric": "seconds_by_site", "limit": 3})
    want = {d: truth.whole_days(_site_where(d), *MARCH) for d in SITES}
    top = sorted(want.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    assert [(i["site"], i["seconds"]) for i in got["items"]] == top
    # The same site definition as thing= counts.
    youtube = ok(ctx, "query_stats", {"period": "this_month", "site": "YouTube"})
    assert youtube["seconds"] == want["youtube.com"]
    window = {"period": "this_month", "time_from": "09:00", "time_to": "18:00"}
    inside = ok(ctx, "query_stats", {**window, "metric": "seconds_by_site", "limit": 50})
    assert {i["site"]: i["seconds"] for i in inside["items"]} == {
        d: t for d in SITES if (t := truth.total(_site_where(d), *MARCH, "09:00", "18:00"))
    }
    default = ok(ctx, "query_stats", {"period": "this_month", "metric": "seconds_by_site"})
    assert len(default["items"]) == len(SITES)  # fewer than the default limit of 10
    apps = ok(ctx, "query_stats", {"period": "this_month", "metric": "seconds_by_app", "limit": 2})
    assert len(apps["items"]) == 2


# -- the per-day series ------------------------------------------------------------------------


def test_the_series_has_every_day_and_days_without_counts_those_under_the_threshold(
    ctx: ToolContext, truth: Truth
) -> None:
    want = truth.day_series("NOT v.is_idle AND v.app = 'Anki'", *MARCH)
    assert 0 < sum(1 for s in want.values() if not s) < len(want)  # zero days and others
    got = ok(ctx, "days_with", {**_custom(*MARCH), "thing": "Anki", "min_minutes": 10})
    assert [(s["day"], s["seconds"]) for s in got["series"]] == [
        (d.isoformat(), round(s)) for d, s in want.items()
    ]
    assert got["days_without"] == sum(1 for s in want.values() if s < 600)
    assert got["count"] + got["days_without"] == got["days_in_period"] == 31
    assert sum(s["seconds"] for s in got["series"]) == got["total_seconds"]
    # Inside a window too, zero days included.
    window = {"time_from": "20:00", "time_to": "23:30"}
    inside = ok(ctx, "days_with", {**_custom(*MARCH), **window, "thing": "Anki", "min_minutes": 5})
    anki = truth.days("NOT v.is_idle AND v.app = 'Anki'", *MARCH, "20:00", "23:30")
    assert [s["seconds"] for s in inside["series"]] == [round(s) for _, s in sorted(anki.items())]
    assert inside["days_without"] == sum(1 for s in anki.values() if s < 300)


# -- bad input -------------------------------------------------------------------------------

BAD = [
    ({"time_from": "09:00"}, "give both time_from and time_to"),
    ({"time_from": "25:00", "time_to": "02:00"}, "time_from: '25:00' is not a time of day"),
    ({"time_from": "9:00", "time_to": "12:00"}, "time_from: '9:00' is not a time of day"),
    (
        {"ts_from": "2003-03-12T10:00:00+08:00", "ts_to": "2003-03-12T09:00:00+08:00"},
        "ts_to must be after ts_from",
    ),
    ({"ts_from": "2003-03-12T10:00:00+08:00"}, "give both ts_from and ts_to"),
    ({"ts_from": "2003-03-12T10:00:00", "ts_to": "2003-03-12T11:00:00"}, "timezone"),
    ({"metric": "seconds_by_site", "limit": 0}, "limit"),
    ({"metric": "seconds_by_app", "limit": 51}, "limit"),
    (
        {
            "ts_from": "2003-03-12T10:00:00+08:00",
            "ts_to": "2003-03-12T11:00:00+08:00",
            "time_from": "09:00",
            "time_to": "10:00",
        },
        "not both",
    ),
    ({"metric": "episode_count", "time_from": "09:00", "time_to": "10:00"}, "counts whole days"),
]


@pytest.mark.parametrize(("arguments", "says"), BAD, ids=[b[1] for b in BAD])
def test_bad_window_arguments_are_a_clear_error_as_data(
    ctx: ToolContext, arguments: dict[str, Any], says: str
) -> None:
    got = dispatch_json(ctx, "query_stats", arguments)
    assert says in got["error"], got


def test_bad_window_arguments_are_a_4xx_at_http(api: Api) -> None:
    for arguments, says in BAD:
        reply = api.post("/api/v1/tools/query_stats", arguments)
        assert reply.status_code == 422, (arguments, reply.text)
        assert says in reply.json()["error"]
    reply = api.post("/api/v1/tools/days_with", {"thing": "x", "time_to": "02:00"})
    assert reply.status_code == 422 and "time_from" in reply.json()["error"]


def test_the_series_of_the_longest_period_fits_the_output_cap(ctx: ToolContext) -> None:
    longest = {"period": "custom", "date_from": "2002-03-01", "date_to": "2003-04-04"}
    got = ok(ctx, "days_with", {**longest, "thing": "Slack", "min_minutes": 0})
    assert len(got["series"]) == got["days_in_period"] == 400
    assert got["series"][0] == {"day": "2002-03-01", "seconds": 0}
    # The days listed may be cut to fit; the series and the counts never are.
    assert got["count"] + got["days_without"] == 400 and got["count"] > 0


def test_the_cli_takes_a_window_and_answers_a_bad_one_with_an_error(
    month: Month, truth: Truth, tmp_path: Path
) -> None:
    env = {"TIMETRACE_DATABASE_URL": month.services.url, "TIMETRACE_DATA_DIR": str(tmp_path)}
    base = ["tool", "query_stats", "--user", month.user.name, *CLI_LAST_WEEK, "--thing", "VS Code"]
    good = CliRunner().invoke(main, [*base, "--time-from", "09:00", "--time-to", "12:00"], env=env)
    assert good.exit_code == 0, good.output
    assert json.loads(good.output)["seconds"] == truth.total(VSCODE, *LAST_WEEK, "09:00", "12:00")
    bad = CliRunner().invoke(main, [*base, "--time-from", "25:00", "--time-to", "02:00"], env=env)
    assert bad.exit_code != 0 and "Traceback" not in bad.output
    assert "'25:00' is not a time of day" in json.loads(bad.output)["error"]


CLI_LAST_WEEK = ["--period", "custom", "--date-from", "2003-03-24", "--date-to", "2003-03-30"]


def test_a_record_of_a_whole_day_counts_in_every_window_it_reaches(
    services: Services,
) -> None:
    store = services.store
    user = store.ensure_user(name="long", time_zone=ZONE, day_cut_hour=CUT)
    store.add_device(user_id=user.user_id, device_id="pc", name="", kind="other")
    record = {
        "client_record_id": "r1",
        "ts_start": "2004-05-10T10:00:00+08:00",
        "ts_end": "2004-05-11T10:00:00+08:00",  # 24 hours: the longest a record may be
        "app": "Steam",
        "window_title": "Hades II",
    }
    batch = RecordBatch.model_validate({"device_id": "pc", "records": [record]})
    ingest_batch(store, user=user, batch=batch, rules=services.rules)
    ctx = dataclasses.replace(services.tool_context(user=user, now=NOW), models=None)
    window = {"time_from": "09:00", "time_to": "12:00", "thing": "Steam", "min_minutes": 0}
    got = ok(ctx, "days_with", {**_custom(date(2004, 5, 9), date(2004, 5, 12)), **window})
    assert [s["seconds"] for s in got["series"]] == [0, 2 * 3600, 3600, 0]
    night = {**window, "time_from": "22:00", "time_to": "02:00"}
    got = ok(ctx, "days_with", {**_custom(date(2004, 5, 9), date(2004, 5, 12)), **night})
    assert [s["seconds"] for s in got["series"]] == [0, 4 * 3600, 0, 0]
