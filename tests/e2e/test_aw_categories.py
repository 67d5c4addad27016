"""ActivityWatch's categories as they are: a three-level tree of aw-webui's classes,
imported with the real aw-server's export, comes over with the same names, hierarchy,
case rule and colours, and each category holds the seconds the real aw-server's
canonical query gives it with those classes (within 1 s); the activitywatch export
gives aw-webui the same tree back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aw_client import ActivityWatchClient
from aw_client.queries import DesktopQueryParams, canonicalEvents
from click.testing import CliRunner

from app.cli import main
from app.runtime.services import Services
from app.settings import Settings
from tests.aw_day import scripted_day
from tests.aw_real import AwServer, export, send

# Three levels under Work; a case-insensitive class; a top no name maps to a kind.
CLASSES: list[dict[str, Any]] = [
    {"name": ["Work"], "rule": {"type": "none"}, "data": {"color": "#0000ff"}},
    {"name": ["Work", "Programming"], "rule": {"type": "regex", "regex": "Visual Studio Code"},
     "data": {"color": "#00aa00"}},
    {"name": ["Work", "Programming", "Shell"],
     "rule": {"type": "regex", "regex": "powershell", "ignore_case": True},
     "data": {"color": "#112233"}},
    {"name": ["Work", "Docs"], "rule": {"type": "regex", "regex": "docx - Word"}},
    {"name": ["Comms"], "rule": {"type": "regex", "regex": "微信"}, "data": {"color": "#ff8800"}},
    {"name": ["Files"], "rule": {"type": "regex", "regex": "File Explorer|下载"}},
]  # fmt: skip


def _aw_category_seconds(client: ActivityWatchClient, day: Any) -> dict[tuple[str, ...], float]:
    params = DesktopQueryParams(
        bid_window=day.window_bucket,
        bid_afk=day.afk_bucket,
        bid_browsers=list(day.browser_buckets),
        classes=[(c["name"], c["rule"]) for c in CLASSES],
        include_audible=True,
    )
    query = canonicalEvents(params) + '\nRETURN = merge_events_by_keys(events, ["$category"]);'
    (result,) = client.query(query, [(day.start, day.end)])
    out: dict[tuple[str, ...], float] = {}
    for event in result:
        path = tuple(event["data"]["$category"])
        out[path] = out.get(path, 0.0) + float(event["duration"])
    return out


def _as_aw_reads_it(item: dict[str, Any]) -> tuple[Any, ...]:
    """A class as aw-core's Rule reads it (ignore_case absent is false)."""
    rule = item["rule"]
    color = item.get("data", {}).get("color")
    return (item["name"], rule["type"], rule.get("regex"), bool(rule.get("ignore_case")), color)


def _tt_category_seconds(conn: Any) -> dict[str, float]:
    rows = conn.execute(
        "SELECT c.path, sum(s.seconds)::float8 AS s "
        "FROM users x CROSS JOIN LATERAL timetrace_spans_v1(x.user_id, '-infinity', 'infinity') s "
        "JOIN user_rules u ON u.user_id = s.user_id AND s.category_source = 'user:' || u.rule_id "
        "JOIN v_user_categories c ON c.user_id = u.user_id AND c.category_id = u.category_id "
        "WHERE NOT s.is_idle GROUP BY c.path"
    ).fetchall()
    return {r["path"]: r["s"] for r in rows}


@pytest.mark.slow
def test_a_three_level_tree_imports_as_it_is_and_counts_what_aw_server_counts(
    aw_server: AwServer,
    aw_client: ActivityWatchClient,
    services: Services,
    conn: Any,
    settings: Settings,
    db_url: str,
    tmp_path: Path,
) -> None:
    day = scripted_day()
    send(aw_client, day.buckets, day.beats)
    truth = _aw_category_seconds(aw_client, day)
    assert {("Work", "Programming"), ("Work", "Programming", "Shell"), ("Comms",)} <= set(truth)
    path = tmp_path / "aw-export.json"
    path.write_bytes(export(aw_server))
    categories = tmp_path / "categories.json"
    categories.write_text(json.dumps({"categories": CLASSES}), encoding="utf-8")

    services.store.ensure_user(name="me", time_zone="Asia/Shanghai", day_cut_hour=4)
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(settings.data_dir)}
    ran = CliRunner().invoke(
        main,
        ["import", "activitywatch", str(path), "--user", "me", "--categories-file",
         str(categories)],
        env=env,
    )  # fmt: skip
    assert ran.exit_code == 0, ran.output
    said = " ".join(ran.output.split())
    assert "Work → work" in said and "Comms → social" in said
    assert "no kind said for Files: counted as uncategorized" in said

    tree = {
        r["path"]: (r["kind"], r["color"])
        for r in conn.execute("SELECT path, kind, color FROM v_user_categories")
    }
    assert tree == {
        "Work": ("work", "#0000ff"),
        "Work > Programming": ("work", "#00aa00"),
        "Work > Programming > Shell": ("work", "#112233"),
        "Work > Docs": ("work", None),
        "Comms": ("social", "#ff8800"),
        "Files": ("uncategorized", None),
    }
    got = _tt_category_seconds(conn)
    wanted = {" > ".join(p): s for p, s in truth.items() if p != ("Uncategorized",)}
    assert got.keys() == wanted.keys()
    assert all(abs(got[k] - wanted[k]) <= 1 for k in wanted), (got, wanted)

    # Out again as an activitywatch export: aw-webui's same tree.
    out = tmp_path / "back.json"
    exported = CliRunner().invoke(
        main, ["export", "--user", "me", "--format", "activitywatch", "-o", str(out)], env=env
    )
    assert exported.exit_code == 0, exported.output
    back = json.loads(out.read_text(encoding="utf-8"))["classes"]
    assert sorted(map(_as_aw_reads_it, back)) == sorted(map(_as_aw_reads_it, CLASSES))
