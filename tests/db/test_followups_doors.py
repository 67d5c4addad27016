"""Follow-ups through both doors that carry a conversation: the OpenAI-compatible door reads
the messages before the question, the SSE chat the stored conversation."""

from __future__ import annotations

from datetime import date

from fastapi.testclient import TestClient

from app.api import create_app
from app.runtime.auth import hash_token, new_token
from tests.agent_month import Month, month_fixture
from tests.helpers import events_of

month = month_fixture()


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
