"""`timetrace export` and `timetrace import timetrace` (app/db/export.py, app/db/restore.py):
a sample month, with what no rebuild could give back (model-written summaries and
narratives, a re-label, a conversation, a user rule), exported as jsonl and imported into
a fresh database and into another user gives equal query_stats for every day, equal
digests, equal episode spans and equal everything else; a second import adds nothing."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.cli import main
from app.db.connection import connect
from app.db.distribution import CLASSES
from app.db.export import KINDS, NOT_EXPORTED, ExportRequest, export_chunks, table_columns
from app.db.restore import ImportFileError, ImportTargetError, restore_file
from app.pyramid.build import backfill
from app.runtime.services import Services
from app.settings import Settings
from app.store.accounts import UserContext
from app.timeutil import period_days
from app.tools import dispatch_json
from tests.helpers import NOW, SAMPLE_MONTH, Preloaded, make_api, new_token_for, span_violations

pytestmark = pytest.mark.preloaded(SAMPLE_MONTH)
DAYS = [date(2003, 3, 1) + timedelta(days=i) for i in range(31)]


def _enrich_by_hand(services: Services, conn: Any, user: UserContext) -> None:
    """What only a model or a person writes, so the import cannot rebuild it."""
    conn.execute(
        "UPDATE episodes SET summary = '写代码：修复导入 bug ' || episode_id,"
        " summary_status = 'done' WHERE user_id = %s AND episode_id %% 3 = 0",
        [user.user_id],
    )
    conn.execute(
        "UPDATE digests SET narrative = 'A month of work.', narrative_status = 'done'"
        " WHERE user_id = %s AND grain = 'month'",
        [user.user_id],
    )
    episode = conn.execute(
        "SELECT episode_id FROM episodes WHERE user_id = %s AND NOT stale AND category = 'work'"
        " ORDER BY ts_start LIMIT 1",
        [user.user_id],
    ).fetchone()["episode_id"]
    ctx = services.tool_context(user=user, now=NOW)
    labelled = dispatch_json(
        ctx, "apply_label", {"target": "episode", "id": episode, "category": "study"}
    )
    assert "error" not in labelled, labelled
    conn.execute(
        "INSERT INTO conversations (user_id, title) VALUES (%s, '这个月学习了多少')",
        [user.user_id],
    )
    conn.execute(
        "INSERT INTO conversation_turns (user_id, conversation_id, turn_no, question, answer,"
        " status, mode, episode_ids) SELECT user_id, conversation_id, 1, '这个月学习了多少',"
        " '3 小时', 'done', 'offline', '[1, 2]' FROM conversations WHERE user_id = %s",
        [user.user_id],
    )
    # A vision model's descriptions and embeddings (vectors and full-text go through JSON).
    dim = "(SELECT value::int FROM schema_meta WHERE key = 'embedding_dim')"
    conn.execute(
        "INSERT INTO record_analyses (user_id, record_id, ts_start, description, category,"
        " confidence, cues, model, embedding, fts)"
        " SELECT user_id, record_id, ts_start, '在 VS Code 里写 Python\\n\"引号\"', 'work', 0.9,"
        " '[\"git reset --hard\"]', 'test-vlm',"
        f" array_fill(0.1::real, ARRAY[{dim}])::vector, to_tsvector('simple', 'vs code 写代码')"
        " FROM records WHERE user_id = %s ORDER BY record_id LIMIT 3",
        [user.user_id],
    )
    conn.execute(
        f"UPDATE episodes SET summary_embedding = array_fill(-0.3::real, ARRAY[{dim}])::vector,"
        " embedding_status = 'done' WHERE user_id = %s AND episode_id %% 5 = 0",
        [user.user_id],
    )
    conn.execute(
        "INSERT INTO user_rules (user_id, position, kind, pattern, category)"
        " VALUES (%s, 1, 'app', 'Slack', 'work')",
        [user.user_id],
    )


def _export(conn: Any, user: UserContext, path: Path, **extra: Any) -> Path:
    request = ExportRequest(user=user, fmt="jsonl", **extra)
    with path.open("wb") as out:
        for chunk in export_chunks(conn, request=request):
            out.write(chunk)
    return path


def _stats_by_day(services: Services, user: UserContext) -> dict[str, Any]:
    ctx = services.tool_context(user=user, now=NOW)
    out = {}
    for day in DAYS:
        for metric in ("seconds_by_category", "seconds_by_app", "active_seconds"):
            result = dispatch_json(
                ctx,
                "query_stats",
                {"period": "custom", "date_from": str(day), "date_to": str(day)}
                | {"metric": metric, "top_n": 50},
            )
            result.pop("watermark", None)
            out[f"{day} {metric}"] = result
    return out


def _rows(conn: Any, user_id: int, table: str, order: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        f"SELECT * FROM {table} WHERE user_id = %s ORDER BY {order}", [user_id]
    ).fetchall()
    return [{k: v for k, v in r.items() if k != "user_id"} for r in rows]


TABLES = {
    "records": "record_id",
    "record_analyses": "record_id",
    "episodes": "episode_id",
    "digests": "digest_id",
    "signals": "signal_id",
    "labels": "label_id",
    "conversations": "conversation_id",
    "conversation_turns": "conversation_id, turn_no",
    "build_marks": "device_id, day_local",
    "devices": "device_id",
    "user_rules": "rule_id",
}


def _everything(conn: Any, user_id: int) -> dict[str, list[dict[str, Any]]]:
    return {t: _rows(conn, user_id, t, order) for t, order in TABLES.items()}


def _spans(conn: Any, user_id: int) -> list[tuple[Any, ...]]:
    return [
        tuple(r.values())
        for r in conn.execute(
            "SELECT device_id, ts_start, first_key, last_start, last_key, ts_end, duration_s"
            " FROM episodes WHERE user_id = %s AND NOT stale ORDER BY device_id, ts_start",
            [user_id],
        )
    ]


def test_export_then_import_into_a_fresh_database_gives_every_layer_back(
    services: Services, conn: Any, preloaded: Preloaded, other_db: Any, tmp_path: Path
) -> None:
    user = preloaded.user
    _enrich_by_hand(services, conn, user)
    path = _export(conn, user, tmp_path / "me.jsonl")
    lines = path.read_bytes().splitlines()
    header, trailer = json.loads(lines[0]), json.loads(lines[-1])
    assert header["format"] == "timetrace-export" and header["version"] == 1
    assert (
        trailer["counts"]["records"]
        == conn.execute(
            "SELECT count(*) AS n FROM records WHERE user_id = %s", [user.user_id]
        ).fetchone()["n"]
    )
    assert trailer["counts"]["labels"] == 1 and trailer["counts"]["user_rules"] == 1
    assert trailer["rows"] == len(lines) - 2
    before = _stats_by_day(services, user)
    everything = _everything(conn, user.user_id)

    with other_db() as (fresh, fresh_conn):
        summary = restore_file(url=fresh.url, settings=fresh.settings, path=path, user_name="moved")
        assert summary.new == summary.rows == trailer["rows"]
        moved = fresh.store.get_user(name="moved")
        assert moved is not None and moved.time_zone == user.time_zone
        assert _stats_by_day(fresh, moved) == before
        assert _spans(fresh_conn, moved.user_id) == _spans(conn, user.user_id)
        assert _everything(fresh_conn, moved.user_id) == everything
        # The data rules hold there: spans, and digests equal to the live GROUP BY.
        assert span_violations(fresh_conn) == []
        for grain, key in [("day", str(d)) for d in DAYS] + [("month", "2003-03")]:
            first, last = period_days(grain, key)
            live = fresh.store.period_metrics(user_id=moved.user_id, day_from=first, day_to=last)
            stored = fresh_conn.execute(
                "SELECT metrics FROM digests WHERE user_id = %s AND grain = %s AND scope_key = %s",
                [moved.user_id, grain, key],
            ).fetchone()["metrics"]
            for metric in ("seconds_by_category", "seconds_by_app", "episode_count"):
                assert stored[metric] == live.metrics.get(metric), (key, metric)
        # Nothing is left to build: the pyramid came back current.
        assert backfill(fresh.store, now=NOW, settings=fresh.settings).episodes == 0
        assert _everything(fresh_conn, moved.user_id) == everything

        # Again: nothing added, nothing changed.
        tables = "SELECT count(*) AS n FROM {} WHERE user_id = %s"
        counts = {
            t: fresh_conn.execute(tables.format(t), [moved.user_id]).fetchone()["n"]
            for t in [*TABLES, "imports"]
        }
        again = restore_file(url=fresh.url, settings=fresh.settings, path=path, user_name="moved")
        assert again.new == 0 and again.rows == summary.rows
        assert {
            t: fresh_conn.execute(tables.format(t), [moved.user_id]).fetchone()["n"]
            for t in [*TABLES, "imports"]
        } == counts
        assert _everything(fresh_conn, moved.user_id) == everything
        # Nor after the new server rebuilt a day (its old episodes gone): what the file
        # held is not brought back over what the server made since.
        gone = everything["episodes"][0]["episode_id"]
        fresh_conn.execute(
            "DELETE FROM episodes WHERE user_id = %s AND episode_id = %s", [moved.user_id, gone]
        )
        third = restore_file(url=fresh.url, settings=fresh.settings, path=path, user_name="moved")
        assert third.new == 0
        assert not fresh_conn.execute(
            "SELECT 1 FROM episodes WHERE user_id = %s AND episode_id = %s", [moved.user_id, gone]
        ).fetchone()

        # Ids kept: later rows take ids past them.
        added = fresh.store.ensure_user(name="later", time_zone="UTC", day_cut_hour=4)
        fresh.store.add_device(user_id=added.user_id, device_id="x", name="", kind="other")
        fresh_conn.execute(
            "INSERT INTO conversations (user_id, title) VALUES (%s, 'new')", [moved.user_id]
        )
        top = max(r["conversation_id"] for r in everything["conversations"])
        newest = fresh_conn.execute(
            "SELECT max(conversation_id) AS n FROM conversations WHERE user_id = %s",
            [moved.user_id],
        ).fetchone()["n"]
        assert newest > top


def test_import_into_another_user_of_the_same_database_and_refusals(
    services: Services, conn: Any, preloaded: Preloaded, tmp_path: Path
) -> None:
    user = preloaded.user
    path = _export(conn, user, tmp_path / "me.jsonl")
    before = _stats_by_day(services, user)
    restore_file(url=services.url, settings=services.settings, path=path, user_name="twin")
    twin = services.store.get_user(name="twin")
    assert twin is not None
    assert _stats_by_day(services, twin) == before
    assert _everything(conn, twin.user_id) == _everything(conn, user.user_id)
    # The source user holds another history: refused, and nothing is written.
    with pytest.raises(ImportTargetError, match="already holds"):
        restore_file(url=services.url, settings=services.settings, path=path, user_name=user.name)
    # A file cut short, or not an export.
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(path.read_bytes().splitlines(keepends=True)[:-1]))
    with pytest.raises(ImportFileError, match="cut short"):
        restore_file(url=services.url, settings=services.settings, path=cut, user_name="cut")
    # One transaction: a refused import leaves nothing, not even its user.
    assert services.store.get_user(name="cut") is None
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"kind": "header", "format": "other"}\n')
    with pytest.raises(ImportFileError, match="header"):
        restore_file(url=services.url, settings=services.settings, path=junk, user_name="junk")


def test_a_window_carries_its_days_and_the_whole_of_what_has_no_day(
    conn: Any, preloaded: Preloaded, tmp_path: Path
) -> None:
    user = preloaded.user
    path = _export(
        conn, user, tmp_path / "w.jsonl", day_from=date(2003, 3, 10), day_to=date(2003, 3, 11)
    )
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    days = {r["row"]["day_local"] for r in lines if r["kind"] == "records"}
    assert days == {"2003-03-10", "2003-03-11"}
    expected = conn.execute(
        "SELECT count(*) AS n FROM records WHERE user_id = %s"
        " AND day_local BETWEEN '2003-03-10' AND '2003-03-11'",
        [user.user_id],
    ).fetchone()["n"]
    assert lines[-1]["counts"]["records"] == expected
    assert lines[-1]["counts"]["devices"] == 3
    scopes = {r["row"]["scope_key"] for r in lines if r["kind"] == "digests"}
    assert scopes == {"2003-03-10", "2003-03-11", "2003-W11"}


def test_csv_tables_are_the_live_records_and_episodes(conn: Any, preloaded: Preloaded) -> None:
    user = preloaded.user
    day = date(2003, 3, 5)
    out = {}
    for table in ("records", "episodes"):
        request = ExportRequest(user=user, fmt="csv", day_from=day, day_to=day, table=table)
        data = b"".join(export_chunks(conn, request=request))
        assert data.startswith(b"\xef\xbb\xbf")
        out[table] = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
    live = conn.execute(
        "SELECT count(*) AS n FROM records WHERE user_id = %s AND day_local = %s"
        " AND deleted_at IS NULL",
        [user.user_id, day],
    ).fetchone()["n"]
    assert len(out["records"]) == live
    # A day's seconds are the same in both tables and in the day digest.
    digest = conn.execute(
        "SELECT metrics FROM digests WHERE user_id = %s AND scope_key = '2003-03-05'",
        [user.user_id],
    ).fetchone()["metrics"]
    by_records = sum(float(r["seconds"]) for r in out["records"])
    by_episodes = sum(float(r["seconds"]) for r in out["episodes"])
    total = sum(digest["seconds_by_category"].values())
    assert by_records == pytest.approx(total, abs=0.01 * len(out["records"]))
    assert by_episodes == pytest.approx(total, abs=0.01 * len(out["episodes"]))
    assert {"start", "end", "app", "title", "category", "idle"} <= out["records"][0].keys()


def test_every_tenant_table_is_exported_or_says_why_not() -> None:
    exported = {kind.name for kind in KINDS}
    assert exported | set(NOT_EXPORTED) == set(CLASSES.tenant)
    assert not exported & set(NOT_EXPORTED)


def _get(api: Any, query: str) -> Any:
    return api.client.get(f"/api/v1/export?{query}", headers=api.auth)


@pytest.fixture
def sample_api(services: Services, preloaded: Preloaded) -> Iterator[Any]:
    api = make_api(services, user_name="other")
    api.user = preloaded.user
    api.token = new_token_for(services, preloaded.user)
    api.auth = {"Authorization": f"Bearer {api.token}"}
    yield api


def test_the_http_export_streams_and_refuses_bad_parameters(sample_api: Any) -> None:
    api = sample_api
    ok = _get(api, "format=jsonl&from=2003-03-02&to=2003-03-02")
    assert ok.status_code == 200, ok.text
    assert ok.headers["content-type"].startswith("application/x-ndjson")
    assert "attachment" in ok.headers["content-disposition"]
    lines = ok.content.splitlines()
    assert json.loads(lines[0])["user"]["name"] == api.user.name
    assert json.loads(lines[-1])["counts"]["records"] > 0
    csv_ok = _get(api, "format=csv&table=episodes&from=2003-03-02&to=2003-03-02")
    assert csv_ok.status_code == 200 and b"episode_id" in csv_ok.content[:100]
    for bad, word in (
        ("format=xml", "format"),
        ("from=2003-03-05&to=2003-03-01", "before"),
        ("from=yesterday", "from"),
        ("format=csv&table=signals", "table"),
        ("from=9999-01-01&to=9999-12-31", "between"),
        ("from=1969-12-31", "between"),
        ("format=csv&to=3000-01-01", "between"),
    ):
        got = _get(api, bad)
        assert 400 <= got.status_code < 500, (bad, got.status_code)
        assert word in got.json()["error"], got.json()
    assert api.client.get("/api/v1/export").status_code == 401


def test_a_user_named_in_chinese_gets_a_download_name(services: Services) -> None:
    api = make_api(services, user_name="小明")
    got = api.client.get("/api/v1/export?format=csv", headers=api.auth)
    assert got.status_code == 200, got.text
    disposition = got.headers["content-disposition"]
    assert "filename*=UTF-8''timetrace-%E5%B0%8F%E6%98%8E-records.csv" in disposition
    assert got.content.decode("utf-8-sig").startswith("record_id,device,day,start,end")


def test_the_cli_exports_to_a_file_and_imports_it(
    preloaded: Preloaded, settings: Settings, db_url: str, tmp_path: Path
) -> None:
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(settings.data_dir)}
    path = tmp_path / "out.jsonl"
    ran = CliRunner().invoke(
        main,
        [
            *("export", "--user", preloaded.user.name),
            *("--from", "2003-03-03", "--to", "2003-03-04", "-o", str(path)),
        ],
        env=env,
    )
    assert ran.exit_code == 0, ran.output
    assert "wrote" in ran.output
    ran = CliRunner().invoke(main, ["import", "timetrace", str(path), "--user", "copy"], env=env)
    assert ran.exit_code == 0, ran.output
    assert "rows read into user 'copy'" in ran.output
    again = CliRunner().invoke(main, ["import", "timetrace", str(path), "--user", "copy"], env=env)
    assert again.exit_code == 0 and "added nothing" in again.output, again.output
    with connect(db_url, settings=settings, autocommit=True) as c:
        n = c.execute(
            "SELECT count(*) AS n FROM records r JOIN users u USING (user_id) WHERE u.name = 'copy'"
        ).fetchone()["n"]
        queued = c.execute(
            "SELECT count(*) AS n FROM procrastinate_jobs j JOIN users u"
            " ON u.user_id = (j.args ->> 'user_id')::bigint"
            " WHERE u.name = 'copy' AND j.task_name LIKE %s AND j.status = 'todo'",
            ["%build%"],
        ).fetchone()["n"]
    assert n == sum(1 for line in path.read_bytes().splitlines() if b'"kind":"records"' in line)
    assert queued == 3  # a build per device: what the old server still had to build
    out = CliRunner().invoke(
        main,
        [
            "export",
            "--user",
            preloaded.user.name,
            "--format",
            "csv",
            "--table",
            "episodes",
            "--from",
            "2003-03-03",
            "--to",
            "2003-03-03",
        ],
        env=env,
    )
    assert out.exit_code == 0, out.output
    assert out.output.lstrip("\ufeff").startswith("episode_id,device,day,start,end,seconds")
    wrong = CliRunner().invoke(main, ["export", "--user", "nobody"], env=env)
    assert wrong.exit_code != 0 and "nobody" in wrong.output


def test_docs_describe_every_kind_and_every_field(conn: Any) -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "export.md").read_text("utf-8")
    headings = " ".join(line for line in docs.splitlines() if line.startswith("#### "))
    for kind in KINDS:
        assert kind.name in headings, kind.name
        for column in table_columns(conn, kind.name):
            assert f"`{column}`" in docs, f"{kind.name}.{column} is not in docs/export.md"
