"""aw-webui's category tree written through the door becomes the user's tree: a scripted
day counts under its categories as SQL counts it, an edit (a regex moved, a category
renamed, one deleted) moves the day's seconds, the rules the tree put there follow it
and the user's own stay, bad trees are a 400, and a write cut short converges."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import httpx
import orjson
import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from app.awdoor.api import door_app
from app.awdoor.classes import TREES_KEY
from app.awdoor.live import LiveConversion
from app.awdoor.marks import DirtyMarks
from app.cli import main
from app.pyramid import user_rules
from app.pyramid.build import backfill
from app.pyramid.user_categories import tree_of
from app.pyramid.user_rules import draft, with_added
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.tools import dispatch_json

T0 = datetime(2003, 3, 4, 9, 0, tzinfo=UTC)  # sentinel: far from today
DAY = date(2003, 3, 4)
NOW = T0 + timedelta(hours=3)
WINDOW = "aw-watcher-window_laptop"
AFK = "aw-watcher-afk_laptop"
# The scripted day: (first second, last second, window) every 5 s.
DAY_SCRIPT = [
    (0, 600, {"app": "Code", "title": "main.py - project"}),
    (605, 900, {"app": "Firefox", "title": "Cats - YouTube - Mozilla Firefox"}),
    (905, 1200, {"app": "Slack", "title": "general | team"}),
    (1205, 1500, {"app": "Code", "title": "notes.md - project"}),
    (1505, 1800, {"app": "Slack", "title": "random | team"}),
]


def _class(i: int, name: list[str], regex: str | None, **more: Any) -> dict[str, Any]:
    rule = {"type": "regex", "regex": regex} if regex else {"type": "none"}
    return {"id": i, "name": name, "rule": rule, "data": {"color": "#96cdf9"}, **more}


# As aw-webui writes it: parents first, each category with its whole name path.
FIRST = [
    _class(0, ["Work"], None),
    _class(1, ["Work", "Programming"], "Code"),
    _class(2, ["Work", "Notes"], "notes\\.md"),  # deeper than none, later than Programming
    _class(3, ["Media"], None),
    _class(4, ["Media", "Video"], "YouTube"),
    _class(5, ["Comms"], None),
    _class(6, ["Comms", "IM"], "Slack"),
]
# The edit: Slack's regex moved from Comms > IM to a new Work > Chat, Media > Video
# renamed Media > Clips, Work > Notes deleted.
EDITED = [
    _class(0, ["Work"], None),
    _class(1, ["Work", "Programming"], "Code"),
    _class(3, ["Media"], None),
    _class(4, ["Media", "Clips"], "YouTube"),
    _class(5, ["Comms"], None),
    _class(6, ["Comms", "IM"], None),
    _class(7, ["Work", "Chat"], "Slack"),
]


@pytest.fixture
def user(services: Services) -> UserContext:
    return services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)


def _door(services: Services, user: UserContext, marks: DirtyMarks | None = None) -> Any:
    return door_app(
        store=services.store,
        user=user,
        port=5600,
        hostname="laptop",
        rules=services.rules,
        settings=services.settings,
        marks=marks,
    )


@pytest.fixture
def marks() -> DirtyMarks:
    return DirtyMarks()


@pytest.fixture
def door(services: Services, user: UserContext, marks: DirtyMarks) -> Iterator[TestClient]:
    with TestClient(_door(services, user, marks), base_url="http://127.0.0.1:5600") as client:
        yield client


def _record_the_day(door: TestClient, services: Services, user: UserContext, marks: Any) -> None:
    """The scripted day as the watchers send it, converted and built."""
    for bucket_id, kind in ((WINDOW, "currentwindow"), (AFK, "afkstatus")):
        made = door.post(
            f"/api/0/buckets/{bucket_id}",
            json={"client": "aw-watcher", "type": kind, "hostname": "laptop"},
        )
        assert made.status_code == 200
    for first, last, data in DAY_SCRIPT:
        for second in range(first, last + 1, 5):
            _beat(door, WINDOW, second, data)
    for second in range(0, 1801, 60):
        _beat(door, AFK, second, {"status": "not-afk"}, pulse=61)
    LiveConversion(services.store, user=user, rules=services.rules, marks=marks).run_once(now=NOW)
    backfill(services.store, now=NOW, settings=services.settings)


def _beat(door: httpx.Client, bucket_id: str, second: int, data: Any, pulse: float = 6) -> None:
    answer = door.post(
        f"/api/0/buckets/{bucket_id}/heartbeat?pulsetime={pulse}",
        json={"timestamp": (T0 + timedelta(seconds=second)).isoformat(), "duration": 0,
              "data": data},
    )  # fmt: skip
    assert answer.status_code == 200, answer.text


def _sql_by_path(services: Services, user: UserContext) -> dict[str, float]:
    """The day's active seconds per user category, by the duration rule, in SQL."""
    with services.store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT c.category_id, sum(s.seconds)::float8 AS s "
            "FROM timetrace_spans_v1(%(u)s, '-infinity', 'infinity') s "
            "JOIN user_rules r ON r.user_id = s.user_id "
            "  AND s.category_source = 'user:' || r.rule_id "
            "JOIN user_categories c ON c.user_id = r.user_id AND c.category_id = r.category_id "
            "WHERE s.day_local = %(d)s AND NOT s.is_idle GROUP BY c.category_id",
            {"u": user.user_id, "d": DAY},
        ).fetchall()
    tree = tree_of(services.store, user_id=user.user_id)
    return {tree.by_id[r["category_id"]].path: r["s"] for r in rows}


def _sql_by_kind(services: Services, user: UserContext) -> dict[str, float]:
    with services.store.pool.connection() as conn:
        rows = conn.execute(
            "SELECT s.category, sum(s.seconds)::float8 AS s "
            "FROM timetrace_spans_v1(%(u)s, '-infinity', 'infinity') s "
            "WHERE s.day_local = %(d)s AND NOT s.is_idle GROUP BY s.category",
            {"u": user.user_id, "d": DAY},
        ).fetchall()
    return {r["category"]: r["s"] for r in rows}


def _stats(services: Services, user: UserContext, **args: Any) -> dict[str, Any]:
    ctx = services.tool_context(user=user, now=NOW)
    day = {"period": "custom", "date_from": DAY.isoformat(), "date_to": DAY.isoformat()}
    return dispatch_json(ctx, "query_stats", {**day, **args})


def _digest_by_path(services: Services, user: UserContext) -> dict[str, float]:
    (digest,) = services.store.day_digests(user_id=user.user_id, day_from=DAY, day_to=DAY)
    tree = tree_of(services.store, user_id=user.user_id)
    by_id = digest.metrics.get("seconds_by_user_category", {})
    return {tree.by_id[int(k)].path: v for k, v in by_id.items() if v}


def _counted(services: Services, user: UserContext) -> dict[str, float]:
    """The day's seconds per user category as query_stats and the day digest give them,
    each held to SQL; their own seconds (query_stats counts a category's children in)."""
    sql = _sql_by_path(services, user)
    assert _digest_by_path(services, user) == pytest.approx(sql, abs=0.001)
    items = _stats(services, user, metric="seconds_by_user_category")["items"]
    tree = tree_of(services.store, user_id=user.user_id)
    for item in items:
        row = tree.find(item["category"])
        assert row is not None
        below = [r.path for r in tree.rows if r.category_id in tree.subtree(row.category_id)]
        assert item["seconds"] == round(sum(sql.get(p, 0.0) for p in below)), item
    by_kind = {i["category"]: i["seconds"] for i in _stats(services, user)["items"]}
    assert by_kind == {k: round(v) for k, v in _sql_by_kind(services, user).items()}
    return sql


def _paths(classes: list[dict[str, Any]]) -> set[str]:
    return {" > ".join(c["name"]) for c in classes}


def test_an_edit_in_aw_webui_moves_the_days_seconds_between_the_users_categories(
    door: TestClient, services: Services, user: UserContext, marks: DirtyMarks
) -> None:
    _record_the_day(door, services, user, marks)
    assert door.post("/api/0/settings/classes", json=FIRST).json() == FIRST
    assert door.get("/api/0/settings/classes").json() == FIRST
    assert {r.path for r in tree_of(services.store, user_id=user.user_id).rows} == _paths(FIRST)
    before = _counted(services, user)
    assert set(before) == {"Work > Programming", "Work > Notes", "Media > Video", "Comms > IM"}
    # notes.md matches Code and notes\.md at one depth: aw-core takes the later class.
    assert before["Work > Notes"] == pytest.approx(300, abs=5)
    assert before["Comms > IM"] == pytest.approx(600, abs=5)
    kinds_before = {i["category"]: i["seconds"] for i in _stats(services, user)["items"]}

    assert door.post("/api/0/settings/classes", json=EDITED).json() == EDITED
    assert door.get("/api/0/settings/classes").json() == EDITED
    assert door.get("/api/0/settings").json() == {"classes": EDITED}
    tree = tree_of(services.store, user_id=user.user_id)
    assert {r.path for r in tree.rows} == _paths(EDITED)
    after = _counted(services, user)
    assert after == pytest.approx(
        {
            "Work > Programming": before["Work > Programming"] + before["Work > Notes"],
            "Media > Clips": before["Media > Video"],
            "Work > Chat": before["Comms > IM"],
        },
        abs=0.001,
    )
    kinds = {i["category"]: i["seconds"] for i in _stats(services, user)["items"]}
    slack = round(before["Comms > IM"])
    assert kinds["work"] == pytest.approx(kinds_before["work"] + slack, abs=1)
    assert kinds.get("social", 0) == pytest.approx(kinds_before["social"] - slack, abs=1)
    # The rules are the edited tree's, one per regex, in the order aw-core tries them (of
    # equal depth, the later class first): none of the first tree's is left.
    rules = services.store.list_user_rules(user_id=user.user_id)
    assert [(r.kind, r.pattern, tree.by_id[r.category_id or 0].path) for r in rules] == [
        ("regex", "Slack", "Work > Chat"),
        ("regex", "YouTube", "Media > Clips"),
        ("regex", "Code", "Work > Programming"),
    ]
    listed = CliRunner().invoke(
        main, ["category", "list", "--user", "me"], env={
            "TIMETRACE_DATABASE_URL": services.settings.database_url or "",
            "TIMETRACE_DATA_DIR": str(services.settings.data_dir)},
    )  # fmt: skip
    assert listed.exit_code == 0, listed.output
    for name in ("Programming", "Clips", "Chat", "IM"):
        assert name in listed.output
    assert "Video" not in listed.output and "Notes" not in listed.output


def test_a_long_history_is_re_categorised_by_a_job_not_in_the_request(
    door: TestClient,
    services: Services,
    user: UserContext,
    marks: DirtyMarks,
    monkeypatch: pytest.MonkeyPatch,
    conn: Any,
) -> None:
    _record_the_day(door, services, user, marks)
    monkeypatch.setattr(user_rules, "BACKGROUND_SCANNED", 3)  # this day counts as long
    assert door.post("/api/0/settings/classes", json=FIRST).json() == FIRST
    # Answered with the tree and its rules in place, the history left to a job.
    assert {r.path for r in tree_of(services.store, user_id=user.user_id).rows} == _paths(FIRST)
    assert len(services.store.list_user_rules(user_id=user.user_id)) == 4
    assert _sql_by_path(services, user) == {}
    waiting = conn.execute(
        "SELECT count(*) AS n FROM procrastinate_jobs WHERE queueing_lock = %(lock)s"
        " AND status = 'todo'",
        {"lock": f"recategorize:{user.user_id}"},
    ).fetchone()
    assert waiting["n"] == 1
    # The job's work, then the builds it asks for: the day counts under the tree.
    assert user_rules.recategorize_history(services.store, rules=services.rules,
                                           user_id=user.user_id) == 1  # fmt: skip
    backfill(services.store, now=NOW, settings=services.settings)
    counted = _counted(services, user)
    assert set(counted) == {"Work > Programming", "Work > Notes", "Media > Video", "Comms > IM"}


def _rules(services: Services, user: UserContext) -> list[tuple[Any, ...]]:
    """The user's rules as a person reads them: in order, with their category's path."""
    tree = tree_of(services.store, user_id=user.user_id)
    return [
        (r.kind, r.pattern, r.category, tree.by_id[r.category_id].path if r.category_id else None)
        for r in services.store.list_user_rules(user_id=user.user_id)
    ]


def _categories(services: Services, user: UserContext) -> set[tuple[str, str, str | None]]:
    return {(r.path, r.kind, r.color) for r in tree_of(services.store, user_id=user.user_id).rows}


def test_an_edit_removes_the_rules_it_dropped_and_leaves_the_users_own(
    door: TestClient, services: Services, user: UserContext
) -> None:
    own = draft(rules=services.rules, kind="title", pattern="budget", category="study")
    (budget,) = services.store.write_user_rules(user_id=user.user_id, rules=[own]).rules
    assert door.post("/api/0/settings/classes", json=FIRST).status_code == 200
    tree = tree_of(services.store, user_id=user.user_id)
    # A rule of the user's own, made after, naming a category of aw-webui's.
    cats = draft(rules=services.rules, kind="title", pattern="cats", category="Media > Video",
                 tree=tree)  # fmt: skip
    rows = services.store.list_user_rules(user_id=user.user_id)
    services.store.write_user_rules(user_id=user.user_id, rules=with_added(rows, cats))
    held = {r.pattern: r for r in services.store.list_user_rules(user_id=user.user_id)}
    assert set(held) == {"budget", "cats", "Code", "notes\\.md", "YouTube", "Slack"}

    changed = [*EDITED[:1], _class(1, ["Work", "Programming"], "Code|Vim"), *EDITED[2:]]
    assert door.post("/api/0/settings/classes", json=changed).json() == changed
    after = services.store.list_user_rules(user_id=user.user_id)
    # The user's own first, unchanged (ids, patterns, categories), then the tree's.
    assert [(r.rule_id, r.kind, r.pattern, r.category, r.category_id) for r in after[:2]] == [
        (budget.rule_id, "title", "budget", "study", None),
        (held["cats"].rule_id, "title", "cats", "entertainment", held["cats"].category_id),
    ]
    assert [(r[1], r[3]) for r in _rules(services, user)[2:]] == [
        ("Slack", "Work > Chat"), ("YouTube", "Media > Clips"), ("Code|Vim", "Work > Programming"),
    ]  # fmt: skip
    # Slack's rule moved category but is the same rule: its records stay its own.
    assert next(r for r in after if r.pattern == "Slack").rule_id == held["Slack"].rule_id
    # Video is kept, since the user's own rule names it; Notes, named by none, is gone.
    paths = {r.path for r in tree_of(services.store, user_id=user.user_id).rows}
    assert paths == _paths(EDITED) | {"Media > Video"}

    # aw-webui drops its tree (a false value): the tree's rules go, the user's stay.
    assert door.post("/api/0/settings/classes", json=[]).json() == []
    assert [r.pattern for r in services.store.list_user_rules(user_id=user.user_id)] == [
        "budget",
        "cats",
    ]
    assert door.get("/api/0/settings/classes").json() is None


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"categories": FIRST}, "expected a list"),
        ([{"name": "Work", "rule": {}}], "a list of strings"),
        ([{"name": ["Work"]}], "has no rule"),
        (["Work"], "a list of strings"),
        ([_class(i, ["Work", str(i)], None) for i in range(501)], "at most 500"),
        ([_class(0, ["Work", " "], "Code")], "has an empty name"),
        ([_class(0, ["W" * 101], "Code")], "at most 100 characters"),
    ],
)
def test_a_tree_not_in_aw_webui_s_shape_is_a_400_that_changes_nothing(
    door: TestClient, services: Services, user: UserContext, body: Any, said: str
) -> None:
    assert door.post("/api/0/settings/classes", json=FIRST).status_code == 200
    rules, categories = _rules(services, user), _categories(services, user)
    answer = door.post("/api/0/settings/classes", json=body)
    assert answer.status_code == 400 and said in answer.json()["message"], answer.text
    assert door.get("/api/0/settings/classes").json() == FIRST
    assert (_rules(services, user), _categories(services, user)) == (rules, categories)


def test_a_tree_the_users_rules_cannot_take_is_a_400_that_changes_nothing(
    door: TestClient, services: Services, user: UserContext
) -> None:
    many = [
        draft(rules=services.rules, kind="title", pattern=f"task {i}", category="work")
        for i in range(998)
    ]
    services.store.write_user_rules(user_id=user.user_id, rules=many)
    assert door.post("/api/0/settings/classes", json=FIRST[:3]).status_code == 200
    rules, categories = _rules(services, user), _categories(services, user)
    answer = door.post("/api/0/settings/classes", json=FIRST)  # 998 + 4 regex rules: too many
    assert answer.status_code == 400 and "at most 1,000 rules" in answer.json()["message"]
    assert door.get("/api/0/settings/classes").json() == FIRST[:3]
    assert (_rules(services, user), _categories(services, user)) == (rules, categories)
    assert door.get("/api/0/settings").json() == {"classes": FIRST[:3]}
    refused = door.post(f"/api/0/settings/{TREES_KEY}", json=[])
    assert refused.status_code == 400


def _uninterrupted(services: Services, tree: list[dict[str, Any]]) -> tuple[Any, Any]:
    """The rules and categories of a user who only ever wrote `tree`."""
    other = services.store.ensure_user(name="other", time_zone="UTC", day_cut_hour=4)
    with TestClient(_door(services, other), base_url="http://127.0.0.1:5600") as door:
        assert door.post("/api/0/settings/classes", json=tree).status_code == 200
    return _rules(services, other), _categories(services, other)


# A tree sharing no regex and no category below the top with FIRST or EDITED.
THIRD = [_class(0, ["Work"], None), _class(1, ["Work", "Code"], "Code|Vim"),
         _class(2, ["Fun"], "YouTube|Netflix")]  # fmt: skip


@pytest.mark.parametrize("then", ["restart", "the same write", "another write"])
def test_a_write_cut_short_converges_on_restart_or_the_next_write(
    services: Services, user: UserContext, monkeypatch: pytest.MonkeyPatch, then: str
) -> None:
    """The write fails after the rules were replaced, before the categories Video and
    Notes are removed and before the setting is kept (the store's call to remove a
    category raises, as a door killed at that point stops there)."""
    app = _door(services, user)
    with TestClient(app, base_url="http://127.0.0.1:5600", raise_server_exceptions=False) as door:
        assert door.post("/api/0/settings/classes", json=FIRST).status_code == 200

        def crash(**_: Any) -> Any:
            raise RuntimeError("the door stops here")

        with monkeypatch.context() as patch:
            patch.setattr(services.store, "remove_user_category", crash)
            assert door.post("/api/0/settings/classes", json=EDITED).status_code == 500
        # Where it stopped: the old setting, both trees listed, the new rules in place,
        # the old categories not yet removed.
        held = {r.key: r.value for r in services.store.aw_settings(user_id=user.user_id)}
        assert orjson.loads(held["classes"]) == FIRST
        assert orjson.loads(held[TREES_KEY]) == [FIRST, EDITED]
        assert [r[1] for r in _rules(services, user)] == ["Slack", "YouTube", "Code"]
        assert {"Media > Video", "Work > Notes"} <= {p for p, _, _ in _categories(services, user)}
        # The next write, on the same door (no restart in between).
        wanted = {"restart": FIRST, "the same write": EDITED, "another write": THIRD}[then]
        if then != "restart":
            assert door.post("/api/0/settings/classes", json=wanted).status_code == 200
    if then == "restart":  # a new door: its start makes the tree the stored one again
        with TestClient(_door(services, user), base_url="http://127.0.0.1:5600") as door:
            assert door.get("/api/0/settings/classes").json() == FIRST
    held = {r.key: r.value for r in services.store.aw_settings(user_id=user.user_id)}
    assert (orjson.loads(held["classes"]), orjson.loads(held[TREES_KEY])) == (wanted, [wanted])
    assert (_rules(services, user), _categories(services, user)) == _uninterrupted(services, wanted)


def test_a_tree_stored_before_the_door_followed_trees_becomes_the_users_at_start(
    services: Services, user: UserContext
) -> None:
    kept = orjson.dumps(FIRST).decode()  # as a door of an earlier version kept it
    services.store.aw_set_setting(user_id=user.user_id, key="classes", value=kept)
    assert tree_of(services.store, user_id=user.user_id).rows == []
    with TestClient(_door(services, user), base_url="http://127.0.0.1:5600") as door:
        assert door.get("/api/0/settings").json() == {"classes": FIRST}
    assert (_rules(services, user), _categories(services, user)) == _uninterrupted(services, FIRST)


def test_names_differing_only_in_case_are_one_category_and_a_case_change_removes_nothing(
    door: TestClient, services: Services, user: UserContext
) -> None:
    assert door.post("/api/0/settings/classes", json=FIRST).status_code == 200
    before = _categories(services, user)
    recased = [{**c, "name": [n.lower() for n in c["name"]]} for c in FIRST]
    assert door.post("/api/0/settings/classes", json=recased).json() == recased
    assert _categories(services, user) == before
    assert [r[3] for r in _rules(services, user)] == [
        "Comms > IM", "Media > Video", "Work > Notes", "Work > Programming",
    ]  # fmt: skip


def test_a_stored_tree_an_earlier_door_did_not_check_neither_stops_the_door_nor_a_write(
    services: Services, user: UserContext
) -> None:
    unchecked = [_class(0, ["W" * 101], "Code"), _class(1, ["Media", "Video"], "YouTube")]
    kept = orjson.dumps(unchecked).decode()
    services.store.aw_set_setting(user_id=user.user_id, key="classes", value=kept)
    with TestClient(_door(services, user), base_url="http://127.0.0.1:5600") as door:
        assert door.get("/api/0/settings/classes").json() == unchecked
        assert _categories(services, user) == set()  # not taken: left as it was
        assert door.post("/api/0/settings/classes", json=FIRST).json() == FIRST
    assert (_rules(services, user), _categories(services, user)) == _uninterrupted(services, FIRST)
