"""`timetrace demo` end to end: embedded database, sample data over HTTP, the pyramid,
hours equal to the ground truth in every layer."""

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
def test_demo_loads_the_sample_builds_the_pyramid_and_matches_ground_truth(
    data_dir: Path,
) -> None:
    result = CliRunner().invoke(
        main,
        ["demo", "--start", "2003-03-03", "--days", "8"],
        env={"TIMETRACE_DATA_DIR": str(data_dir)},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert ("equal the generator's ground truth to the second for all 8 days") in text
    assert "✗" not in text
    assert "03-09 Sun" in text  # one row per logical day
    assert "duplicate 0" in text
    assert "Built the pyramid with no model" in text
    assert "Week 2003-W10 (digest, final, from 7 day digests)" in text
    assert "Detected signals" in text and "forced_rollback" in text
    assert "Answers from the tools" in text
    assert "hours of entertainment this month? → query_stats" in text
