"""What a running TimeTrace process holds: settings, the store and the rules.

with open_services(settings) as services:
    services.store.count_tokens()
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from psycopg_pool import ConnectionPool

from app.db.connection import Connection, connect, database_url, open_pool
from app.db.migrate import migrate
from app.db.store import PostgresStore
from app.enrich.client import ModelClient
from app.rules.categories import Rules, load_rules
from app.settings import Settings


@dataclass(frozen=True, slots=True)
class Services:
    settings: Settings
    store: PostgresStore
    rules: Rules
    pool: ConnectionPool[Connection]
    url: str
    models: ModelClient


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
            store=PostgresStore(pool),
            rules=rules,
            pool=pool,
            url=url,
            models=ModelClient(settings),
        )
    finally:
        pool.close()
