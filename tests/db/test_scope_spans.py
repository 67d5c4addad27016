"""A scope's in-scope pieces (`timetrace_scoped_spans_v1`, the shadow's first step) hold
exactly the time `tests/scope_truth.py` computes in Python for the same scope: scopes
that allow and deny by kind, app and site, windows within a day, across midnight and
without hours, dates, and a zone whose clocks change inside the month."""

from __future__ import annotations

from collections import defaultdict

import pytest
from psycopg.types.json import Jsonb

from app.store.scope import parse_scope
from tests.agent_month import Month, month_fixture
from tests.scope_truth import scope_truth

month = month_fixture()

PIECES = """
SELECT r.app, sum(extract(epoch FROM p.clip_end - p.clip_start))::float8 AS s,
       count(*) FILTER (WHERE p.piece > 1) AS split
FROM timetrace_scoped_spans_v1(%(user_id)s, '2003-02-01', '2003-05-01', %(scope)s) p
JOIN records r ON r.user_id = %(user_id)s AND r.record_id = p.record_id
GROUP BY r.app
"""

SCOPES = [
    "kinds=work hours=09:00-18:00 days=mon-fri sites=-bilibili.com",
    "hours=15:00-03:00",
    "hours=23:30-23:00 days=sat,sun",
    "kinds=-work,-social dates=2003-03-20..2003-04-02",
    "apps=-slack,-wechat hours=08:00-24:00",
    "sites=github.com,bilibili.com",
    "apps=Slack,Zoom,Code days=tue",
]


@pytest.mark.parametrize("zone", ["Asia/Shanghai", "Europe/Berlin"])
@pytest.mark.parametrize("text", SCOPES)
def test_the_in_scope_pieces_hold_the_time_computed_without_sql(
    month: Month, text: str, zone: str
) -> None:
    scope = parse_scope(text)
    user = month.user.model_copy(update={"time_zone": zone})
    with month.services.store.pool.connection() as conn:  # type: ignore[attr-defined]
        try:  # Berlin's clocks go forward on 2003-03-30, inside the sample month
            conn.execute(
                "UPDATE users SET time_zone = %(zone)s WHERE user_id = %(user_id)s",
                {"zone": zone, "user_id": user.user_id},
            )
            truth = scope_truth(conn, user=user, scope=scope)
            rows = conn.execute(
                PIECES, {"user_id": user.user_id, "scope": Jsonb(scope.as_json())}
            ).fetchall()
        finally:
            conn.rollback()
    got: dict[str, float] = defaultdict(float, {r["app"]: r["s"] for r in rows})
    wanted = {app: s for app, s in truth.seconds_by_app.items() if s > 0}
    assert wanted, "the scope should keep some time"
    assert {a: round(got[a], 3) for a in wanted} == {a: round(s, 3) for a, s in wanted.items()}
    assert {a for a, s in got.items() if s > 0} == set(wanted)
