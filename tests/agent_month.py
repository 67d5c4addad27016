"""The sample month the agent's tests ask about (SAMPLE_MONTH: March 2003, built once
per session into a template database by conftest's `data_templates`): one copy per
test module, since asking only reads (and adds conversations nobody else looks at).

    month = month_fixture()        # in a test module: the module-scoped `month` fixture
    def test_x(month: Month): month.services, month.user, month.data   # data: exact truth
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest

from app.agent import ask
from app.db.connection import drop_database, ensure_database
from app.demo.sample import SampleData
from app.runtime.services import Services, open_services
from app.settings import Settings
from app.store.accounts import UserContext
from app.tools.registry import ToolContext
from tests.fake_openai import FakeOpenAI
from tests.helpers import SAMPLE_MONTH, TEST_HOSTS, TemplateDatabases, url_for, with_models

# "Now" for the questions: 2003-04-01 03:00 in Shanghai, still the logical day 03-31.
NOW = datetime(2003, 3, 31, 19, 0, tzinfo=UTC)
_copies = itertools.count()


@dataclass(frozen=True, slots=True)
class Month:
    services: Services
    user: UserContext
    data: SampleData


def month_fixture() -> object:
    """The module-scoped fixture `month`: a copy of the built month for one test module."""

    @pytest.fixture(scope="module", name="month")
    def month(
        admin_url: str,
        data_templates: TemplateDatabases,
        tmp_path_factory: pytest.TempPathFactory,
    ) -> Iterator[Month]:
        template, preloaded = data_templates.template(SAMPLE_MONTH)
        name = f"tt_month_{os.getpid()}_{next(_copies)}"
        ensure_database(admin_url, database=name, template=template)
        url = url_for(admin_url, name)
        settings = Settings(
            _env_file=None,
            database_url=url,
            data_dir=tmp_path_factory.mktemp("month"),
            allowed_hosts=TEST_HOSTS,
        )
        try:
            with open_services(settings, url=url, auto_migrate=False) as services:
                yield Month(services=services, user=preloaded.user, data=preloaded.data)
        finally:
            drop_database(admin_url, database=name)

    return month


def context(month: Month, fake: FakeOpenAI, **settings: Any) -> ToolContext:
    """The month's tool context with the scripted model server as its models."""
    services, _ = with_models(month.services, fake, **settings)
    return services.tool_context(user=month.user, now=NOW)


def run(ctx: ToolContext, question: str) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
    """Ask one question with no history: the `done` event and every event emitted."""
    events: list[tuple[str, Any]] = []
    done = ask(
        ctx=ctx,
        question=question,
        history=[],
        emit=lambda kind, data: events.append((kind, data)),
        cancelled=lambda: False,
    )
    return done, events
