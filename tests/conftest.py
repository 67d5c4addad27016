"""Tests run against a real PostgreSQL with pgvector:

1. `TIMETRACE_TEST_DATABASE_URL` when set (a role that may CREATE DATABASE);
2. else a testcontainers pgvector container when a Docker engine answers;
3. else the embedded server, in a throw-away data directory.

The schema is migrated once into a template database; every test that needs a
database gets its own `CREATE DATABASE … TEMPLATE …` copy, so tests never see
each other's rows. A test marked `@pytest.mark.preloaded(recipe)` (recipes in
tests/helpers.py) gets a copy of a template that holds the recipe's data instead,
loaded once per session, and finds what it holds in the `preloaded` fixture.

Tiers, one folder each (a test's folder says what it needs; `make test-fast` runs the first):
- tests/unit: pure: no database fixture, no socket, no browser, no child process (but
  `git ls-files`, to read the repository);
- tests/db: needs PostgreSQL (in-process clients, the scripted model server, the API
  served from a thread as one more door);
- tests/e2e: starts processes or the browser, or tests a server on a socket as such.
The session fixtures below start nothing until a test asks for one, so the unit tier
never starts a server; a unit test that asks for a database fixture is a collection error.

Shared helpers live in tests/helpers.py; this file holds fixtures and the tier hooks.
"""

from __future__ import annotations

import itertools
import os
import socket
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg
import pytest

from app.db.connection import connect, drop_database, ensure_database
from app.settings import Settings
from tests.helpers import (
    TEST_HOSTS,
    Api,
    Preloaded,
    SampleRecipe,
    TemplateDatabases,
    isolated_env,
    make_api,
    read_golden_day,
    url_for,
)

if TYPE_CHECKING:  # loaded by the fixtures that use them: the pure tier needs neither
    from aw_client import ActivityWatchClient

    from app.runtime.services import Services
    from tests.aw_real import AwServer

_counter = itertools.count()

TESTS = Path(__file__).resolve().parent
TIERS = ("unit", "db", "e2e")
DATABASE_FIXTURES = frozenset(
    {"admin_url", "template_db", "data_templates", "db_url", "preloaded", "other_db"}
    | {"settings", "services", "conn", "api"}
)


def _tier(item: pytest.Item) -> str | None:
    """The tier folder a test lives in (None for a file not yet sorted into one)."""
    if not item.path.is_relative_to(TESTS):
        return None
    parts = item.path.relative_to(TESTS).parts
    return parts[0] if len(parts) > 1 and parts[0] in TIERS else None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its tier, refuse a unit test that reaches for the database,
    and run the files in the order of their names across the tiers, as when they lived
    in one folder: xdist hands each worker runs of consecutive tests, so the long
    end-to-end files, spread through that order, are shared between the workers (in
    tier order both would land on the first worker)."""
    for item in items:
        tier = _tier(item)
        if tier is None:
            continue
        item.add_marker(tier)
        used = DATABASE_FIXTURES & set(getattr(item, "fixturenames", ()))
        if tier == "unit" and used:
            raise pytest.UsageError(
                f"{item.nodeid} is in tests/unit but uses {sorted(used)}: move it to tests/db"
            )
    items.sort(key=lambda item: item.path.name)  # stable: a file's own order is kept


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
    url = server.get_uri(database="postgres")
    _without_durability(url)
    yield url
    server.cleanup()


def _without_durability(admin: str) -> None:
    """A throw-away server need not survive a power cut. Without fsync, the checkpoints of
    each test's CREATE/DROP DATABASE stop waiting on the disk (seconds per test on a
    busy machine); what any query returns is the same."""
    with psycopg.connect(admin, autocommit=True) as conn:
        for setting in ("fsync", "full_page_writes", "synchronous_commit"):
            conn.execute(f"ALTER SYSTEM SET {setting} = off")
        conn.execute("SELECT pg_reload_conf()")


@pytest.fixture(autouse=True)
def _no_timetrace_env(monkeypatch: pytest.MonkeyPatch) -> None:
    isolated_env(monkeypatch)


@pytest.fixture(scope="session")
def template_db(admin_url: str) -> Iterator[str]:
    name = f"tt_template_{os.getpid()}"
    drop_database(admin_url, database=name)
    ensure_database(admin_url, database=name)
    from app.runtime.services import migrate_url

    migrate_url(url_for(admin_url, name), settings=Settings(_env_file=None))
    yield name
    drop_database(admin_url, database=name)


@pytest.fixture(scope="session")
def data_templates(
    admin_url: str, template_db: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[TemplateDatabases]:
    """Template databases holding data, one per recipe, each loaded on first use."""
    templates = TemplateDatabases(
        admin_url=admin_url, base=template_db, data_dir=tmp_path_factory.mktemp("templates")
    )
    yield templates
    templates.drop_all()


def _recipe(request: pytest.FixtureRequest) -> SampleRecipe | None:
    marker = request.node.get_closest_marker("preloaded")
    if marker is None:
        return None
    recipe: SampleRecipe = marker.args[0]
    return recipe


@pytest.fixture
def db_url(
    request: pytest.FixtureRequest,
    admin_url: str,
    template_db: str,
    data_templates: TemplateDatabases,
) -> Iterator[str]:
    """A fresh, migrated database for this test alone; for a test marked
    `@pytest.mark.preloaded(recipe)`, a fresh copy of the recipe's template."""
    recipe = _recipe(request)
    template = template_db if recipe is None else data_templates.template(recipe)[0]
    name = f"tt_test_{os.getpid()}_{next(_counter)}"
    ensure_database(admin_url, database=name, template=template)
    yield url_for(admin_url, name)
    drop_database(admin_url, database=name)


@pytest.fixture
def preloaded(
    request: pytest.FixtureRequest, db_url: str, data_templates: TemplateDatabases
) -> Preloaded:
    """What the test's database holds: the user and the ground truth of its recipe."""
    recipe = _recipe(request)
    if recipe is None:
        raise pytest.UsageError(f"{request.node.nodeid} needs @pytest.mark.preloaded(recipe)")
    return data_templates.template(recipe)[1]


@pytest.fixture
def other_db(
    admin_url: str, template_db: str, data_templates: TemplateDatabases, tmp_path: Path
) -> Callable[..., AbstractContextManager[tuple[Services, Any]]]:
    """A second fresh database (a copy of a recipe's template when one is given), to
    compare a run with another one."""

    from app.runtime.services import open_services

    @contextmanager
    def open_other(recipe: SampleRecipe | None = None) -> Iterator[tuple[Services, Any]]:
        name = f"tt_other_{os.getpid()}_{next(_counter)}"
        template = template_db if recipe is None else data_templates.template(recipe)[0]
        ensure_database(admin_url, database=name, template=template)
        url = url_for(admin_url, name)
        settings = Settings(
            _env_file=None, database_url=url, data_dir=tmp_path, allowed_hosts=TEST_HOSTS
        )
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
    return Settings(
        _env_file=None, database_url=db_url, data_dir=tmp_path, allowed_hosts=TEST_HOSTS
    )


@pytest.fixture
def services(settings: Settings, db_url: str) -> Iterator[Services]:
    from app.runtime.services import open_services

    with open_services(settings, url=db_url, auto_migrate=False) as services:
        yield services


@pytest.fixture
def conn(db_url: str, settings: Settings) -> Iterator[Any]:
    with connect(db_url, settings=settings, autocommit=True) as connection:
        yield connection


@pytest.fixture
def api(services: Services) -> Api:
    return make_api(services)


@pytest.fixture(scope="session")
def golden_day() -> dict[str, Any]:
    return read_golden_day()


@pytest.fixture
def aw_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AwServer]:
    """A real aw-server (tests/aw_real.py) of this test alone, in memory (starts in
    about a second); ActivityWatch's files of the test's process go under it too."""
    from tests.aw_real import aw_dirs, aw_server

    home = tmp_path / "activitywatch"
    for name, value in aw_dirs(home).items():
        monkeypatch.setenv(name, value)
    with aw_server(home) as server:
        yield server


@pytest.fixture
def aw_client(aw_server: AwServer) -> Iterator[ActivityWatchClient]:
    """The real aw-client, pointed at `aw_server`."""
    from tests.aw_real import aw_client_for

    with aw_client_for(aw_server) as client:
        yield client
