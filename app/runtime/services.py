"""What a running TimeTrace process holds: settings, the store, the rules and the
model client — the composition root every door and the worker start from.

with open_services(settings) as services:
    services.store.count_tokens()
    ctx = services.tool_context(user=user, now=datetime.now(UTC))
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from app.db.connection import connect, database_url, open_pool
from app.db.migrate import migrate
from app.db.scoped import scoped_store
from app.db.store import PostgresStore
from app.enrich.client import ModelClient
from app.pyramid.build import rebuild_days
from app.rules.categories import Rules, load_rules
from app.settings import Settings
from app.store import Store
from app.store.accounts import UserContext
from app.tools.registry import ToolContext


@dataclass(frozen=True, slots=True)
class Services:
    settings: Settings
    store: Store
    rules: Rules
    url: str
    models: ModelClient

    def store_for(self, *, user: UserContext) -> Store:
        """The store a caller reads: the whole store, or for a token whose scope hides
        part of the user's time, a store that holds only the in-scope time
        (docs/scopes.md). Every door that reads for a caller takes its store here."""
        if user.scope is None or not user.scope.limits_data:
            return self.store
        return scoped_store(url=self.url, settings=self.settings, user=user)

    def tool_context(self, *, user: UserContext, now: datetime) -> ToolContext:
        """The context a tool call runs in, for every door (HTTP, CLI, agent, MCP)."""
        return ToolContext(
            store=self.store_for(user=user),
            models=self.models,
            settings=self.settings,
            user=user,
            now=now,
            rebuild=functools.partial(rebuild_days, self.store, settings=self.settings),
            rules=self.rules,
        )


def migrate_url(url: str, *, settings: Settings) -> list[str]:
    with connect(url, settings=settings, autocommit=True) as conn:
        return migrate(conn, embedding_dim=settings.embedding_dim)


@contextmanager
def open_services(
    settings: Settings, *, url: str | None = None, auto_migrate: bool = True
) -> Iterator[Services]:
    """Connect (starting the embedded database when no URL is configured), migrate, and
    yield the services; the pool is closed on exit."""
    rules = load_rules(user_file=settings.rules_file)  # bad rules fail before any I/O
    url = url or database_url(settings)
    if auto_migrate:
        migrate_url(url, settings=settings)
    pool = open_pool(url, settings=settings)
    try:
        yield Services(
            settings=settings,
            store=PostgresStore.over(pool),
            rules=rules,
            url=url,
            models=ModelClient(settings),
        )
    finally:
        pool.close()
