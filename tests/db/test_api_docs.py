"""The docs pages (offline, no token in a page) and an OpenAPI schema that says what the
server sends."""

from __future__ import annotations

from typing import Any

from app.api.errors import ErrorBody
from app.tools import REGISTRY
from tests.helpers import Api

PRIVATE_HEADERS = {"cache-control": "no-store", "referrer-policy": "no-referrer"}


def _private(reply: Any) -> bool:
    return all(reply.headers.get(k) == v for k, v in PRIVATE_HEADERS.items())


def test_docs_take_the_token_once_then_carry_it_in_a_strict_cookie(api: Api) -> None:
    client = api.client
    first = client.get(f"/docs?token={api.token}", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/docs"
    assert _private(first)
    cookie = first.headers["set-cookie"]
    for part in ("timetrace_docs=", "HttpOnly", "Path=/docs", "SameSite=strict"):
        assert part.lower() in cookie.lower(), cookie
    page = client.get("/docs")  # the client sends the cookie now
    assert page.status_code == 200 and _private(page)
    assert api.token not in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "<script>" not in page.text  # no inline script: only this server's files
    assert "http" not in page.text.lower()  # nothing from a CDN or any other origin
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "start.js", "favicon.png"):
        assert f"/docs/assets/{asset}" in page.text
        reply = client.get(f"/docs/assets/{asset}")
        assert reply.status_code == 200 and len(reply.content) > 100, asset
    bundle = client.get("/docs/assets/swagger-ui-bundle.js")
    assert bundle.headers["content-type"].startswith("text/javascript")
    assert b"SwaggerUIBundle" in bundle.content
    schema = client.get("/docs/openapi.json")
    assert schema.status_code == 200 and _private(schema)
    assert "/api/v1/records" in schema.json()["paths"]


def test_docs_never_echo_a_token_into_the_page(api: Api) -> None:
    payload = "</script><script>alert(1)</script>"
    fresh = api.client.__class__(api.client.app, raise_server_exceptions=False)
    for headers in ({}, api.auth):  # even with a valid header beside it
        reply = fresh.get("/docs", params={"token": payload}, headers=headers)
        assert reply.status_code == 401 and payload not in reply.text
    assert fresh.get("/docs").status_code == 401
    assert fresh.get("/docs/assets/swagger-ui.css").status_code == 401
    assert fresh.get("/docs/openapi.json").status_code == 401
    # A header alone opens the page, and the schema is reachable with it too.
    assert fresh.get("/docs", headers=api.auth).status_code == 200
    assert fresh.get("/openapi.json", headers=api.auth).status_code == 200
    # /openapi.json no longer takes a token in its address.
    assert fresh.get(f"/openapi.json?token={api.token}").status_code == 401


def test_the_openapi_schema_documents_every_error_the_server_sends(api: Api) -> None:
    schema = api.client.get("/openapi.json", headers=api.auth).json()
    components = schema["components"]["schemas"]
    assert "HTTPValidationError" not in components  # FastAPI's default 422 is not ours
    assert set(components["ErrorBody"]["required"]) == {"error"}
    operations = [
        (path, method, op) for path, ops in schema["paths"].items() for method, op in ops.items()
    ]
    assert {f"/api/v1/tools/{name}" for name in REGISTRY} <= set(schema["paths"])
    for path, method, op in operations:
        statuses = set(op["responses"])
        if path == "/healthz":
            assert statuses == {"200", "503"}  # 503: degraded, with the same report
            continue
        assert {"401", "503"} <= statuses, (method, path)
        has_input = "requestBody" in op or op.get("parameters")
        assert ("422" in statuses) == bool(has_input), (method, path)
        if "requestBody" in op:
            assert "413" in statuses, (method, path)
        for status in statuses - {"200", "201", "202", "204"}:
            ref = op["responses"][status]["content"]["application/json"]["schema"]["$ref"]
            # The OpenAI-compatible door answers in OpenAI's own error shape.
            shape = "/OpenAIErrorBody" if path.startswith("/v1/") else "/ErrorBody"
            assert ref.endswith(shape), (method, path, status)


def test_a_tool_operation_documents_the_tools_own_arguments(api: Api) -> None:
    schema = api.client.get("/openapi.json", headers=api.auth).json()
    for name, spec in REGISTRY.items():
        body = schema["paths"][f"/api/v1/tools/{name}"]["post"]["requestBody"]
        documented = body["content"]["application/json"]["schema"]
        assert documented["properties"].keys() == spec.input_schema()["properties"].keys()
        assert documented["additionalProperties"] is False


def test_error_bodies_match_the_documented_shape(api: Api) -> None:
    replies = {
        401: api.client.get("/api/v1/me"),
        404: api.post("/api/v1/tools/no_such_tool", {}),
        413: api.client.post(
            "/api/v1/records",
            content=b"{}",
            headers={**api.auth, "Content-Length": str(10**9)},
        ),
        422: api.post("/api/v1/records", {"device_id": "laptop", "records": []}),
        405: api.client.put("/api/v1/devices", headers=api.auth),
    }
    for status, reply in replies.items():
        assert reply.status_code == status, (status, reply.text)
        ErrorBody.model_validate(reply.json())
    assert replies[401].headers["www-authenticate"] == "Bearer"
    # A 405 names every method of the path, not only those of its first route.
    assert replies[405].headers["allow"] == "GET, POST"
