"""`timetrace status` with nothing running says so plainly and exits non-zero; with a
server answering on its port it names it."""

from __future__ import annotations

import socket
from pathlib import Path

from click.testing import CliRunner

from app.api.server import serve_in_thread
from app.cli import main
from app.runtime.services import Services


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_status_with_nothing_running_exits_non_zero_and_says_so(
    db_url: str, tmp_path: Path
) -> None:
    port = _free_port()
    env = {
        "TIMETRACE_DATABASE_URL": db_url,
        "TIMETRACE_DATA_DIR": str(tmp_path),
        "TIMETRACE_PORT": str(port),
    }
    result = CliRunner().invoke(main, ["status"], env=env)
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        f"server    none answers on http://127.0.0.1:{port} (start one: timetrace serve --worker)"
    )
    assert lines[1] == "worker    none alive (start one: timetrace worker, or serve --worker)"
    assert lines[-1] == "nothing is running: start it with `timetrace serve --worker`"
    assert "database  ok" in lines  # the database itself is fine: only nothing runs
    as_json = CliRunner().invoke(main, ["status", "--json"], env=env)
    assert as_json.exit_code == 1
    assert '"nothing_running": true' in as_json.output


def test_status_names_the_server_that_answers(
    services: Services, db_url: str, tmp_path: Path
) -> None:
    with serve_in_thread(services) as base:
        env = {
            "TIMETRACE_DATABASE_URL": db_url,
            "TIMETRACE_DATA_DIR": str(tmp_path),
            "TIMETRACE_PORT": base.rsplit(":", 1)[1],
        }
        result = CliRunner().invoke(main, ["status"], env=env)
    lines = result.output.splitlines()
    assert lines[0] == f"server    answers on {base}", result.output
    assert "nothing is running" not in result.output
    assert result.exit_code == 0, result.output  # a server, an empty queue: healthy
