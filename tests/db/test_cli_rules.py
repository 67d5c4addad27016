"""`timetrace rules`: the suggestions of `rules check` are `rules add` lines that work as
printed, and list, preview, move, edit and delete read and write the same rules the web
and the API do, with one-line errors."""

from __future__ import annotations

import shlex
from datetime import UTC, datetime, timedelta
from pathlib import Path

from click.testing import CliRunner, Result

from app.cli import main
from app.runtime.services import Services
from tests.db.test_coverage import _ingest
from tests.helpers import make_api


def _run(env: dict[str, str], *args: str) -> Result:
    return CliRunner().invoke(main, ["rules", *args], env=env)


def test_rules_check_suggests_rules_add_lines_that_categorise_the_history(
    services: Services, db_url: str, tmp_path: Path
) -> None:
    api = make_api(services, user_name="me", time_zone="UTC", devices=("desktop",))
    today = datetime.now(UTC).date()
    last_monday = today - timedelta(days=today.weekday() + 7)
    _ingest(api, datetime.combine(last_monday, datetime.min.time(), UTC) + timedelta(hours=9))
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path)}

    check = _run(env, "check", "--period", "last_week")
    assert check.exit_code == 0, check.output
    suggested = [line.strip() for line in check.output.splitlines() if "rules add" in line]
    assert suggested == [
        "timetrace rules add app hades2 CATEGORY",
        "timetrace rules add title 'Acme Wiki' CATEGORY",
        "timetrace rules add site intranet.acme.com CATEGORY",
    ]
    assert "62.5%" in check.output

    # Each line as printed, with a category: the history moves, the share falls.
    for line, category in zip(suggested, ("entertainment", "work", "work"), strict=True):
        args = shlex.split(line.replace("CATEGORY", category))[2:]
        preview = _run(env, "preview", *args[1:])
        assert preview.exit_code == 0, preview.output
        added = _run(env, *args)
        assert added.exit_code == 0, added.output
        assert added.output.splitlines()[0] == preview.output.splitlines()[0]
        assert added.output.splitlines()[0].startswith("Changes 0.")
    check = _run(env, "check", "--period", "last_week")
    assert "0.17 h uncategorized of 2.67 h active (6.2%)" in check.output

    listed = _run(env, "list").output.splitlines()
    ids = [line.split("[")[1].split("]")[0] for line in listed]
    assert listed == [
        f"  1. [{ids[0]}] app   'hades2' → entertainment",
        f"  2. [{ids[1]}] title 'Acme Wiki' → work",
        f"  3. [{ids[2]}] site  'intranet.acme.com' → work",
    ]
    # The position the list shows first moves the rule (not an id that happens to be 3).
    moved = _run(env, "move", "3", "1")
    assert moved.exit_code == 0, moved.output
    assert f"  1. [{ids[2]}] site  'intranet.acme.com' → work" in moved.output
    # The id as the list shows it, in brackets, or with --id.
    by_brackets = _run(env, "move", f"[{ids[1]}]", "2")
    assert f"  2. [{ids[1]}] title 'Acme Wiki' → work" in by_brackets.output
    by_id = _run(env, "move", "--id", ids[0], "2")
    assert f"  2. [{ids[0]}] app   'hades2' → entertainment" in by_id.output
    assert f"  3. [{ids[1]}] title 'Acme Wiki' → work" in by_id.output
    beyond = _run(env, "move", "9", "1")
    assert beyond.exit_code == 1
    assert beyond.output == "Error: no rule at position 9: you have 3 (timetrace rules list)\n"
    edited = _run(env, "edit", ids[1], "--category", "study")
    assert (
        edited.output.splitlines()[0] == "Changes 0.50 h of history (2 records on 1 device-days)."
    )
    deleted = _run(env, "delete", ids[0])
    assert deleted.output.splitlines()[0].startswith("Changes 0.67 h")
    assert [
        line[:6] + line.split("]")[0][6:] for line in _run(env, "list").output.splitlines()
    ] == [
        f"  1. [{ids[2]}",
        f"  2. [{ids[1]}",
    ]

    missing = _run(env, "delete", "999999")
    assert missing.exit_code == 1 and missing.output == "Error: no rule 999999 of yours\n"
    bad = _run(env, "add", "site", "not a site", "work")
    assert bad.exit_code == 1 and "is not a site's name or address" in bad.output
