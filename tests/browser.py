"""What the browser tests share: Debian's Chromium under Playwright, and the sample
month served on a loopback port from a database of the test module's own."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

import pytest
from playwright.sync_api import Browser, sync_playwright

from app.api.server import serve_in_thread
from app.db.connection import drop_database, ensure_database
from app.runtime.services import Services, open_services
from app.settings import Settings
from app.store import UserContext
from tests.helpers import SAMPLE_MONTH, TemplateDatabases, isolated_env, new_token_for, url_for

CHROMIUM_ARGS = [
    "--no-sandbox",  # as root
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",  # the machine has no network: no calls home
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


class Served(NamedTuple):
    base: str
    token: str
    services: Services
    user: UserContext


@contextmanager
def sample_month_served(
    admin_url: str,
    data_templates: TemplateDatabases,
    tmp_path_factory: pytest.TempPathFactory,
    *,
    prefix: str,
) -> Iterator[Served]:
    """The sample month, copied into a database of this process's own (dropped after),
    served over HTTP, with a fresh API token of its user."""
    name = f"{prefix}_{os.getpid()}"
    data_dir = tmp_path_factory.mktemp(prefix)
    template, preloaded = data_templates.template(SAMPLE_MONTH)
    ensure_database(admin_url, database=name, template=template)
    url = url_for(admin_url, name)
    try:
        with pytest.MonkeyPatch.context() as monkeypatch:
            isolated_env(monkeypatch)
            settings = Settings(_env_file=None, database_url=url, data_dir=data_dir)
            with (
                open_services(settings, url=url, auto_migrate=False) as services,
                serve_in_thread(services) as base,
            ):
                token = new_token_for(services, preloaded.user, name="browser")
                yield Served(base=base, token=token, services=services, user=preloaded.user)
    finally:
        drop_database(admin_url, database=name)


@contextmanager
def chromium() -> Iterator[Browser]:
    executable = shutil.which("chromium")
    assert executable, "no chromium: apt-get install -y chromium fonts-noto-cjk (make test does)"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
