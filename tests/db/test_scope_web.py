"""The account (privacy) page makes a scoped token and lists every token's scope."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.api import create_app
from app.runtime.auth import issue_token
from tests.agent_month import Month, month_fixture

month = month_fixture()

CSRF = re.compile(r'name="csrf" value="([^"]+)"')
TOKEN = re.compile(r"<code>(tt_[A-Za-z0-9_-]+)</code>")


def test_the_privacy_page_creates_a_scoped_token_and_shows_its_scope(month: Month) -> None:
    whole = issue_token(month.services.store, user_id=month.user.user_id, name="web")
    web = TestClient(create_app(services=month.services), follow_redirects=False)
    assert web.post("/signin", data={"token": whole, "next": "/privacy"}).status_code == 303
    csrf = CSRF.search(web.get("/privacy").text)
    assert csrf is not None
    made = web.post(
        "/privacy/tokens",
        data={
            "csrf": csrf.group(1),
            "name": "cursor",
            "scope": "read-only kinds=work days=mon-fri",
            "expires": "30d",
        },
    )
    assert made.status_code == 200
    secret = TOKEN.search(made.text)
    assert secret is not None
    assert "read-only kinds=work days=mon,tue,wed,thu,fri" in made.text
    api = TestClient(create_app(services=month.services))
    me = api.get("/api/v1/me", headers={"Authorization": f"Bearer {secret.group(1)}"}).json()
    assert me["scope"] == "read-only kinds=work days=mon,tue,wed,thu,fri"
    bad = web.post(
        "/privacy/tokens", data={"csrf": csrf.group(1), "name": "x", "scope": "days=someday"}
    )
    assert bad.status_code == 422 and "days" in bad.text
