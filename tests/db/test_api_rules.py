"""The rules over HTTP: token-protected, a preview that equals what the save moves, the
list the CLI and the web read, and 4xx answers with a message."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.runtime.services import Services
from tests.db.test_coverage import _ingest
from tests.helpers import make_api

START = datetime(2003, 3, 12, 9, tzinfo=UTC)


def test_rules_over_http(services: Services, conn: Any) -> None:
    api = make_api(services, time_zone="UTC", devices=("desktop",))
    _ingest(api, START)
    assert api.client.get("/api/v1/rules").status_code == 401
    assert api.client.get("/api/v1/rules", headers=api.auth).json() == []

    body = {"kind": "app", "pattern": "hades2.exe", "category": "entertainment"}
    preview = api.post("/api/v1/rules/preview", body)
    assert preview.status_code == 200, preview.text
    truth = conn.execute(
        "SELECT sum(duration_s) AS s FROM v_record_durations WHERE app = 'hades2'"
        " AND category <> 'entertainment' AND NOT is_idle"
    ).fetchone()["s"]
    assert preview.json() == {"seconds": truth, "hours": 0.67, "records": 1, "device_days": 1}
    saved = api.post("/api/v1/rules", body)
    assert saved.status_code == 201, saved.text
    out = saved.json()
    assert out["changed"] == preview.json() and out["rebuilt"] is True
    assert out["days"] == [{"device_id": "desktop", "day_local": "2003-03-12"}]
    (rule,) = out["rules"]
    assert (rule["kind"], rule["pattern"], rule["position"]) == ("app", "hades2", 1)
    episodes = conn.execute(
        "SELECT category FROM episodes WHERE primary_app = 'hades2' AND NOT stale"
    ).fetchall()
    assert episodes and {e["category"] for e in episodes} == {"entertainment"}

    second = api.post(
        "/api/v1/rules",
        {"kind": "title", "pattern": "acme wiki", "category": "work", "position": 1},
    ).json()["rules"]
    assert [r["pattern"] for r in second] == ["acme wiki", "hades2"]
    patched = api.client.patch(
        f"/api/v1/rules/{rule['rule_id']}", json={"position": 1, "category": "study"},
        headers=api.auth,
    )  # fmt: skip
    assert patched.status_code == 200, patched.text
    assert [(r["pattern"], r["category"]) for r in patched.json()["rules"]] == [
        ("hades2", "study"),
        ("acme wiki", "work"),
    ]
    deleted = api.client.delete(f"/api/v1/rules/{rule['rule_id']}", headers=api.auth)
    assert deleted.status_code == 200 and deleted.json()["changed"]["hours"] == 0.67
    assert [r["pattern"] for r in api.client.get("/api/v1/rules", headers=api.auth).json()] == [
        "acme wiki"
    ]

    # 4xx with a message.
    missing = api.client.delete("/api/v1/rules/999999", headers=api.auth)
    assert missing.status_code == 404 and missing.json()["error"] == "no rule 999999 of yours"
    bad_kind = api.post("/api/v1/rules", {**body, "kind": "window"})
    assert bad_kind.status_code == 422 and bad_kind.json()["detail"][0]["field"] == "kind"
    bad_site = api.post("/api/v1/rules", {"kind": "site", "pattern": "no site", "category": "work"})
    assert bad_site.status_code == 422 and "not a site" in bad_site.json()["error"]
    extra = api.post("/api/v1/rules/preview", {**body, "colour": "red"})
    assert extra.status_code == 422
    no_token = api.client.post("/api/v1/rules", json=body)
    assert no_token.status_code == 401
