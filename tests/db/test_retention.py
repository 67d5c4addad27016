"""Retention tiers (docs/retention.md): raw records age out and take their text with them
from every table, the numbers built from them stay exact, a replay adds nothing, and
the dry run counts exactly what the job removes. On a generated span of eleven weeks
across three months, with a second user who keeps a record in the middle month."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from psycopg.types.json import Jsonb

from app.api import create_app
from app.cli import main
from app.importers.writer import ImportedRecord
from app.ingest.records import RecordBatch, delete_records, ingest_batch, store_records
from app.jobs.retention import apply_retention_tiers
from app.pyramid.build import backfill
from app.pyramid.retention import apply_retention
from app.runtime.services import Services
from app.settings import Settings
from app.store import UserContext
from app.tools import dispatch_json
from tests.db.test_jobs import run_worker_once, with_app
from tests.helpers import NOW, Preloaded, SampleRecipe, make_api, new_token_for

SPAN = SampleRecipe(start=date(2003, 1, 10), days=80, seed=13, mean_record_s=300, built=False)
JOB_NOW = datetime(2003, 4, 1, 12, tzinfo=UTC)  # the job's clock: the span's last day + 2
MARK = "旧标题SENTINELX"  # in every expired title, URL and quote: found by substring
KEEP = "新标题KEEPMARK"  # the same, in the days the tier keeps
MONTHS = [("2003-01-01", "2003-01-31"), ("2003-02-01", "2003-02-28"), ("2003-03-01", "2003-03-31")]
# The numbers (top titles are episode text: the episode tier, on here, takes them).
METRICS = ("seconds_by_category", "seconds_by_app", "active_seconds", "episode_count")


def _sentinel(key: str, at: datetime, mark: str) -> ImportedRecord:
    return ImportedRecord(
        client_record_id=key,
        ts_start=at,
        ts_end=at + timedelta(minutes=12),
        app="Google Chrome",
        window_title=f"{mark} {key} — Google Chrome",
        url=f"https://{mark.lower()}.example/{key}?q={mark}",
        description=f"reading {mark} {key}",
    )


def _load(services: Services, conn: Any, user: UserContext) -> dict[str, Any]:
    """Sentinels in the expiring span (and one kept), in every place raw text reaches:
    records with analyses, the door's events, a re-label note, a conversation turn;
    a second user with one record in February; then the pyramid, built."""
    store = services.store
    device = next(r["device_id"] for r in conn.execute("SELECT device_id FROM devices"))
    old = [
        _sentinel(f"s{i}", datetime(2003, 1, 20, 3, 0, tzinfo=UTC) + timedelta(days=9 * i), MARK)
        for i in range(4)
    ]
    kept = [_sentinel("k0", datetime(2003, 3, 25, 3, 0, tzinfo=UTC), KEEP)]
    result = store_records(
        store, user=user, device_id=device, records=[*old, *kept], rules=services.rules,
        source="test",
    )  # fmt: skip
    assert result.new == 5
    keeper = store.ensure_user(name="keeper", time_zone="UTC", day_cut_hour=4)
    store.add_device(user_id=keeper.user_id, device_id="pc", name="", kind="desktop")
    feb = datetime(2003, 2, 14, 9, tzinfo=UTC)
    batch = RecordBatch.model_validate(
        {
            "device_id": "pc",
            "records": [
                {
                    "client_record_id": "kp1",
                    "ts_start": feb.isoformat(),
                    "ts_end": (feb + timedelta(minutes=5)).isoformat(),
                    "app": "Code",
                    "window_title": "keeper.py",
                }
            ],
        }
    )
    assert ingest_batch(store, user=keeper, batch=batch, rules=services.rules).new == 1
    conn.execute(
        "INSERT INTO aw_buckets (user_id, bucket_id, type, client, hostname, created) "
        "VALUES (%s, 'aw-watcher-window_h', 'currentwindow', 'aw', 'h', %s)",
        [user.user_id, old[0].ts_start],
    )
    for at, mark in ((old[0].ts_start, MARK), (kept[0].ts_start, KEEP)):
        conn.execute(
            "INSERT INTO aw_events (user_id, bucket_id, event_id, ts, duration_us, data) "
            "VALUES (%s, 'aw-watcher-window_h', nextval('aw_event_ids'), %s, 60000000, %s)",
            [user.user_id, at, Jsonb({"app": "Chrome", "title": mark, "url": f"https://{mark}"})],
        )
    conn.execute(
        "INSERT INTO labels (user_id, target_kind, target_id, new_value, note, touched) "
        "VALUES (%s, 'record', 0, 'work', %s, tstzrange(%s, %s, '[]'))",
        [user.user_id, f"about {MARK}", old[1].ts_start, old[1].ts_start],
    )
    conn.execute("INSERT INTO conversations (user_id, title) VALUES (%s, %s)", [user.user_id, MARK])
    conn.execute(
        "INSERT INTO conversation_turns (user_id, conversation_id, turn_no, question, answer,"
        " status, mode, reach) SELECT %s, conversation_id, 1, 'what did I read?', %s, 'done',"
        " 'offline', tstzrange(%s, %s) FROM conversations WHERE user_id = %s",
        [user.user_id, f"you read {MARK}", old[2].ts_start, old[2].ts_end, user.user_id],
    )
    backfill(store, now=NOW, settings=services.settings)
    return {"keeper": keeper}


def _stats(
    services: Services, user: UserContext, metrics: tuple[str, ...] = METRICS
) -> dict[str, Any]:
    ctx = services.tool_context(user=user, now=NOW)
    return {
        (first, metric): dispatch_json(
            ctx,
            "query_stats",
            {"period": "custom", "date_from": first, "date_to": last, "metric": metric},
        )
        for first, last in MONTHS
        for metric in metrics
    }


def _digests(conn: Any) -> list[dict[str, Any]]:
    return conn.execute("SELECT * FROM digests ORDER BY user_id, grain, scope_key").fetchall()


def _episode_numbers(conn: Any) -> list[tuple[Any, ...]]:
    rows = conn.execute(
        "SELECT episode_id, day_local, ts_start, ts_end, category, category_seconds, "
        "app_seconds, duration_s, active_s, frame_count, switch_count, interruption_s, stale "
        "FROM episodes ORDER BY episode_id"
    ).fetchall()
    return [tuple(r.values()) for r in rows]


def _counts(conn: Any, user_id: int) -> dict[str, int]:
    one = "SELECT count(*) AS n FROM {} WHERE user_id = %s"
    return {
        table: int(conn.execute(one.format(table), [user_id]).fetchone()["n"])
        for table in ("records", "record_analyses", "aw_events", "conversation_turns")
    }


def _tables_holding(conn: Any, text: str) -> dict[str, int]:
    """Every table of the schema (each month of records on its own; the job queue too),
    by the text of its rows: where `text` still appears, and how often."""
    tables = conn.execute(
        "SELECT c.oid::regclass::text AS name FROM pg_class c "
        "JOIN pg_namespace n ON n.oid = c.relnamespace "
        "WHERE c.relkind = 'r' AND n.nspname = 'public'"
    ).fetchall()
    found = {}
    for t in tables:
        n = conn.execute(
            f"SELECT count(*) AS n FROM {t['name']} x WHERE x::text LIKE %s",
            [f"%{text}%"],
        ).fetchone()["n"]
        if n:
            found[t["name"]] = int(n)
    return found


def _months(conn: Any) -> list[str]:
    rows = conn.execute(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
        "WHERE i.inhparent = 'records'::regclass ORDER BY c.relname"
    ).fetchall()
    return [r["relname"] for r in rows]


@pytest.mark.preloaded(SPAN)
def test_a_30_day_raw_tier_keeps_every_number_and_no_expired_text(
    services: Services, preloaded: Preloaded, conn: Any
) -> None:
    user = preloaded.user
    store = services.store
    extra = _load(services, conn, user)
    store.set_retention(user_id=user.user_id, raw_days=30, episode_days=30)
    assert _tables_holding(conn, MARK), "the sentinels are stored before the job"
    stats, digests, numbers = _stats(services, user), _digests(conn), _episode_numbers(conn)
    assert all(d["finalized"] and not d["stale"] for d in digests)
    before = _counts(conn, user.user_id)

    preview = apply_retention(store, now=JOB_NOW, dry_run=True)
    assert _counts(conn, user.user_id) == before  # the dry run removes nothing
    report = apply_retention(store, now=JOB_NOW)
    after = _counts(conn, user.user_id)

    # The dry run's counts are what the job removed, and what the tables lost.
    assert preview.removed.records == report.removed.records
    assert report.removed.records == before["records"] - after["records"] > 1_000
    assert preview.removed.analyses == report.removed.analyses == 4
    assert before["record_analyses"] - after["record_analyses"] == 4
    assert preview.removed.aw_events == report.removed.aw_events == 1
    assert before["aw_events"] - after["aw_events"] == 1
    assert preview.removed.turns == report.removed.turns == 1
    assert before["conversation_turns"] - after["conversation_turns"] == 1
    assert preview.removed.episodes == report.removed.episodes > 100
    assert preview.removed.record_bytes > 0 and preview.removed.episode_bytes > 0
    assert [m.month for m in preview.months] == [m.month for m in report.months]

    # January went whole; February stays for the keeper's record, the user's rows gone.
    assert [m.month.isoformat() for m in report.months] == ["2003-01-01"]
    assert _months(conn)[:2] == ["records_2003_02", "records_2003_03"]
    expiry = store.get_retention(user_id=user.user_id)
    assert expiry is not None and expiry.raw_expired_before is not None
    assert JOB_NOW - timedelta(days=30) <= expiry.raw_expired_before <= JOB_NOW
    left = conn.execute(
        "SELECT count(*) AS n FROM records WHERE user_id = %s AND ts_start < %s",
        [user.user_id, expiry.raw_expired_before],
    ).fetchone()
    assert left["n"] == 0
    assert _counts(conn, extra["keeper"].user_id)["records"] == 1

    # Every number stands: each digest as it was, each episode's numbers, query_stats.
    assert _digests(conn) == digests
    assert _episode_numbers(conn) == numbers
    assert _stats(services, user) == stats
    # What is counted from raw records says that part of it has expired.
    ctx = services.tool_context(user=user, now=NOW)
    feb = {"period": "custom", "date_from": "2003-02-01", "date_to": "2003-02-28"}
    site = dispatch_json(ctx, "query_stats", {**feb, "thing": "github.com"})
    assert site["raw_expired_before"] == expiry.raw_expired_before.isoformat()
    assert "have expired" in site["note"]

    # No expired title or URL is left in any table's rows, except the digests' top
    # titles (digest metrics, kept by design: docs/retention.md); kept text stays.
    holding = _tables_holding(conn, MARK)
    assert set(holding) <= {"digests"}, holding
    for d in conn.execute("SELECT metrics, narrative FROM digests").fetchall():
        text = str({k: v for k, v in d["metrics"].items() if k != "top_titles"})
        assert MARK not in text and MARK not in (d["narrative"] or "")
    assert MARK.lower() not in str(_tables_holding(conn, f"https://{MARK.lower()}"))
    assert {"records_2003_03", "record_analyses", "aw_events"} <= set(_tables_holding(conn, KEEP))


@pytest.mark.preloaded(SPAN)
def test_a_replayed_or_late_old_batch_adds_nothing_and_rebuilds_nothing(
    services: Services, preloaded: Preloaded, conn: Any
) -> None:
    user = preloaded.user
    store = services.store
    _load(services, conn, user)
    store.set_retention(user_id=user.user_id, raw_days=30, episode_days=None)
    every = (*METRICS, "top_titles", "signal_counts")
    stats = _stats(services, user, every)
    apply_retention(store, now=JOB_NOW)
    expiry = store.get_retention(user_id=user.user_id)
    assert expiry is not None and expiry.raw_expired_before is not None
    # With the raw tier alone, every answer stands, top titles included.
    after = _stats(services, user, every)
    assert after == stats
    digests, numbers = _digests(conn), _episode_numbers(conn)
    count = _counts(conn, user.user_id)["records"]
    replayed = 0
    for body in preloaded.data.batches(size=500):
        old = [
            r
            for r in body["records"]
            if datetime.fromisoformat(r["ts_start"]) < expiry.raw_expired_before
        ]
        if not old:
            continue
        # The capture client's path, the importer's path, and a late record on an
        # expired day (a new key): none stores anything.
        batch = RecordBatch.model_validate({**body, "records": old})
        assert ingest_batch(store, user=user, batch=batch, rules=services.rules).new == 0
        again = store_records(
            store, user=user, device_id=body["device_id"], records=batch.records,
            rules=services.rules, source="replay",
        )  # fmt: skip
        assert again.new == 0
        replayed += len(old)
    late = RecordBatch.model_validate(
        {
            "device_id": preloaded.data.devices[0][0],
            "records": [
                {
                    "client_record_id": "late-1",
                    "ts_start": datetime(2003, 2, 3, 10, tzinfo=UTC).isoformat(),
                    "app": "Code",
                    "window_title": "late.py",
                }
            ],
        }
    )
    assert ingest_batch(store, user=user, batch=late, rules=services.rules).new == 0
    assert replayed > 1_000 and _counts(conn, user.user_id)["records"] == count
    # A mark on an expired day is refused, and a build rebuilds nothing there.
    marked = conn.execute(
        "SELECT timetrace_mark_days(%s, ARRAY[%s], ARRAY['2003-02-03'::date], NULL, NULL) AS n",
        [user.user_id, preloaded.data.devices[0][0]],
    ).fetchone()
    assert marked["n"] == 0
    backfill(store, now=NOW, settings=services.settings)
    assert (_digests(conn), _episode_numbers(conn)) == (digests, numbers)
    # A second run the same day finds nothing to do.
    assert apply_retention(store, now=JOB_NOW).removed.records == 0
    # Deleting an expired span erases what was built from it (no record is left to
    # tombstone): its episodes, and its digests rolled up again without them.
    assert set(_tables_holding(conn, MARK)) == {"episodes", "digests"}
    erased = delete_records(
        store,
        user=user,
        ts_from=datetime(2003, 1, 1, tzinfo=UTC),
        ts_to=datetime(2003, 3, 1, tzinfo=UTC),
    )
    assert erased == 0 and _tables_holding(conn, MARK) == {}
    backfill(store, now=NOW, settings=services.settings)
    assert _tables_holding(conn, MARK) == {}
    jan = _stats(services, user, ("active_seconds",))[("2003-01-01", "active_seconds")]
    assert jan["value"] == 0 and jan["source"] != "stale"


@pytest.mark.preloaded(SPAN)
def test_raw_tools_answer_expired_before_instead_of_nothing(
    services: Services, preloaded: Preloaded
) -> None:
    user = preloaded.user
    store = services.store
    backfill(store, now=NOW, settings=services.settings)
    store.set_retention(user_id=user.user_id, raw_days=30, episode_days=None)
    apply_retention(store, now=JOB_NOW)
    expiry = store.get_retention(user_id=user.user_id)
    assert expiry is not None and expiry.raw_expired_before is not None
    ctx = services.tool_context(user=user, now=JOB_NOW)
    window = {"ts_from": "2003-02-03T10:00:00+00:00", "ts_to": "2003-02-03T11:00:00+00:00"}
    raw = dispatch_json(ctx, "get_raw", window)
    assert raw["items"] == []
    assert raw["raw_expired_before"] == expiry.raw_expired_before.isoformat()
    scan = dispatch_json(ctx, "deep_scan", {**window, "question": "what did I read?"})
    assert scan["records_scanned"] == 0 and "expired before" in scan["note"]
    assert scan["raw_expired_before"] == expiry.raw_expired_before.isoformat()
    kept = {"ts_from": "2003-03-25T02:00:00+00:00", "ts_to": "2003-03-25T04:00:00+00:00"}
    assert "raw_expired_before" not in dispatch_json(ctx, "get_raw", kept)


@pytest.mark.preloaded(SPAN)
def test_the_command_sets_shows_previews_and_applies_and_status_shows_bytes(
    services: Services, preloaded: Preloaded, db_url: str, tmp_path: Path
) -> None:
    backfill(services.store, now=NOW, settings=services.settings)
    runner = CliRunner()
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path)}

    def run(*args: str) -> Any:
        return runner.invoke(main, list(args), env=env, catch_exceptions=False)

    assert run("retention", "set", "--user", "sample", "--episode-days", "7").exit_code == 1
    shown = json.loads(run("retention", "set", "--user", "sample", "--raw-days", "30").output)
    assert (shown["raw_days"], shown["episode_days"], shown["raw_expired_before"]) == (
        30,
        None,
        None,
    )
    assert json.loads(run("retention", "show", "--user", "sample").output)["layers"]["records"][
        "rows"
    ] == _count_records(services, preloaded.user)
    status = run("status")
    assert "storage" in status.output and "retention frees raw" in status.output
    preview = json.loads(run("retention", "--dry-run", "--json").output)
    assert preview["dry_run"] and preview["tiers"]["raw"]["records"] > 1_000
    applied = run("retention", "apply", "--json", "--compact").output.splitlines()
    done = json.loads(applied[0])
    assert applied[1].startswith("compacted: records, record_analyses, episodes")
    assert done["tiers"]["raw"]["records"] == preview["tiers"]["raw"]["records"]
    assert done["months_dropped"] == preview["months_dropped"] == ["2003-01", "2003-02", "2003-03"]
    assert _count_records(services, preloaded.user) == 0  # 2026: the whole span is older
    again = json.loads(run("retention", "show", "--user", "sample").output)
    assert again["raw_expired_day"] is not None
    # The privacy page shows the tiers, the layers and their sizes.
    client = TestClient(create_app(services=services), follow_redirects=False)
    token = new_token_for(services, preloaded.user, name="web")
    assert client.post("/signin", data={"token": token, "next": "/day"}).status_code == 303
    page = client.get("/privacy").text
    assert "Retention and storage" in page and "Tier: raw records" in page
    assert f"before {again['raw_expired_day']} have expired" in page


def _count_records(services: Services, user: UserContext) -> int:
    with services.store.pool.connection() as conn:
        row = conn.execute("SELECT count(*) AS n FROM records WHERE user_id = %s", [user.user_id])
        return int(row.fetchone()["n"])


def test_the_api_sets_and_reads_the_tiers_and_refuses_short_episode_text(
    services: Services,
) -> None:
    api = make_api(services)
    path, auth = "/api/v1/retention", api.auth
    assert api.client.get(path, headers=auth).json()["raw_days"] is None
    bad = api.client.put(path, json={"raw_days": 30, "episode_days": 7}, headers=auth)
    assert bad.status_code == 422 and "at least as long" in bad.text
    assert api.client.put(path, json={"raw_days": 0}, headers=auth).status_code == 422
    ok = api.client.put(path, json={"raw_days": 30, "episode_days": 90}, headers=auth)
    assert ok.status_code == 200, ok.text
    got = api.client.get(path, headers=auth).json()
    assert (got["raw_days"], got["episode_days"], got["raw_expired_before"]) == (30, 90, None)
    assert TestClient(create_app(services=services)).get("/api/v1/retention").status_code == 401


def test_the_daily_job_runs_on_the_worker(
    services: Services, db_url: str, settings: Settings, tmp_path: Path, conn: Any
) -> None:
    api = make_api(services, time_zone="UTC")
    start = datetime(2003, 5, 6, 9, tzinfo=UTC)
    rows = [
        {
            "client_record_id": f"r{i}",
            "ts_start": (start + timedelta(minutes=i)).isoformat(),
            "ts_end": (start + timedelta(minutes=i + 1)).isoformat(),
            "app": "Code",
            "window_title": f"{MARK} {i}",
        }
        for i in range(30)
    ]
    assert api.ingest("laptop", rows).status_code == 200
    run_worker_once(db_url, tmp_path)  # the pyramid first: raw waits for it
    services.store.set_retention(user_id=api.user.user_id, raw_days=30, episode_days=None)
    with_app(db_url, settings, lambda: apply_retention_tiers.defer_async(timestamp=0))
    run_worker_once(db_url, tmp_path)
    job = conn.execute(
        "SELECT status FROM procrastinate_jobs WHERE task_name = %s",
        [apply_retention_tiers.name],
    ).fetchone()
    assert job["status"] == "succeeded"
    assert _counts(conn, api.user.user_id)["records"] == 0
    assert set(_tables_holding(conn, MARK)) == {"episodes", "digests"}  # no episode tier
    assert conn.execute("SELECT count(*) AS n FROM episodes").fetchone()["n"] > 0


@pytest.mark.preloaded(SPAN)
def test_asked_for_digests_over_expired_raw_lose_their_titles_and_keep_their_numbers(
    services: Services, preloaded: Preloaded, conn: Any
) -> None:
    user = preloaded.user
    store = services.store
    _load(services, conn, user)
    store.set_retention(
        user_id=user.user_id, raw_days=30, episode_days=30, keep_digest_titles=False
    )
    stats = _stats(services, user)
    numbers = {
        (d["grain"], d["scope_key"]): {k: v for k, v in d["metrics"].items() if k != "top_titles"}
        for d in _digests(conn)
    }
    preview = apply_retention(store, now=JOB_NOW, dry_run=True)
    report = apply_retention(store, now=JOB_NOW)
    assert preview.removed.digests == report.removed.digests > 50
    assert _tables_holding(conn, MARK) == {}  # no table holds an expired title or URL
    after = _digests(conn)
    assert {
        (d["grain"], d["scope_key"]): {k: v for k, v in d["metrics"].items() if k != "top_titles"}
        for d in after
    } == numbers
    assert _stats(services, user) == stats
    # The titles became their app or site, their seconds merged.
    jan = next(d for d in after if d["scope_key"] == "2003-01")
    labels = [t["title"] for t in jan["metrics"]["top_titles"]]
    assert labels and all(" · " not in t for t in labels) and len(set(labels)) == len(labels)


@pytest.mark.parametrize(
    "tiers",
    [
        {"raw_days": None, "episode_days": None},  # saved all-null, never applied
        {"raw_days": 30, "episode_days": 60},  # saved, the job has not run yet
    ],
    ids=["all-null", "unapplied"],
)
def test_a_range_deletion_works_for_a_user_whose_saved_tiers_were_never_applied(
    services: Services, conn: Any, tiers: dict[str, int | None]
) -> None:
    api = make_api(services, time_zone="UTC")
    start = datetime(2003, 5, 6, 9, tzinfo=UTC)
    for device in ("laptop", "desktop"):
        rows = [
            {
                "client_record_id": f"{device}-{i}",
                "ts_start": (start + timedelta(minutes=i)).isoformat(),
                "ts_end": (start + timedelta(minutes=i + 1)).isoformat(),
                "app": "Code",
                "window_title": f"{MARK} {device} {i}",
            }
            for i in range(30)
        ]
        assert api.ingest(device, rows).status_code == 200
    backfill(services.store, now=NOW, settings=services.settings)
    services.store.set_retention(user_id=api.user.user_id, **tiers)
    got = services.store.get_retention(user_id=api.user.user_id)
    assert got is not None and got.raw_expired_before is None
    episodes = conn.execute(
        "SELECT device_id, count(*) AS n FROM episodes GROUP BY 1 ORDER BY 1"
    ).fetchall()
    assert [r["device_id"] for r in episodes] == ["desktop", "laptop"]

    deleted = api.client.request(
        "DELETE",
        "/api/v1/records",
        json={
            "ts_from": (start + timedelta(minutes=10)).isoformat(),
            "ts_to": (start + timedelta(minutes=20)).isoformat(),
            "device_id": "laptop",
        },
        headers=api.auth,
    )
    assert deleted.status_code == 200, deleted.text
    assert deleted.json() == {"deleted": 10}
    left = conn.execute(
        "SELECT device_id, count(*) FILTER (WHERE deleted_at IS NULL) AS live,"
        " count(*) FILTER (WHERE window_title LIKE %s) AS titled FROM records GROUP BY 1"
        " ORDER BY 1",
        [f"{MARK}%"],
    ).fetchall()
    assert [tuple(r.values()) for r in left] == [("desktop", 30, 30), ("laptop", 20, 20)]
    # The other device's episodes were not erased as if its raw had expired.
    assert conn.execute(
        "SELECT count(*) AS n FROM episodes WHERE device_id = 'desktop'"
    ).fetchone()["n"] == next(r["n"] for r in episodes if r["device_id"] == "desktop")
    # The connection that served the deletion serves the next request.
    again = api.client.get("/api/v1/retention", headers=api.auth)
    assert again.status_code == 200 and again.json()["raw_days"] == tiers["raw_days"]
