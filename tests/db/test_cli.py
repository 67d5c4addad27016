"""The `timetrace` command, run in-process against the test database."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.cli import main
from app.db.connection import connect
from app.job_requests import build_job
from app.runtime.auth import hash_token
from app.runtime.services import Services
from tests.helpers import make_api


@pytest.fixture
def run(db_url: str, tmp_path: Path) -> Any:
    runner = CliRunner()
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path)}

    def invoke(*args: str, **extra_env: str) -> Any:
        return runner.invoke(main, list(args), env={**env, **extra_env}, catch_exceptions=False)

    return invoke


def test_migrate_on_a_migrated_database_says_up_to_date(run: Any) -> None:
    first = run("migrate")
    assert first.exit_code == 0 and "up to date" in first.output
    assert "up to date" in run("migrate").output


def test_token_create_prints_a_token_that_authenticates(run: Any, services: Services) -> None:
    result = run("token", "create", "--user", "alice", "--name", "laptop client")
    assert result.exit_code == 0
    token = result.output.strip()
    assert token.startswith("tt_") and len(token) > 40
    user = services.store.user_for_token(token_hash=hash_token(token), now=datetime.now(UTC))
    assert user is not None and user.name == "alice"
    # Only the digest is stored: the token itself is in no column of the table.
    with connect(services.url, settings=services.settings) as conn:
        stored = conn.execute("SELECT * FROM api_tokens").fetchall()
    assert [bytes(row["token_hash"]) for row in stored] == [hash_token(token)]
    assert token not in repr(stored)


def test_device_add_registers_once(run: Any) -> None:
    run("token", "create", "--user", "bob")
    assert "added" in run("device", "add", "mbp", "--user", "bob", "--kind", "laptop").output
    assert "already registered" in run("device", "add", "mbp", "--user", "bob").output


def test_device_add_for_an_unknown_user_is_a_one_line_error(run: Any) -> None:
    result = run("device", "add", "mbp", "--user", "nobody")
    assert result.exit_code == 1
    assert result.output == (
        "Error: no user 'nobody': create one with `timetrace token create --user nobody`\n"
    )
    assert "Traceback" not in result.output


def test_bad_configuration_is_a_one_line_error(run: Any) -> None:
    result = run("migrate", TIMETRACE_TIME_ZONE="Mars/Olympus")
    assert result.exit_code == 1
    assert "TIMETRACE_TIME_ZONE" in result.output and "unknown IANA time zone" in result.output


def test_an_unreachable_database_is_a_one_line_error(run: Any) -> None:
    result = run("migrate", TIMETRACE_DATABASE_URL="postgresql://nobody@127.0.0.1:1/none")
    assert result.exit_code == 1
    assert result.output.startswith("Error: cannot connect to the database")


def test_queue_age_fails_when_the_oldest_due_job_waited_too_long(
    run: Any, services: Services, conn: Any
) -> None:
    assert run("queue-age", "--max", "60").output.strip() == "no job waiting"
    user = services.store.ensure_user(name="q", time_zone="UTC", day_cut_hour=4)
    services.store.defer([build_job(user.user_id, "laptop")])
    assert run("queue-age", "--max", "60").exit_code == 0  # just deferred
    conn.execute("UPDATE procrastinate_events SET at = now() - interval '2 hours'")
    late = run("queue-age", "--max", "900")
    assert late.exit_code == 1
    assert re.match(r"oldest job waiting 72\d\d s", late.output)  # 2 hours and a few s
    assert "Error: the oldest job has waited more than 900 s" in late.output
    # A job scheduled for later is not waiting yet.
    conn.execute("UPDATE procrastinate_jobs SET scheduled_at = now() + interval '1 hour'")
    assert run("queue-age", "--max", "900").output.strip() == "no job waiting"


def test_token_create_sets_a_new_users_zone_and_says_when_a_user_keeps_theirs(
    run: Any, services: Services
) -> None:
    made = run("token", "create", "--user", "ana", "--time-zone", "Asia/Tokyo", "--day-cut", "6")
    assert made.exit_code == 0 and "keeps" not in made.output
    ana = services.store.get_user(name="ana")
    assert ana is not None and (ana.time_zone, ana.day_cut_hour) == ("Asia/Tokyo", 6)
    again = run("token", "create", "--user", "ana", "--time-zone", "Europe/Berlin")
    assert again.exit_code == 0
    assert (
        "ana keeps time zone Asia/Tokyo, day cut 6: change them with "
        "`timetrace user set --user ana --time-zone ZONE`" in again.output
    )
    bad = run("token", "create", "--user", "bo", "--time-zone", "Mars/Olympus")
    assert bad.exit_code == 2 and "unknown IANA time zone 'Mars/Olympus'" in bad.output
    assert services.store.get_user(name="bo") is None


def test_device_list_shows_each_users_devices_records_and_first_and_last_seen(
    run: Any, services: Services
) -> None:
    assert "no users yet" in run("device", "list").output
    api = make_api(services, user_name="ana", devices=("laptop", "phone"))
    records = [
        {
            "client_record_id": f"r{i}",
            "ts_start": f"2003-03-12T09:0{i}:00+00:00",
            "ts_end": f"2003-03-12T09:0{i + 1}:00+00:00",
            "app": "Code",
            "window_title": "main.py",
        }
        for i in range(3)
    ]
    assert api.ingest("laptop", records).status_code == 200
    run("token", "create", "--user", "bob")
    listed = run("device", "list")
    assert listed.exit_code == 0
    assert listed.output.splitlines() == [
        "ana",
        "  laptop  other  3 records  2003-03-12 09:00 – 2003-03-12 09:03",
        "  phone  other  0 records  no records",
        "bob",
        "  no device yet: timetrace device add ID, an import or the ActivityWatch door adds one",
    ]
    assert run("device", "list", "--user", "bob").output.splitlines()[0] == "bob"
    nobody = run("device", "list", "--user", "nobody")
    assert nobody.exit_code == 1 and "create one with `timetrace token create" in nobody.output
