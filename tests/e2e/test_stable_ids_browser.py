"""Stable episode ids in a real Chromium (Debian's `chromium`, driven by Playwright):
re-labelling an episode from its panel leaves every episode id of the day as it was,
and an id a re-label merged away leads to the episode that now holds its time, with a
notice. The panel shows the summary written by rule, marked as such, with no model.

`.ci/run` installs chromium and fonts-noto-cjk when they are missing.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import pytest
from playwright.sync_api import Page

from app.runtime.services import Services
from app.store.accounts import UserContext
from app.store.episodes import EpisodeLine
from app.timeutil import day_bounds, zone
from app.tools import dispatch_json
from tests.browser import chromium, sample_month_served
from tests.helpers import NOW, TemplateDatabases

KEEP_DAY = date(2003, 3, 18)  # a re-label that merges nothing
MERGE_DAY = date(2003, 3, 20)  # a re-label that merges a sitting into the one before


@dataclass
class Site:
    base: str
    token: str
    services: Services
    user: UserContext

    def tool(self, name: str, **arguments: Any) -> dict[str, Any]:
        result = dispatch_json(self.services.tool_context(user=self.user, now=NOW), name, arguments)
        assert "error" not in result, result
        return result

    def episodes(self, day: date) -> list[EpisodeLine]:
        start, end = day_bounds(day, tz=zone(self.user.time_zone), cut_hour=4)
        rows = self.services.store.list_episodes(
            user_id=self.user.user_id, ts_from=start, ts_to=end, category=None, limit=1_000
        )
        return sorted(rows, key=lambda e: (e.device_id, e.ts_start))


@pytest.fixture(scope="module")
def site(
    admin_url: str, data_templates: TemplateDatabases, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    """The sample month (built with no model) on a loopback port, in its own database."""
    with sample_month_served(
        admin_url, data_templates, tmp_path_factory, prefix="tt_ids"
    ) as served:
        yield Site(*served)


@pytest.fixture(scope="module")
def page(site: Site) -> Iterator[Page]:
    """One page signed in through the form, in English."""
    with chromium() as browser:
        context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{site.base}/day/{KEEP_DAY}")
        page.fill("#token", site.token)
        page.click("#signin-form button[type=submit]")
        page.wait_for_url(f"**/day/{KEEP_DAY}")
        yield page
        assert errors == []


def _shown_ids(page: Page) -> list[int]:
    blocks = page.locator("svg.track a.block")
    return sorted(
        int(blocks.nth(i).get_attribute("data-episode") or 0) for i in range(blocks.count())
    )


def _relabel_in_panel(page: Page, site: Site, day: date, episode_id: int, category: str) -> None:
    page.goto(f"{site.base}/day/{day}")
    page.locator(f"#ep-{episode_id}").click()
    page.wait_for_url(re.compile(rf"\?episode={episode_id}#panel$"))
    page.select_option("#category", category)
    page.click("form.relabel button[type=submit]")
    page.wait_for_url(f"**/day/{day}?relabelled=1")


def test_relabelling_an_episode_leaves_every_id_of_the_day_unchanged(
    page: Page, site: Site
) -> None:
    episodes = site.episodes(KEEP_DAY)
    # An active sitting whose neighbours on its device are not `study`: labelled `study`,
    # it stays a sitting of its own.
    chosen = next(
        e
        for prev, e, nxt in zip(episodes, episodes[1:], episodes[2:], strict=False)
        if e.category not in ("system", "study")
        and all(n.device_id != e.device_id or n.category != "study" for n in (prev, nxt))
    )
    page.goto(f"{site.base}/day/{KEEP_DAY}")
    before = _shown_ids(page)
    assert before == sorted(e.episode_id for e in episodes) and chosen.episode_id in before
    # No model: the card carries the summary written by rule, and says so.
    page.goto(f"{site.base}/day/{KEEP_DAY}?episode={chosen.episode_id}#panel")
    assert page.locator("#panel p.summary").inner_text() == chosen.summary
    assert "Written by rule" in page.locator("#panel").inner_text()
    assert "No model configured." in page.locator("#panel").inner_text()
    _relabel_in_panel(page, site, KEEP_DAY, chosen.episode_id, "study")
    assert _shown_ids(page) == before
    assert page.locator(f"#ep-{chosen.episode_id}").get_attribute("class") is not None
    assert "cat-study" in (page.locator(f"#ep-{chosen.episode_id}").get_attribute("class") or "")
    # And a second label of the same id works: it still exists.
    _relabel_in_panel(page, site, KEEP_DAY, chosen.episode_id, "work")
    assert _shown_ids(page) == before


def test_an_id_merged_away_leads_to_the_episode_holding_its_time(page: Page, site: Site) -> None:
    episodes = site.episodes(MERGE_DAY)
    # Two active sittings back to back on one device, of two categories, short enough
    # together to be one: labelled as the first, the second joins it.
    first, second = next(
        (a, b)
        for a, b in itertools.pairwise(episodes)
        if a.device_id == b.device_id
        and "system" not in (a.category, b.category)
        and a.category != b.category
        and b.ts_start - a.ts_end < timedelta(seconds=60)
        and b.ts_end - a.ts_start < timedelta(minutes=50)
    )
    others = {e.episode_id for e in episodes} - {first.episode_id, second.episode_id}
    _relabel_in_panel(page, site, MERGE_DAY, second.episode_id, first.category)
    shown = set(_shown_ids(page))
    assert first.episode_id in shown and second.episode_id not in shown
    assert others - shown <= {e.episode_id for e in episodes if e.ts_start >= second.ts_end}
    page.goto(f"{site.base}/episodes/{second.episode_id}")
    page.wait_for_url(re.compile(rf"\?episode={first.episode_id}&moved={second.episode_id}#panel$"))
    notice = page.locator("#moved").inner_text()
    assert (
        notice
        == f"Episode #{second.episode_id} was rebuilt with its day: its time is now in this one."
    )
    assert f"#{first.episode_id}" in page.locator("#panel .meta").inner_text()
    # The tools say the same.
    moved = site.tool("get_episode", id=second.episode_id)
    assert (moved["episode"]["id"], moved["moved_from"]) == (first.episode_id, second.episode_id)
