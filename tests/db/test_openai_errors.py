"""The OpenAI-compatible door's errors through the official `openai` client: each is
in OpenAI's shape, so the client's exception carries TimeTrace's own message (with
`{"error": "…"}` it showed only `Error code: 401`)."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest

from app.api.server import serve_in_thread
from app.runtime.services import Services
from tests.helpers import Api, new_token_for

ASK = [{"role": "user", "content": "How many hours of work yesterday?"}]


@pytest.fixture
def base_url(services: Services) -> Iterator[str]:
    with serve_in_thread(services) as base:
        yield f"{base}/v1"


@pytest.fixture
def token(services: Services) -> str:
    user = services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)
    return new_token_for(services, user)


def _client(base_url: str, key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key=key, max_retries=0)


def test_a_bad_token_is_a_401_whose_message_the_client_shows(base_url: str) -> None:
    client = _client(base_url, "tt_not_a_token")
    with pytest.raises(openai.AuthenticationError) as caught:
        client.chat.completions.create(model="timetrace", messages=ASK)  # type: ignore[arg-type]
    assert caught.value.status_code == 401
    assert "the API token is unknown or revoked" in str(caught.value)
    assert caught.value.type == "authentication_error"
    assert caught.value.code == "invalid_api_key"
    with pytest.raises(openai.AuthenticationError, match="unknown or revoked"):
        client.models.list()


def test_an_unknown_model_or_route_is_a_404_whose_message_the_client_shows(
    base_url: str, token: str
) -> None:
    client = _client(base_url, token)
    with pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="gpt-4o", messages=ASK)  # type: ignore[arg-type]
    assert "model 'gpt-4o' does not exist; use 'timetrace'" in str(caught.value)
    assert (caught.value.param, caught.value.code) == ("model", "model_not_found")
    with pytest.raises(openai.NotFoundError) as route:
        client.embeddings.create(model="timetrace", input="hello")
    assert route.value.status_code == 404
    assert "no route /v1/embeddings here: this door answers GET /v1/models" in str(route.value)
    assert isinstance(route.value.body, dict) and set(route.value.body) == {
        "message",
        "type",
        "param",
        "code",
    }


def test_a_bad_body_is_a_422_whose_message_names_the_field(base_url: str, token: str) -> None:
    client = _client(base_url, token)
    with pytest.raises(openai.UnprocessableEntityError) as caught:
        client.chat.completions.create(model="timetrace", messages=[])
    assert caught.value.status_code == 422
    assert "invalid input: messages:" in str(caught.value)
    assert caught.value.param == "messages"
    assistant_last = [*ASK, {"role": "assistant", "content": "hm"}]
    with pytest.raises(openai.UnprocessableEntityError) as last:
        client.chat.completions.create(model="timetrace", messages=assistant_last)  # type: ignore[arg-type]
    assert "the last message must be the user's" in str(last.value)


def test_the_rest_of_the_api_keeps_its_own_error_shape(base_url: str) -> None:
    import httpx

    reply = httpx.get(base_url.removesuffix("/v1") + "/api/v1/me", timeout=10)
    assert reply.status_code == 401 and isinstance(reply.json()["error"], str)


def test_errors_from_the_middleware_are_in_openais_shape_on_the_door(api: Api) -> None:
    too_large = api.client.post(
        "/v1/chat/completions",
        content=b"{}",
        headers={**api.auth, "Content-Length": str(10**9)},
    )
    wrong_host = api.client.get("/v1/models", headers={**api.auth, "Host": "evil.example"})
    for reply, status in ((too_large, 413), (wrong_host, 400)):
        assert reply.status_code == status, reply.text
        error = reply.json()["error"]
        assert set(error) == {"message", "type", "param", "code"}
        assert error["type"] == "invalid_request_error"
    assert "larger than" in too_large.json()["error"]["message"]
    assert "is not a name of this server" in wrong_host.json()["error"]["message"]
    # Elsewhere the API keeps its own shape.
    elsewhere = api.client.get("/api/v1/me", headers={**api.auth, "Host": "evil.example"})
    assert isinstance(elsewhere.json()["error"], str)
