"""The web pages in a real Chromium (Debian's `chromium`, driven by Playwright): sign
in, the day view against query_stats, re-label, search in Chinese and English,
delete a range, keyboard navigation, no console errors, no access without the
cookie, the Ask page streaming the agent's answer. One browser for the module, one
signed-in page reused by the tests; every page visited leaves a screenshot in the
test's output directory.

`.ci/run` installs chromium and fonts-noto-cjk when they are missing.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from playwright.sync_api import Browser, Page

from app.runtime.services import Services
from app.store.accounts import UserContext
from app.store.episodes import EpisodeLine
from app.timeutil import day_bounds, zone
from app.tools import dispatch_json
from tests.browser import chromium, sample_month_served
from tests.helpers import (
    NOW,
    SAMPLE_MONTH,
    TemplateDatabases,
)

# Days of the sample month, one per test that writes, so the tests stay independent.
READ_DAY = date(2003, 3, 5)
RELABEL_DAY = date(2003, 3, 11)
DELETE_DAY = date(2003, 3, 13)


@dataclass
class Site:
    base: str
    token: str
    services: Services
    user: UserContext

    def tool(self, name: str, **arguments: Any) -> dict[str, Any]:
        ctx = self.services.tool_context(user=self.user, now=NOW)
        result = dispatch_json(ctx, name, arguments)
        assert "error" not in result, result
        return result

    def day_stats(self, day: date, metric: str, **extra: Any) -> dict[str, Any]:
        return self.tool(
            "query_stats",
            metric=metric,
            period="custom",
            date_from=day.isoformat(),
            date_to=day.isoformat(),
            **extra,
        )

    def episodes(self, day: date) -> list[EpisodeLine]:
        start, end = day_bounds(day, tz=zone(self.user.time_zone), cut_hour=4)
        rows = self.services.store.list_episodes(
            user_id=self.user.user_id, ts_from=start, ts_to=end, category=None, limit=1_000
        )
        return sorted(rows, key=lambda e: (e.ts_start, e.episode_id))


@dataclass
class Tab:
    page: Page
    site: Site
    shots: Path
    errors: list[str] = field(default_factory=list)

    def open(self, path: str) -> Page:
        self.page.goto(self.site.base + path)
        return self.page

    def shot(self, name: str) -> Path:
        path = self.shots / f"{name}.png"
        self.page.screenshot(path=path, full_page=True)
        return path

    def seconds(self, selector: str) -> dict[str, int]:
        """data-seconds of each row of a table on the page, by its data-* key."""
        rows = self.page.locator(f"{selector} tr[data-category], {selector} tr[data-app]")
        out = {}
        for i in range(rows.count()):
            row = rows.nth(i)
            key = row.get_attribute("data-category") or row.get_attribute("data-app")
            value = row.locator("td[data-seconds]").get_attribute("data-seconds")
            assert key is not None and value is not None
            out[key] = int(value)
        return out

    def total(self) -> int:
        value = self.page.locator("table.totals tfoot td[data-seconds]").get_attribute(
            "data-seconds"
        )
        assert value is not None
        return int(value)


def _watch(page: Page, errors: list[str]) -> None:
    page.on(
        "console",
        lambda message: (
            errors.append(f"{message.type}: {message.text}")
            if message.type in ("error", "warning")
            else None
        ),
    )
    page.on("pageerror", lambda error: errors.append(f"page error: {error}"))


@pytest.fixture(scope="module")
def site(
    admin_url: str, data_templates: TemplateDatabases, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    """The sample month served on a loopback port, in a database of this module's own."""
    with sample_month_served(
        admin_url, data_templates, tmp_path_factory, prefix="tt_web"
    ) as served:
        yield Site(*served)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def tab(browser: Browser, site: Site, shots: Path) -> Iterator[Tab]:
    """One page signed in through the form, in English, reused by the tests."""
    context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
    tab = Tab(page=context.new_page(), site=site, shots=shots)
    _watch(tab.page, tab.errors)
    tab.open(f"/day/{READ_DAY}")
    assert tab.page.url == f"{site.base}/signin?next={quote(f'/day/{READ_DAY}', safe='/')}"
    tab.shot("signin")
    tab.page.fill("#token", site.token)
    tab.page.click("#signin-form button[type=submit]")
    tab.page.wait_for_url(f"**/day/{READ_DAY}")
    (cookie,) = context.cookies()
    assert cookie["name"] == "tt_session" and cookie["httpOnly"]
    assert cookie["sameSite"] == "Strict" and cookie["value"] != site.token
    yield tab
    context.close()


@pytest.fixture(autouse=True)
def _no_console_errors(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test that uses the shared page ends with no console error or warning."""
    if "tab" not in request.fixturenames:
        yield
        return
    shared: Tab = request.getfixturevalue("tab")
    shared.errors.clear()
    yield
    assert shared.errors == []


def test_every_page_renders_in_chromium_with_no_console_error(tab: Tab) -> None:
    episode = tab.site.episodes(READ_DAY)[3]
    pages = {
        "day": f"/day/{READ_DAY}",
        "episode-panel": f"/day/{READ_DAY}?episode={episode.episode_id}#panel",
        "week": "/week/2003-W10",
        "month": "/month/2003-03",
        "search": "/search?q=" + quote("哔哩哔哩"),
        "privacy": "/privacy",
        "delete-confirm": f"/privacy/delete?from={READ_DAY}T09:00&to={READ_DAY}T10:00",
        "ask-empty": "/ask",
    }
    for name, path in pages.items():
        page = tab.open(path)
        assert page.title().endswith("· TimeTrace"), name
        # The stylesheet applied (no CSP refusal): the header has its panel colour.
        background = page.eval_on_selector("header.top", "e => getComputedStyle(e).backgroundColor")
        assert background == "rgb(241, 245, 249)", name
        assert tab.shot(name).stat().st_size > 10_000
    assert tab.errors == []


def test_pages_refuse_access_without_the_cookie(browser: Browser, site: Site) -> None:
    context = browser.new_context()
    errors: list[str] = []
    page = context.new_page()
    _watch(page, errors)
    for path in (f"/day/{READ_DAY}", "/week/2003-W10", "/search?q=x", "/privacy", "/episodes/1"):
        page.goto(site.base + path)
        assert page.url.startswith(f"{site.base}/signin?next="), path
        assert page.locator("#signin-form").is_visible()
    refused = context.request.post(
        f"{site.base}/privacy/delete",
        form={"from": f"{READ_DAY}T00:00", "to": f"{READ_DAY}T23:00"},
    )
    assert refused.status == 401
    assert site.day_stats(READ_DAY, "episode_count")["value"] == 31
    context.close()
    assert errors == []


def test_the_day_view_has_one_block_per_episode_and_the_totals_of_query_stats(tab: Tab) -> None:
    site = tab.site
    page = tab.open(f"/day/{READ_DAY}")
    blocks = page.locator("svg.track a.block")
    count = site.day_stats(READ_DAY, "episode_count")["value"]
    assert blocks.count() == count == 31
    shown = sorted(int(blocks.nth(i).get_attribute("data-episode") or 0) for i in range(count))
    assert shown == sorted(e.episode_id for e in site.episodes(READ_DAY))
    lanes = [name for _, _, name in sorted(SAMPLE_MONTH.data().devices)]  # one per device
    assert page.locator(".lane-name").all_inner_texts()[1:] == lanes

    by_category = site.day_stats(READ_DAY, "seconds_by_category")
    assert tab.seconds("table.totals") == {
        i["category"]: i["seconds"] for i in by_category["items"]
    }
    assert tab.total() == by_category["total_seconds"]
    apps = site.day_stats(READ_DAY, "seconds_by_app", top_n=8)["items"]
    assert tab.seconds("table.apps") == {i["app"]: i["seconds"] for i in apps}

    # Widths are true to time: the rendered widths of two blocks keep the ratio of their spans.
    longest = sorted(site.episodes(READ_DAY), key=lambda e: e.ts_end - e.ts_start)[-2:]
    widths = [page.locator(f"#ep-{e.episode_id} rect").bounding_box()["width"] for e in longest]  # type: ignore[index]
    spans = [(e.ts_end - e.ts_start).total_seconds() for e in longest]
    assert widths[0] / widths[1] == pytest.approx(spans[0] / spans[1], rel=0.02)
    tooltip = page.locator(f"#ep-{longest[1].episode_id} title").text_content() or ""
    # An idle sitting's bilingual title is shown in the page's language.
    title = "Idle or locked" if longest[1].category == "system" else longest[1].title
    assert f"{round(longest[1].active_s / 60)} min" in tooltip and tooltip.endswith(title)


def test_relabelling_an_episode_changes_the_days_totals(tab: Tab) -> None:
    site = tab.site
    page = tab.open(f"/day/{RELABEL_DAY}")
    before, total = tab.seconds("table.totals"), tab.total()
    page.locator("a.block.cat-entertainment").first.click()
    page.wait_for_url(re.compile(r"\?episode=\d+#panel$"))
    assert page.locator("#panel").is_visible()
    tab.shot("relabel-panel")
    page.select_option("#category", "work")
    page.click("form.relabel button[type=submit]")
    page.wait_for_url(f"**/day/{RELABEL_DAY}?relabelled=1")
    assert page.locator("p.ok[role=status]").inner_text() == "Re-labelled: the day was recomputed."
    after = tab.seconds("table.totals")
    assert after == {
        i["category"]: i["seconds"]
        for i in site.day_stats(RELABEL_DAY, "seconds_by_category")["items"]
    }
    assert after["entertainment"] < before["entertainment"]
    # Time moves between categories, none appears or vanishes: work gains what others lost.
    gained = after["work"] - before["work"]
    lost = sum(before[c] - after.get(c, 0) for c in before if c not in ("work", "system"))
    assert gained == pytest.approx(lost, abs=2) and gained > 0
    assert tab.total() == pytest.approx(total, abs=2)
    tab.shot("relabelled-day")


@pytest.mark.parametrize("query", ["哔哩哔哩", "Coursera"])
def test_search_in_chinese_and_english_lists_what_search_episodes_finds(
    tab: Tab, query: str
) -> None:
    page = tab.open("/search")
    page.fill("#q", query)
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/search?q={quote(query)}")
    expected = tab.site.tool("search_episodes", query=query, k=20)["items"]
    assert len(expected) >= 3
    listed = page.locator("ol.results li[data-episode]")
    assert [
        int(listed.nth(i).get_attribute("data-episode") or 0) for i in range(listed.count())
    ] == [item["id"] for item in expected]
    tab.shot(f"search-{'zh' if query.startswith('哔') else 'en'}")
    listed.first.locator("a").click()
    page.wait_for_url(re.compile(rf"/day/\d{{4}}-\d\d-\d\d\?episode={expected[0]['id']}#panel$"))
    assert page.locator("#panel-title").inner_text() == expected[0]["title"]


def test_deleting_a_range_removes_it_from_the_day(tab: Tab) -> None:
    site = tab.site
    # The laptop's first sitting of the day: its records carry their own end, so its
    # seconds leave the day exactly.
    episode = next(
        e for e in site.episodes(DELETE_DAY) if e.device_id == "laptop" and e.category != "system"
    )
    tz = zone(site.user.time_zone)
    before_total = site.day_stats(DELETE_DAY, "seconds_by_category")["total_seconds"]
    before_count = site.day_stats(DELETE_DAY, "episode_count")["value"]
    page = tab.open("/privacy")
    page.fill("#from", episode.ts_start.astimezone(tz).strftime("%Y-%m-%dT%H:%M:%S"))
    page.fill("#to", episode.ts_end.astimezone(tz).strftime("%Y-%m-%dT%H:%M:%S"))
    page.select_option("#device", "laptop")
    page.click("form.range button[type=submit]")
    page.wait_for_url("**/privacy/delete?*")
    heading = page.locator("#erase-h").inner_text()
    assert heading.endswith("records will be erased:")
    tab.shot("delete-confirm")
    page.click("form.confirm button[type=submit]")
    page.wait_for_url(re.compile(r"/privacy\?erased=\d+$"))
    assert (
        page.locator("p.ok[role=status]")
        .inner_text()
        .startswith(f"Erased {heading.split()[0]} records")
    )

    page = tab.open(f"/day/{DELETE_DAY}")
    blocks = page.locator("svg.track a.block")
    after_count = site.day_stats(DELETE_DAY, "episode_count")["value"]
    assert blocks.count() == after_count == before_count - 1
    starts = [e.ts_start for e in site.episodes(DELETE_DAY) if e.device_id == "laptop"]
    assert episode.ts_start not in starts
    assert tab.total() == before_total - round(episode.duration_s)
    tab.shot("day-after-delete")


def test_keyboard_moves_between_days_and_opens_and_closes_the_panel(tab: Tab) -> None:
    page = tab.open(f"/day/{READ_DAY}")
    page.keyboard.press("ArrowRight")
    page.wait_for_url(f"**/day/{READ_DAY + timedelta(days=1)}")
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(f"**/day/{READ_DAY}")
    for _ in range(40):  # Tab from the top of the page reaches the first block
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('block')"):
            break
    focused = page.evaluate("document.activeElement.id")
    assert focused.startswith("ep-")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/day/{READ_DAY}?episode={focused[3:]}#panel")
    assert page.evaluate("document.activeElement.id") == "panel"
    tab.shot("keyboard-panel")
    page.keyboard.press("Escape")
    page.wait_for_url(f"**/day/{READ_DAY}#{focused}")
    assert page.locator("#panel").count() == 0
    assert page.evaluate("document.activeElement.id") == focused


def test_asking_in_chinese_and_english_streams_the_steps_and_the_answer(tab: Tab) -> None:
    """The Ask page posts to the agent's chat with the session and shows its stream; with
    no chat model configured, the offline answerer replies."""
    site = tab.site
    page = tab.open("/ask")
    asked = [
        (
            f"{READ_DAY.year}年{READ_DAY.month}月{READ_DAY.day}日工作了多少小时？",
            "work",
            "{h} 小时",
        ),
        (
            f"How many hours of entertainment on {READ_DAY}?",
            "entertainment",
            "{h} hours of entertainment",
        ),
    ]
    for n, (question, category, phrase) in enumerate(asked):
        page.fill("#question", question)
        page.keyboard.press("Enter")
        turn = page.locator("#turns article.turn.done").nth(n)
        turn.wait_for()
        assert turn.locator(".question").inner_text() == question
        (step,) = turn.locator("ol.steps li").all_inner_texts()
        assert re.fullmatch(r'Called query_stats \{"metric":.*\} · \d+ tokens read', step), step
        hours = site.day_stats(READ_DAY, "seconds_by_category", category=category)["items"][0]
        assert hours["seconds"] > 0
        assert phrase.format(h=hours["hours"]) in turn.locator(".answer").inner_text()
        assert turn.locator(".status").inner_text().startswith("Done (offline) · tools called: 1")
        assert turn.get_attribute("data-turn") == str(n + 1)
    # One conversation, continued by its id: the address names it, a reload shows both turns.
    conversation = int(re.findall(r"/ask\?conversation=(\d+)$", page.url)[0])
    turns = site.services.store.conversation_turns(
        user_id=site.user.user_id, conversation_id=conversation
    )
    assert [t.question for t in turns] == [q for q, _, _ in asked]
    tab.shot("ask")
    page.reload()
    assert page.locator("#turns article.turn .question").all_inner_texts() == [
        q for q, _, _ in asked
    ]


def test_a_chinese_browser_gets_the_chinese_ui_and_the_demo_sign_in_link_works(
    browser: Browser, site: Site, shots: Path
) -> None:
    context = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page = context.new_page()
    _watch(page, errors)
    # The link `timetrace demo --serve` prints: the token rides in the fragment.
    page.goto(f"{site.base}/signin?next=/day/{READ_DAY}#token={site.token}")
    page.wait_for_url(f"**/day/{READ_DAY}")
    assert "#token" not in page.url
    assert page.locator("h1").inner_text() == "2003年3月5日 周三"
    assert page.locator("#totals-h").inner_text() == "各类别时长"
    assert page.locator("nav a[href='/ask']").inner_text() == "提问"
    page.screenshot(path=shots / "day-zh.png", full_page=True)
    page.click("text=English")
    page.wait_for_url(f"**/day/{READ_DAY}")
    assert page.locator("#totals-h").inner_text() == "Time by category"
    context.close()
    assert errors == []
