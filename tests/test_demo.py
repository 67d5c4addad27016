"""`timetrace demo` end to end: embedded database, sample data over HTTP, hours = truth."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from app.cli import main
from app.db.embedded import start_embedded


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    start_embedded(pgdata=tmp_path / "pgdata").cleanup()  # stop the demo's server


@pytest.mark.slow
def test_demo_loads_the_sample_and_matches_ground_truth(data_dir: Path) -> None:
    result = CliRunner().invoke(
        main,
        ["demo", "--start", "2003-03-03", "--days", "8"],
        env={"TIMETRACE_DATA_DIR": str(data_dir), "COLUMNS": "140"},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert (
        "per-category hours equal the generator's ground truth to the second for all 8 days"
        in result.output
    )
    assert "✗" not in result.output
    assert "03-09 Sun" in result.output  # one row per logical day
    assert "duplicate 0" in result.output
