"""The context facts over HTTP: `GET /api/v1/context` answers what MCP's
`timetrace://context` resource reads, for the token's user, in their zone."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from app.mcp.context import read_context
from tests.helpers import Api


def test_http_context_is_the_mcp_resource_in_the_users_zone(api: Api) -> None:
    before = datetime.now(UTC)
    reply = api.client.get("/api/v1/context", headers=api.auth)
    assert reply.status_code == 200
    got = reply.json()
    now = datetime.fromisoformat(got["now"])
    assert before <= now <= datetime.now(UTC) and now.utcoffset() == timedelta(hours=8)
    resource = json.loads(read_context(user=api.user, now=now).contents[0].text)
    assert got == resource
    assert got["time_zone"] == "Asia/Shanghai" and got["day_cut_hour"] == 4
    today = got["periods"]["today"]
    assert today["from"].endswith("T04:00:00+08:00") and today["date_from"] == got["today"]
    assert api.client.get("/api/v1/context").status_code == 401
