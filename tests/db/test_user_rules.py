"""Each user's own category rules, on the built sample month: the preview is the SQL over
records, a save re-categorises the history and rebuilds the moved days, a removed rule
gives its records back to the file rules, ingest tries the user's rules first, and the
database reads a rule exactly as Python does."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from app.errors import InvalidInputError, NotFoundError
from app.ingest.records import RecordBatch, ingest_batch
from app.pyramid.user_rules import (
    draft,
    preview_rules,
    recategorize_history,
    save_rules,
    with_added,
    with_edited,
    with_moved,
    without,
)
from app.rules.user import UserRule, matches
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.tools import dispatch_json
from tests.helpers import NOW, SAMPLE_MONTH, Preloaded

pytestmark = pytest.mark.preloaded(SAMPLE_MONTH)

# Seconds of an app's active time outside a category, by the view psql users read.
APP_OUTSIDE = """
SELECT COALESCE(sum(duration_s), 0) AS s, count(*) AS n FROM v_record_durations v
JOIN records r USING (user_id, record_id, ts_start)
WHERE v.user_id = %(user)s AND v.app = %(app)s AND NOT v.is_idle AND v.category <> %(category)s
  AND r.category_source <> 'label'
"""
SNAPSHOT = "SELECT record_id, category FROM records WHERE user_id = %(user)s ORDER BY record_id"


def _by_category(services: Services, user: UserContext) -> dict[str, int]:
    """The month's seconds by category as query_stats answers (from the rebuilt pyramid)."""
    result = dispatch_json(
        services.tool_context(user=user, now=NOW),
        "query_stats",
        {"metric": "seconds_by_category", "period": "custom", "date_from": "2003-03-01",
         "date_to": "2003-03-31"},
    )  # fmt: skip
    return {i["category"]: i["seconds"] for i in result["items"]}


def test_an_app_rule_previews_the_sql_hours_and_saving_moves_them(
    services: Services, preloaded: Preloaded, conn: Any
) -> None:
    store, user = services.store, preloaded.user
    before = conn.execute(
        APP_OUTSIDE, {"user": user.user_id, "app": "Slack", "category": "entertainment"}
    ).fetchone()
    assert before["s"] > 3600
    new = draft(rules=services.rules, kind="app", pattern="slack", category="entertainment")
    drafts = with_added(store.list_user_rules(user_id=user.user_id), new)
    preview = preview_rules(store, rules=services.rules, user_id=user.user_id, drafts=drafts)
    assert preview.seconds == pytest.approx(before["s"], abs=1e-6)
    assert preview.records == before["n"]
    live = conn.execute(
        "SELECT count(*) AS n FROM records WHERE user_id = %(user)s AND deleted_at IS NULL",
        {"user": user.user_id},
    ).fetchone()["n"]
    assert preview.scanned == live and not preview.long  # a month: done in the request
    assert store.list_user_rules(user_id=user.user_id) == []  # a preview keeps nothing

    totals = _by_category(services, user)
    saved = save_rules(
        store, rules=services.rules, settings=services.settings, user=user, drafts=drafts, now=NOW
    )
    assert saved.rebuilt and saved.device_days
    assert [(r.kind, r.pattern, r.category, r.position) for r in saved.rules] == [
        ("app", "Slack", "entertainment", 1)
    ]
    after = conn.execute(
        APP_OUTSIDE, {"user": user.user_id, "app": "Slack", "category": "entertainment"}
    ).fetchone()
    assert after["s"] == 0
    moved = _by_category(services, user)
    gained = moved["entertainment"] - totals["entertainment"]
    assert gained == pytest.approx(preview.seconds, abs=len(saved.device_days))  # whole seconds
    assert sum(moved.values()) == pytest.approx(sum(totals.values()), abs=len(saved.device_days))
    # Nothing is left to rebuild; a second preview of the same list moves nothing.
    assert store.marked_days_count(user_id=user.user_id) == 0
    again = preview_rules(
        store,
        rules=services.rules,
        user_id=user.user_id,
        drafts=with_added(store.list_user_rules(user_id=user.user_id), new),
    )
    assert again.seconds == 0


def test_deleting_a_rule_gives_its_records_back_to_the_file_rules(
    services: Services, preloaded: Preloaded, conn: Any
) -> None:
    store, user = services.store, preloaded.user
    snapshot = conn.execute(SNAPSHOT, {"user": user.user_id}).fetchall()
    rule = draft(rules=services.rules, kind="title", pattern="pull REQUEST*", category="study")
    saved = save_rules(
        store,
        rules=services.rules,
        settings=services.settings,
        user=user,
        drafts=with_added([], rule),
        now=NOW,
    )
    (row,) = saved.rules
    sources = conn.execute(
        "SELECT DISTINCT category, category_source FROM records WHERE user_id = %(user)s"
        " AND category_source LIKE 'user:%%'",
        {"user": user.user_id},
    ).fetchall()
    assert sources == [{"category": "study", "category_source": f"user:{row.rule_id}"}]
    gone = without(saved.rules, row.rule_id)
    preview = preview_rules(store, rules=services.rules, user_id=user.user_id, drafts=gone)
    assert preview.seconds > 0 and preview.records == 0  # all of it goes back by the file rules
    save_rules(
        store, rules=services.rules, settings=services.settings, user=user, drafts=gone, now=NOW
    )
    assert conn.execute(SNAPSHOT, {"user": user.user_id}).fetchall() == snapshot


def test_order_edit_and_move(services: Services, preloaded: Preloaded, conn: Any) -> None:
    store, user = services.store, preloaded.user

    def save(drafts: Any) -> Any:
        return save_rules(
            store,
            rules=services.rules,
            settings=services.settings,
            user=user,
            drafts=drafts,
            now=NOW,
            inline_device_days=0,  # through the worker's jobs
        )

    site = draft(
        rules=services.rules, kind="site", pattern="https://www.github.com/x", category="study"
    )
    app = draft(rules=services.rules, kind="app", pattern="Google Chrome", category="social")
    saved = save(with_added([], site))
    assert not saved.rebuilt
    assert store.marked_days_count(user_id=user.user_id) == len(saved.device_days) > 0
    saved = save(with_added(saved.rules, app))
    first, second = saved.rules
    assert (first.pattern, second.pattern) == ("github.com", "Google Chrome")
    # A github page in Chrome is study while the site rule comes first, social after.
    query = (
        "SELECT DISTINCT category FROM records WHERE user_id = %(user)s AND domain = 'github.com'"
        " AND app = 'Google Chrome' AND NOT is_idle"
    )
    assert conn.execute(query, {"user": user.user_id}).fetchall() == [{"category": "study"}]
    saved = save(with_moved(saved.rules, second.rule_id, position=1))
    assert [r.rule_id for r in saved.rules] == [second.rule_id, first.rule_id]
    assert [r.position for r in saved.rules] == [1, 2]
    assert conn.execute(query, {"user": user.user_id}).fetchall() == [{"category": "social"}]
    edited = draft(rules=services.rules, kind="app", pattern="chrome.exe", category="work")
    saved = save(with_edited(saved.rules, second.rule_id, edited))
    assert saved.rules[0].category == "work" and saved.rules[0].rule_id == second.rule_id
    assert conn.execute(query, {"user": user.user_id}).fetchall() == [{"category": "work"}]
    # The same app again changes that rule's category, not a second rule.
    again = with_added(
        saved.rules, draft(rules=services.rules, kind="app", pattern="chrome", category="study")
    )
    assert [(d.rule_id, d.category) for d in again] == [
        (second.rule_id, "study"),
        (first.rule_id, "study"),
    ]

    with pytest.raises(NotFoundError):
        with_moved(saved.rules, 999_999, position=1)
    bad = [d.model_copy(update={"rule_id": 999_999}) for d in with_added([], app)]
    with pytest.raises(InvalidInputError, match="no rule 999999"):
        store.write_user_rules(user_id=user.user_id, rules=bad)
    with pytest.raises(InvalidInputError, match="same thing"):
        store.write_user_rules(user_id=user.user_id, rules=[app, app])
    with pytest.raises(InvalidInputError, match="category"):
        draft(rules=services.rules, kind="app", pattern="Slack", category="fun")
    with pytest.raises(InvalidInputError, match="kind"):
        draft(rules=services.rules, kind="window", pattern="Slack", category="work")


def test_ingest_tries_the_users_rules_first(
    services: Services, preloaded: Preloaded, conn: Any
) -> None:
    store, user = services.store, preloaded.user
    rule = draft(rules=services.rules, kind="app", pattern="VS Code", category="study")
    assert rule.pattern == "Visual Studio Code"
    (row,) = store.write_user_rules(user_id=user.user_id, rules=[rule]).rules
    at = datetime(2003, 4, 20, 2, 0, tzinfo=UTC)
    batch = RecordBatch.model_validate(
        {
            "device_id": "desktop",
            "records": [
                {
                    "client_record_id": "ur-1",
                    "ts_start": at.isoformat(),
                    "app": "Code.exe",
                    "window_title": "main.py - timetrace - Visual Studio Code",
                },
                {
                    "client_record_id": "ur-2",
                    "ts_start": at.replace(minute=5).isoformat(),
                    "app": "WINWORD.EXE",
                    "window_title": "plan.docx - Word",
                },
            ],
        }
    )
    ingest_batch(store, user=user, batch=batch, rules=services.rules)
    got = {
        r["client_record_id"]: (r["category"], r["category_source"])
        for r in conn.execute(
            "SELECT client_record_id, category, category_source FROM records"
            " WHERE user_id = %(user)s AND client_record_id LIKE 'ur-%%'",
            {"user": user.user_id},
        )
    }
    assert got["ur-1"] == ("study", f"user:{row.rule_id}")
    assert got["ur-2"][1] != f"user:{row.rule_id}"


CASES = [
    ("app", "Slack", "Slack", None, ""),
    ("app", "Slack", "slack", None, ""),
    ("site", "github.com", "Google Chrome", "github.com", ""),
    ("site", "github.com", "Google Chrome", "gist.github.com", ""),
    ("site", "github.com", "Google Chrome", "notgithub.com", ""),
    ("site", "github.com", "Firefox", None, "github.com — Mozilla Firefox"),
    ("title", "pull request", "Firefox", None, "Pull Request #12 · acme"),
    ("title", "standup*notes", "Notion", None, "Standup — weekly NOTES"),
    ("title", "standup*notes", "Notion", None, "notes of standup"),
    ("title", "100%", "Excel", None, "Budget 100% done"),
    ("title", "100%", "Excel", None, "Budget 1000 done"),
    ("title", "a_b", "Code", None, "a_b.py"),
    ("title", "a_b", "Code", None, "axb.py"),
    ("title", "C:\\work", "Explorer", None, "C:\\work\\files"),
    ("title", "周报", "飞书", None, "第 12 周周报 - 飞书"),
    ("title", "ÉTÉ", "Word", None, "été.docx"),  # only ASCII letters fold
    ("title", "ÉTÉ", "Word", None, "ÉTÉ.docx"),
]


def test_the_database_reads_a_rule_as_python_does(conn: Any) -> None:
    for kind, pattern, app, domain, title in CASES:
        rule = UserRule(rule_id=1, kind=kind, pattern=pattern, category="work")  # type: ignore[arg-type]
        found = conn.execute(
            "SELECT timetrace_user_rule_matches(%s, %s, %s, %s, %s) AS m",
            (kind, pattern, app, domain, title),
        ).fetchone()["m"]
        assert found == matches(rule, app=app, domain=domain, title=title), (pattern, title)
    expected = [True, False, True, True, False, False, True, True, False, True, False, True, False,
                True, True, False, True]  # fmt: skip
    assert [
        matches(UserRule(1, k, p, "work"), app=a, domain=d, title=t)  # type: ignore[arg-type]
        for k, p, a, d, t in CASES
    ] == expected


def test_a_long_history_is_re_categorised_by_a_job(
    services: Services, preloaded: Preloaded, conn: Any
) -> None:
    store, user = services.store, preloaded.user
    drafts = with_added(
        [], draft(rules=services.rules, kind="app", pattern="Slack", category="study")
    )
    outside = {"user": user.user_id, "app": "Slack", "category": "study"}
    before = conn.execute(APP_OUTSIDE, outside).fetchone()["s"]
    saved = save_rules(
        store,
        rules=services.rules,
        settings=services.settings,
        user=user,
        drafts=drafts,
        now=NOW,
        background=True,
    )
    assert saved.queued and not saved.rebuilt and saved.device_days == []
    assert [r.pattern for r in saved.rules] == ["Slack"]
    # Saved, not applied yet: the job waits (one per user), the records are as they were.
    assert conn.execute(APP_OUTSIDE, outside).fetchone()["s"] == before > 0
    assert store.recategorizing(user_id=user.user_id)
    jobs = conn.execute(
        "SELECT task_name, args FROM procrastinate_jobs WHERE status = 'todo'"
        " AND queueing_lock = %(lock)s",
        {"lock": f"recategorize:{user.user_id}"},
    ).fetchall()
    assert jobs == [{"task_name": "recategorize_history", "args": {"user_id": user.user_id}}]

    moved = recategorize_history(store, rules=services.rules, user_id=user.user_id)
    assert moved > 0 and conn.execute(APP_OUTSIDE, outside).fetchone()["s"] == 0
    assert store.marked_days_count(user_id=user.user_id) == moved
    builds = conn.execute(
        "SELECT count(*) AS n FROM procrastinate_jobs WHERE status = 'todo'"
        " AND task_name = 'build_episodes'"
    ).fetchone()["n"]
    assert builds >= 1
    assert recategorize_history(store, rules=services.rules, user_id=user.user_id) == 0
