"""Follow-ups keep their context, in both languages and through both doors that carry
a conversation: a question that names only a period or a thing reuses the previous
turn's tool and arguments and changes only what it names."""

from __future__ import annotations

from datetime import date

import pytest
from fastapi.testclient import TestClient

from app.agent.followups import effective_question, is_followup
from app.agent.intents import parse_intent
from app.api import create_app
from app.runtime.auth import hash_token, new_token
from tests.agent_month import Month, month_fixture
from tests.helpers import events_of

TODAY = date(2026, 6, 17)
month = month_fixture()


@pytest.mark.parametrize(
    ("earlier", "question", "meant"),
    [
        (["上周娱乐花了多少小时？"], "那上个月呢？", "上个月娱乐花了多少小时？"),
        (["昨天YouTube看了多久"], "那B站呢", "昨天B站看了多久"),
        (["上周工作了多久"], "学习呢", "上周学习了多久"),
        (["我上次用Zoom是什么时候"], "那飞书呢？", "我上次用飞书是什么时候"),
        (["这周Steam玩了多久", "那昨天呢"], "上周呢？", "上周Steam玩了多久"),
        (
            ["how many hours of entertainment last week?"],
            "and last month?",
            "how many hours of entertainment last month?",
        ),
        (
            ["how long was I in Zoom yesterday"],
            "what about Slack?",
            "how long was I in Slack yesterday",
        ),
        (
            ["compare Slack and Zoom yesterday"],
            "and last week?",
            "compare Slack and Zoom last week",
        ),
        (["when did I last use Steam"], "what about Spotify?", "when did I last use Spotify"),
    ],
)
def test_a_follow_up_is_the_previous_question_with_what_it_names_swapped(
    earlier: list[str], question: str, meant: str
) -> None:
    assert is_followup(question, today=TODAY)
    assert effective_question(question, earlier, today=TODAY) == meant


def test_a_follow_up_keeps_the_tool_and_changes_only_the_period() -> None:
    first = parse_intent("上周娱乐花了多少小时？", today=TODAY)
    then = parse_intent(
        effective_question("那上个月呢？", ["上周娱乐花了多少小时？"], today=TODAY), today=TODAY
    )
    assert (then.tool, then.arguments) == (first.tool, {**first.arguments, "period": "last_month"})


def test_a_question_of_its_own_is_no_follow_up() -> None:
    for question in (
        "那昨天工作了多少小时？",
        "and how many hours of study yesterday?",
        "上周呢 哪几天玩了Steam",
    ):
        assert not is_followup(question, today=TODAY)
        assert effective_question(question, ["上周娱乐花了多少小时？"], today=TODAY) == question


def _token(month: Month) -> str:
    token = new_token()
    month.services.store.add_token(
        user_id=month.user.user_id, token_hash=hash_token(token), name="test"
    )
    return token


def _hours(month: Month, day: date, category: str) -> str:
    return str(round(month.data.seconds[(day, category)] / 3600, 2))


def test_the_openai_door_answers_a_follow_up_from_the_messages_before_it(month: Month) -> None:
    client = TestClient(create_app(services=month.services))
    headers = {"Authorization": f"Bearer {_token(month)}"}
    first_q = "How many hours of work on March 12, 2003?"

    def ask(messages: list[dict[str, str]]) -> dict[str, object]:
        reply = client.post(
            "/v1/chat/completions",
            json={"model": "timetrace", "messages": messages},
            headers=headers,
        )
        assert reply.status_code == 200, reply.text
        body: dict[str, object] = reply.json()
        return body

    first = ask([{"role": "user", "content": first_q}])
    answer = first["choices"][0]["message"]["content"]  # type: ignore[index]
    assert _hours(month, date(2003, 3, 12), "work") in answer
    messages = [
        {"role": "user", "content": first_q},
        {"role": "assistant", "content": answer},
        {"role": "user", "content": "and what about social?"},
    ]
    then = ask(messages)
    text = then["choices"][0]["message"]["content"]  # type: ignore[index]
    assert then["timetrace"]["tools_called"] == ["query_stats"]  # type: ignore[index]
    assert _hours(month, date(2003, 3, 12), "social") in text and "social" in text


def test_the_sse_chat_answers_a_follow_up_from_the_stored_conversation(month: Month) -> None:
    client = TestClient(create_app(services=month.services))
    headers = {"Authorization": f"Bearer {_token(month)}"}
    first = client.post(
        "/api/v1/agent/chat", json={"question": "2003年3月12日工作了多少小时？"}, headers=headers
    )
    done = events_of(first.text)[-1][1]
    assert f"{_hours(month, date(2003, 3, 12), 'work')} 小时" in done["answer"]
    then = client.post(
        "/api/v1/agent/chat",
        json={"question": "那2003年3月13日呢？", "conversation_id": done["conversation_id"]},
        headers=headers,
    )
    events = events_of(then.text)
    call = next(e for k, e in events if k == "step" and e["phase"] == "call")
    assert call["tool"] == "query_stats"
    assert call["arguments"] == {
        "metric": "seconds_by_category",
        "period": "custom",
        "date_from": "2003-03-13",
        "date_to": "2003-03-13",
        "category": "work",
    }
    assert f"{_hours(month, date(2003, 3, 13), 'work')} 小时" in events[-1][1]["answer"]
