"""One definition of time on a site, held over the sample month: a site's time is the
time of records whose URL is on it (or under it) plus that of URL-less browser records
whose title names it. query_stats (thing= and seconds_by_site), compare, the week and
month pages' top sites and a site's titles page all give it, each to the second,
against sums computed here with SQL over `v_record_durations` (which site a title names
is the rules', as ingest read it). Reports and exports carry no per-site figures."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api import create_app
from app.rules.apps import AppIdentities
from app.rules.things import domain_matches
from app.tools import dispatch_json
from tests.agent_month import NOW, Month, month_fixture
from tests.helpers import new_token_for

month = month_fixture()

MONTH = (date(2003, 3, 1), date(2003, 3, 31))
WEEK = (date(2003, 3, 3), date(2003, 3, 9))  # 2003-W10
_ROW = re.compile(
    r'<tr data-site="([^"]+)" data-seconds="(\d+)" data-from-url-s="(\d+)" '
    r'data-from-title-s="(\d+)">'
)


def _fold(domain: str, apps: AppIdentities) -> str:
    known = [s.domain for s in apps.sites if domain_matches(domain, (s.domain,))]
    return min(known, key=lambda d: (-len(d), d)) if known else domain


def truth(month: Month, first: date, last: date) -> dict[str, tuple[float, float]]:
    """Per site: (seconds from URLs, seconds from titles naming it), by plain SQL."""
    apps = month.services.rules.apps
    with month.services.store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT domain, app, window_title, sum(duration_s) AS s FROM v_record_durations "
            "WHERE user_id = %s AND NOT is_idle AND day_local BETWEEN %s AND %s "
            "AND (domain IS NOT NULL OR app = ANY(%s)) GROUP BY 1, 2, 3",
            [month.user.user_id, first, last, sorted(apps.browsers)],
        ).fetchall()
    url: dict[str, float] = defaultdict(float)
    title: dict[str, float] = defaultdict(float)
    for row in rows:
        if row["domain"] is not None:
            url[_fold(row["domain"], apps)] += row["s"]
        elif (site := apps.site_of(apps.page_title(row["window_title"]))) is not None:
            title[site] += row["s"]
    return {site: (url[site], title[site]) for site in {*url, *title}}


def ranked(sites: dict[str, tuple[float, float]], top: int) -> list[tuple[str, int]]:
    ordered = sorted(sites.items(), key=lambda kv: (-sum(kv[1]), kv[0]))
    return [(site, round(sum(parts))) for site, parts in ordered[:top]]


def tool(month: Month, name: str, **arguments: Any) -> dict[str, Any]:
    ctx = month.services.tool_context(user=month.user, now=NOW)
    result = dispatch_json(ctx, name, arguments)
    assert "error" not in result, result
    return result


def app_seconds(month: Month, apps: list[str]) -> float:
    with month.services.store.pool.connection() as conn:
        row = conn.execute(
            "SELECT coalesce(sum(duration_s), 0) AS s FROM v_record_durations "
            "WHERE user_id = %s AND NOT is_idle AND day_local BETWEEN %s AND %s "
            "AND app = ANY(%s)",
            [month.user.user_id, *MONTH, apps],
        ).fetchone()
    assert row is not None
    return float(row["s"])


@pytest.fixture(scope="module")
def pages(month: Month) -> TestClient:
    client = TestClient(create_app(services=month.services), raise_server_exceptions=False)
    token = new_token_for(month.services, month.user, name="site time")
    reply = client.post("/signin", data={"token": token, "next": "/day"}, follow_redirects=False)
    assert reply.status_code == 303, reply.text
    return client


def test_query_stats_counts_a_site_from_urls_and_from_titles_naming_it(month: Month) -> None:
    url, title = truth(month, *MONTH)["bilibili.com"]
    assert url > 0 and title > 0  # the sample has both kinds of bilibili time
    result = tool(month, "query_stats", thing="bilibili", period="custom",
                  date_from="2003-03-01", date_to="2003-03-31")  # fmt: skip
    assert (result["from_url_s"], result["from_title_s"]) == (round(url), round(title))
    # Whatever else the thing holds (an app of the same name) is counted beside the site.
    others = app_seconds(month, result["thing"].get("apps", []))
    assert abs(result["seconds"] - (url + title + others)) <= 1


def test_the_month_and_week_pages_top_sites_are_the_same_numbers(
    month: Month, pages: TestClient
) -> None:
    for path, days in (("/month/2003-03", MONTH), ("/week/2003-W10", WEEK)):
        html = pages.get(path).text
        shown = [(s, int(n), int(u), int(t)) for s, n, u, t in _ROW.findall(html)]
        sites = truth(month, *days)
        assert [(s, n) for s, n, _, _ in shown] == ranked(sites, 8), path
        for site, seconds, from_url, from_title in shown:
            assert (from_url, from_title) == tuple(round(x) for x in sites[site]), (path, site)
            assert abs(seconds - from_url - from_title) <= 1
    month_rows = dict((s, int(n)) for s, n, _, _ in _ROW.findall(pages.get("/month/2003-03").text))
    stats = tool(month, "query_stats", site="bilibili", period="custom",
                 date_from="2003-03-01", date_to="2003-03-31")  # fmt: skip
    # The month page and `ask`'s query_stats agree to the second (each rounds its parts).
    assert abs(month_rows["bilibili.com"] - stats["from_url_s"] - stats["from_title_s"]) <= 1
    # The site's titles, a click away, add up to the same total.
    titles = pages.get("/app?name=bilibili.com&from=2003-03-01&to=2003-03-31").text
    total = re.search(r'data-total-seconds="(\d+)"', titles)
    assert total is not None and abs(int(total.group(1)) - month_rows["bilibili.com"]) <= 1


def test_seconds_by_site_and_compare_follow_the_one_definition(month: Month) -> None:
    sites = truth(month, *MONTH)
    period = {"period": "custom", "date_from": "2003-03-01", "date_to": "2003-03-31"}
    listed = tool(month, "query_stats", metric="seconds_by_site", limit=10, **period)["items"]
    assert [(i["site"], i["seconds"]) for i in listed] == ranked(sites, 10)
    for item in listed:
        assert (item["from_url_s"], item["from_title_s"]) == tuple(
            round(x) for x in sites[item["site"]]
        )
    compared = tool(month, "compare", things=["bilibili", "YouTube"], **period)["items"]
    for item, mention in zip(compared, ["bilibili", "YouTube"], strict=True):
        stats = tool(month, "query_stats", thing=mention, **period)
        assert item["seconds"] == stats["seconds"]
        others = app_seconds(month, stats["thing"].get("apps", []))
        assert abs(item["seconds"] - sum(sites[stats["thing"]["name"]]) - others) <= 1
