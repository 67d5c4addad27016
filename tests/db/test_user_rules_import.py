"""An ActivityWatch import tries the user's own rules first, as HTTP ingest does."""

from __future__ import annotations

from typing import Any

from app.importers.activitywatch import import_activitywatch_file
from app.pyramid.user_rules import draft
from app.runtime.services import Services
from tests.helpers import FIXTURES


def test_an_import_counts_by_the_users_rules(services: Services, conn: Any) -> None:
    user = services.store.ensure_user(name="importer", time_zone="UTC", day_cut_hour=4)
    rule = draft(rules=services.rules, kind="app", pattern="Code.exe", category="study")
    (row,) = services.store.write_user_rules(user_id=user.user_id, rules=[rule]).rules
    path = FIXTURES / "activitywatch" / "python_server.json"
    import_activitywatch_file(services.store, path=path, user=user, rules=services.rules)
    got = conn.execute(
        "SELECT DISTINCT app, category, category_source FROM records WHERE user_id = %(user)s"
        " AND app IN ('Visual Studio Code', 'Firefox') AND NOT is_idle ORDER BY app",
        {"user": user.user_id},
    ).fetchall()
    assert {"app": "Visual Studio Code", "category": "study",
            "category_source": f"user:{row.rule_id}"} in got  # fmt: skip
    assert all(
        r["category_source"] != f"user:{row.rule_id}"
        for r in got
        if r["app"] != "Visual Studio Code"
    )
