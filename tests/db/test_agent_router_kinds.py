"""The router (LLM) path for each new kind of question, with the scripted model
server: the prompt and the tools list the agent sends steer to the new tools, the
scripted model's call round-trips through the registry, and what the model is sent
back equals SQL over the records layer.

The scripted model picks the tool (it is a script, not a model): what these tests
pin is everything around that choice."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from psycopg import Connection

from app.agent import ask
from app.db.connection import connect
from tests.agent_month import NOW, Month, month_fixture
from tests.fake_openai import FakeOpenAI, call, say, tool_results
from tests.helpers import with_models

month = month_fixture()
ZONE = ZoneInfo("Asia/Shanghai")
LAST_WEEK = (date(2003, 3, 24), date(2003, 3, 30))
MARCH = (date(2003, 3, 1), date(2003, 3, 31))
Check = Callable[["Sql", dict[str, Any]], None]


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


class Sql:
    def __init__(self, conn: Connection[Any], user_id: int) -> None:
        self.conn, self.user_id = conn, user_id

    def rows(self, query: str, *params: Any) -> list[dict[str, Any]]:
        return list(self.conn.execute(query, [self.user_id, *params]).fetchall())

    def seconds(self, where: str, first: date, last: date, *params: Any) -> int:
        row = self.rows(
            "SELECT coalesce(sum(duration_s), 0) AS s FROM v_record_durations WHERE user_id = %s "
            f"AND day_local BETWEEN %s AND %s AND {where}",
            first,
            last,
            *params,
        )[0]
        return round(row["s"])


def app_seconds(app: str, first: date, last: date) -> Check:
    def check(sql: Sql, result: dict[str, Any]) -> None:
        assert result["thing"]["name"] == app or app in result["thing"].get("apps", [])
        assert result["seconds"] == sql.seconds("NOT is_idle AND app = %s", first, last, app)

    return check


def idle_seconds(first: date, last: date) -> Check:
    def check(sql: Sql, result: dict[str, Any]) -> None:
        assert result["thing"]["kind"] == "idle"
        assert result["seconds"] == sql.seconds("is_idle", first, last)

    return check


def site_seconds(domain: str) -> Check:
    def check(sql: Sql, result: dict[str, Any]) -> None:
        assert (result["thing"]["kind"], result["thing"]["name"]) == ("site", domain)
        by_url = sql.seconds("NOT is_idle AND domain = %s", *LAST_WEEK, domain)
        assert result["seconds"] >= by_url > 0  # by URL, and by title where there is none

    return check


def compared(apps: list[str], first: date, last: date) -> Check:
    def check(sql: Sql, result: dict[str, Any]) -> None:
        got = [i["seconds"] for i in result["items"]]
        want = [sql.seconds("NOT is_idle AND app = %s", first, last, a) for a in apps]
        assert got == want and all(want)

    return check


def last_seen(app: str) -> Check:
    def check(sql: Sql, result: dict[str, Any]) -> None:
        newest = sql.rows(
            "SELECT max(ts_start) AS t FROM records WHERE user_id = %s AND app = %s "
            "AND deleted_at IS NULL",
            app,
        )[0]["t"]
        assert result["found"] and result["at"] == f"{newest.astimezone(ZONE):%Y-%m-%d %H:%M}"

    return check


def days_with(app: str, first: date, last: date) -> Check:
    def check(sql: Sql, result: dict[str, Any]) -> None:
        days = sql.rows(
            "SELECT day_local FROM v_record_durations WHERE user_id = %s AND app = %s "
            "AND NOT is_idle AND day_local BETWEEN %s AND %s GROUP BY day_local "
            "HAVING sum(duration_s) >= 60 ORDER BY day_local",
            app,
            first,
            last,
        )
        assert [i["day"] for i in result["items"]] == [r["day_local"].isoformat() for r in days]
        assert result["count"] == len(days) > 0

    return check


def signal_days(kind: str, first: date, last: date) -> Check:
    def check(sql: Sql, result: dict[str, Any]) -> None:
        days = sql.rows(
            "SELECT DISTINCT day_local FROM signals WHERE user_id = %s AND kind = %s "
            "AND day_local BETWEEN %s AND %s ORDER BY day_local",
            kind,
            first,
            last,
        )
        assert [i["day"] for i in result["items"]] == [r["day_local"].isoformat() for r in days]
        assert days

    return check


def moment(at: datetime) -> Check:
    def check(sql: Sql, result: dict[str, Any]) -> None:
        covering = sql.rows(
            "SELECT DISTINCT app FROM v_record_durations WHERE user_id = %s AND ts_start <= %s "
            "AND ts_start + make_interval(secs => duration_s) > %s",
            at,
            at,
        )
        got = {i["covering"]["app"] for i in result["items"] if i.get("covering")}
        assert got == {r["app"] for r in covering} and got

    return check


@dataclass(frozen=True, slots=True)
class Kind:
    name: str
    question: str
    tool: str
    arguments: dict[str, Any]
    check: Check


def _iso(first: date, last: date) -> dict[str, str]:
    return {"period": "custom", "date_from": first.isoformat(), "date_to": last.isoformat()}


AT = datetime(2003, 3, 12, 14, 30, tzinfo=ZONE)
KINDS = [
    Kind(
        "app by nickname",
        "How long was I in VS Code last week?",
        "query_stats",
        {"thing": "VS Code", "period": "last_week"},
        app_seconds("Visual Studio Code", *LAST_WEEK),
    ),
    Kind(
        "site inside a browser",
        "上周B站看了多久？",
        "query_stats",
        {"thing": "B站", "period": "last_week"},
        site_seconds("bilibili.com"),
    ),
    Kind(
        "idle",
        "上周离开电脑多久？",
        "query_stats",
        {"thing": "离开电脑", "period": "last_week"},
        idle_seconds(*LAST_WEEK),
    ),
    Kind(
        "comparison",
        "Slack or Zoom: which did I use more last week?",
        "compare",
        {"things": ["Slack", "Zoom"], "period": "last_week"},
        compared(["Slack", "Zoom"], *LAST_WEEK),
    ),
    Kind(
        "分别",
        "上周微信和飞书分别用了多久？",
        "compare",
        {"things": ["微信", "飞书"], "period": "last_week"},
        compared(["微信", "飞书"], *LAST_WEEK),
    ),
    Kind(
        "when did I last",
        "When did I last play Steam?",
        "last_seen",
        {"thing": "Steam"},
        last_seen("Steam"),
    ),
    Kind(
        "how many days",
        "这个月有几天玩了Steam？",
        "days_with",
        {"thing": "Steam", "period": "this_month", "min_minutes": 1},
        days_with("Steam", *MARCH),
    ),
    Kind(
        "habits by day",
        "Which days this month did I stay up late?",
        "get_signals",
        {"period": "this_month", "kinds": ["late_night"], "by_day": True},
        signal_days("late_night", *MARCH),
    ),
    Kind(
        "the moment",
        "3月12日下午2点半屏幕上是什么？",
        "get_moment",
        {"at": AT.isoformat()},
        moment(AT),
    ),
]


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_the_router_is_steered_to_the_new_tool_and_its_call_round_trips(
    month: Month, fake: FakeOpenAI, kind: Kind
) -> None:
    seen: list[dict[str, Any]] = []

    def answer(messages: list[dict[str, Any]]) -> dict[str, Any]:
        seen.append(tool_results(messages)[-1])
        return say("见上。" if "？" in kind.question else "See above.")

    fake.script = [call(kind.tool, **kind.arguments), answer]
    services, _ = with_models(month.services, fake)
    done = ask(
        ctx=services.tool_context(user=month.user, now=NOW),
        question=kind.question,
        history=[],
        emit=lambda _kind, _data: None,
        cancelled=lambda: False,
    )
    assert done["mode"] == "agent" and done["tools_called"] == [kind.tool]
    first = fake.requests[0]
    prompt = first["messages"][0]["content"]
    assert kind.tool in prompt  # the router prompt names the tool for this kind
    offered = {t["function"]["name"]: t["function"] for t in first["tools"]}
    schema = offered[kind.tool]["parameters"]["properties"]
    assert set(kind.arguments) <= set(schema)  # the arguments are the tool's own
    result = seen[0]
    assert "error" not in result, result
    with connect(month.services.url, settings=month.services.settings) as conn:
        kind.check(Sql(conn, month.user.user_id), result)
