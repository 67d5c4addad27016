"""`timetrace token create --scope … --expires …` and `timetrace token list`."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.cli import main
from app.runtime.auth import hash_token
from app.runtime.services import Services


@pytest.fixture
def run(db_url: str, tmp_path: Path) -> Any:
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path)}

    def invoke(*args: str) -> Any:
        return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)

    return invoke


def test_a_scoped_token_is_made_listed_and_carries_its_scope(run: Any, services: Services) -> None:
    made = run(
        "token", "create", "--user", "ann", "--name", "cursor",
        "--scope", "read-only kinds=work", "--scope", "hours=09:00-18:00 days=mon-fri",
        "--expires", "30d",
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    token = made.output.strip()
    user = services.store.user_for_token(token_hash=hash_token(token), now=datetime.now(UTC))
    assert user is not None and user.scope is not None and user.scope.read_only
    assert run("token", "create", "--user", "ann", "--name", "all").exit_code == 0
    listed = run("token", "list", "--user", "ann").output.splitlines()
    assert len(listed) == 2
    assert listed[0].split("\t")[1] == "cursor" and listed[0].split("\t")[3].startswith("expires ")
    assert listed[0].endswith("read-only kinds=work hours=09:00-18:00 days=mon,tue,wed,thu,fri")
    assert listed[1].endswith("\tlive\twhole user")
    assert token not in "\n".join(listed)


def test_a_bad_scope_is_a_one_line_error(run: Any) -> None:
    bad = run("token", "create", "--user", "ann", "--scope", "hours=9-18")
    assert bad.exit_code == 1 and bad.output.startswith("Error: hours:")
    assert "Traceback" not in bad.output
