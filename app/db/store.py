"""`PostgresStore`: the `Store` protocol over a psycopg connection pool and the named
queries of `sql/queries/<family>.sql`. A protocol method named after a query is that
query (`app.db.derived`); the methods of several queries are written in one mixin per
family (`store_<family>.py`)."""

from __future__ import annotations

from typing import Self

from psycopg_pool import ConnectionPool

from app.db.connection import Connection
from app.db.derived import complete
from app.db.store_accounts import PostgresAccountStore
from app.db.store_awdoor import PostgresAwDoorStore
from app.db.store_batch import PostgresBatchStore
from app.db.store_conversations import PostgresConversationStore
from app.db.store_digests import PostgresDigestStore
from app.db.store_episodes import PostgresEpisodeStore
from app.db.store_model import PostgresModelStore
from app.db.store_records import PostgresRecordStore
from app.db.store_retention import PostgresRetentionStore
from app.db.store_things import PostgresThingStore
from app.db.store_tools import PostgresToolStore
from app.db.store_user_categories import PostgresUserCategoryStore
from app.db.store_user_rules import PostgresUserRuleStore
from app.store import Store


class PostgresStore(
    PostgresAccountStore,
    PostgresAwDoorStore,
    PostgresRecordStore,
    PostgresEpisodeStore,
    PostgresDigestStore,
    PostgresBatchStore,
    PostgresModelStore,
    PostgresToolStore,
    PostgresThingStore,
    PostgresConversationStore,
    PostgresUserRuleStore,
    PostgresUserCategoryStore,
    PostgresRetentionStore,
    Store,
):
    def __init__(self, pool: ConnectionPool[Connection]) -> None:
        self.pool = pool
        self._open_jobs(pool)

    @classmethod
    def over(cls, pool: ConnectionPool[Connection]) -> Self:
        """The store over `pool`. (mypy reads the protocol methods `complete` derives
        as abstract, so a process makes its store here, not by calling the class.)"""
        return cls(pool)


# Every protocol method no mixin writes by hand: the named query of its name.
DERIVED = complete(PostgresStore, Store)
