"""Privacy is decided per span, not per event: in an ActivityWatch export, the window
time next to an incognito tab — the seconds flooded before the tab's first event, and
the window's own title when the tab bucket says nothing — is redacted like the tab,
and no record, episode, search result or rule suggestion holds the private title."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app.importers.activitywatch import import_activitywatch_file
from app.pyramid.build import backfill
from app.runtime.services import Services
from app.tools import dispatch_json
from app.tools.coverage import Uncovered, rules_snippet
from tests.helpers import NOW

PRIVATE = "Private stuff"


def _bucket(bucket_id: str, kind: str, host: str, client: str, events: list[Any]) -> Any:
    """A bucket as aw-server (Python) exports it: events newest first, ids, +00:00."""
    return {
        "id": bucket_id,
        "created": "2026-03-01T08:00:00.123456+00:00",
        "name": None,
        "type": kind,
        "client": client,
        "hostname": host,
        "data": {},
        "events": [
            {"id": 2000 + i, "timestamp": f"2026-03-10T{at}+00:00", "duration": s, "data": data}
            for i, (at, s, data) in reversed(list(enumerate(events)))
        ],
    }


def incognito_export() -> dict[str, Any]:
    code = {"app": "Code.exe", "title": "main.py — timetrace — Visual Studio Code"}
    private_window = {"app": "chrome.exe", "title": f"{PRIVATE} - Google Chrome"}
    public_window = {"app": "chrome.exe", "title": "acme/timetrace - Google Chrome"}

    def tab(url: str, title: str, incognito: bool) -> dict[str, Any]:
        return {"url": url, "title": title, "audible": False, "incognito": incognito, "tabCount": 2}

    # aw-watcher-window merges heartbeats of one title into one event; a poll's gap of
    # about 2 s separates events. The tab's first event comes 5 s after its window's.
    windows = [
        ("01:00:00", 30.0, code),
        ("01:00:32", 20.0, private_window),
        ("01:00:54", 40.0, private_window),
        ("01:01:36", 60.0, code),
        ("01:02:38", 30.0, public_window),
        ("01:03:10", 50.0, code),
        # Later the same private window again, while the web watcher was silent.
        ("01:05:00", 12.0, private_window),
        ("01:05:14", 40.0, code),
    ]
    tabs = [
        ("01:00:37", 57.0, tab("https://private.example/x", PRIVATE, True)),
        ("01:02:38", 30.0, tab("https://github.com/acme/timetrace", "acme/timetrace", False)),
    ]
    afk = [("01:00:00", 600.0, {"status": "not-afk"})]
    return {
        "buckets": {
            "aw-watcher-window_laptop": _bucket(
                "aw-watcher-window_laptop", "currentwindow", "laptop", "aw-watcher-window", windows
            ),
            "aw-watcher-afk_laptop": _bucket(
                "aw-watcher-afk_laptop", "afkstatus", "laptop", "aw-watcher-afk", afk
            ),
            "aw-watcher-web-chrome": _bucket(
                "aw-watcher-web-chrome", "web.tab.current", "unknown", "aw-client-web", tabs
            ),
        }
    }


def test_window_time_beside_an_incognito_tab_is_redacted_everywhere(
    services: Services, conn: Any, tmp_path: Path
) -> None:
    export = tmp_path / "aw-export.json"
    export.write_text(json.dumps(incognito_export()), encoding="utf-8")
    user = services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)
    summary = import_activitywatch_file(
        services.store, path=export, user=user, rules=services.rules
    )
    rows = conn.execute(
        "SELECT app, window_title, url, redacted, extract(epoch FROM ts_end - ts_start)::float "
        "AS s FROM records WHERE app = 'Google Chrome' ORDER BY ts_start"
    ).fetchall()
    # Every second of the private window is redacted: the 6 s before its tab's first
    # event, the tab, the 1 s after it, and its later stretch with no tab. (Flooding, as
    # aw-core: a 2 s gap between differing windows is split at its midpoint, and the
    # private window's two events merge: 31 s to 95 s.) The public window gets 1 s of
    # each gap beside it, with no tab.
    shown = [(r["window_title"], r["url"], r["redacted"], r["s"]) for r in rows]
    assert shown == [
        ("", None, True, 6.0),
        ("", None, True, 57.0),
        ("", None, True, 1.0),
        ("acme/timetrace - Google Chrome", None, False, 1.0),
        ("acme/timetrace", "https://github.com/acme/timetrace", False, 30.0),
        ("acme/timetrace - Google Chrome", None, False, 1.0),
        ("", None, True, 13.0),
    ]
    assert summary.redacted == 4
    backfill(services.store, now=NOW, settings=services.settings)
    ctx = services.tool_context(user=user, now=NOW)
    day = {"period": "custom", "date_from": "2026-03-10", "date_to": "2026-03-10"}
    coverage = dispatch_json(ctx, "query_stats", {**day, "metric": "uncategorized", "top_n": 20})
    searched = [
        dispatch_json(ctx, "search_episodes", {"query": query})
        for query in (PRIVATE, "private stuff")
    ]
    seen = {
        "records": str(conn.execute("SELECT r::text FROM records r").fetchall()),
        "episodes": str(conn.execute("SELECT e::text FROM episodes e").fetchall()),
        "digests": str(conn.execute("SELECT d::text FROM digests d").fetchall()),
        "suggestions": json.dumps(coverage, ensure_ascii=False)
        + rules_snippet([Uncovered.model_validate(item) for item in coverage["items"]]),
        "search": json.dumps(searched, ensure_ascii=False),
        "episodes tool": json.dumps(dispatch_json(ctx, "get_episodes", day), ensure_ascii=False),
    }
    assert "error" not in coverage and all("error" not in s for s in searched)
    assert conn.execute("SELECT count(*) AS n FROM episodes").fetchone()["n"] > 0
    for where, text in seen.items():
        assert PRIVATE.lower() not in text.lower(), where
        assert "private-stuff" not in text.lower() and "private.example" not in text, where
