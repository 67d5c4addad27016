"""The seam between the domain and the database: one module per store family.

A family (`accounts`, `records`, `jobs`, `episodes`, `digests`, `batch`, `model`,
`tools`, `conversations`, `web`, `user_rules`, `user_categories`, `awdoor`, `retention`)
is one module holding its typed rows and its protocol; callers import both from it
(`from app.store.tools import ToolStore, SignalRow`). The protocol is also the
PostgreSQL declaration: a method named after a query of `sql/queries/` runs it, its
return annotation saying how its rows load (`app/db/derived.py`), so only the methods of
several queries are written by hand in `app/db/store_<family>.py`. Nothing above the
seam imports psycopg or writes SQL. Below it, nothing knows about HTTP, MCP or what a
job does: the store only enqueues the `JobRequest` rows it is handed, in the transaction
of the write that asks for them. `Store`, every family at once, is what a running
process holds.
See docs/architecture.md ("A family in one place").
"""

from __future__ import annotations

from typing import Protocol

from app.store.accounts import AccountStore
from app.store.awdoor import AwDoorStore
from app.store.batch import BatchStore
from app.store.conversations import ConversationStore
from app.store.digests import DigestStore
from app.store.episodes import EpisodeStore
from app.store.jobs import JobStore
from app.store.model import ModelStore
from app.store.records import ImportStore, RecordStore
from app.store.retention import RetentionStore
from app.store.tools import ToolStore
from app.store.user_categories import UserCategoryStore
from app.store.user_rules import UserRuleStore
from app.store.web import WebStore


class Store(
    AccountStore,
    AwDoorStore,
    RecordStore,
    JobStore,
    EpisodeStore,
    DigestStore,
    BatchStore,
    ModelStore,
    ImportStore,
    ToolStore,
    ConversationStore,
    WebStore,
    UserRuleStore,
    UserCategoryStore,
    RetentionStore,
    Protocol,
):
    """Everything the domain needs from storage."""
