"""`timetrace demo` end to end (embedded database, sample data over HTTP, the pyramid,
hours equal to the ground truth in every layer), then the operator's path on what it
left: `timetrace psql` with no server running, every `ask` example of the README and
docs/questions.md, every SQL example of docs/psql.md, and the embedded server's rotating
log; and `demo --serve`, the web pages it serves."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import httpx
import psycopg
import pytest
from click.testing import CliRunner

from app.cli import main
from app.db.embedded import start_embedded
from app.demo.sample import DEFAULT_CUT_HOUR, DEFAULT_TZ
from app.timeutil import logical_day, week_key, zone
from tests.faults import wait_for
from tests.helpers import isolated_env

ROOT = Path(__file__).resolve().parents[2]


def _yesterday() -> date:
    """The demo's last day by default: yesterday in the sample's zone."""
    now = datetime.now(UTC)
    return logical_day(now, tz=zone(DEFAULT_TZ), cut_hour=DEFAULT_CUT_HOUR) - timedelta(days=1)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The data directory and the output of `timetrace demo --days 15` (ending yesterday,
    as the examples ask it: 15 days hold all of last week whatever today's weekday; with
    8, on a Sunday last week was its weekend alone), with its embedded server stopped."""
    data_dir = tmp_path_factory.mktemp("demo")
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolated_env(monkeypatch)
        result = CliRunner().invoke(
            main,
            ["demo", "--days", "15"],
            env={"TIMETRACE_DATA_DIR": str(data_dir)},
            catch_exceptions=False,
        )
    start_embedded(pgdata=data_dir / "pgdata").cleanup()  # stop the demo's server
    assert result.exit_code == 0, result.output
    yield data_dir, " ".join(result.output.split())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _answers(client: httpx.Client) -> bool:
    try:
        return client.get("/healthz").status_code == 200
    except httpx.TransportError:
        return False


@pytest.mark.slow
def test_demo_loads_the_sample_builds_the_pyramid_and_matches_ground_truth(
    demo: tuple[Path, str],
) -> None:
    _, text = demo
    assert ("equal the generator's ground truth to the second for all 15 days") in text
    assert "✗" not in text
    last = _yesterday()
    assert f"{last:%m-%d %a}" in text  # one row per logical day, the last one yesterday
    assert "duplicate 0" in text
    assert "Built the pyramid with no model" in text
    first_week = week_key(last - timedelta(days=14))  # the first of the 15 days
    assert re.search(rf"Week {first_week} \(digest, (final|open), from [1-7] day digests\)", text)
    assert "Detected signals" in text and "forced_rollback" in text
    assert "Answers from the tools" in text
    assert "hours of entertainment this month? → query_stats" in text


def _server_running(pgdata: Path) -> bool:
    return (pgdata / "postmaster.pid").exists()


@pytest.mark.slow
def test_timetrace_psql_opens_the_embedded_database_when_no_server_runs(
    demo: tuple[Path, str],
) -> None:
    data_dir, _ = demo
    assert not _server_running(data_dir / "pgdata")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIMETRACE_")}
    # docs/psql.md's example, word for word.
    query = "SELECT count(*) FROM records"
    run = subprocess.run(
        [sys.executable, "-m", "app.cli", "psql", "--database", "timetrace_demo", "-c", query],
        env={**env, "TIMETRACE_DATA_DIR": str(data_dir)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert re.fullmatch(r"count\s+-+\s+[1-9]\d{3,}\s+\(1 row\)", run.stdout.strip()), run.stdout
    assert not _server_running(data_dir / "pgdata")  # stopped again on the way out
    failed = subprocess.run(
        [sys.executable, "-m", "app.cli", "psql", "-c", "SELECT nonsense"],
        env={**env, "TIMETRACE_DATA_DIR": str(data_dir)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert failed.returncode != 0 and "nonsense" in failed.stderr  # psql's status


def readme_asks(*pages: str) -> list[tuple[list[str], list[str]]]:
    """Every `timetrace ask` line of the pages' sh blocks, with the lines it shows."""
    text = "\n".join((ROOT / page).read_text(encoding="utf-8") for page in pages)
    asks: list[tuple[list[str], list[str]]] = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.DOTALL):
        shown: list[str] | None = None
        for line in block.splitlines():
            if line.startswith(".venv/bin/timetrace ask --database timetrace_demo"):
                shown = []
                asks.append((shlex.split(line)[1:], shown))
            elif line.startswith("# ") and shown is not None:
                shown.append(line[2:])
            else:
                shown = None
    return asks


def _shape(line: str) -> str:
    """A line with its dates and numbers blanked: what stays the same from day to day."""
    line = re.sub(r"\d{4}-\d{2}-\d{2}", "D", line)
    line = re.sub(r"D(?:(?:、|, )D)+", "D…", line)
    return re.sub(r"\d+(?:\.\d+)?", "N", line)


@pytest.mark.slow
def test_the_ask_examples_print_what_the_pages_show(demo: tuple[Path, str]) -> None:
    data_dir, _ = demo
    front, questions = readme_asks("README.md"), readme_asks("docs/questions.md")
    assert len(front) >= 2 and len(questions) >= 5
    asks = front + questions
    assert all(shown for _, shown in asks)
    try:
        with pytest.MonkeyPatch.context() as monkeypatch:
            isolated_env(monkeypatch)
            for args, shown in asks:
                result = CliRunner().invoke(
                    main, args, env={"TIMETRACE_DATA_DIR": str(data_dir)}, catch_exceptions=False
                )
                assert result.exit_code == 0, result.output
                printed = result.stdout.splitlines()[: len(shown)]
                assert [_shape(x) for x in printed] == [_shape(x) for x in shown], printed
    finally:
        start_embedded(pgdata=data_dir / "pgdata").cleanup()


@pytest.mark.slow
def test_tool_and_report_reach_the_demo_database_too(demo: tuple[Path, str]) -> None:
    data_dir, _ = demo
    env = {"TIMETRACE_DATA_DIR": str(data_dir)}
    last = _yesterday()
    try:
        with pytest.MonkeyPatch.context() as monkeypatch:
            isolated_env(monkeypatch)
            demo_user = ["--database", "timetrace_demo", "--user", "demo"]
            args = ["tool", "last_seen", *demo_user, "--thing", "Slack"]
            seen = CliRunner().invoke(main, args, env=env, catch_exceptions=False)
            assert seen.exit_code == 0, seen.output
            found = json.loads(seen.stdout)
            assert found["found"] and found["day"] >= (last - timedelta(days=7)).isoformat()
            args = ["report", "day", last.isoformat(), *demo_user]
            report = CliRunner().invoke(main, args, env=env, catch_exceptions=False)
            title = f"{last:%a} {last.day} {last:%b %Y}"
            assert report.exit_code == 0 and title in report.stdout, report.output
            missing = CliRunner().invoke(main, ["ask", "--user", "demo", "昨天呢"], env=env)
            assert missing.exit_code != 0 and "no user 'demo'" in missing.output
    finally:
        start_embedded(pgdata=data_dir / "pgdata").cleanup()


def readme_sql() -> list[str]:
    """Every statement of every ```sql block in docs/psql.md."""
    text = (ROOT / "docs" / "psql.md").read_text(encoding="utf-8")
    statements = []
    for block in re.findall(r"```sql\n(.*?)```", text, re.DOTALL):
        statements += [s.strip() for s in block.split(";") if s.strip()]
    return statements


@pytest.mark.slow
def test_every_sql_example_of_the_psql_page_runs_on_the_demo_database(
    demo: tuple[Path, str],
) -> None:
    data_dir, _ = demo
    statements = readme_sql()
    assert len(statements) >= 6
    server = start_embedded(pgdata=data_dir / "pgdata")
    try:
        with psycopg.connect(server.get_uri(database="timetrace_demo"), autocommit=True) as conn:
            for statement in statements:
                rows = conn.execute(statement).fetchall()
                assert rows, statement  # each example shows something on the demo's June
            # The server keeps its log in files that rotate (one a weekday).
            assert conn.execute("SHOW logging_collector").fetchone() == ("on",)
            assert conn.execute("SHOW log_filename").fetchone() == ("postgresql-%a.log",)
            conn.execute("SELECT pg_rotate_logfile()")
    finally:
        server.cleanup()
    logs = list((data_dir / "pgdata" / "pg_log").glob("postgresql-*.log"))
    assert logs and all(re.fullmatch(r"postgresql-[A-Z][a-z]{2}\.log", p.name) for p in logs)


def test_demo_matches_ground_truth_then_serves_the_pages_signed_in(tmp_path: Path) -> None:
    data_dir = tmp_path
    port = _free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("TIMETRACE_")},
        "TIMETRACE_DATA_DIR": str(data_dir),
        "TIMETRACE_PORT": str(port),
        "PYTHONUNBUFFERED": "1",
    }
    command = [sys.executable, "-m", "app.cli", "demo", "--start", "2003-03-03", "--days", "8"]
    with subprocess.Popen(
        [*command, "--serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as demo:
        assert demo.stdout is not None
        shown: list[str] = []
        link = None
        try:
            for line in demo.stdout:
                shown.append(line)
                link = re.search(rf"http://127\.0\.0\.1:{port}(/signin\S*)#token=(\S+)", line)
                if link:
                    break
            text = " ".join("".join(shown).split())
            assert link, text
            assert "equal the generator's ground truth to the second for all 8 days" in text
            assert "✗" not in text
            assert "03-09 Sun" in text  # one row per logical day
            assert "duplicate 0" in text
            assert "Built the pyramid with no model" in text
            assert "Week 2003-W10 (digest, final, from 7 day digests)" in text
            assert "Detected signals" in text and "forced_rollback" in text
            assert "Answers from the tools" in text
            assert "hours of entertainment this month? → query_stats" in text

            # The printed link signs the browser in as the demo user, on the last day.
            assert link.group(1) == "/signin?next=/day/2003-03-10"
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
                assert wait_for(lambda: _answers(client), timeout=30, interval=0.1), (
                    "the demo's server did not answer"
                )
                signed = client.post("/signin", data={"token": link.group(2), "next": "/day"})
                assert signed.status_code == 303
                day = client.get("/day/2003-03-10")
                assert day.status_code == 200 and '<span class="who">demo</span>' in day.text
                assert day.text.count('class="block cat-') >= 10
        finally:
            demo.send_signal(signal.SIGTERM)
            assert demo.wait(timeout=30) in (0, 128 + signal.SIGTERM)
            start_embedded(pgdata=data_dir / "pgdata").cleanup()  # whatever it left running
