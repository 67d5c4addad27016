"""Users, API tokens and devices: `AccountStore` and its rows."""

from __future__ import annotations

from datetime import datetime
from typing import Literal, Protocol, get_args

from app.store.row import Row
from app.store.scope import TokenScope


class UserContext(Row):
    """Who a request acts for, with the clock rules of their logical day; `scope`: the
    limits of the token it came with (docs/scopes.md), None for the whole user."""

    user_id: int
    name: str
    time_zone: str
    day_cut_hour: int
    scope: TokenScope | None = None


DeviceKind = Literal["desktop", "laptop", "phone", "tablet", "other"]


DEVICE_KINDS: tuple[DeviceKind, ...] = get_args(DeviceKind)


# Letters, digits and . _ : - only, at most 64 (the same CHECK guards the column).
DEVICE_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$"


# Record, episode and label ids are bigint: a larger number cannot name any row.
ID_MAX = 2**63 - 1


class DeviceRow(Row):
    device_id: str
    name: str
    kind: str
    created_at: datetime


class DeviceActivityRow(Row):
    """A user's device and its live records (`timetrace device list`); a user with no
    device has one row whose device fields are None."""

    user_name: str
    device_id: str | None
    name: str | None
    kind: str | None
    records: int
    first_seen: datetime | None
    last_seen: datetime | None


class Beginnings(Row):
    """How far an install is (what `timetrace serve` suggests next)."""

    users: int
    any_record: bool


class ClockChange(Row):
    """What a change of a user's time zone or day cut moved (then rebuilt)."""

    records: int  # whose logical day moved
    episodes: int  # dropped, to be built again on the new days
    digests: int


class AccountStore(Protocol):
    def ping(self) -> None:
        """Raise `DatabaseError` unless the database answers."""
        ...

    def ensure_user(self, *, name: str, time_zone: str, day_cut_hour: int) -> UserContext: ...
    def get_user(self, *, name: str) -> UserContext | None: ...
    def get_user_by_id(self, *, user_id: int) -> UserContext | None: ...
    def user_for_token(self, *, token_hash: bytes, now: datetime) -> UserContext | None:
        """The user of a live token, with the token's scope; `AuthError` when it expired."""
        ...

    def add_token(
        self,
        *,
        user_id: int,
        token_hash: bytes,
        name: str,
        scope: TokenScope | None = None,
        expires_at: datetime | None = None,
    ) -> int: ...
    def count_tokens(self) -> int: ...
    def add_device(self, *, user_id: int, device_id: str, name: str, kind: str) -> bool: ...
    def device_exists(self, *, user_id: int, device_id: str) -> bool: ...
    def list_devices(self, *, user_id: int) -> list[DeviceRow]: ...
    def device_activity(self, *, user_name: str | None = None) -> list[DeviceActivityRow]: ...
    def beginnings(self) -> Beginnings: ...
    def change_user_clock(self, *, user_id: int, time_zone: str, day_cut_hour: int) -> ClockChange:
        """Save the user's zone and day cut and move each record to its logical day in
        them; the user's episodes, digests and signals go (episode ids wait in
        episode_redirects for the rebuild), so every record counts as not built.
        `InvalidInputError` when retention has expired raw records: their days could
        not be built again."""
        ...
