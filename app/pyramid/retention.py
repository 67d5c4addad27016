"""Retention tiers applied: raw records age out, episodes lose their text, and the numbers
built from them stay (docs/retention.md).

    report = apply_retention(store, now=datetime.now(UTC), dry_run=True)
    report.removed.records      # what the job would remove (dry run) or removed

A user's raw tier of N days keeps the last N logical days, today included: every record
that starts before the first of them goes, with its analysis, the door's events and the
notes and conversation turns that may quote it. A month of records that no user keeps a
row of is detached and dropped whole; elsewhere the user's rows are deleted. Raw never
expires past a day whose pyramid is not settled (a mark, a stale episode, records not
built yet, a day digest missing or not final): the expiry waits there, so every number
a digest or an episode holds was built from the whole day. The expiry itself is the
tombstone: ingest drops a record before it, and no expired day is rebuilt.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

from app.errors import InvalidInputError
from app.store import ExpiryCounts, LayerBytes, RetentionRow, RetentionStore, RetentionUser
from app.timeutil import day_bounds, logical_day, zone

# The first day asked for when a user has expired nothing yet.
_EVER = date(1, 1, 1)
_COUNTS = tuple(ExpiryCounts.model_fields)


def check_tiers(*, raw_days: int | None, episode_days: int | None) -> None:
    """Refuse tiers the schema would: days are at least 1, and episode text lives at
    least as long as the raw it is built from (a rebuild would otherwise bring it back)."""
    for name, days in (("raw days", raw_days), ("episode days", episode_days)):
        if days is not None and days < 1:
            raise InvalidInputError(f"{name} must be at least 1 (or off)")
    if episode_days is not None and (raw_days is None or episode_days < raw_days):
        raise InvalidInputError(
            "episode text must be kept at least as long as raw records: "
            "set --raw-days too, at most --episode-days"
        )


def first_kept_day(*, today: date, days: int) -> date:
    """The first logical day a tier of `days` keeps: today and the days-1 before it."""
    return today - timedelta(days=days - 1)


def add_counts(a: ExpiryCounts, b: ExpiryCounts) -> ExpiryCounts:
    return ExpiryCounts(**{k: getattr(a, k) + getattr(b, k) for k in _COUNTS})


@dataclass(frozen=True, slots=True)
class UserExpiry:
    """One user's step: the expiry after this run, and from where what goes by span
    (turns, digest titles, episode text) is left to carry out."""

    user_id: int
    name: str
    raw_before: datetime
    raw_day: date
    held_at: date | None  # the pyramid is not settled there: raw waits
    turns_from: datetime | None  # the previous expiry (None: none yet)
    episode_from: date | None
    episode_to: date | None
    keep_digest_titles: bool = True
    moves: bool = True  # the saved expiry moves (else only what is left before it goes)
    counts: ExpiryCounts = field(default_factory=ExpiryCounts)


@dataclass(frozen=True, slots=True)
class MonthDrop:
    month: date
    rows: int
    bytes: int


@dataclass(slots=True)
class RetentionReport:
    """What a run removes (a dry run: would remove), by tier, user and month dropped."""

    dry_run: bool
    users: list[UserExpiry] = field(default_factory=list)
    months: list[MonthDrop] = field(default_factory=list)
    removed: ExpiryCounts = field(default_factory=ExpiryCounts)

    def tiers(self) -> dict[str, dict[str, int]]:
        r = self.removed
        return {
            "raw": {
                "records": r.records,
                "analyses": r.analyses,
                "aw_events": r.aw_events,
                "conversation_turns": r.turns,
                "bytes": r.record_bytes + r.analysis_bytes + r.aw_event_bytes,
            },
            "episode_text": {"episodes": r.episodes, "bytes": r.episode_bytes},
            # Kept; only asked for, their top titles and narratives over expired raw.
            "digests": {"titles_stripped": r.digests},
        }

    def document(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "tiers": self.tiers(),
            "months_dropped": [m.month.strftime("%Y-%m") for m in self.months],
            "users": [
                {
                    "user": u.name,
                    "raw_expired_before": u.raw_before.isoformat(),
                    "raw_expired_day": u.raw_day.isoformat(),
                    **({"held_at": u.held_at.isoformat()} if u.held_at else {}),
                    **({"episodes_expired_day": u.episode_to.isoformat()} if u.episode_to else {}),
                }
                for u in self.users
            ],
        }

    def lines(self) -> list[str]:
        """The report for a terminal."""
        verb = "would remove" if self.dry_run else "removed"
        tiers = self.tiers()
        raw, text = tiers["raw"], tiers["episode_text"]
        out = [
            f"raw tier       {verb} {raw['records']} records, {raw['analyses']} analyses, "
            f"{raw['aw_events']} door events, {raw['conversation_turns']} conversation turns"
            + (f" ({_size(raw['bytes'])})" if self.dry_run else ""),
            f"episode text   {verb} the text of {text['episodes']} episodes"
            + (f" ({_size(text['bytes'])})" if self.dry_run else ""),
            "digests        kept"
            + (f" ({verb} the titles of {n})" if (n := self.removed.digests) else ""),
        ]
        if self.months:
            months = ", ".join(m.month.strftime("%Y-%m") for m in self.months)
            out.append(f"months {'to drop' if self.dry_run else 'dropped'} whole: {months}")
        for u in self.users:
            held = f" (held at {u.held_at}: not built yet)" if u.held_at else ""
            out.append(f"user {u.name}: raw expired before {u.raw_day}{held}")
        return out


def _size(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def size_text(n: int | None) -> str:
    """Bytes for people: 12.3 MB; "–" when unknown (None)."""
    return "–" if n is None else _size(n)


def _step(store: RetentionStore, user: RetentionUser, *, now: datetime) -> UserExpiry | None:
    """The user's expiry after this run and what is left to carry out before it: the saved
    expiry (moved on when the tier asks), from where the last finished run reached. None
    when the expiry would not move and the saved one has been carried out."""
    old = user.raw_expired_day
    raw_day, held, episode_to = _next_expiry(store, user, now=now)
    if raw_day == _EVER:
        return None  # nothing has expired yet
    moves = raw_day != old or episode_to != user.episodes_expired_day
    done = (
        user.raw_applied_before == user.raw_expired_before
        and user.episodes_applied_day == user.episodes_expired_day
    )
    if not moves and done:
        return None
    tz = zone(user.time_zone)
    raw_before = day_bounds(raw_day, tz=tz, cut_hour=user.day_cut_hour)[0]
    if raw_day == old and user.raw_expired_before is not None:
        raw_before = user.raw_expired_before  # as saved, whatever the clock is now
    return UserExpiry(
        user_id=user.user_id,
        name=user.name,
        raw_before=raw_before,
        raw_day=raw_day,
        held_at=held,
        turns_from=user.raw_applied_before,
        episode_from=user.episodes_applied_day,
        episode_to=episode_to,
        keep_digest_titles=user.keep_digest_titles,
        moves=moves,
    )


def _next_expiry(
    store: RetentionStore, user: RetentionUser, *, now: datetime
) -> tuple[date, date | None, date | None]:
    """The first raw day kept after this run (never back, never past a day not settled),
    the day it is held at (if held), and the first day whose episodes keep their text."""
    old = user.raw_expired_day or _EVER
    episode_to = user.episodes_expired_day
    if user.raw_days is None:  # turned off: only the saved expiry is carried out
        return old, None, episode_to
    tz = zone(user.time_zone)
    today = logical_day(now, tz=tz, cut_hour=user.day_cut_hour)
    target = first_kept_day(today=today, days=user.raw_days)
    held = None
    if target > old:
        held = store.first_unsettled_day(user_id=user.user_id, day_from=old, day_to=target)
    raw_day = max(old, min(target, held or target))
    if user.episode_days is not None:
        wanted = min(first_kept_day(today=today, days=user.episode_days), raw_day)
        if episode_to is None or wanted > episode_to:
            episode_to = wanted
    return raw_day, held if held is not None and held < target else None, episode_to


def _month_bounds(month: date) -> tuple[datetime, datetime]:
    nxt = (month.replace(day=28) + timedelta(days=4)).replace(day=1)
    return datetime(month.year, month.month, 1, tzinfo=UTC), datetime(
        nxt.year, nxt.month, 1, tzinfo=UTC
    )


_Month = tuple[date, datetime, datetime]  # a month of records: its first day and bounds


@dataclass(frozen=True, slots=True)
class _Cutoffs:
    """Every user's expiry after this run (the unchanged ones' too): what a month keeps."""

    users: list[int]
    before: list[datetime]


def apply_retention(
    store: RetentionStore, *, now: datetime, dry_run: bool = False
) -> RetentionReport:
    """Apply every user's tiers as of `now` (the daily job), or with `dry_run` count and
    size what that would remove without removing it. Safe to run twice: a second run
    the same day finds nothing to do; a run killed anywhere leaves the expiry saved and
    the next run carries out what is left before it (the dry run counts that)."""
    users = store.retention_users()
    steps = [s for u in users if (s := _step(store, u, now=now)) is not None]
    moved = {s.user_id: s for s in steps}
    cut_users = [u.user_id for u in users if u.user_id in moved or u.raw_expired_before]
    cut = _Cutoffs(
        users=cut_users,
        before=[moved[u].raw_before if u in moved else _old_before(users, u) for u in cut_users],
    )
    report = RetentionReport(dry_run=dry_run)
    if not steps:
        return report
    months = _months_before(store, cut, dry_run=dry_run)
    if dry_run:
        _preview(store, report, steps=steps, months=months)
    else:
        _carry_out(store, report, steps=steps, months=months, cut=cut)
    return report


def _months_before(store: RetentionStore, cut: _Cutoffs, *, dry_run: bool) -> list[_Month]:
    """The months of records that end before the latest expiry: those to drop whole. The
    job checks each as it drops it (with records locked); the dry run here."""
    latest = max(cut.before)
    months = []
    for month in store.record_months():
        month_from, month_to = _month_bounds(month)
        if month_to > latest:
            break
        if not dry_run or not store.month_keeps_rows(
            month_from=month_from, month_to=month_to, users=cut.users, cutoffs=cut.before
        ):
            months.append((month, month_from, month_to))
    return months


def _preview(
    store: RetentionStore, report: RetentionReport, *, steps: list[UserExpiry], months: list[_Month]
) -> None:
    for s in steps:
        counts = store.expiry_counts(
            user_id=s.user_id,
            raw_before=s.raw_before,
            turns_from=s.turns_from,
            episode_from=s.episode_from,
            episode_to=s.episode_to,
            keep_digest_titles=s.keep_digest_titles,
        )
        report.users.append(_with_counts(s, counts))
        report.removed = add_counts(report.removed, counts)
    for month, month_from, month_to in months:
        size = store.month_rows(month_from=month_from, month_to=month_to)
        report.months.append(MonthDrop(month=month, rows=size.rows, bytes=size.bytes))


def _carry_out(
    store: RetentionStore,
    report: RetentionReport,
    *,
    steps: list[UserExpiry],
    months: list[_Month],
    cut: _Cutoffs,
) -> None:
    # The expiry first: from here ingest drops what lies before it. A run killed after
    # this finds it saved and carries out what is left before it.
    for s in steps:
        if s.moves:
            store.advance_retention(
                user_id=s.user_id,
                raw_before=s.raw_before,
                raw_day=s.raw_day,
                episode_to=s.episode_to,
            )
    for month, month_from, month_to in months:
        dropped = store.drop_record_month(
            month=month,
            month_from=month_from,
            month_to=month_to,
            users=cut.users,
            cutoffs=cut.before,
        )
        if dropped is not None:
            report.months.append(MonthDrop(month=month, rows=dropped.records, bytes=0))
            report.removed = add_counts(report.removed, dropped)
    # Each user's rows in one transaction, which records the expiry as carried out.
    for s in steps:
        done = store.expire_user(
            user_id=s.user_id,
            raw_before=s.raw_before,
            raw_day=s.raw_day,
            turns_from=s.turns_from,
            episode_from=s.episode_from,
            episode_to=s.episode_to,
            keep_digest_titles=s.keep_digest_titles,
        )
        report.users.append(_with_counts(s, done))
        report.removed = add_counts(report.removed, done)


def _old_before(users: list[RetentionUser], user_id: int) -> datetime:
    found = next(u.raw_expired_before for u in users if u.user_id == user_id)
    assert found is not None
    return found


def _with_counts(step: UserExpiry, counts: ExpiryCounts) -> UserExpiry:
    return replace(step, counts=counts)


def describe_tiers(row: RetentionRow | None) -> dict[str, Any]:
    """A user's tiers and expiries as JSON (what `retention show`, the API and the
    privacy page say)."""
    if row is None:
        return {"keep_digest_titles": True} | dict.fromkeys(
            (
                "raw_days",
                "episode_days",
                "raw_expired_before",
                "raw_expired_day",
                "episodes_expired_day",
                "applied_at",
            )
        )
    return {
        "raw_days": row.raw_days,
        "episode_days": row.episode_days,
        "keep_digest_titles": row.keep_digest_titles,
        "raw_expired_before": row.raw_expired_before.isoformat()
        if row.raw_expired_before
        else None,
        "raw_expired_day": row.raw_expired_day.isoformat() if row.raw_expired_day else None,
        "episodes_expired_day": row.episodes_expired_day.isoformat()
        if row.episodes_expired_day
        else None,
        "applied_at": row.applied_at.isoformat() if row.applied_at else None,
    }


# Which layers each tier holds (the digests tier is never expired here).
TIER_LAYERS = {
    "raw": ("records", "record_analyses", "aw_events"),
    "episodes": ("episodes",),
    "digests": ("digests", "signals"),
}


def tier_sizes(layers: list[LayerBytes]) -> dict[str, int | None]:
    """Each tier's bytes: the sum of its layers', None (unknown) when one of them is."""
    size = {layer.layer: layer.bytes for layer in layers}
    out: dict[str, int | None] = {}
    for tier, names in TIER_LAYERS.items():
        parts = [size.get(n, 0) for n in names]
        out[tier] = None if None in parts else sum(p or 0 for p in parts)
    return out


@dataclass(frozen=True, slots=True)
class StorageReport:
    """Bytes per layer and per tier, and what the next retention run frees."""

    layers: list[LayerBytes]
    frees: RetentionReport

    def tiers(self) -> dict[str, int | None]:
        return tier_sizes(self.layers)

    def document(self) -> dict[str, Any]:
        return {
            "layers": {
                layer.layer: {"bytes": layer.bytes, "rows": layer.rows} for layer in self.layers
            },
            "tiers": self.tiers(),
            "retention_frees": self.frees.tiers(),
        }

    def lines(self) -> list[str]:
        out = ["storage"]
        out += [
            f"  {layer.layer:<16}{size_text(layer.bytes):>10}  {layer.rows} rows"
            for layer in self.layers
        ]
        out.append(
            "  tiers           "
            + ", ".join(f"{tier} {size_text(n)}" for tier, n in self.tiers().items())
        )
        frees = self.frees.tiers()
        out.append(
            f"  retention frees raw {frees['raw']['records']} records "
            f"({size_text(frees['raw']['bytes'])}), the text of "
            f"{frees['episode_text']['episodes']} episodes "
            f"({size_text(frees['episode_text']['bytes'])})"
        )
        return out


def storage_report(store: RetentionStore, *, now: datetime) -> StorageReport:
    """Every layer's bytes on disk (every user's) and the next run's dry run."""
    return StorageReport(
        layers=store.storage_bytes(), frees=apply_retention(store, now=now, dry_run=True)
    )


@dataclass(frozen=True, slots=True)
class UserStorage:
    """One user's tiers, rows and bytes per layer, and what the next run frees of theirs
    (the privacy page)."""

    tiers: dict[str, Any]
    layers: list[LayerBytes]
    frees: ExpiryCounts | None  # None: no tier, or nothing to expire yet

    def tier_bytes(self) -> dict[str, int | None]:
        return tier_sizes(self.layers)


def user_storage(store: RetentionStore, *, user_id: int, now: datetime) -> UserStorage:
    """A user's storage and the next run's dry run for them alone."""
    frees = None
    user = next((u for u in store.retention_users() if u.user_id == user_id), None)
    step = _step(store, user, now=now) if user is not None else None
    if step is not None:
        frees = store.expiry_counts(
            user_id=user_id,
            raw_before=step.raw_before,
            turns_from=step.turns_from,
            episode_from=step.episode_from,
            episode_to=step.episode_to,
            keep_digest_titles=step.keep_digest_titles,
        )
    return UserStorage(
        tiers=describe_tiers(store.get_retention(user_id=user_id)),
        layers=store.user_storage(user_id=user_id),
        frees=frees,
    )
