"""Tests run against a real PostgreSQL with pgvector:

1. `TIMETRACE_TEST_DATABASE_URL` when set (a role that may CREATE DATABASE);
2. else a testcontainers pgvector container when a Docker engine answers;
3. else the embedded server, in a throw-away data directory.

The schema is migrated once into a template database; every test that needs a
database gets its own `CREATE DATABASE … TEMPLATE …` copy, so tests never see
each other's rows.
"""

from __future__ import annotations

import itertools
import json
import os
import socket
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from psycopg.conninfo import make_conninfo

from app.api import create_app
from app.db.connection import connect, drop_database, ensure_database
from app.runtime.auth import hash_token, new_token
from app.runtime.services import Services, migrate_url, open_services
from app.settings import Settings
from app.store import UserContext

FIXTURES = Path(__file__).parent / "fixtures"
_counter = itertools.count()


def _docker_answers() -> bool:
    """True when a Docker engine answers a ping on its socket (no engine: embedded server)."""
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    if not host.startswith("unix://"):
        return True  # a remote engine: let testcontainers try it
    path = host.removeprefix("unix://")
    if not os.path.exists(path):
        return False
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(2)
        try:
            sock.connect(path)
            sock.sendall(b"GET /_ping HTTP/1.0\r\n\r\n")
            return b"OK" in sock.recv(1024)
        except OSError:
            return False


@pytest.fixture(scope="session")
def admin_url() -> Iterator[str]:
    """A URL to a server on which tests may create and drop databases."""
    given = os.environ.get("TIMETRACE_TEST_DATABASE_URL")
    if given:
        yield given
        return
    if _docker_answers():
        from testcontainers.postgres import PostgresContainer

        with PostgresContainer("pgvector/pgvector:pg17", driver=None) as container:
            yield container.get_connection_url()
        return
    from app.db.embedded import start_embedded

    root = Path(tempfile.mkdtemp(prefix="tt-test-"))
    server = start_embedded(pgdata=root / "pgdata", cleanup_mode="delete")
    yield server.get_uri(database="postgres")
    server.cleanup()


def url_for(admin: str, database: str) -> str:
    return make_conninfo(admin, dbname=database)


def _isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("TIMETRACE_") and key != "TIMETRACE_TEST_DATABASE_URL":
            monkeypatch.delenv(key)


@pytest.fixture(autouse=True)
def _no_timetrace_env(monkeypatch: pytest.MonkeyPatch) -> None:
    _isolated_env(monkeypatch)


@pytest.fixture(scope="session")
def template_db(admin_url: str) -> Iterator[str]:
    name = f"tt_template_{os.getpid()}"
    drop_database(admin_url, database=name)
    ensure_database(admin_url, database=name)
    migrate_url(url_for(admin_url, name), settings=Settings(_env_file=None))
    yield name
    drop_database(admin_url, database=name)


@pytest.fixture
def db_url(admin_url: str, template_db: str) -> Iterator[str]:
    """A fresh, migrated database for this test alone."""
    name = f"tt_test_{os.getpid()}_{next(_counter)}"
    ensure_database(admin_url, database=name, template=template_db)
    yield url_for(admin_url, name)
    drop_database(admin_url, database=name)


@pytest.fixture
def other_db(
    admin_url: str, template_db: str, tmp_path: Path
) -> Callable[[], AbstractContextManager[tuple[Services, Any]]]:
    """A second fresh database, to compare a run with another one."""

    @contextmanager
    def open_other() -> Iterator[tuple[Services, Any]]:
        name = f"tt_other_{os.getpid()}_{next(_counter)}"
        ensure_database(admin_url, database=name, template=template_db)
        url = url_for(admin_url, name)
        settings = Settings(_env_file=None, database_url=url, data_dir=tmp_path)
        try:
            with (
                open_services(settings, url=url, auto_migrate=False) as services,
                connect(url, settings=settings, autocommit=True) as conn,
            ):
                yield services, conn
        finally:
            drop_database(admin_url, database=name)

    return open_other


@pytest.fixture
def settings(db_url: str, tmp_path: Path) -> Settings:
    return Settings(_env_file=None, database_url=db_url, data_dir=tmp_path)


@pytest.fixture
def services(settings: Settings, db_url: str) -> Iterator[Services]:
    with open_services(settings, url=db_url, auto_migrate=False) as services:
        yield services


@pytest.fixture
def conn(db_url: str, settings: Settings) -> Iterator[Any]:
    with connect(db_url, settings=settings, autocommit=True) as connection:
        yield connection


class Api:
    """A test client acting for one user with a token and registered devices."""

    def __init__(self, client: TestClient, user: UserContext, token: str) -> None:
        self.client = client
        self.user = user
        self.token = token
        self.auth = {"Authorization": f"Bearer {token}"}

    def post(self, path: str, body: Any) -> Any:
        # json.dumps escapes non-ASCII, so even a lone surrogate travels as JSON does.
        headers = {**self.auth, "Content-Type": "application/json"}
        return self.client.post(path, content=json.dumps(body), headers=headers)

    def ingest(self, device_id: str, records: list[dict[str, Any]]) -> Any:
        return self.post("/api/v1/records", {"device_id": device_id, "records": records})


def make_api(
    services: Services,
    *,
    user_name: str = "tester",
    time_zone: str = "Asia/Shanghai",
    devices: tuple[str, ...] = ("laptop", "desktop", "phone"),
) -> Api:
    user = services.store.ensure_user(name=user_name, time_zone=time_zone, day_cut_hour=4)
    token = new_token()
    services.store.add_token(user_id=user.user_id, token_hash=hash_token(token), name="test")
    for device_id in devices:
        services.store.add_device(user_id=user.user_id, device_id=device_id, name="", kind="other")
    return Api(
        TestClient(create_app(services=services), raise_server_exceptions=False), user, token
    )


@pytest.fixture
def api(services: Services) -> Api:
    return make_api(services)


@pytest.fixture(scope="session")
def golden_day() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "golden_day.json").read_text(encoding="utf-8"))
    return data
