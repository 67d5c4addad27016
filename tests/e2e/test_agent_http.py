"""Asking through the doors: the SSE chat (event order, conversations, isolation, a
client that goes away), the OpenAI-compatible door with the `openai` client against
a running server, and `timetrace ask`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from typing import Any

import httpx
import openai
import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from app.agent import active_runs
from app.api import create_app
from app.api.server import serve_in_thread
from app.cli import main
from app.runtime.auth import hash_token, new_token
from app.runtime.services import Services
from tests.agent_month import Month, month_fixture
from tests.fake_openai import FakeOpenAI, call, say
from tests.faults import wait_for
from tests.helpers import events_of, with_models

WORK_0312 = "2003年3月12日工作了多少小时？"


month = month_fixture()


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def token_for(services: Services, user_id: int) -> str:
    token = new_token()
    services.store.add_token(user_id=user_id, token_hash=hash_token(token), name="test")
    return token


def with_model(services: Services, fake: FakeOpenAI) -> Services:
    return with_models(services, fake)[0]


def work_hours(month: Month) -> str:
    return str(round(month.data.seconds[(date(2003, 3, 12), "work")] / 3600, 2))


def chat(client: TestClient, token: str, **body: Any) -> Any:
    return client.post(
        "/api/v1/agent/chat", json=body, headers={"Authorization": f"Bearer {token}"}
    )


# -- SSE -----------------------------------------------------------------------------------


def test_sse_events_without_a_model_come_in_order(month: Month) -> None:
    client = TestClient(create_app(services=month.services))
    reply = chat(client, token_for(month.services, month.user.user_id), question=WORK_0312)
    assert reply.status_code == 200 and reply.headers["content-type"].startswith(
        "text/event-stream"
    )
    events = events_of(reply.text)
    assert [k for k, _ in events] == ["step", "step", "token", "done"]
    assert [e["phase"] for k, e in events if k == "step"] == ["call", "result"]
    done = events[-1][1]
    assert done["mode"] == "offline" and done["answered_by"] == "query_stats"
    assert f"{work_hours(month)} 小时" in done["answer"] == events[2][1]["text"]
    assert done["conversation_id"] >= 1 and done["turn"] == 1


def test_sse_events_with_the_agent_come_in_order(month: Month, fake: FakeOpenAI) -> None:
    fake.script = [
        call("query_stats", period="custom", date_from="2003-03-12", date_to="2003-03-12"),
        say("3 月 12 日的分类时长见上。"),
    ]
    client = TestClient(create_app(services=with_model(month.services, fake)))
    reply = chat(client, token_for(month.services, month.user.user_id), question=WORK_0312)
    kinds = [k for k, _ in events_of(reply.text)]
    first_token = kinds.index("token")
    assert kinds[:3] == ["step", "step", "budget"] and first_token == 3
    assert set(kinds[first_token:-1]) == {"token"} and kinds[-1] == "done"
    assert events_of(reply.text)[-1][1]["model_calls"] == 2


def test_a_conversation_continues_by_id_with_its_history(month: Month, fake: FakeOpenAI) -> None:
    # A tool call first: until an endpoint has called a tool, its prose is held back.
    fake.script = [call("get_now"), say("第一个回答。"), say("第二个回答。")]
    client = TestClient(create_app(services=with_model(month.services, fake)))
    token = token_for(month.services, month.user.user_id)
    first = events_of(chat(client, token, question="第一个问题").text)[-1][1]
    second = chat(client, token, question="接着问", conversation_id=first["conversation_id"])
    done = events_of(second.text)[-1][1]
    assert done["conversation_id"] == first["conversation_id"] and done["turn"] == 2
    sent = [(m["role"], m["content"]) for m in fake.requests[2]["messages"][1:]]
    assert sent == [
        ("user", "第一个问题"),
        ("assistant", "第一个回答。"),
        ("user", "接着问"),
    ]
    stored = client.get(
        f"/api/v1/agent/conversations/{done['conversation_id']}",
        headers={"Authorization": f"Bearer {token}"},
    ).json()
    assert [(t["question"], t["answer"], t["status"]) for t in stored["turns"]] == [
        ("第一个问题", "第一个回答。", "done"),
        ("接着问", "第二个回答。", "done"),
    ]


def test_a_user_sees_only_their_own_conversations(month: Month) -> None:
    services = month.services
    client = TestClient(create_app(services=services))
    owner = token_for(services, month.user.user_id)
    other_user = services.store.ensure_user(name="other", time_zone="UTC", day_cut_hour=4)
    other = token_for(services, other_user.user_id)
    mine = events_of(chat(client, owner, question=WORK_0312).text)[-1][1]["conversation_id"]

    def get(path: str, token: str) -> Any:
        return client.get(path, headers={"Authorization": f"Bearer {token}"})

    assert get(f"/api/v1/agent/conversations/{mine}", other).status_code == 404
    assert mine not in [
        c["conversation_id"] for c in get("/api/v1/agent/conversations", other).json()
    ]
    assert mine in [c["conversation_id"] for c in get("/api/v1/agent/conversations", owner).json()]
    refused = chat(client, other, question="接着问", conversation_id=mine)
    assert refused.status_code == 404 and f"no conversation {mine}" in refused.json()["error"]
    delete = client.delete(
        f"/api/v1/agent/conversations/{mine}", headers={"Authorization": f"Bearer {other}"}
    )
    assert delete.status_code == 404
    assert get(f"/api/v1/agent/conversations/{mine}", owner).status_code == 200
    deleted = client.delete(
        f"/api/v1/agent/conversations/{mine}", headers={"Authorization": f"Bearer {owner}"}
    )
    assert deleted.status_code == 204
    assert get(f"/api/v1/agent/conversations/{mine}", owner).status_code == 404


def test_chat_needs_a_token_and_a_question(month: Month) -> None:
    client = TestClient(create_app(services=month.services))
    assert client.post("/api/v1/agent/chat", json={"question": "hi"}).status_code == 401
    empty = chat(client, token_for(month.services, month.user.user_id), question="")
    assert empty.status_code == 422 and "question" in empty.json()["error"]


def test_a_client_that_disconnects_mid_answer_leaves_no_running_work(
    month: Month, fake: FakeOpenAI
) -> None:
    fake.stream_delay = 0.05
    # A tool call first (until an endpoint has called a tool its prose is held back),
    # then the answer: 50 chunks, 2.5 s of streaming.
    fake.script = [call("get_now"), say("这是一个很长的回答，" * 40)]
    services = with_model(month.services, fake)
    token = token_for(services, month.user.user_id)
    with serve_in_thread(services) as base, httpx.Client(base_url=base, timeout=10) as client:
        with client.stream(
            "POST",
            "/api/v1/agent/chat",
            json={"question": "说点什么"},
            headers={"Authorization": f"Bearer {token}"},
        ) as reply:
            for line in reply.iter_lines():
                if line == "event: token":
                    running = active_runs()
                    break  # the answer has started: go away
        assert running == 1 and fake.streams_finished == 1  # it left mid-answer
        wait_for(lambda: not active_runs() and fake.streams_aborted > 0, timeout=5)
    assert active_runs() == 0  # the run ended …
    assert fake.streams_aborted == 1 and fake.streams_finished == 1  # … it hung up on the model
    assert fake.calls["stream"] == 2  # … and asked nothing more
    rows = services.store.list_conversations(user_id=month.user.user_id, limit=50)
    turns = services.store.conversation_turns(
        user_id=month.user.user_id, conversation_id=rows[0].conversation_id
    )
    assert [t.status for t in turns] == ["cancelled"]
    assert 0 < len(turns[0].answer) < len("这是一个很长的回答，" * 40)


# -- the OpenAI-compatible door --------------------------------------------------------------


@pytest.fixture
def door(month: Month) -> Iterator[openai.OpenAI]:
    token = token_for(month.services, month.user.user_id)
    with serve_in_thread(month.services) as base:
        yield openai.OpenAI(base_url=f"{base}/v1", api_key=token, max_retries=0)


def test_the_openai_client_gets_an_answer_without_a_model(
    month: Month, door: openai.OpenAI
) -> None:
    assert [m.id for m in door.models.list()] == ["timetrace"]
    reply = door.chat.completions.create(
        model="timetrace", messages=[{"role": "user", "content": WORK_0312}]
    )
    content = reply.choices[0].message.content or ""
    assert f"{work_hours(month)} 小时" in content and reply.choices[0].finish_reason == "stop"
    assert reply.model == "timetrace" and reply.usage is not None and reply.usage.total_tokens > 0


def test_the_openai_client_streams_the_same_answer(month: Month, door: openai.OpenAI) -> None:
    stream = door.chat.completions.create(
        model="timetrace",
        messages=[
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": "hello"},
            {"role": "user", "content": WORK_0312},
        ],
        stream=True,
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert f"{work_hours(month)} 小时" in text
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_the_openai_door_refuses_a_bad_key_and_an_unknown_model(
    door: openai.OpenAI,
) -> None:
    with pytest.raises(openai.NotFoundError):
        door.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])
    bad = door.with_options(api_key="tt_wrong")
    with pytest.raises(openai.AuthenticationError):
        bad.models.list()


def test_the_openai_door_answers_when_the_model_is_down(month: Month, fake: FakeOpenAI) -> None:
    fake.fail_with = 503
    services = with_model(month.services, fake)
    token = token_for(services, month.user.user_id)
    with serve_in_thread(services) as base:
        door = openai.OpenAI(base_url=f"{base}/v1", api_key=token, max_retries=0)
        reply = door.chat.completions.create(
            model="timetrace", messages=[{"role": "user", "content": WORK_0312}]
        )
    assert f"{work_hours(month)} 小时" in (reply.choices[0].message.content or "")
    assert fake.calls["refused"] == 1  # it tried the model first


# -- the command ------------------------------------------------------------------------------


def test_timetrace_ask_streams_the_answer_and_a_footer(month: Month) -> None:
    env = {"TIMETRACE_DATABASE_URL": month.services.url}
    runner = CliRunner()
    result = runner.invoke(main, ["ask", WORK_0312, "--user", "sample"], env=env)
    assert result.exit_code == 0, result.output
    assert f"{work_hours(month)} 小时" in result.output
    assert "tools: query_stats" in result.output and "0 model calls" in result.output
    conversation = result.output.rsplit("conversation ", 1)[1].strip()
    follow = runner.invoke(
        main,
        ["ask", "那 3 月 13 日呢？", "--user", "sample", "--conversation", conversation],
        env=env,
    )
    assert follow.exit_code == 0 and f"conversation {conversation}" in follow.output
    as_json = runner.invoke(
        main, ["ask", "What did I do on March 12, 2003?", "--user", "sample", "--json"], env=env
    )
    done = json.loads(as_json.stdout)
    assert done["answered_by"] == "get_episodes" and done["episode_ids"]
    unknown = runner.invoke(main, ["ask", "hi", "--user", "nobody"], env=env)
    assert unknown.exit_code == 1 and "no user 'nobody'" in unknown.output
