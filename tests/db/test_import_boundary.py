"""`timetrace import timetrace` at its boundary (app/db/restore.py, app/boundary.py): a
file whose rows PostgreSQL could not hold, or that contradict themselves, is refused
with one line and leaves nothing; a first import into a server that has no partition
for the file's months yet succeeds."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.boundary import IMPORT_LINE_MAX, RULES_MAX
from app.cli import main
from app.db import restore
from app.db.export import ExportRequest, export_chunks
from app.runtime.services import Services
from app.settings import Settings
from tests.helpers import make_api

Rows = list[dict[str, Any]]


def _parts(services: Services, conn: Any) -> tuple[dict[str, Any], Rows, dict[str, Any]]:
    """A real export's header, its devices' lines and one record's row, to build files
    from."""
    api = make_api(services, user_name="source", devices=("laptop",))
    start = datetime(2003, 1, 5, 9, tzinfo=UTC)
    got = api.ingest(
        "laptop",
        [
            {
                "client_record_id": "r1",
                "ts_start": start.isoformat(),
                "ts_end": (start + timedelta(seconds=30)).isoformat(),
                "app": "Code",
                "window_title": "main.py",
            }
        ],
    )
    assert got.status_code < 300, got.text
    lines = [
        json.loads(line)
        for chunk in export_chunks(conn, request=ExportRequest(user=api.user, fmt="jsonl"))
        for line in chunk.splitlines()
        if line.strip()
    ]
    record = next(x["row"] for x in lines if x["kind"] == "records")
    return lines[0], [x for x in lines if x["kind"] == "devices"], record


def _record(template: dict[str, Any], n: int, start: datetime, **extra: Any) -> dict[str, Any]:
    return template | {
        "record_id": 1_000 + n,
        "client_record_id": f"k{n}",
        "ts_start": start.isoformat(),
        "ts_end": (start + timedelta(seconds=5)).isoformat(),
        "day_local": str(start.date()),
        **extra,
    }


def _file(path: Path, header: dict[str, Any], devices: Rows, records: Rows) -> Path:
    lines = [header, *devices, *({"kind": "records", "row": r} for r in records)]
    counts = {"devices": len(devices), "records": len(records)}
    lines.append({"kind": "trailer", "counts": counts, "rows": sum(counts.values())})
    path.write_text("".join(json.dumps(x, ensure_ascii=True) + "\n" for x in lines))
    return path


def _cli(settings: Settings, db_url: str, path: Path, user: str) -> Any:
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(settings.data_dir)}
    return CliRunner().invoke(main, ["import", "timetrace", str(path), "--user", user], env=env)


def _holds(conn: Any, user: str) -> int:
    row = conn.execute(
        "SELECT count(r.*) AS n, count(DISTINCT u.user_id) AS users FROM users u"
        " LEFT JOIN records r USING (user_id) WHERE u.name = %s",
        [user],
    ).fetchone()
    return int(row["n"]) + int(row["users"])


BAD: dict[str, Callable[[dict[str, Any], datetime], dict[str, Any]]] = {
    "client id with NUL": lambda r, t: _record(r, 1, t, client_record_id="k\x001"),
    "year 9999": lambda r, t: _record(r, 1, datetime(9999, 6, 1, tzinfo=UTC)),
    "record_id 2**63": lambda r, t: _record(r, 1, t) | {"record_id": 2**63},
    "unlisted device": lambda r, t: _record(r, 1, t, device_id="stranger"),
    "end before start": lambda r, t: _record(r, 1, t, ts_end=(t - timedelta(hours=1)).isoformat()),
    "NUL in a category": lambda r, t: _record(r, 1, t, category="work\x00"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_row_is_refused_with_one_line_and_leaves_nothing(
    case: str, services: Services, conn: Any, settings: Settings, db_url: str, tmp_path: Path
) -> None:
    header, devices, template = _parts(services, conn)
    start = datetime(2003, 1, 6, 9, tzinfo=UTC)
    good = [_record(template, 2, start + timedelta(minutes=1))]
    path = _file(tmp_path / "bad.jsonl", header, devices, [*good, BAD[case](template, start)])
    ran = _cli(settings, db_url, path, "copy")
    assert ran.exit_code != 0, ran.output
    assert isinstance(ran.exception, SystemExit), ran.exception  # a clean exit, no traceback
    assert len(ran.output.strip().splitlines()) == 1, ran.output
    assert "line" in ran.output, ran.output
    assert _holds(conn, "copy") == 0


def test_nul_in_a_title_is_dropped_as_ingest_drops_it(
    services: Services, conn: Any, settings: Settings, db_url: str, tmp_path: Path
) -> None:
    header, devices, template = _parts(services, conn)
    start = datetime(2003, 1, 6, 9, tzinfo=UTC)
    row = _record(template, 1, start, window_title="ma\x00in.py", app_raw="Co\x00de")
    ran = _cli(settings, db_url, _file(tmp_path / "nul.jsonl", header, devices, [row]), "copy")
    assert ran.exit_code == 0, ran.output
    got = conn.execute(
        "SELECT window_title, app_raw FROM records r JOIN users u USING (user_id)"
        " WHERE u.name = 'copy'"
    ).fetchall()
    assert [(r["window_title"], r["app_raw"]) for r in got] == [("main.py", "Code")]


def test_an_over_long_line_is_refused_before_it_is_read_whole(
    services: Services, conn: Any, settings: Settings, db_url: str, tmp_path: Path
) -> None:
    header, devices, template = _parts(services, conn)
    start = datetime(2003, 1, 6, 9, tzinfo=UTC)
    huge = _record(template, 1, start, window_title="x" * (IMPORT_LINE_MAX + 10))
    path = _file(tmp_path / "long.jsonl", header, devices, [huge])
    ran = _cli(settings, db_url, path, "copy")
    assert ran.exit_code != 0
    assert "line 3" in ran.output and "longer than" in ran.output, ran.output
    assert len(ran.output.strip().splitlines()) == 1, ran.output
    assert _holds(conn, "copy") == 0


def _months(conn: Any) -> set[str]:
    rows = conn.execute(
        "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
        " WHERE i.inhparent = 'records'::regclass"
    ).fetchall()
    return {r["relname"] for r in rows}


def test_a_first_import_across_months_into_a_new_server_succeeds(
    services: Services,
    conn: Any,
    other_db: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    header, devices, template = _parts(services, conn)
    # Batches of 10 rows: the records' statement runs often enough to be prepared (as on
    # a long history) before the rows of months the server has no partition for arrive.
    monkeypatch.setattr(restore, "BATCH_ROWS", 10)
    first = datetime(2004, 1, 1, tzinfo=UTC)
    records = [_record(template, n, first + timedelta(hours=n)) for n in range(80)]
    records += [_record(template, 100 + n, datetime(2004, 5, 2 + n, tzinfo=UTC)) for n in range(3)]
    path = _file(tmp_path / "months.jsonl", header, devices, records)
    with other_db() as (fresh, fresh_conn):
        assert not {"records_2004_01", "records_2004_04", "records_2004_05"} & _months(fresh_conn)
        summary = restore.restore_file(
            url=fresh.url, settings=fresh.settings, path=path, user_name="new"
        )
        assert summary.new == len(records) + len(devices)
        got = fresh_conn.execute("SELECT count(*) AS n FROM records").fetchone()["n"]
        assert got == len(records)
        assert {"records_2004_01", "records_2004_05"} <= _months(fresh_conn)


def test_an_export_window_outside_the_days_kept_is_one_line(
    services: Services, settings: Settings, db_url: str
) -> None:
    make_api(services, user_name="me", devices=("laptop",))
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(settings.data_dir)}
    for window in (["--from", "9999-01-01", "--to", "9999-12-31"], ["--to", "1969-12-31"]):
        ran = CliRunner().invoke(main, ["export", "--user", "me", *window], env=env)
        assert ran.exit_code != 0 and isinstance(ran.exception, SystemExit), ran.output
        assert "between 1970-01-01 and 2999-12-31" in ran.output, ran.output
        assert len(ran.output.strip().splitlines()) == 1, ran.output


def test_a_file_with_more_rules_than_a_user_keeps_is_refused(
    services: Services, conn: Any, settings: Settings, db_url: str, tmp_path: Path
) -> None:
    header, devices, _ = _parts(services, conn)
    rules = [
        {"kind": "user_rules", "row": {"rule_id": n, "position": n, "kind": "title",
                                       "pattern": f"ticket {n}", "category": "work"}}
        for n in range(1, RULES_MAX + 2)
    ]  # fmt: skip
    lines = [header, *devices, *rules]
    counts = {"devices": len(devices), "user_rules": len(rules)}
    lines.append({"kind": "trailer", "counts": counts, "rows": sum(counts.values())})
    path = tmp_path / "rules.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    ran = _cli(settings, db_url, path, "copy")
    assert ran.exit_code != 0, ran.output
    assert f"more than {RULES_MAX:,} rules" in ran.output, ran.output
    assert _holds(conn, "copy") == 0
