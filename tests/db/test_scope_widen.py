"""A denied scope cannot be widened by any argument: an explicit app=, site=, thing=, a
period outside the token's dates, an instant outside its hours, and the ids of
out-of-scope episodes and records each answer exactly as the whole user's token answers
for a stretch with no activity at all (February 2003, before the sample month)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api import create_app
from app.runtime.auth import issue_token
from app.store.scope import parse_scope
from tests.agent_month import Month, month_fixture
from tests.scope_truth import ScopeTruth, scope_truth

month = month_fixture()

SCOPE = parse_scope(
    "read-only kinds=work hours=09:00-18:00 days=mon-fri sites=-bilibili.com "
    "dates=2003-03-10..2003-03-23"
)
MARCH = {"period": "custom", "date_from": "2003-03-01", "date_to": "2003-03-31"}
EMPTY = {"period": "custom", "date_from": "2003-02-01", "date_to": "2003-02-28"}
# Keys that say which period was asked, not what it held.
ASKED = {"from", "to", "from_", "date_from", "date_to", "ts_from", "ts_to", "at", "window"}


class Doors:
    def __init__(self, client: TestClient, scoped: str, whole: str) -> None:
        self.client, self.scoped, self.whole = client, scoped, whole

    def call(self, token: str, name: str, arguments: dict[str, Any]) -> tuple[int, Any]:
        reply = self.client.post(
            f"/api/v1/tools/{name}", json=arguments, headers={"Authorization": f"Bearer {token}"}
        )
        return reply.status_code, reply.json()


@pytest.fixture(scope="module")
def doors(month: Month) -> Iterator[Doors]:
    store, user_id = month.services.store, month.user.user_id
    scoped = issue_token(store, user_id=user_id, name="scoped", scope=SCOPE)
    whole = issue_token(store, user_id=user_id, name="whole")
    with TestClient(create_app(services=month.services)) as client:
        yield Doors(client, scoped, whole)


@pytest.fixture(scope="module")
def truth(month: Month) -> ScopeTruth:
    with month.services.store.pool.connection() as conn:  # type: ignore[attr-defined]
        return scope_truth(conn, user=month.user, scope=SCOPE)


def _sql(month: Month, query: str) -> Any:
    with month.services.store.pool.connection() as conn:  # type: ignore[attr-defined]
        return conn.execute(query, {"user_id": month.user.user_id}).fetchone()


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k not in ASKED}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _same_as_nothing(
    doors: Doors, name: str, scoped_args: dict[str, Any], empty_args: dict[str, Any]
) -> Any:
    status, scoped = doors.call(doors.scoped, name, scoped_args)
    empty_status, empty = doors.call(doors.whole, name, empty_args)
    assert (status, _plain(scoped)) == (empty_status, _plain(empty)), name
    return scoped


def test_the_scope_hides_a_real_part_of_the_month(doors: Doors, truth: ScopeTruth) -> None:
    status, whole = doors.call(doors.whole, "query_stats", MARCH)
    assert status == 200 and whole["total_seconds"] > truth.total + 3600 * 10
    status, scoped = doors.call(doors.scoped, "query_stats", MARCH)
    assert scoped["total_seconds"] == pytest.approx(truth.total, abs=1) and truth.total > 3600


def test_a_period_outside_the_dates_is_a_period_with_no_activity(doors: Doors) -> None:
    before = {"period": "custom", "date_from": "2003-03-01", "date_to": "2003-03-09"}
    for metric in ("seconds_by_category", "seconds_by_app", "seconds_by_site", "top_titles"):
        _same_as_nothing(
            doors, "query_stats", {**before, "metric": metric}, {**EMPTY, "metric": metric}
        )
    _same_as_nothing(doors, "get_episodes", before, EMPTY)
    _same_as_nothing(doors, "get_signals", before, EMPTY)


@pytest.mark.parametrize("name", ["bilibili", "bilibili.com", "entertainment"])
def test_a_denied_name_answers_as_a_name_with_no_time(
    doors: Doors, truth: ScopeTruth, name: str
) -> None:
    # "study": a kind the user has, with no in-scope time (the scope sees work only).
    key = "site" if "." in name else "thing"
    status, denied = doors.call(doors.scoped, "query_stats", {**MARCH, key: name})
    _, study = doors.call(doors.scoped, "query_stats", {**MARCH, "thing": "study"})
    assert status == 200 and denied["seconds"] == 0
    assert denied["window_active_seconds"] == pytest.approx(truth.total, abs=1)

    # A site's answer also splits its time into URL and title parts: zeros, as for any
    # site with no time; a kind's answer has no such parts.
    site_parts = ("from_url_s", "from_title_s")
    assert all(denied.get(k, 0) == 0 for k in site_parts)

    def shape(body: dict[str, Any]) -> dict[str, Any]:
        # computed_through_ts: how far the named thing's own records go.
        dropped = ("thing", "note", "computed_through_ts", *site_parts)
        return {k: v for k, v in body.items() if k not in dropped}

    assert shape(denied) == shape(study)
    assert denied["note"].endswith(": no time recorded in this period")


def test_an_app_seen_only_out_of_scope_answers_as_no_activity(
    doors: Doors, month: Month, truth: ScopeTruth
) -> None:
    row = _sql(
        month,
        "SELECT app, sum(duration_s) AS s FROM v_record_durations WHERE user_id = %(user_id)s "
        "GROUP BY app HAVING bool_and(category = 'entertainment') ORDER BY s DESC LIMIT 1",
    )
    assert row["app"] not in truth.seconds_by_app
    arguments = {"metric": "seconds_by_app", "app": row["app"]}
    status, scoped = doors.call(doors.scoped, "query_stats", {**MARCH, **arguments})
    assert status == 200 and scoped["items"] == [] and scoped["share"] == 0
    assert scoped["window_active_seconds"] == pytest.approx(truth.total, abs=1)
    # The whole user's token does see it.
    status, whole = doors.call(doors.whole, "query_stats", {**MARCH, **arguments})
    assert status == 200 and whole["items"], whole


def test_instants_outside_the_hours_are_instants_with_no_activity(doors: Doors) -> None:
    # Saturday 15 March, inside the dates but not a weekday; and a Wednesday evening.
    for ts_from, ts_to in (
        ("2003-03-15T15:00:00+08:00", "2003-03-15T17:00:00+08:00"),
        ("2003-03-12T19:00:00+08:00", "2003-03-12T21:00:00+08:00"),
    ):
        empty = {"ts_from": ts_from.replace("-03-", "-02-"), "ts_to": ts_to.replace("-03-", "-02-")}
        body = _same_as_nothing(doors, "get_raw", {"ts_from": ts_from, "ts_to": ts_to}, empty)
        assert body.get("items") == [], body
        _, whole = doors.call(doors.whole, "get_raw", {"ts_from": ts_from, "ts_to": ts_to})
        assert whole["items"], (ts_from, "the whole user has records then")
    # An instant outside the hours: nothing covers it; its neighbours are in-scope records.
    status, moment = doors.call(doors.scoped, "get_moment", {"at": "2003-03-15T15:00:00+08:00"})
    assert status == 200 and moment["note"].startswith("no record covers that instant")
    for item in moment["items"]:
        assert item["covering"] is None
        assert {r["category"] for r in item["before"] + item["after"]} <= {"work"}


def test_an_out_of_scope_episode_id_is_an_id_that_does_not_exist(
    doors: Doors, month: Month
) -> None:
    hidden = _sql(
        month,
        "SELECT episode_id FROM episodes WHERE user_id = %(user_id)s "
        "AND category = 'entertainment' ORDER BY episode_id LIMIT 1",
    )["episode_id"]
    missing = _sql(month, "SELECT max(episode_id) + 1000 AS id FROM episodes")["id"]
    status, whole = doors.call(doors.whole, "get_episode", {"id": hidden})
    assert status == 200 and whole["episode"]["title"], whole
    _, scoped = doors.call(doors.scoped, "get_episode", {"id": hidden})
    _, nothing = doors.call(doors.whole, "get_episode", {"id": missing})
    assert scoped == {**nothing, "error": nothing["error"].replace(str(missing), str(hidden))}


def test_an_out_of_scope_record_id_is_refused_as_any_write(doors: Doors, month: Month) -> None:
    ids = {
        kind: _sql(
            month,
            f"SELECT record_id FROM records WHERE user_id = %(user_id)s AND category = '{kind}' "
            "ORDER BY record_id LIMIT 1",
        )["record_id"]
        for kind in ("entertainment", "work")
    }
    answers = []
    for record_id in ids.values():
        status, body = doors.call(
            doors.scoped, "apply_label", {"target": "record", "id": record_id, "category": "study"}
        )
        assert status == 403 and body["forbidden"] is True
        answers.append(body)
    assert answers[0] == answers[1]  # nothing tells a hidden record from a seen one


def test_search_for_an_out_of_scope_title_finds_what_nothing_finds(
    doors: Doors, truth: ScopeTruth
) -> None:
    title = next(t for t in sorted(truth.hidden) if "bilibili" in t and "/" not in t)
    scoped_args = {"query": title, "date_from": "2003-03-01", "date_to": "2003-03-31"}
    body = _same_as_nothing(
        doors,
        "search_episodes",
        scoped_args,
        {**scoped_args, "date_from": "2003-02-01", "date_to": "2003-02-28"},
    )
    assert title not in str(body)
