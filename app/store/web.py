"""What the web pages read beyond the tools, and their sign-in sessions (`WebStore`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any, Protocol

from app.store.accounts import UserContext
from app.store.documents import Interruption
from app.store.episodes import EpisodeLine
from app.store.records import RecordLine
from app.store.row import Row
from app.store.scope import TokenScope, describe_scope


class WebSessionRow(Row):
    """A signed-in browser: who it acts for, and the token its forms must carry."""

    user_id: int
    name: str
    time_zone: str
    day_cut_hour: int
    csrf_token: str
    scope: dict[str, Any] | None = None  # the token's (docs/scopes.md)

    @property
    def user(self) -> UserContext:
        return UserContext(
            user_id=self.user_id,
            name=self.name,
            time_zone=self.time_zone,
            day_cut_hour=self.day_cut_hour,
            scope=TokenScope.model_validate(self.scope) if self.scope is not None else None,
        )


class TokenRow(Row):
    """An API token as the privacy page lists it (never its secret)."""

    token_id: int
    name: str
    created_at: datetime
    revoked_at: datetime | None
    expires_at: datetime | None
    scope: dict[str, Any] | None  # docs/scopes.md
    web_sessions: int

    @property
    def scope_words(self) -> str:
        """The scope as `timetrace token create --scope` takes it ("" for the whole user)."""
        return describe_scope(TokenScope.model_validate(self.scope) if self.scope else None)


class EpisodeDetail(EpisodeLine):
    """An episode as its panel shows it."""

    day_local: date
    primary_app: str
    summary_status: str
    cues: list[str]
    interruptions: list[Interruption]
    frame_count: int


class TitleSeconds(Row):
    """Active seconds on one window title of an app or site in a period, with the app's
    or site's whole time and how many titles it had."""

    title: str
    seconds: float
    total: float
    titles: int


class WindowRecord(Row):
    """A record as the zoomed timeline draws it."""

    record_id: int
    device_id: str
    ts_start: datetime
    ts_end: datetime | None
    app: str
    window_title: str
    category: str
    is_idle: bool


class RangeCount(Row):
    """What a deletion of a time range would erase on one device and logical day."""

    device_id: str
    day_local: date
    records: int
    first_ts: datetime
    last_ts: datetime
    apps: list[str]


class WebStore(Protocol):
    """What the web pages read beyond the tools, and their sign-in sessions."""

    def start_web_session(
        self, *, token_hash: bytes, session_hash: bytes, csrf_token: str, ttl_s: int
    ) -> UserContext | None:
        """Open a session for a valid API token (None when the token is unknown or
        revoked); sessions past their expiry are cleared on the way."""
        ...

    def web_session(self, *, session_hash: bytes) -> WebSessionRow | None:
        """The session, while it has not expired and its token is not revoked."""
        ...

    def end_web_session(self, *, session_hash: bytes) -> None: ...
    def list_tokens(self, *, user_id: int) -> list[TokenRow]: ...

    def revoke_token(self, *, user_id: int, token_id: int) -> bool:
        """Revoke an API token and end the browser sessions made from it."""
        ...

    def episode_detail(self, *, user_id: int, episode_id: int) -> EpisodeDetail | None: ...
    def episode_records(self, *, user_id: int, episode_id: int, limit: int) -> list[RecordLine]: ...

    def title_seconds(
        self,
        *,
        user_id: int,
        name: str,
        day_from: date,
        day_to: date,
        ts_from: datetime,
        ts_to: datetime,
        limit: int,
        browsers: Sequence[str] = (),
        site_titles: Sequence[str] = (),
    ) -> list[TitleSeconds]:
        """Active seconds per window title of the app or site `name` over the logical
        days [day_from, day_to], most first; [ts_from, ts_to) is their read window. A
        site's records are those with a URL on it (or under it) and those of `browsers`
        without a URL whose title is one of `site_titles` (the titles naming it)."""
        ...

    def window_records(
        self, *, user_id: int, ts_from: datetime, ts_to: datetime, limit: int
    ) -> list[WindowRecord]:
        """Live records starting in [ts_from, ts_to), at most `limit` per device, by
        device and time."""
        ...

    def records_in_range(
        self, *, user_id: int, ts_from: datetime, ts_to: datetime, device_id: str | None
    ) -> list[RangeCount]:
        """Live records starting in [ts_from, ts_to), counted per device and day."""
        ...
