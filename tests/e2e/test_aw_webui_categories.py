"""A category tree edited in aw-webui itself, in Chromium, becomes the user's tree in
TimeTrace: the door serves the vendored aw-webui build (tests/fixtures/aw-webui), a
scripted day is recorded through it, its Settings → Categories page renames one
category, moves another (and so its regex) under a new parent and removes a third, and
saves; the day's seconds per user category then move as the edit says, and equal SQL."""

from __future__ import annotations

from typing import Any

import httpx
from playwright.sync_api import Page

from app.awdoor.server import door_in_thread
from app.awdoor.webui import webui_folder
from app.pyramid.build import backfill
from app.pyramid.user_categories import tree_of
from app.runtime.services import Services
from tests.aw_real import ROOT
from tests.browser import chromium
from tests.db.test_aw_door_classes import (
    AFK,
    DAY_SCRIPT,
    FIRST,
    NOW,
    WINDOW,
    _beat,
    _counted,
    _paths,
)
from tests.e2e.test_aw_door_real import _caught_up
from tests.faults import wait_for

BUILD = ROOT / "tests" / "fixtures" / "aw-webui"
UI_TIMEOUT_MS = 60_000
# aw-webui's prompts kept out of the way.
QUIET = {
    "newReleaseCheckData": {"isEnabled": False},
    "userSatisfactionPollData": {"isEnabled": False},
    "uncategorizedNotificationData": {"isEnabled": False},
}


def _record_the_day(client: httpx.Client) -> None:
    for bucket_id, kind in ((WINDOW, "currentwindow"), (AFK, "afkstatus")):
        made = client.post(
            f"/api/0/buckets/{bucket_id}",
            json={"client": "aw-watcher", "type": kind, "hostname": "laptop"},
        )
        assert made.status_code == 200
    for first, last, data in DAY_SCRIPT:
        for second in range(first, last + 1, 5):
            _beat(client, WINDOW, second, data)
    for second in range(0, 1801, 60):
        _beat(client, AFK, second, {"status": "not-afk"}, pulse=61)


def _records(services: Services, user_id: int) -> int:
    with services.store.pool.connection() as conn:
        row = conn.execute(
            "SELECT count(*) AS n FROM records WHERE user_id = %(u)s AND app = 'Slack'"
            " AND window_title LIKE 'random%%'",
            {"u": user_id},
        ).fetchone()
    return int(row["n"]) if row else 0


def _edit(page: Page, shown: str, **change: str) -> None:
    """Open the edit dialog of the category shown as `shown` and change it: `name`,
    `parent` (a label of the parent list) or `remove`."""
    row = page.locator(".row.class", has_text=shown).first
    row.locator(".float-right button").first.click()
    dialog = page.locator(".modal-dialog")
    dialog.wait_for(state="visible", timeout=UI_TIMEOUT_MS)
    if "remove" in change:
        dialog.get_by_role("button", name="Remove").click()
    else:
        if "name" in change:
            dialog.locator("input.form-control").first.fill(change["name"])
        if "parent" in change:
            dialog.locator("select").first.select_option(label=change["parent"])
        dialog.get_by_role("button", name="OK").click()
    dialog.wait_for(state="hidden", timeout=UI_TIMEOUT_MS)


def test_a_tree_edited_in_aw_webui_moves_the_days_seconds_in_timetrace(
    services: Services,
) -> None:
    user = services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)
    with (
        door_in_thread(services, user=user, webui=webui_folder(BUILD), convert_every_s=0.2) as url,
        httpx.Client(base_url=url, timeout=30) as client,
        chromium() as browser,
    ):
        _record_the_day(client)
        assert wait_for(lambda: _records(services, user.user_id) > 0, timeout=30)
        # Built only once the door's conversion has caught up: a day built from half of
        # its records (the afk bucket not yet converted) counts them as another day would.
        with services.store.pool.connection() as conn:
            assert wait_for(lambda: _caught_up(conn), timeout=30, interval=0.1)
        for key, value in {**QUIET, "classes": FIRST}.items():
            assert client.post(f"/api/0/settings/{key}", json=value).status_code == 200
        backfill(services.store, now=NOW, settings=services.settings)
        before = _counted(services, user)

        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{url}/#/settings/categorization")
        page.locator(".row.class", has_text="Programming").wait_for(timeout=UI_TIMEOUT_MS)
        _edit(page, "Video", name="Clips")
        _edit(page, "IM", name="Chat", parent="Work")
        _edit(page, "Notes", remove="yes")
        saved: dict[str, Any] = {}
        with page.expect_response(
            lambda r: r.url.endswith("/api/0/settings/classes") and r.request.method == "POST"
        ) as answer:
            page.get_by_role("button", name="Save").last.click()
        saved["status"] = answer.value.status
        saved["sent"] = answer.value.request.post_data_json
        # aw-webui reads back its own tree, unchanged, and shows it after a reload.
        assert client.get("/api/0/settings/classes").json() == saved["sent"]
        page.reload()
        page.locator(".row.class", has_text="Clips").wait_for(timeout=UI_TIMEOUT_MS)
        assert page.locator(".row.class", has_text="Video").count() == 0
        assert errors == []
    assert saved["status"] == 200
    edited = saved["sent"]
    assert _paths(edited) == {
        "Work", "Work > Programming", "Work > Chat", "Media", "Media > Clips", "Comms",
    }  # fmt: skip
    tree = tree_of(services.store, user_id=user.user_id)
    assert {r.path for r in tree.rows} == _paths(edited)
    after = _counted(services, user)
    assert after == {
        "Work > Programming": before["Work > Programming"] + before["Work > Notes"],
        "Media > Clips": before["Media > Video"],
        "Work > Chat": before["Comms > IM"],
    }
