"""The Rules page in a real Chromium (Debian's `chromium`, driven by Playwright): from an
app of the day view, "Always count … as …" previews the hours of history the rule
changes (equal to the SQL over records), saving it re-categorises the history, the
day's totals move by what the rule moved that day, and the Rules page lists it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.browser import chromium, sample_month_served
from tests.e2e.test_web_browser import Site, Tab, _watch
from tests.helpers import TemplateDatabases

RULE_DAY = date(2003, 3, 18)
# An app's active seconds whose category is not `category` (re-labels by hand excepted),
# over the whole history and on one logical day: what a rule for the app changes.
APP_MOVES = """
SELECT COALESCE(sum(v.duration_s), 0) AS all_s,
       COALESCE(sum(v.duration_s) FILTER (WHERE v.day_local = %(day)s), 0) AS day_s
FROM v_record_durations v JOIN records r USING (user_id, record_id, ts_start)
WHERE v.user_id = %(user)s AND v.app = %(app)s AND NOT v.is_idle
  AND v.category <> %(category)s AND r.category_source <> 'label'
"""


@pytest.fixture(scope="module")
def site(
    admin_url: str, data_templates: TemplateDatabases, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    with sample_month_served(
        admin_url, data_templates, tmp_path_factory, prefix="tt_web_rules"
    ) as served:
        yield Site(*served)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


def _moves(site: Site, *, app: str, category: str) -> dict[str, Any]:
    with site.services.store.pool.connection() as conn:  # type: ignore[attr-defined]
        row = conn.execute(
            APP_MOVES,
            {"user": site.user.user_id, "app": app, "category": category, "day": RULE_DAY},
        ).fetchone()
    assert row is not None
    return dict(row)


def test_a_rule_made_from_an_app_previews_the_sql_hours_and_moves_the_day(
    browser: Browser, site: Site, tmp_path: Path
) -> None:
    context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
    tab = Tab(page=context.new_page(), site=site, shots=tmp_path)
    _watch(tab.page, tab.errors)
    page = tab.page
    page.goto(f"{site.base}/signin?next=/day/{RULE_DAY}#token={site.token}")
    page.wait_for_url(f"**/day/{RULE_DAY}")
    before, total = tab.seconds("table.totals"), tab.total()

    # The day's top app that is work: count it as study from now on.
    row = page.locator("table.apps tr[data-app]").first
    app = row.get_attribute("data-app")
    assert app
    moves = _moves(site, app=app, category="study")
    assert moves["day_s"] > 600 and moves["all_s"] > moves["day_s"]
    row.locator("a.always").click()
    page.wait_for_url(re.compile(r"/rules/change\?op=add&kind=app&pattern="))
    assert page.locator("#rule-pattern").input_value() == app
    page.select_option("#rule-category", "study")
    page.click("#rule-preview")
    effect = page.locator("#rule-effect")
    effect.wait_for()
    seconds = float(effect.get_attribute("data-seconds") or "nan")
    assert seconds == pytest.approx(moves["all_s"], abs=0.001)
    hours = f"{moves['all_s'] / 3600:.2f}"
    assert effect.inner_text().startswith(f"This changes {hours} h of your history (")
    tab.shot("rule-preview")

    page.click("#rule-save")
    page.wait_for_url(re.compile(r"/rules\?days=\d+&rebuilt=1$"))
    assert page.locator("p.ok[role=status]").inner_text().startswith("Saved: ")
    listed = page.locator("table.user-rules tr[data-rule]")
    assert listed.count() == 1
    assert listed.first.get_attribute("data-pattern") == app
    assert listed.first.get_attribute("data-category") == "study"
    assert _moves(site, app=app, category="study")["all_s"] == 0
    tab.shot("rules-list")

    page.goto(f"{site.base}/day/{RULE_DAY}")
    after = tab.seconds("table.totals")
    assert after == {
        i["category"]: i["seconds"]
        for i in site.day_stats(RULE_DAY, "seconds_by_category")["items"]
    }
    # The day's study gains what the rule moved that day, from the categories it left.
    gained = after.get("study", 0) - before.get("study", 0)
    assert gained == pytest.approx(moves["day_s"], abs=3)
    lost = sum(before[c] - after.get(c, 0) for c in before if c != "study")
    assert lost == pytest.approx(gained, abs=3)
    assert tab.total() == pytest.approx(total, abs=3)
    tab.shot("day-after-rule")

    # The coverage view and the Rules page link to each other.
    page.goto(f"{site.base}/privacy")
    page.click("#coverage-rules")
    page.wait_for_url(f"{site.base}/rules")
    page.click("a[href='/privacy#coverage-h']")
    page.wait_for_url(f"{site.base}/privacy#coverage-h")
    context.close()
    assert tab.errors == []
