"""What the web pages read beyond the tools, and their sign-in sessions."""

from __future__ import annotations

from datetime import date, datetime

from app.db.base import Queries
from app.db.queries import QUERIES
from app.store import (
    EpisodeDetail,
    RangeCount,
    RecordLine,
    SiteTime,
    TokenRow,
    UserContext,
    WebSessionRow,
)


class PostgresWebStore(Queries):
    """Sessions and page reads (mixed into PostgresStore)."""

    def start_web_session(
        self, *, token_hash: bytes, session_hash: bytes, csrf_token: str, ttl_s: int
    ) -> UserContext | None:
        return self._one_as(
            UserContext,
            "start_web_session",
            {
                "token_hash": token_hash,
                "session_hash": session_hash,
                "csrf_token": csrf_token,
                "ttl_s": ttl_s,
            },
        )

    def web_session(self, *, session_hash: bytes) -> WebSessionRow | None:
        return self._one_as(WebSessionRow, "web_session", {"session_hash": session_hash})

    def end_web_session(self, *, session_hash: bytes) -> None:
        with self.pool.connection() as conn:
            conn.execute(QUERIES["end_web_session"], {"session_hash": session_hash})

    def list_tokens(self, *, user_id: int) -> list[TokenRow]:
        return self._all_as(TokenRow, "list_tokens", {"user_id": user_id})

    def revoke_token(self, *, user_id: int, token_id: int) -> bool:
        row = self._one("revoke_token", {"user_id": user_id, "token_id": token_id})
        return bool(row and row["n"])

    def episode_detail(self, *, user_id: int, episode_id: int) -> EpisodeDetail | None:
        return self._one_as(
            EpisodeDetail, "episode_detail", {"user_id": user_id, "episode_id": episode_id}
        )

    def episode_records(self, *, user_id: int, episode_id: int, limit: int) -> list[RecordLine]:
        return self._all_as(
            RecordLine,
            "episode_records",
            {"user_id": user_id, "episode_id": episode_id, "limit": limit},
        )

    def site_seconds(
        self,
        *,
        user_id: int,
        day_from: date,
        day_to: date,
        ts_from: datetime,
        ts_to: datetime,
        limit: int,
    ) -> list[SiteTime]:
        return self._all_as(
            SiteTime,
            "site_seconds",
            {
                "user_id": user_id,
                "day_from": day_from,
                "day_to": day_to,
                "ts_from": ts_from,
                "ts_to": ts_to,
                "limit": limit,
            },
        )

    def records_in_range(
        self, *, user_id: int, ts_from: datetime, ts_to: datetime, device_id: str | None
    ) -> list[RangeCount]:
        return self._all_as(
            RangeCount,
            "records_in_range",
            {"user_id": user_id, "ts_from": ts_from, "ts_to": ts_to, "device_id": device_id},
        )
