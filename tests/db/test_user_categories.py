"""The user's own category tree (migration 0034): a category made under a kind, rules
that name it, and every count by it held to SQL over the records; the tree edited
(moved to another kind, removed) re-categorises the history with the rules' own path."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from app.cli import main
from app.pyramid.build import backfill
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.timeutil import week_key
from app.tools import dispatch_json
from tests.db.test_coverage import _ingest
from tests.db.test_web import Browser
from tests.helpers import make_api

GAMES_COLOR = "#e4572e"


def _cli(env: dict[str, str], *args: str) -> Result:
    result = CliRunner().invoke(main, list(args), env=env)
    assert result.exit_code == 0, result.output
    return result


def _last_monday() -> date:
    today = datetime.now(UTC).date()
    return today - timedelta(days=today.weekday() + 7)


def _sql_seconds(services: Services, user: UserContext, where: str) -> float:
    """Seconds of the user's last-week records matching `where`, by the duration rule."""
    monday = _last_monday()
    with services.store.pool.connection() as conn:
        row = conn.execute(
            "SELECT COALESCE(sum(s.seconds), 0)::float8 AS s "
            "FROM timetrace_spans_v1(%(u)s, '-infinity', 'infinity') s "
            "LEFT JOIN user_rules r ON r.user_id = s.user_id "
            "  AND s.category_source = 'user:' || r.rule_id "
            "LEFT JOIN user_categories c ON c.user_id = r.user_id "
            "  AND c.category_id = r.category_id "
            f"WHERE s.day_local BETWEEN %(a)s AND %(b)s AND NOT s.is_idle AND {where}",
            {"u": user.user_id, "a": monday, "b": monday + timedelta(days=6)},
        ).fetchone()
    assert row is not None
    return float(row["s"])


def _stats(services: Services, user: UserContext, **args: Any) -> dict[str, Any]:
    ctx = services.tool_context(user=user, now=datetime.now(UTC))
    return dispatch_json(ctx, "query_stats", {"period": "last_week", **args})


def test_a_games_category_made_by_the_cli_counts_under_games_and_entertainment(
    services: Services, db_url: str, tmp_path: Path
) -> None:
    api = make_api(services, user_name="me", time_zone="UTC", devices=("desktop",))
    _ingest(api, datetime.combine(_last_monday(), datetime.min.time(), UTC) + timedelta(hours=9))
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path)}
    made = _cli(env, "category", "add", "Games", "--under", "entertainment", "--zh", "游戏",
                "--color", GAMES_COLOR)  # fmt: skip
    assert made.output.endswith("Games (entertainment)\n")
    added = _cli(env, "rules", "add", "app", "hades2", "games")
    assert "'hades2' → Games (entertainment)" in added.output
    # The preview counts the time that moves to Games, though its kind stays.
    assert added.output.startswith("Changes 0.67 h of history (1 records on 1 device-days)")
    before = _stats(services, api.user)["items"]

    games = _sql_seconds(services, api.user, "c.name = 'Games'")
    assert games == 2400  # hades2's 40 minutes
    by_user = _stats(services, api.user, metric="seconds_by_user_category")["items"]
    assert by_user == [
        {"category": "Games", "kind": "entertainment", "color": GAMES_COLOR,
         "seconds": 2400, "hours": 0.67}
    ]  # fmt: skip
    assert _stats(services, api.user, thing="游戏")["seconds"] == games
    assert _stats(services, api.user, thing="Games")["seconds"] == games
    ctx = services.tool_context(user=api.user, now=datetime.now(UTC))
    compared = dispatch_json(
        ctx, "compare", {"things": ["游戏", "entertainment"], "period": "last_week"}
    )
    fun = round(_sql_seconds(services, api.user, "s.category = 'entertainment'"))
    assert [i["seconds"] for i in compared["items"]] == [games, fun]
    with services.store.pool.connection() as conn:
        view = conn.execute(
            "SELECT sum(seconds)::float8 AS s FROM v_day_user_category_hours WHERE path = 'Games'"
        ).fetchone()
    assert view is not None and view["s"] == games
    by_kind = {i["category"]: i["seconds"] for i in before}
    assert by_kind["entertainment"] == round(
        _sql_seconds(services, api.user, "s.category = 'entertainment'")
    )
    assert by_kind["entertainment"] >= games

    # Moved under work: its records are work now, the history rebuilt.
    _cli(env, "category", "move", "Games", "work")
    after = {i["category"]: i["seconds"] for i in _stats(services, api.user)["items"]}
    assert after["work"] == by_kind["work"] + games
    assert after.get("entertainment", 0) == by_kind["entertainment"] - games
    # Removed: its rule names only its kind, and nothing counts under Games.
    _cli(env, "category", "remove", "Games")
    assert _stats(services, api.user, metric="seconds_by_user_category")["items"] == []
    listed = _cli(env, "rules", "list").output
    assert "'hades2' → work" in listed


def _digest_games(services: Services, user: UserContext, games_id: int) -> float:
    monday = _last_monday()
    days = services.store.day_digests(
        user_id=user.user_id, day_from=monday, day_to=monday + timedelta(days=6)
    )
    return sum(d.metrics.get("seconds_by_user_category", {}).get(str(games_id), 0.0) for d in days)


def test_a_games_category_made_on_the_rules_page_counts_everywhere_and_answers_asking(
    services: Services,
) -> None:
    api = make_api(services, user_name="me", time_zone="UTC", devices=("desktop",))
    _ingest(api, datetime.combine(_last_monday(), datetime.min.time(), UTC) + timedelta(hours=9))
    backfill(services.store, now=datetime.now(UTC), settings=services.settings)
    web = Browser(services, api.user)
    csrf = web.sign_in()
    made = web.client.post(
        "/rules/categories",
        data={"name": "Games", "name_zh": "游戏", "color": GAMES_COLOR,
              "under": "entertainment", "csrf": csrf},
    )  # fmt: skip
    assert made.status_code == 303, made.text
    page = web.client.get(made.headers["location"]).text
    (games_id,) = re.findall(r'data-category="(\d+)" data-kind="entertainment"', page)
    rule = {"op": "add", "kind": "app", "pattern": "hades2", "category": f"#{games_id}"}
    assert web.client.post("/rules/change", data={**rule, "csrf": csrf}).status_code == 303
    assert f'data-user-category="{games_id}">Games<' in web.client.get("/rules").text
    taken = web.client.post(
        "/rules/categories", data={"name": "games", "under": "work", "csrf": csrf}
    )
    assert taken.status_code == 422 and "is there already" in taken.text

    games = _sql_seconds(services, api.user, "c.name = 'Games'")
    fun = _sql_seconds(services, api.user, "s.category = 'entertainment'")
    assert games == 2400 and fun >= games
    by_user = _stats(services, api.user, metric="seconds_by_user_category")["items"]
    assert [(i["category"], i["seconds"]) for i in by_user] == [("Games", games)]
    by_kind = {i["category"]: i["seconds"] for i in _stats(services, api.user)["items"]}
    assert by_kind["entertainment"] == round(fun)
    assert _digest_games(services, api.user, int(games_id)) == games

    # The week page: a row of Games, in its colour, with its seconds.
    week = web.client.get(f"/week/{week_key(_last_monday())}").text
    row = re.search(r'<tr data-user-category="Games" data-kind="entertainment" '
                    r'data-seconds="(\d+)">.*?data-color="([^"]+)"', week)  # fmt: skip
    assert row is not None and (int(row.group(1)), row.group(2)) == (games, GAMES_COLOR)

    # Asking through the OpenAI-compatible door, with no model.
    for question in ("how much did I game last week", "上周打游戏多久"):
        reply = api.client.post(
            "/v1/chat/completions",
            json={"model": "timetrace", "messages": [{"role": "user", "content": question}]},
            headers=api.auth,
        )
        assert reply.status_code == 200, reply.text
        text = reply.json()["choices"][0]["message"]["content"]
        assert "(0.67 h)" in text and "Games" in text, text

    # The HTTP API names a category of the user's as the CLI and the page do.
    made_rule = api.client.post(
        "/api/v1/rules",
        json={"kind": "title", "pattern": "Acme Wiki", "category": "游戏"},
        headers=api.auth,
    )
    assert made_rule.status_code == 201, made_rule.text
    (wiki,) = [r for r in made_rule.json()["rules"] if r["pattern"] == "Acme Wiki"]
    assert (wiki["category"], wiki["category_id"]) == ("entertainment", int(games_id))
    unknown = api.client.post(
        "/api/v1/rules",
        json={"kind": "title", "pattern": "Acme Wiki", "category": "Chess"},
        headers=api.auth,
    )
    assert unknown.status_code == 422 and "Chess" in unknown.text
