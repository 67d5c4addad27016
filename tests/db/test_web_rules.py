"""The Rules page without a browser: the change form previews before it saves, a save
needs the session's CSRF token, edits, moves and deletes go through the same preview,
and bad input is a 4xx page with its message."""

from __future__ import annotations

import re
from html import unescape

import pytest

from app.runtime.services import Services
from tests.db.test_web import Browser
from tests.helpers import SAMPLE_MONTH, Preloaded

pytestmark = pytest.mark.preloaded(SAMPLE_MONTH)
EFFECT = re.compile(r'id="rule-effect" role="status" data-seconds="([\d.]+)"')


def test_the_rules_page_previews_saves_edits_moves_and_deletes(
    services: Services, preloaded: Preloaded
) -> None:
    web = Browser(services, preloaded.user)
    csrf = web.sign_in()
    assert "No rules of your own yet" in web.client.get("/rules").text

    form = {
        "op": "add",
        "kind": "site",
        "pattern": "https://www.github.com/acme",
        "category": "study",
    }
    shown = web.client.get("/rules/change", params=form)
    assert shown.status_code == 200
    assert 'value="github.com"' in shown.text  # named as the rules name it
    seconds = float(EFFECT.search(shown.text).group(1))  # type: ignore[union-attr]
    assert seconds > 0
    assert web.client.post("/rules/change", data=form).status_code == 403  # no CSRF token
    saved = web.client.post("/rules/change", data={**form, "csrf": csrf})
    assert saved.status_code == 303 and re.fullmatch(
        r"/rules\?days=\d+&rebuilt=1", saved.headers["location"]
    )
    page = web.client.get(saved.headers["location"]).text
    assert "Saved: " in page and 'data-pattern="github.com"' in page
    (site_id,) = re.findall(r'data-rule="(\d+)"', page)

    app = {"op": "add", "kind": "app", "pattern": "iTerm2", "category": "study", "csrf": csrf}
    assert web.client.post("/rules/change", data=app).status_code == 303
    ids = re.findall(r'data-rule="(\d+)"', web.client.get("/rules").text)
    assert ids[0] == site_id and len(ids) == 2
    moved = web.client.post(f"/rules/{ids[1]}/move", data={"position": "1", "csrf": csrf})
    assert moved.status_code == 303
    assert re.findall(r'data-rule="(\d+)"', web.client.get("/rules").text) == [ids[1], site_id]

    edit = web.client.get("/rules/change", params={"op": "edit", "id": site_id, "category": "work"})
    assert edit.status_code == 200 and 'value="github.com"' in edit.text
    done = web.client.post(
        "/rules/change",
        data={"op": "edit", "id": site_id, "kind": "site", "pattern": "github.com",
              "category": "work", "csrf": csrf},
    )  # fmt: skip
    assert done.status_code == 303
    assert 'data-category="work"' in web.client.get("/rules").text
    delete = web.client.get("/rules/change", params={"op": "delete", "id": site_id})
    assert delete.status_code == 200 and "Delete and re-categorise" in delete.text
    web.client.post("/rules/change", data={"op": "delete", "id": site_id, "csrf": csrf})
    assert re.findall(r'data-rule="(\d+)"', web.client.get("/rules").text) == [ids[1]]

    # 4xx with the message.
    gone = web.client.get("/rules/change", params={"op": "delete", "id": "999999"})
    assert gone.status_code == 404
    bad_site = {"op": "add", "kind": "site", "pattern": "no site", "category": "work"}
    bad = web.client.get("/rules/change", params=bad_site)
    assert bad.status_code == 422 and "is not a site" in unescape(bad.text)
    assert web.client.get("/rules/change", params={"op": "rename"}).status_code == 422
    no_position = web.client.post(f"/rules/{ids[1]}/move", data={"position": "x", "csrf": csrf})
    assert no_position.status_code == 422
    zh = web.client.get("/rules", headers={"Accept-Language": "zh-CN"}).text
    assert "我的分类规则" in zh
