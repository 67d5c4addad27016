"""A user's own rules at the boundary: a pattern PostgreSQL could not hold is a 4xx with
its message at every door (HTTP, its preview, the web form), and a user keeps at most
`RULES_MAX` rules (app/rules/user.py), which ingest and the history's preview match in
one pass."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from app.rules.user import RULES_MAX
from app.rules.user_match import RuleSet, UserRule, first_match
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


# Patterns and records chosen to sit on the edges of each reading: case, `*`, parents of
# a domain, the characters LIKE and regular expressions give a meaning to, CJK.
PATTERNS = {
    "app": ["Slack", "slack", "Visual Studio Code", "Git"],
    "site": ["github.com", "com", "y.com", "x.y.com", "b.c", "zhihu.com"],
    "title": ["ab*c", "git", "标*题", "a.b%c_d", "e.g.", "(x)", "[y]", "a\\b", "s*l*a", "e"],
    # ActivityWatch's classes (migration 0034): searched in the app and the title.
    "regex": ["Slack|Zoom", "(?i)github", "^Git$", "标.的", "\\(x\\)", "code"],
}
TEXTS = [
    ("Slack", "https://app.slack.com/x", "general - Acme - Slack"),
    ("Visual Studio Code", None, "main.py — GitHub Actions"),
    ("Firefox", "https://x.y.com/p", "标准的标题 (x) e.g. [y]"),
    ("Firefox", "https://a.b.c/", "a.b%c_d a\\b ABC"),
    ("Git", None, ""),
    ("Zhihu", "https://www.zhihu.com/q", "知乎 - 有问题"),
]


def test_one_pass_finds_the_first_rule_as_trying_each_does(services: Services, conn: Any) -> None:
    """The compiled matcher ingest uses (`RuleSet`) and the database's one pass
    (`timetrace_user_rule_firsts_v1`) give, for every record, the rule that trying each
    rule in order (`first_match`, `timetrace_user_rule_matches`) gives."""
    api = make_api(services, devices=("laptop",))
    start = datetime(2003, 5, 1, 9, tzinfo=UTC)
    got = api.ingest(
        "laptop",
        [
            {"client_record_id": f"t{i}", "ts_start": (start + timedelta(minutes=i)).isoformat(),
             "app": app, "window_title": title} | ({"url": url} if url else {})
            for i, (app, url, title) in enumerate(TEXTS)
        ],
    )  # fmt: skip
    assert got.status_code < 300, got.text
    user = api.user.user_id
    texts = conn.execute(
        "SELECT DISTINCT app, domain, window_title FROM records WHERE user_id = %s", [user]
    ).fetchall()
    assert len(texts) == len(TEXTS)
    pool = [(kind, p) for kind, patterns in PATTERNS.items() for p in patterns]
    rng = random.Random(7)
    named: set[str] = set()  # the kinds of rule found first, over all trials
    for trial in range(40):
        chosen = rng.sample(pool, rng.randint(1, len(pool)))
        conn.execute("DELETE FROM user_rules WHERE user_id = %s", [user])
        rules = [
            UserRule(rule_id=int(conn.execute(
                "INSERT INTO user_rules (user_id, position, kind, pattern, category)"
                " VALUES (%s, %s, %s, %s, 'work') RETURNING rule_id", [user, n, kind, p],
            ).fetchone()["rule_id"]), kind=kind, pattern=p, category="work")  # type: ignore[arg-type]
            for n, (kind, p) in enumerate(chosen, start=1)
        ]  # fmt: skip
        compiled = RuleSet(rules)
        in_sql = {
            (r["app"], r["domain"], r["window_title"]): r["rule_id"]
            for r in conn.execute("SELECT * FROM timetrace_user_rule_firsts_v1(%s)", [user])
        }
        for t in texts:
            app, domain, title = t["app"], t["domain"], t["window_title"]
            each = first_match(rules, app=app, domain=domain, title=title)
            one_by_one = conn.execute(
                "SELECT rule_id FROM user_rules u WHERE user_id = %s AND"
                " timetrace_user_rule_matches(kind, pattern, %s, %s, %s)"
                " ORDER BY position LIMIT 1",
                [user, app, domain, title],
            ).fetchone()
            expected = each.rule_id if each else None
            named |= {each.kind} if each else {"none"}
            assert (one_by_one["rule_id"] if one_by_one else None) == expected, (trial, t)
            found = compiled.first(app=app, domain=domain, title=title)
            assert (found.rule_id if found else None) == expected, (trial, t, chosen)
            assert in_sql.get((app, domain or "", title)) == expected, (trial, t, chosen)
    assert named == {"app", "site", "title", "regex", "none"}
