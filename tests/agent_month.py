"""The sample month the agent's tests ask about: March 2003 (seed 5), ingested and
built once per session into a template database; each test module works on a copy.

    month = month_fixture()        # in a test module: the module-scoped `month` fixture
    def test_x(month: Month): month.services, month.user, month.data   # data: exact truth
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import cache
from pathlib import Path

import pytest
from psycopg.conninfo import make_conninfo

from app.db.connection import drop_database, ensure_database
from app.demo.sample import SampleData, generate_sample
from app.ingest.records import RecordBatch, ingest_batch
from app.pyramid.build import backfill
from app.runtime.services import Services, open_services
from app.settings import Settings
from app.store import UserContext

START, DAYS, SEED = date(2003, 3, 1), 31, 5
BUILT_AT = datetime(2026, 11, 30, tzinfo=UTC)  # long after the month: everything closed
# "Now" for the questions: 2003-04-01 03:00 in Shanghai, still the logical day 03-31.
NOW = datetime(2003, 3, 31, 19, 0, tzinfo=UTC)
_copies = itertools.count()
_templates: dict[str, tuple[str, int]] = {}


@dataclass(frozen=True, slots=True)
class Month:
    services: Services
    user: UserContext
    data: SampleData


@cache
def sample() -> SampleData:
    return generate_sample(start=START, days=DAYS, seed=SEED)


def _template(admin_url: str, template_db: str, data_dir: Path) -> tuple[str, int]:
    if admin_url not in _templates:
        name = f"tt_month_{os.getpid()}"
        drop_database(admin_url, database=name)
        ensure_database(admin_url, database=name, template=template_db)
        url = make_conninfo(admin_url, dbname=name)
        settings = Settings(_env_file=None, database_url=url, data_dir=data_dir)
        data = sample()
        # Leaving the block closes the pool: a database with connections cannot be copied.
        with open_services(settings, url=url, auto_migrate=False) as services:
            store = services.store
            user = store.ensure_user(name="sample", time_zone=data.time_zone, day_cut_hour=4)
            for device_id, kind, device_name in data.devices:
                store.add_device(
                    user_id=user.user_id, device_id=device_id, name=device_name, kind=kind
                )
            for body in data.batches():
                batch = RecordBatch.model_validate(body)
                ingest_batch(store, user=user, batch=batch, rules=services.rules)
            backfill(store, now=BUILT_AT, settings=settings)
        _templates[admin_url] = (name, user.user_id)
    return _templates[admin_url]


@contextmanager
def month_copy(
    admin_url: str, template_db: str, data_dir: Path, **settings: object
) -> Iterator[Month]:
    """A fresh copy of the built month, with services over it (`settings` on top)."""
    template, user_id = _template(admin_url, template_db, data_dir)
    name = f"tt_month_{os.getpid()}_{next(_copies)}"
    ensure_database(admin_url, database=name, template=template)
    url = make_conninfo(admin_url, dbname=name)
    config = Settings(_env_file=None, database_url=url, data_dir=data_dir, **settings)  # type: ignore[arg-type]
    try:
        with open_services(config, url=url, auto_migrate=False) as services:
            user = services.store.get_user_by_id(user_id=user_id)
            assert user is not None
            yield Month(services=services, user=user, data=sample())
    finally:
        drop_database(admin_url, database=name)


def _drop_template(admin_url: str) -> None:
    name, _ = _templates.pop(admin_url)
    with contextlib.suppress(Exception):  # the throw-away test server may be gone already
        drop_database(admin_url, database=name)


def month_fixture() -> object:
    """The module-scoped fixture `month`: a copy of the built month for one test module."""

    @pytest.fixture(scope="module", name="month")
    def month(
        admin_url: str,
        template_db: str,
        tmp_path_factory: pytest.TempPathFactory,
        request: pytest.FixtureRequest,
    ) -> Iterator[Month]:
        if admin_url not in _templates:
            _template(admin_url, template_db, tmp_path_factory.mktemp("month"))
            request.config.add_cleanup(lambda: _drop_template(admin_url))
        with month_copy(admin_url, template_db, tmp_path_factory.mktemp("month")) as built:
            yield built

    return month
