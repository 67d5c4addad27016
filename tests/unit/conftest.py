"""The unit tier stays pure. Nothing listens here: every connection (a socket, PostgreSQL
through psycopg) is refused as a closed port would refuse it, so a test that needs a
server fails and belongs in tests/db or tests/e2e; starting a process fails outright,
except `git`, which may list the repository's files. (A test asking for a database
fixture fails earlier, at collection: tests/conftest.py.)"""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path
from typing import Any

import psycopg
import pytest

_ELSEWHERE = "nothing listens in the unit tier: a test that needs a server belongs in tests/db"


@pytest.fixture(autouse=True)
def _pure(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(self: socket.socket, address: Any) -> None:
        raise ConnectionRefusedError(f"{address!r}: {_ELSEWHERE}")

    def no_database(*args: Any, **kwargs: Any) -> None:
        raise psycopg.OperationalError(f"PostgreSQL: {_ELSEWHERE}")

    popen = subprocess.Popen.__init__

    def only_git(self: subprocess.Popen[Any], args: Any, *rest: Any, **kwargs: Any) -> None:
        program = os.fsdecode(args if isinstance(args, str | bytes | os.PathLike) else args[0])
        if Path(program.split()[0]).name != "git":
            raise AssertionError(f"a unit test started {program!r}: it belongs in tests/e2e")
        popen(self, args, *rest, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(socket.socket, "connect_ex", refused)
    monkeypatch.setattr(psycopg, "connect", no_database)
    monkeypatch.setattr(psycopg.Connection, "connect", no_database)
    monkeypatch.setattr(subprocess.Popen, "__init__", only_git)
