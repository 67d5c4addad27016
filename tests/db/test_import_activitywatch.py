"""Importing ActivityWatch history: exports of both servers and the array form give the
per-app active seconds ActivityWatch's own UI computes, to the second; importing again,
or an export overlapping one already imported, adds only what is new; a cut-off file
stops with where it got to and leaves nothing half-imported."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import pytest
from click.testing import CliRunner

from app.api import imports
from app.cli import main
from app.errors import UnknownDeviceError
from app.importers.activitywatch import import_activitywatch_file, import_activitywatch_server
from app.importers.aw_read import ActivityWatchError
from app.importers.writer import ImportedRecord, ImportSummary, RecordWriter
from app.ingest.records import delete_records
from app.pyramid.build import backfill
from app.runtime.services import Services
from app.settings import Settings
from app.store.accounts import UserContext
from app.tools import dispatch_json
from tests.aw_real import canonical_app_seconds_in_process
from tests.helpers import FIXTURES, NOW, Api, make_api

AW = FIXTURES / "activitywatch"
DAYS = {"python_server.json": date(2026, 3, 10), "rust_server.json": date(2026, 3, 11)}
DAYS["array_form.json"] = date(2026, 3, 12)
# The array form holds a phone besides (an Android bucket, hostname "Unknown").
HOSTS = {"python_server.json": ["laptop"], "rust_server.json": ["desktop"]}
HOSTS["array_form.json"] = ["mini", "Unknown"]


# -- ActivityWatch's own computation ---------------------------------------------------------
# aw-webui's canonical query, run by aw-core's own query engine in this process
# (tests/aw_real.py): what aw-server answers for the same buckets, with no server (the
# tier of this file starts no process; tests/e2e/test_aw_exact.py asks a real one).


def _seconds(stamp: str) -> float:
    return datetime.fromisoformat(stamp).timestamp()


def _span(event: dict[str, Any]) -> tuple[float, float]:
    return _seconds(event["timestamp"]), _seconds(event["timestamp"]) + event["duration"]


def activitywatch_app_seconds(export: dict[str, Any], host: str) -> dict[str, float]:
    buckets = export["buckets"]
    listed = list(buckets.values()) if isinstance(buckets, dict) else buckets
    by_id = {b["id"]: b for b in listed}
    mine = [b for b in listed if b["hostname"] == host]
    window = next(b["id"] for b in mine if b["type"] == "currentwindow")
    afk = next((b["id"] for b in mine if b["type"] == "afkstatus"), None)  # none: a phone
    browsers = [
        b["id"]
        for b in listed
        if b["type"] == "web.tab.current" and b["hostname"] in (host, "unknown")
    ]
    return canonical_app_seconds_in_process(
        by_id,
        window=window,
        afk=afk,
        browsers=browsers,
        start=datetime(2000, 1, 1, tzinfo=UTC),
        end=datetime(2100, 1, 1, tzinfo=UTC),
    )


# -- helpers ---------------------------------------------------------------------------------------


def _user(services: Services) -> UserContext:
    return services.store.ensure_user(name="me", time_zone="Asia/Shanghai", day_cut_hour=4)


def _import(services: Services, user: UserContext, path: Path) -> ImportSummary:
    return import_activitywatch_file(services.store, path=path, user=user, rules=services.rules)


def _query_apps(services: Services, user: UserContext, day: date) -> dict[str, int]:
    ctx = services.tool_context(user=user, now=NOW)
    result = dispatch_json(
        ctx,
        "query_stats",
        {"period": "custom", "date_from": str(day), "date_to": str(day)}
        | {"metric": "seconds_by_app", "top_n": 50},
    )
    return {item["app"]: item["seconds"] for item in result["items"]}


def _record_count(conn: Any) -> int:
    return int(conn.execute("SELECT count(*) AS n FROM records").fetchone()["n"])


@contextmanager
def rust_like_server(
    export: dict[str, Any], *, classes: list[Any] | None = None
) -> Iterator[tuple[str, list[str]]]:
    """A loopback server serving `export` through aw-server's REST API as aw-server-rust
    answers: `GET /api/0/buckets/` lists the buckets, `GET .../events?end=&limit=` the
    events that started by `end`, newest first, clipped to the range asked. Yields its
    URL and the paths it was asked for. A stand-in kept for what no real server here
    can show: aw-server-rust (not installable from PyPI) clips events at `end`, so a
    page repeats the event starting there with no duration; and it keeps aw-webui's
    categories in its settings (`GET /api/0/settings/classes`), which the Python
    aw-server 0.12 has no endpoint for. The real Python aw-server is asked in
    tests/e2e/test_aw_exact.py."""
    buckets = {b["id"]: b for b in export["buckets"].values()}
    asked: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            parts = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            if parts.path.startswith("/api/0/settings"):
                if classes is None:
                    self.send_error(404)
                    return
                body: Any = classes if parts.path.endswith("/classes") else {"classes": classes}
            elif parts.path == "/api/0/buckets/":
                body = {
                    key: {k: v for k, v in b.items() if k != "events"} for key, b in buckets.items()
                }
            else:
                bucket_id = unquote(parts.path.removeprefix("/api/0/buckets/"))
                body = self._events(buckets[bucket_id.removesuffix("/events")], query)
            payload = json.dumps(body).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _events(self, bucket: dict[str, Any], query: dict[str, str]) -> list[Any]:
            end = _seconds(query["end"]) if "end" in query else float("inf")
            out = []
            for event in sorted(bucket["events"], key=lambda e: -_seconds(e["timestamp"])):
                start = _seconds(event["timestamp"])
                if start <= end:
                    out.append({**event, "duration": min(event["duration"], end - start)})
            return out[: int(query["limit"])]

        def log_message(self, *_: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()


# -- tests -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["python_server.json", "rust_server.json", "array_form.json"])
def test_active_seconds_per_app_equal_activitywatchs_own_to_the_second(
    services: Services, conn: Any, name: str
) -> None:
    user = _user(services)
    summary = _import(services, user, AW / name)
    assert summary.new > 0 and summary.duplicate == 0
    export = json.loads((AW / name).read_text())
    canonical: dict[str, float] = {}
    for host in HOSTS[name]:
        for app, seconds in activitywatch_app_seconds(export, host).items():
            key = services.rules.apps.canonical(app)
            canonical[key] = canonical.get(key, 0.0) + seconds
    backfill(services.store, now=NOW, settings=services.settings)
    got = _query_apps(services, user, DAYS[name])
    assert got == {app: round(s) for app, s in canonical.items()}
    # Exactly, not just after rounding: the records' own durations, to the microsecond.
    exact = conn.execute(
        "SELECT app, sum(duration_s) AS s FROM v_record_durations WHERE NOT is_idle GROUP BY app"
    ).fetchall()
    assert {r["app"]: r["s"] for r in exact} == pytest.approx(canonical, abs=1e-6)


def test_browser_time_gets_the_focused_tabs_url_and_private_tabs_are_redacted(
    services: Services, conn: Any
) -> None:
    user = _user(services)
    summary = _import(services, user, AW / "python_server.json")
    assert (summary.redacted, summary.devices) == (3, ["laptop"])
    rows = conn.execute(
        "SELECT app, app_raw, window_title, url, is_idle, redacted, "
        "extract(epoch FROM ts_end - ts_start)::float AS s FROM records ORDER BY ts_start"
    ).fetchall()
    chrome = [(r["window_title"], r["url"], r["s"]) for r in rows if r["app"] == "Google Chrome"]
    # Flooding gave Chrome half (0.75 s) of the 1.5 s gap before its first tab event, as
    # aw-core splits a gap between differing windows at its midpoint; the tab changed
    # at 80 s, inside the first of two window events.
    pulls = ("Pull requests · acme/timetrace", "https://github.com/acme/timetrace/pulls")
    assert chrome == [
        ("acme/timetrace - Google Chrome", None, 0.75),
        ("acme/timetrace", "https://github.com/acme/timetrace", 48.0),
        (*pulls, 12.0),
        (*pulls, 40.25),
    ]
    # The private window: its incognito tab (away, then back) and its own title after it
    # (half of the 3 s gap before the editor).
    private = [(r["app"], r["window_title"], r["url"], r["s"]) for r in rows if r["redacted"]]
    assert private == [("Firefox", "", None, s) for s in (50.0, 40.0, 1.5)]
    # The afk remainder of a window event is an idle record of the same app; a tab
    # playing sound (YouTube) keeps its time active, as in ActivityWatch's UI.
    idle = [(r["app"], r["s"]) for r in rows if r["is_idle"]]
    assert idle == [("Visual Studio Code", 300.0), ("微信", 50.0), ("Firefox", 50.0)]


def test_reimport_adds_nothing_and_an_overlapping_export_adds_only_new_events(
    services: Services, conn: Any, tmp_path: Path, other_db: Any
) -> None:
    user = _user(services)
    full = json.loads((AW / "python_server.json").read_text())
    cut = _seconds("2026-03-10T01:02:16+00:00")  # between two window events 7.75 s apart

    def export(name: str, keep: Any) -> Path:
        buckets = {
            key: {**b, "events": [e for e in b["events"] if keep(*_span(e))]}
            for key, b in full["buckets"].items()
        }
        path = tmp_path / name
        path.write_text(json.dumps({"buckets": buckets}), encoding="utf-8")
        return path

    # Two exports taken at different times: the later one repeats the not-afk event
    # that was still open at the cut.
    first = _import(services, user, export("early.json", lambda start, end: start < cut))
    second = _import(services, user, export("later.json", lambda start, end: end > cut))
    assert first.new > 0 and second.new > 0 and second.duplicate == 0
    after_two = _record_count(conn)
    assert after_two == first.new + second.new

    again = _import(services, user, AW / "python_server.json")
    assert (again.new, again.duplicate) == (0, after_two)
    assert _record_count(conn) == after_two

    with other_db() as (fresh, fresh_conn):
        whole = _import(fresh, _user(fresh), AW / "python_server.json")
        assert whole.new == after_two
        ids = "SELECT client_record_id, ts_start, ts_end, is_idle FROM records ORDER BY 1"
        assert conn.execute(ids).fetchall() == fresh_conn.execute(ids).fetchall()

    # Records deleted since are not brought back by importing the same history again.
    gone = delete_records(services.store, user=user, ts_to=datetime.fromtimestamp(cut, UTC))
    assert 0 < gone < after_two
    live = "SELECT count(*) AS n FROM records WHERE deleted_at IS NULL"
    assert conn.execute(live).fetchone()["n"] == after_two - gone
    replayed = _import(services, user, AW / "python_server.json")
    assert (replayed.new, replayed.duplicate) == (0, after_two)
    assert conn.execute(live).fetchone()["n"] == after_two - gone


def test_a_cut_off_export_says_how_far_it_got_and_imports_nothing(
    services: Services, conn: Any, tmp_path: Path
) -> None:
    user = _user(services)
    text = (AW / "python_server.json").read_text(encoding="utf-8")
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) * 2 // 3], encoding="utf-8")
    with pytest.raises(ActivityWatchError) as caught:
        _import(services, user, cut)
    message = caught.value.message
    assert "cut.json ends too early" in message
    assert "nothing was imported" in message
    assert re.search(r"read [\d,]+ events of \d bucket\(s\), the last 'aw-watcher-", message)
    assert _record_count(conn) == 0
    corrupt = tmp_path / "corrupt.json"
    corrupt.write_text(text.replace('"duration"', '"duration" 1', 1), encoding="utf-8")
    with pytest.raises(ActivityWatchError, match=r"is not valid JSON|where"):
        _import(services, user, corrupt)
    deep = tmp_path / "deep.json"
    deep.write_text(text.replace('"data": {}', '"data": ' + "[" * 100_000 + "]" * 100_000, 1))
    with pytest.raises(ActivityWatchError, match="nests its arrays or objects too deeply"):
        _import(services, user, deep)
    assert _record_count(conn) == 0
    # The whole file still imports afterwards.
    assert _import(services, user, AW / "python_server.json").new > 0


def test_cli_imports_prints_a_summary_and_builds_the_pyramid(
    settings: Settings, db_url: str, conn: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TIMETRACE_DATABASE_URL", db_url)
    monkeypatch.setenv("TIMETRACE_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("TIMETRACE_TIME_ZONE", "Asia/Shanghai")
    result = CliRunner().invoke(
        main, ["import", "activitywatch", str(AW / "rust_server.json"), "--user", "me"]
    )
    assert result.exit_code == 0, result.output
    printed = " ".join(result.output.split())
    assert re.search(
        r"activitywatch: 21 events → 18 records in [\d.]+ s: 18 new, 0 duplicate, 0 excluded, "
        r"3 redacted",
        printed,
    )
    assert "devices: desktop" in printed and "pyramid: 1 days" in printed
    episodes = conn.execute("SELECT count(*) AS n FROM episodes").fetchone()["n"]
    assert episodes > 0
    bad = CliRunner().invoke(main, ["import", "activitywatch", str(AW), "--user", "me"])
    assert bad.exit_code != 0


@pytest.mark.slow
def test_an_upload_over_http_is_imported_by_the_worker_with_its_progress(
    api: Api, services: Services, db_url: str, tmp_path: Path, conn: Any
) -> None:
    body = (AW / "python_server.json").read_bytes()
    files = {"file": ("aw-buckets-export.json", body, "application/json")}
    assert api.client.post("/api/v1/import/activitywatch", files=files).status_code == 401
    accepted = api.client.post("/api/v1/import/activitywatch", files=files, headers=api.auth)
    assert accepted.status_code == 202, accepted.text
    follow = accepted.json()["progress"]
    assert api.client.get(follow, headers=api.auth).json()["status"] == "queued"
    cut = {"file": ("cut.json", body[: len(body) // 2], "application/json")}
    failing = api.client.post("/api/v1/import/activitywatch", files=cut, headers=api.auth).json()

    result = CliRunner().invoke(
        main,
        ["worker", "--once"],
        env={"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path)},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    done = api.client.get(follow, headers=api.auth).json()
    assert (done["status"], done["events"], done["new"], done["redacted"]) == ("done", 21, 18, 3)
    assert _record_count(conn) == 18
    failed = api.client.get(failing["progress"], headers=api.auth).json()
    assert failed["status"] == "failed" and "ends too early" in failed["error"]
    # The uploads (captured text) are gone once imported; the worker built the episodes.
    assert list((tmp_path / "imports").iterdir()) == []
    assert conn.execute("SELECT count(*) AS n FROM episodes").fetchone()["n"] > 0
    other = api.client.get("/api/v1/imports/999", headers=api.auth)
    assert other.status_code == 404 and other.json() == {"error": "no import 999"}


def test_a_rust_aw_server_paged_back_in_time_imports_what_its_export_does(
    services: Services, conn: Any, other_db: Any, settings: Settings, db_url: str
) -> None:
    user = _user(services)
    export = json.loads((AW / "python_server.json").read_text())
    ids = "SELECT client_record_id, ts_start, ts_end, is_idle, app, url FROM records ORDER BY 1"
    with rust_like_server(export) as (url, asked):
        # Pages of 4: the server repeats, clipped to nothing, the event starting at `end`.
        summary = import_activitywatch_server(
            services.store, url=url + "/", user=user, rules=services.rules, page=4
        )
        assert summary.events == sum(len(b["events"]) for b in export["buckets"].values())
        assert sum("end=" in path for path in asked) == 4
        with other_db() as (fresh, fresh_conn):
            from_file = _import(fresh, _user(fresh), AW / "python_server.json")
            assert summary.new == from_file.new
            assert conn.execute(ids).fetchall() == fresh_conn.execute(ids).fetchall()

        env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(settings.data_dir)}
        again = CliRunner().invoke(
            main, ["import", "activitywatch", "--url", url, "--user", "me"], env=env
        )
        assert again.exit_code == 0, again.output
        assert f"0 new, {summary.new} duplicate" in " ".join(again.output.split())
    gone = CliRunner().invoke(
        main, ["import", "activitywatch", "--url", url, "--user", "me"], env=env
    )
    assert gone.exit_code == 1
    assert f"cannot read {url}" in gone.output and "Traceback" not in gone.output


def test_an_upload_is_refused_with_a_4xx_naming_what_is_wrong_and_leaves_nothing(
    services: Services, conn: Any, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(imports.STREAMED, imports.UPLOAD_PATH, 4096)
    api = make_api(services)
    body = (AW / "python_server.json").read_bytes()
    assert len(body) > 4096
    multipart = b"".join(
        [
            b'--b\r\nContent-Disposition: form-data; name="file"; filename="aw.json"\r\n\r\n',
            body,
            b"\r\n--b--\r\n",
        ]
    )

    def post(headers: dict[str, str] | None = None, **kwargs: Any) -> Any:
        return api.client.post(
            imports.UPLOAD_PATH, headers={**api.auth, **(headers or {})}, **kwargs
        )

    def streamed() -> Any:  # no declared size: chunked, 1 KiB at a time
        chunks = (multipart[i : i + 1024] for i in range(0, len(multipart), 1024))
        return post({"Content-Type": "multipart/form-data; boundary=b"}, content=chunks)

    # The upload's path is no import id: only POST answers there.
    assert api.client.get(imports.UPLOAD_PATH, headers=api.auth).headers["allow"] == "POST"
    assert (
        api.client.get("/api/v1/imports/99999999999999999999", headers=api.auth).status_code == 422
    )
    missing = post(data={"note": "x"})
    assert missing.status_code == 422
    assert missing.json()["detail"] == [
        {
            "field": "file",
            "message": "an ActivityWatch export is required (a multipart file field `file`)",
        }
    ]
    not_json = post(files={"file": ("export.csv", b"app,title\nCode,main.py\n", "text/csv")})
    assert not_json.status_code == 422 and not_json.json()["detail"][0]["field"] == "file"
    assert "not an ActivityWatch export" in not_json.json()["error"]
    # Over the upload limit: declared, refused from the headers; streamed, refused once
    # it crosses the limit. Either way with the error shape and nothing left behind.
    declared = post({"Content-Length": str(10**10)}, content=b"{}")
    assert declared.status_code == 413
    assert "timetrace import activitywatch" in declared.json()["error"]
    too_long = streamed()
    assert too_long.status_code == 413, too_long.text
    assert too_long.json()["error"].startswith("the request body is larger than 4,096 bytes")
    assert conn.execute("SELECT count(*) AS n FROM imports").fetchone()["n"] == 0
    assert not (settings.data_dir / "imports").exists()
    # The same body under the limit is taken.
    monkeypatch.setitem(imports.STREAMED, imports.UPLOAD_PATH, 1 << 20)
    api = make_api(services, user_name="other")
    taken = streamed()
    assert taken.status_code == 202, taken.text
    assert taken.json() == {"import_id": 1, "status": "queued", "progress": "/api/v1/imports/1"}
    assert [p.stat().st_size for p in (settings.data_dir / "imports").iterdir()] == [len(body)]


def test_a_batch_the_database_refuses_stops_the_import_with_that_error(
    services: Services, conn: Any
) -> None:
    # Batches are stored by a thread of the writer's own: its failure must reach the
    # importer, and no batch after it is written.
    user = _user(services)
    start = NOW - timedelta(hours=1)
    record = ImportedRecord("x:1", start, start + timedelta(seconds=30), "Code.exe", "main.py")
    with (
        pytest.raises(UnknownDeviceError, match="never-registered"),
        RecordWriter(services.store, user=user, rules=services.rules, source="test") as writer,
    ):
        writer.add("never-registered", record)
        writer.flush()
        writer.add("never-registered", record._replace(client_record_id="x:2"))
    assert _record_count(conn) == 0
    assert (writer.summary.new, writer.summary.records) == (0, 0)


def test_a_batch_repeating_a_key_stores_it_once(services: Services, conn: Any) -> None:
    # A first import is copied straight into records; a key twice in one batch makes
    # that copy fail on the unique key, and the batch then goes the staged way.
    user = _user(services)
    start = NOW - timedelta(hours=1)
    record = ImportedRecord("x:1", start, start + timedelta(seconds=30), "Code.exe", "main.py")
    with RecordWriter(services.store, user=user, rules=services.rules, source="test") as writer:
        writer.ensure_device("desk", name="desk", kind="desktop")
        writer.add("desk", record)
        writer.add("desk", record._replace(window_title="main.py again"))
        writer.add("desk", record._replace(client_record_id="x:2", ts_start=start, ts_end=None))
    assert (writer.summary.new, writer.summary.duplicate) == (2, 1)
    rows = conn.execute("SELECT client_record_id FROM records ORDER BY 1").fetchall()
    assert [r["client_record_id"] for r in rows] == ["x:1", "x:2"]


def test_a_servers_categories_are_shown_and_applied_only_when_asked(
    services: Services, conn: Any, settings: Settings, db_url: str, tmp_path: Path
) -> None:
    """The settings' classes as aw-webui keeps them (the stand-in serves them: the real
    aw-server 0.12 has no settings; tests/e2e/test_aw_exact.py asks it and is told so)."""
    _user(services)
    export = json.loads((AW / "python_server.json").read_text())
    classes = [
        {"name": ["Comms", "IM"], "rule": {"type": "regex", "regex": "Slack|微信|WeChat"}},
        {"name": ["Work"], "rule": {"type": "regex", "regex": "timetrace"}},
        {"name": ["Finance"], "rule": {"type": "regex", "regex": "Bank"}},
    ]
    rules_file = tmp_path / "rules.toml"
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(settings.data_dir)}
    categories = "SELECT app, category, category_source FROM records WHERE app = 'Slack'"
    with rust_like_server(export, classes=classes) as (url, _):
        shown = CliRunner().invoke(
            main,
            ["import", "activitywatch", "--url", url, "--user", "me", "--no-build",
             "--no-categories"],
            env=env,
        )  # fmt: skip
        assert shown.exit_code == 0, shown.output
        said = " ".join(shown.output.split())
        assert "aw:Comms/IM -> social (app ~ (?-i:Slack|微信|WeChat))" in said
        assert "skipped Finance: names none of TimeTrace's categories" in said
        assert "not applied: run again with --apply-categories" in said
        assert not rules_file.exists()
        before = conn.execute(categories).fetchall()
        assert before and all(not r["category_source"].startswith("rule:aw:") for r in before)

        conn.execute("DELETE FROM records")
        command = ["import", "activitywatch", "--url", url, "--user", "me", "--no-build"]
        refused = CliRunner().invoke(main, [*command, "--apply-categories"], env=env)
        assert refused.exit_code == 1 and "set TIMETRACE_RULES_FILE" in refused.output
        applied = CliRunner().invoke(
            main,
            [*command, "--apply-categories"],
            env={**env, "TIMETRACE_RULES_FILE": str(rules_file)},  # made by the first apply
        )
        assert applied.exit_code == 0, applied.output
        assert "applied: 4 rules added to" in " ".join(applied.output.split())
    assert 'name = "aw:Comms/IM"' in rules_file.read_text(encoding="utf-8")
    # The import read the rules after they were added: its records are sorted by them.
    after = conn.execute(categories).fetchall()
    assert after and {(r["category"], r["category_source"]) for r in after} == {
        ("social", "rule:aw:Comms/IM")
    }


@pytest.mark.slow
def test_an_uploaded_export_brings_its_category_tree_as_the_cli_does(
    api: Api, db_url: str, tmp_path: Path, conn: Any
) -> None:
    """TimeTrace's activitywatch export carries aw-webui's `classes` before its buckets;
    uploaded over HTTP, the tree becomes the user's before the history is sorted by it."""
    classes = [
        {"name": ["Work"], "rule": {"type": "none"}, "data": {"color": "#0000ff"}},
        {"name": ["Work", "Programming"], "rule": {"type": "regex", "regex": "Visual Studio"}},
        {"name": ["Work", "Programming", "Shell"],
         "rule": {"type": "regex", "regex": "terminal", "ignore_case": True}},
    ]  # fmt: skip
    export = {"classes": classes, **json.loads((AW / "python_server.json").read_bytes())}
    files = {"file": ("tree.json", json.dumps(export).encode(), "application/json")}
    accepted = api.client.post("/api/v1/import/activitywatch", files=files, headers=api.auth)
    assert accepted.status_code == 202, accepted.text
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path)}
    for _ in range(2):  # a retried job finds its tree in place and adds nothing
        ran = CliRunner().invoke(main, ["worker", "--once"], env=env, catch_exceptions=False)
        assert ran.exit_code == 0, ran.output
    done = api.client.get(accepted.json()["progress"], headers=api.auth).json()
    assert done["status"] == "done", done
    tree = {r["path"]: (r["kind"], r["color"]) for r in conn.execute(
        "SELECT path, kind, color FROM v_user_categories")}  # fmt: skip
    assert tree == {
        "Work": ("work", "#0000ff"),
        "Work > Programming": ("work", None),
        "Work > Programming > Shell": ("work", None),
    }
    assert conn.execute("SELECT count(*) AS n FROM user_rules").fetchone()["n"] == 2
    by_path = {
        r["path"]: r["apps"]
        for r in conn.execute(
            "SELECT c.path, array_agg(DISTINCT r.app ORDER BY r.app) AS apps FROM records r "
            "JOIN user_rules u ON r.category_source = 'user:' || u.rule_id "
            "JOIN v_user_categories c USING (category_id) GROUP BY c.path"
        )
    }
    assert set(by_path) == {"Work > Programming", "Work > Programming > Shell"}
    assert all("Terminal" in app for app in by_path["Work > Programming > Shell"]), by_path
