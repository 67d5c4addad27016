"""What the web pages read beyond the tools, and their sign-in sessions."""

from __future__ import annotations

from app.db.base import Queries
from app.db.named import execute, row, rows, value
from app.store.accounts import UserContext
from app.store.records import RecordLine
from app.store.web import (
    EpisodeDetail,
    RangeCount,
    SiteTime,
    TitleSeconds,
    TokenRow,
    WebSessionRow,
    WebStore,
    WindowRecord,
)


class PostgresWebStore(Queries):
    """Sessions and page reads (mixed into PostgresStore)."""

    start_web_session = row(WebStore.start_web_session, UserContext)
    web_session = row(WebStore.web_session, WebSessionRow)
    end_web_session = execute(WebStore.end_web_session)
    list_tokens = rows(WebStore.list_tokens, TokenRow)
    revoke_token = value(WebStore.revoke_token)
    episode_detail = row(WebStore.episode_detail, EpisodeDetail)
    episode_records = rows(WebStore.episode_records, RecordLine)
    site_seconds = rows(WebStore.site_seconds, SiteTime)
    records_in_range = rows(WebStore.records_in_range, RangeCount)
    title_seconds = rows(WebStore.title_seconds, TitleSeconds)
    window_records = rows(WebStore.window_records, WindowRecord)
