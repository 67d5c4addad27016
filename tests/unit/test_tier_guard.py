"""The unit tier's guard (tests/unit/conftest.py) refuses what a pure test may not do and
lets git list the repository."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_a_socket_connection_is_refused() -> None:
    with pytest.raises(ConnectionRefusedError, match="unit tier"):
        socket.create_connection(("127.0.0.1", 9), timeout=1)


def test_a_database_connection_is_refused() -> None:
    with pytest.raises(psycopg.OperationalError, match="unit tier"):
        psycopg.connect("postgresql://nobody@127.0.0.1:9/none")


def test_a_child_process_is_refused_but_git_runs() -> None:
    with pytest.raises(AssertionError, match="started"):
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    listed = subprocess.run(
        ["git", "ls-files", "pyproject.toml"], cwd=ROOT, capture_output=True, text=True
    )
    assert listed.stdout.strip() == "pyproject.toml"
