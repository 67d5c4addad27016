"""What a scoped API token may do and see (docs/scopes.md).

    scope = parse_scope("read-only kinds=work hours=09:00-18:00 days=mon-fri sites=-bilibili.com")
    describe_scope(scope)   # the same words back, for `timetrace token list`

A scope is stored with its token as JSON (`api_tokens.scope`); the SQL that clips a
caller's time to it (`timetrace_scoped_spans_v1`, migration 0033) reads the same keys.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.errors import InvalidInputError

DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")  # ISO order: Monday is 1
_LISTS = ("tools", "kinds", "apps", "sites")
_AFTER = re.compile(r"^(\d+)([dh])$")
_HOURS = re.compile(r"^(\d{1,2}):(\d{2})-(\d{1,2}):(\d{2})$")


class TokenScope(BaseModel):
    """A token's limits; a field left None (or False) does not limit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    read_only: bool = False
    tools: list[str] | None = Field(None, description="the only tools the token may call")
    kinds_allow: list[str] | None = None
    kinds_deny: list[str] | None = None
    apps_allow: list[str] | None = None
    apps_deny: list[str] | None = None
    sites_allow: list[str] | None = None
    sites_deny: list[str] | None = None
    hour_from: str | None = Field(None, pattern=r"^([01]\d|2[0-3]):[0-5]\d$")
    hour_to: str | None = Field(None, pattern=r"^(([01]\d|2[0-3]):[0-5]\d|24:00)$")
    weekdays: list[int] | None = Field(None, description="ISO days of the week, Monday 1")
    date_from: date | None = None
    date_to: date | None = None

    @model_validator(mode="after")
    def _consistent(self) -> TokenScope:
        if (self.hour_from is None) != (self.hour_to is None):
            raise ValueError("hours need a start and an end (hours=09:00-18:00)")
        if self.weekdays is not None and not all(1 <= d <= 7 for d in self.weekdays):
            raise ValueError("days of the week are 1 (Monday) to 7 (Sunday)")
        if self.date_from and self.date_to and self.date_from > self.date_to:
            raise ValueError("the date range ends before it starts")
        return self

    @property
    def limits_data(self) -> bool:
        """Whether the scope hides any of the user's time (not only tools or writes)."""
        return any(
            value is not None
            for name, value in self
            if name not in ("read_only", "tools") and not isinstance(value, bool)
        )

    @property
    def can_write(self) -> bool:
        # A token that sees part of the data could label or delete what it cannot see.
        return not self.read_only and not self.limits_data

    def may_call(self, tool: str) -> bool:
        return self.tools is None or tool in self.tools

    def as_json(self) -> dict[str, object]:
        return self.model_dump(mode="json", exclude_defaults=True)


def _days(text: str) -> list[int]:
    days: set[int] = set()
    for part in text.lower().split(","):
        first, _, last = part.partition("-")
        if first not in DAY_NAMES or (last and last not in DAY_NAMES):
            raise InvalidInputError(f"days: {part!r} is not mon..sun or a range like mon-fri")
        a, b = DAY_NAMES.index(first) + 1, DAY_NAMES.index(last or first) + 1
        days |= set(range(a, b + 1)) if a <= b else set(range(a, 8)) | set(range(1, b + 1))
    return sorted(days)


def _hours(text: str) -> dict[str, str]:
    match = _HOURS.match(text)
    if not match:
        raise InvalidInputError(f"hours: {text!r} is not like 09:00-18:00")
    h1, m1, h2, m2 = (int(g) for g in match.groups())
    if h1 > 23 or h2 > 24 or m1 > 59 or m2 > 59 or (h2 == 24 and m2):
        raise InvalidInputError(f"hours: {text!r} is not a time of day")
    end = "24:00" if h2 == 24 else f"{h2:02d}:{m2:02d}"
    return {"hour_from": f"{h1:02d}:{m1:02d}", "hour_to": end}


def _dates(text: str) -> dict[str, str]:
    first, sep, last = text.partition("..")
    if not sep:
        raise InvalidInputError(f"dates: {text!r} is not like 2026-06-01..2026-06-30")
    return {k: v for k, v in (("date_from", first), ("date_to", last)) if v}


def _word(word: str, fields: dict[str, object]) -> None:
    if word in ("read-only", "readonly"):
        fields["read_only"] = True
        return
    key, sep, value = word.partition("=")
    if not sep or not value:
        raise InvalidInputError(
            f"scope: {word!r} is not read-only or key=value "
            "(tools=, kinds=, apps=, sites=, hours=, days=, dates=)"
        )
    if key in _LISTS:
        names = [v.strip() for v in value.split(",") if v.strip()]
        if key == "tools":
            fields["tools"] = names
            return
        allow = [n for n in names if not n.startswith("-")]
        deny = [n[1:] for n in names if n.startswith("-")]
        if allow:
            fields[f"{key}_allow"] = allow
        if deny:
            fields[f"{key}_deny"] = deny
    elif key == "hours":
        fields.update(_hours(value))
    elif key == "days":
        fields["weekdays"] = _days(value)
    elif key == "dates":
        fields.update(_dates(value))
    else:
        raise InvalidInputError(f"scope: unknown key {key!r}")


def parse_scope(text: str) -> TokenScope:
    """A scope from words: `read-only`, `tools=a,b`, `kinds=work,-social` (a leading `-`
    denies), `apps=…`, `sites=…`, `hours=09:00-18:00`, `days=mon-fri`,
    `dates=2026-06-01..2026-06-30`; `InvalidInputError` on anything else."""
    fields: dict[str, object] = {}
    for word in text.split():
        _word(word, fields)
    try:
        return TokenScope.model_validate(fields)
    except ValueError as exc:
        raise InvalidInputError(f"scope: {exc}") from exc


def describe_scope(scope: TokenScope | None) -> str:
    """The scope in the words `parse_scope` reads ("" for a token without one)."""
    if scope is None:
        return ""
    words = ["read-only"] if scope.read_only else []
    if scope.tools is not None:
        words.append("tools=" + ",".join(scope.tools))
    for key in ("kinds", "apps", "sites"):
        allow = getattr(scope, f"{key}_allow") or []
        deny = ["-" + n for n in getattr(scope, f"{key}_deny") or []]
        if allow or deny:
            words.append(f"{key}=" + ",".join(allow + deny))
    if scope.hour_from is not None and scope.hour_to is not None:
        words.append(f"hours={scope.hour_from}-{scope.hour_to}")
    if scope.weekdays is not None:
        words.append("days=" + ",".join(DAY_NAMES[d - 1] for d in scope.weekdays))
    if scope.date_from or scope.date_to:
        words.append(f"dates={scope.date_from or ''}..{scope.date_to or ''}")
    return " ".join(words)


def parse_expiry(text: str, *, now: datetime) -> datetime:
    """When a token expires: after `30d` or `12h` from now, or at an ISO date (its
    midnight, UTC) or instant; `InvalidInputError` for anything else or a past time."""
    after = _AFTER.match(text.strip())
    if after:
        n, unit = int(after.group(1)), after.group(2)
        at = now + (timedelta(days=n) if unit == "d" else timedelta(hours=n))
    else:
        try:
            at = datetime.fromisoformat(text.strip())
        except ValueError:
            raise InvalidInputError(
                f"expires: {text!r} is not like 30d, 12h, 2026-12-31 or an ISO instant"
            ) from None
        at = at if at.tzinfo else at.replace(tzinfo=UTC)
    if at <= now:
        raise InvalidInputError(f"expires: {text!r} is already past")
    return at
