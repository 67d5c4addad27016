"""`timetrace aw-door` killed with SIGKILL in the middle of taking aw-webui's category
tree: after the list of trees was stored and the new tree's categories made, while it
waits to read the user's rules (held by a lock this test takes, so the kill lands
there). The next start makes the user's tree the stored one again: the same rules and
categories as a user who only ever wrote that tree."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Any

import httpx
import orjson
from starlette.testclient import TestClient

from app.awdoor.classes import TREES_KEY
from app.db.connection import connect
from app.runtime.services import Services
from app.settings import Settings
from tests.db.test_aw_door_classes import (
    EDITED,
    FIRST,
    _categories,
    _door,
    _rules,
    _uninterrupted,
)
from tests.e2e.test_aw_door_live import _free_port
from tests.faults import kill9, reaped, spawn, timetrace_env, wait_for

_WAITING = (
    "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
    " AND query LIKE '%%user_rules%%' AND pid <> pg_backend_pid()"
)


def _answers(door: httpx.Client) -> bool:
    try:
        return door.get("/api/0/info").status_code == 200
    except httpx.HTTPError:
        return False


def _settings(services: Services, user_id: int) -> dict[str, Any]:
    return {r.key: orjson.loads(r.value) for r in services.store.aw_settings(user_id=user_id)}


def test_a_door_killed_while_taking_a_tree_makes_the_stored_tree_the_users_at_start(
    db_url: str, settings: Settings, services: Services, tmp_path: Path
) -> None:
    port = _free_port()
    env = timetrace_env(db_url, tmp_path / "data", TIMETRACE_TIME_ZONE="UTC")
    door_process = spawn(["aw-door", "--port", str(port)], env, tmp_path / "door.log")
    with reaped([door_process]), httpx.Client(base_url=f"http://127.0.0.1:{port}") as door:
        assert wait_for(lambda: _answers(door), timeout=60), (tmp_path / "door.log").read_text()
        assert door.post("/api/0/settings/classes", json=FIRST).status_code == 200
        user = services.store.get_user(name="me")
        assert user is not None
        with (
            connect(db_url, settings=settings) as holder,
            connect(db_url, settings=settings, autocommit=True) as watcher,
        ):
            holder.execute("LOCK TABLE user_rules IN ACCESS EXCLUSIVE MODE")
            writing = threading.Thread(target=lambda: _post_ignoring_the_kill(port), daemon=True)
            writing.start()

            # The door waits on the lock: it has stored the trees list and made the
            # edited tree's categories, and has not changed a rule.
            def stopped_there() -> bool:
                waiting = watcher.execute(_WAITING).fetchone()["n"] > 0
                trees = _settings(services, user.user_id).get(TREES_KEY)
                made = {p for p, _, _ in _categories(services, user)}
                return waiting and trees == [FIRST, EDITED] and "Work > Chat" in made

            assert wait_for(stopped_there, timeout=60), (tmp_path / "door.log").read_text()
            kill9(door_process)
            holder.rollback()
        writing.join(30)
    held = _settings(services, user.user_id)
    assert (held["classes"], held[TREES_KEY]) == (FIRST, [FIRST, EDITED])
    assert [r[1] for r in _rules(services, user)] == ["Slack", "YouTube", "notes\\.md", "Code"]
    paths = {p for p, _, _ in _categories(services, user)}
    assert {"Media > Clips", "Work > Chat"} <= paths  # made before the kill

    with TestClient(_door(services, user), base_url="http://127.0.0.1:5600") as again:
        assert again.get("/api/0/settings/classes").json() == FIRST
    assert _settings(services, user.user_id)[TREES_KEY] == [FIRST]
    assert (_rules(services, user), _categories(services, user)) == _uninterrupted(services, FIRST)


def _post_ignoring_the_kill(port: int) -> None:
    """aw-webui's save of the edited tree, which the kill leaves unanswered."""
    with contextlib.suppress(httpx.HTTPError):
        httpx.post(f"http://127.0.0.1:{port}/api/0/settings/classes", json=EDITED, timeout=120)
