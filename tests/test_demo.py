"""`timetrace demo` end to end (embedded database, sample data over HTTP, the pyramid,
hours equal to the ground truth in every layer), then the operator's path on what it
left: `timetrace psql` with no server running, every SQL example of the README, and
the embedded server's rotating log."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from app.cli import main
from app.db.embedded import start_embedded
from tests.helpers import isolated_env

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """The data directory and the output of `timetrace demo --days 8` (June 2026, the
    month the README's examples ask about), with its embedded server stopped again."""
    data_dir = tmp_path_factory.mktemp("demo")
    with pytest.MonkeyPatch.context() as monkeypatch:
        isolated_env(monkeypatch)
        result = CliRunner().invoke(
            main,
            ["demo", "--days", "8"],
            env={"TIMETRACE_DATA_DIR": str(data_dir)},
            catch_exceptions=False,
        )
    start_embedded(pgdata=data_dir / "pgdata").cleanup()  # stop the demo's server
    assert result.exit_code == 0, result.output
    yield data_dir, " ".join(result.output.split())


@pytest.mark.slow
def test_demo_loads_the_sample_builds_the_pyramid_and_matches_ground_truth(
    demo: tuple[Path, str],
) -> None:
    _, text = demo
    assert ("equal the generator's ground truth to the second for all 8 days") in text
    assert "✗" not in text
    assert "06-07 Sun" in text  # one row per logical day
    assert "duplicate 0" in text
    assert "Built the pyramid with no model" in text
    assert "Week 2026-W23 (digest, final, from 7 day digests)" in text
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
    # The README's example, word for word.
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


def readme_sql() -> list[str]:
    """Every statement of every ```sql block in the README."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    statements = []
    for block in re.findall(r"```sql\n(.*?)```", text, re.DOTALL):
        statements += [s.strip() for s in block.split(";") if s.strip()]
    return statements


@pytest.mark.slow
def test_every_sql_example_of_the_readme_runs_on_the_demo_database(
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
