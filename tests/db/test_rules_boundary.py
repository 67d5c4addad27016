"""A user's own rules at the boundary: a pattern PostgreSQL could not hold is a 4xx with
its message at every door (HTTP, its preview, the web form), and a user keeps at most
`RULES_MAX` rules (app/rules/user.py)."""

from __future__ import annotations

from typing import Any

from app.rules.user import RULES_MAX
from app.runtime.services import Services
from tests.db.test_web import Browser
from tests.helpers import make_api

NUL = {"kind": "title", "pattern": "stand\x00up", "category": "work"}


def _rule_count(conn: Any, user_id: int) -> int:
    row = conn.execute("SELECT count(*) AS n FROM user_rules WHERE user_id = %s", [user_id])
    return int(row.fetchone()["n"])


def test_a_nul_in_a_pattern_is_a_4xx_at_every_door(services: Services, conn: Any) -> None:
    api = make_api(services, devices=("laptop",))
    for path in ("/api/v1/rules/preview", "/api/v1/rules"):
        got = api.post(path, NUL)
        assert got.status_code == 422, (path, got.status_code, got.text)
        assert "NUL" in got.text, got.text
    made = api.post("/api/v1/rules", {"kind": "app", "pattern": "Slack", "category": "work"})
    assert made.status_code == 201, made.text
    rule_id = made.json()["rules"][0]["rule_id"]
    patched = api.client.patch(
        f"/api/v1/rules/{rule_id}", json={"pattern": "Sl\x00ack"}, headers=api.auth
    )
    assert patched.status_code == 422 and "NUL" in patched.text, patched.text

    web = Browser(services, api.user)
    csrf = web.sign_in()
    shown = web.client.get("/rules/change", params={"op": "add", **NUL})
    assert shown.status_code == 422 and "NUL" in shown.text, shown.status_code
    posted = web.client.post("/rules/change", data={"op": "add", **NUL, "csrf": csrf})
    assert posted.status_code == 422 and "NUL" in posted.text, posted.status_code
    assert _rule_count(conn, api.user.user_id) == 1


def test_a_user_keeps_at_most_the_cap_of_rules(services: Services, conn: Any) -> None:
    api = make_api(services, devices=("laptop",))
    conn.execute(
        "INSERT INTO user_rules (user_id, position, kind, pattern, category)"
        " SELECT %s, n, 'title', 'filler ' || n, 'work' FROM generate_series(1, %s) AS n",
        [api.user.user_id, RULES_MAX],
    )
    one_more = {"kind": "app", "pattern": "Slack", "category": "work"}
    for path in ("/api/v1/rules/preview", "/api/v1/rules"):
        got = api.post(path, one_more)
        assert got.status_code == 422, (path, got.status_code, got.text)
        assert f"at most {RULES_MAX:,} rules" in got.text, got.text
    assert _rule_count(conn, api.user.user_id) == RULES_MAX
    # At the cap, a rule can still be changed (the count stays), and an existing
    # pattern added again only takes the new category.
    again = api.post("/api/v1/rules", {"kind": "title", "pattern": "filler 7", "category": "study"})
    assert again.status_code == 201, again.text
    assert _rule_count(conn, api.user.user_id) == RULES_MAX
