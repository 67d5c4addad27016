"""Cards without a model: with no chat model configured, every closed active episode
of the sample month carries a summary written by rule from its own records
(`summary_by: rules`) that names its top titles, is found by keyword search (a file
name only the summary holds, Chinese included), and gives way to a model's summary."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

from app.cli import main
from app.runtime.services import Services
from app.text import normalize_title
from app.tools import dispatch_json
from tests.helpers import NOW, SAMPLE_MONTH, Preloaded

pytestmark = pytest.mark.preloaded(SAMPLE_MONTH)

# Each closed episode with the title its members showed longest (raw, as recorded).
TOP_TITLES = """
SELECT e.episode_id, e.day_local, e.title, e.summary, e.summary_by, e.summary_status,
       e.primary_app, t.titles
FROM episodes e
CROSS JOIN LATERAL (
    SELECT array_agg(x.window_title ORDER BY x.seconds DESC, x.window_title) AS titles
    FROM (
        SELECT r.window_title, sum(d.duration_s) AS seconds
        FROM records r JOIN v_record_durations d
          ON d.user_id = r.user_id AND d.record_id = r.record_id
        WHERE r.user_id = e.user_id AND r.device_id = e.device_id AND r.deleted_at IS NULL
          AND NOT r.is_idle AND r.window_title <> ''
          AND (r.ts_start, r.client_record_id COLLATE "C")
              >= (e.ts_start, e.first_key COLLATE "C")
          AND (r.ts_start, r.client_record_id COLLATE "C")
              <= (e.last_start, e.last_key COLLATE "C")
        GROUP BY r.window_title
    ) x
) t
WHERE e.user_id = %s AND e.closed AND NOT e.stale
ORDER BY e.episode_id
"""


def _episodes(conn: Any, user_id: int) -> list[dict[str, Any]]:
    return list(conn.execute(TOP_TITLES, [user_id]))


def test_every_active_episode_has_a_rules_summary_naming_a_top_title(
    conn: Any, preloaded: Preloaded
) -> None:
    episodes = _episodes(conn, preloaded.user.user_id)
    active = [e for e in episodes if e["summary_status"] != "idle"]
    assert len(active) > 300
    for e in active:
        assert e["summary_by"] == "rules", e
        assert e["summary_status"] == "pending"  # a model may still write one
        lines = e["summary"].split("\n")
        assert 1 <= len(lines) <= 2 and len(e["summary"]) <= 300
        top = [normalize_title(t)[:60].rstrip() for t in (e["titles"] or [])[:3]]
        if top:
            assert any(t and t in lines[0] for t in top), (e["summary"], top)
        else:
            assert e["primary_app"] in e["summary"]
    idle = [e for e in episodes if e["summary_status"] == "idle"]
    assert idle and all(e["summary"] is None and e["summary_by"] is None for e in idle)


def _only_in_summary(episodes: list[dict[str, Any]], ending: str) -> tuple[dict[str, Any], str]:
    """An episode and a file name its summary holds but not its title, on a day where
    no other episode's title holds it and the fewest others' summaries do."""
    found: list[tuple[int, dict[str, Any], str]] = []
    for e in episodes:
        for word in (e["summary"] or "").replace(",", " ").split():
            if not word.endswith(ending) or word in e["title"]:
                continue
            same_day = [o for o in episodes if o["day_local"] == e["day_local"] and o is not e]
            if any(word in o["title"] for o in same_day):
                continue
            found.append((sum(word in (o["summary"] or "") for o in same_day), e, word))
    assert found, f"no summary names a {ending} file that its title does not"
    _, episode, word = min(found, key=lambda f: (f[0], f[1]["episode_id"]))
    return episode, word


def test_search_finds_a_sitting_by_a_file_name_only_its_summary_holds(
    services: Services, conn: Any, preloaded: Preloaded
) -> None:
    episodes = _episodes(conn, preloaded.user.user_id)
    episode, name = _only_in_summary(episodes, ".py")
    assert services.models.chat_enabled is False
    ctx = services.tool_context(user=preloaded.user, now=NOW)
    day = str(episode["day_local"])
    found = dispatch_json(
        ctx, "search_episodes", {"query": name, "date_from": day, "date_to": day, "k": 30}
    )
    hits = {h["id"]: h for h in found["items"]}
    assert episode["episode_id"] in hits, (name, found)
    assert name not in hits[episode["episode_id"]]["title"]


def test_a_chinese_file_name_is_found_by_its_bigrams(
    services: Services, conn: Any, preloaded: Preloaded
) -> None:
    # The day with the fewest episodes naming the file, one whose title does not.
    row = conn.execute(
        "SELECT min(episode_id) FILTER (WHERE title NOT LIKE %(name)s) AS episode_id, day_local "
        "FROM episodes WHERE user_id = %(user)s AND (summary LIKE %(name)s OR title LIKE %(name)s) "
        "GROUP BY day_local HAVING count(*) FILTER (WHERE title NOT LIKE %(name)s) > 0 "
        "ORDER BY count(*), day_local LIMIT 1",
        {"user": preloaded.user.user_id, "name": "%迁移说明%"},
    ).fetchone()
    assert row is not None
    ctx = services.tool_context(user=preloaded.user, now=NOW)
    day = str(row["day_local"])
    found = dispatch_json(
        ctx, "search_episodes", {"query": "迁移说明", "date_from": day, "date_to": day, "k": 30}
    )
    assert row["episode_id"] in {h["id"] for h in found["items"]}, found


def test_a_models_summary_replaces_the_rules_and_a_failed_one_leaves_it(
    services: Services, conn: Any, preloaded: Preloaded
) -> None:
    user_id = preloaded.user.user_id
    first, second = (
        r["episode_id"]
        for r in conn.execute(
            "SELECT episode_id FROM episodes WHERE user_id = %s AND summary_by = 'rules' "
            "ORDER BY episode_id LIMIT 2",
            [user_id],
        )
    )
    ruled = conn.execute("SELECT summary FROM episodes WHERE episode_id = %s", [second])
    kept = ruled.fetchone()["summary"]
    common = {"user_id": user_id, "tags": [], "cues": [], "fts_text": ""}
    services.store.save_episode_summary(
        **common,
        episode_id=first,
        title="Wrote the ingest path",
        summary="Model words.",
        status="done",
    )
    services.store.save_episode_summary(
        **common,
        episode_id=second,
        title="x",
        summary=None,
        status="failed",
        reason="wrong language",
        raw="…",
    )
    rows = {
        r["episode_id"]: r
        for r in conn.execute(
            "SELECT episode_id, summary, summary_by FROM episodes WHERE episode_id = ANY(%s)",
            [[first, second]],
        )
    }
    assert (rows[first]["summary"], rows[first]["summary_by"]) == ("Model words.", "model")
    assert (rows[second]["summary"], rows[second]["summary_by"]) == (kept, "rules")
    ctx = services.tool_context(user=preloaded.user, now=NOW)
    now = dispatch_json(ctx, "get_now", {})
    assert now["summaries"] == "no model configured"


def test_status_says_no_model_configured(services: Services, preloaded: Preloaded) -> None:
    result = CliRunner().invoke(main, ["status"], env={"TIMETRACE_DATABASE_URL": services.url})
    assert "summaries: no model configured (" in result.output, result.output
    assert "written by rule)" in result.output
