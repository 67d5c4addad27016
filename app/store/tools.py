"""What the query-time tools read, things included, and re-labelling (`ToolStore`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Protocol

from app.store.digests import DigestRow, PeriodMetrics, SignalRow
from app.store.documents import DigestMetrics
from app.store.episodes import EpisodeLine
from app.store.records import RecordLine
from app.store.row import Row


class UncategorizedTime(Row):
    """Active time no rule categorised, for one app and site (the coverage view)."""

    app: str
    domain: str | None
    window_title: str  # only for a browser record without a URL, else ""
    seconds: float


class RecordMatch(Row):
    """Which records belong to a thing, as plain values (the store writes its own SQL).
    A record matches when it is idle and `idle` is set; or, not idle, its app is one of
    `apps`, or its URL's domain is one of `domains` or under one; or it is a record of
    one of `browsers` without a URL whose title contains one of `page_terms` (a
    candidate: the caller checks which site the title names); or, idle or not, its
    category is one of `categories`; or its window title contains `title`. Text is
    compared case-insensitively."""

    apps: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    idle: bool = False
    domains: tuple[str, ...] = ()
    browsers: tuple[str, ...] = ()
    page_terms: tuple[str, ...] = ()
    page_titles: tuple[str, ...] = ()  # exact titles of such records, already confirmed
    title: str | None = None


class ThingSeconds(Row):
    """Seconds of matching records by the duration rule, per logical day and group."""

    day_local: date
    app: str
    domain: str | None
    page_title: str | None  # the title of a site candidate (a URL-less browser record), else None
    seconds: float
    last_ts: datetime


class SiteDaySeconds(Row):
    """Seconds on one site on one logical day by the one definition of time on a site
    (timetrace_site_seconds_v1): from records with a URL on it, and from URL-less browser
    records whose title names it."""

    day_local: date | None
    site: str | None
    from_url_s: float
    from_title_s: float
    # Else (every site only): a URL-less browser title not passed in, on a row of its own.
    unnamed_title: str | None = None


class WindowSeconds(Row):
    """Seconds inside windows (or whole logical days) by the duration rule, per day and
    group; `titled`: the titles hold the text asked for."""

    day_local: date
    category: str
    app: str
    domain: str | None
    is_idle: bool
    page_title: str | None  # the title of a URL-less browser record, else None
    titled: bool
    seconds: float


class DaySeconds(Row):
    day_local: date
    seconds: float


class KnownName(Row):
    """An app (and site) a user's recent records hold, how many records, and whether
    one of their titles contains the text asked about."""

    app: str
    domain: str | None
    records: int
    titled: bool
    # A row of the user's own categories (no app): its path, kind and names.
    category: str | None = None
    category_kind: str | None = None
    category_names: list[str] | None = None


class MomentRecord(RecordLine):
    """A record near an instant, with its effective duration (the duration rule)."""

    duration_s: float


class SearchHit(EpisodeLine):
    score: float
    semantic_rank: int | None
    lexical_rank: int | None


class Neighbor(EpisodeLine):
    """The episode just before or after `of_id` on the same device."""

    of_id: int
    side: str  # "before" | "after"


class MovedEpisode(Row):
    """Where a gone episode id's time went: the live episode that now covers its first
    position (`episode_id`, None when none does yet), or `deleted` when its first record
    was deleted (deleted time has no cover)."""

    gone_id: int
    deleted: bool
    episode_id: int | None
    day_local: date | None


class ModelBacklog(Row):
    """Summaries a user's episodes still wait for, or failed, and the first and last
    day with a failure (get_now's line)."""

    pending: int
    failed: int
    last_reason: str | None
    first_failed_day: date | None = None
    last_failed_day: date | None = None


class OpenSitting(Row):
    """What a device has done since its last closed episode."""

    since: datetime
    records: int
    main_app: str | None


class TailSeconds(Row):
    """Seconds of records not yet in a closed episode (the open tail), by group."""

    category: str
    app: str
    is_idle: bool
    seconds: float
    last_ts: datetime | None


class CoveringDigest(Row):
    """A finalized digest that covers a period's days in the stitched numbers."""

    grain: str
    scope_key: str
    metrics: DigestMetrics
    computed_through_ts: datetime | None


class UnbuiltDay(Row):
    """A logical day with live records not (or no longer) in a current closed episode."""

    day: date
    records: int


class KindCount(Row):
    """How many signals of one kind."""

    kind: str
    n: int


class SignalKind(Row):
    """One kind of signal over a period: how many, on how many days, and its strongest
    (the largest severity, the earliest of ties)."""

    kind: str
    times: int
    days: int
    top_severity: float
    top_start: datetime


class DigestRead(Row):
    """What get_digest reads of a period, together: its unbuilt days, the digests asked
    for (its own and the one before), and its signal kinds."""

    unbuilt: list[UnbuiltDay]
    digests: list[DigestRow]
    signal_kinds: list[SignalKind]


class UserCategoryRow(Row):
    """One of the user's own categories (migration 0034, app/store/user_categories.py)."""

    category_id: int
    parent_id: int | None
    kind: str  # the top-level category's kind (one of the six)
    name: str | None
    name_zh: str | None
    color: str | None  # "#rrggbb"
    path: str  # names from the top, " > " between them
    depth: int  # 1: a top-level category


class UserCategorySeconds(Row):
    """Seconds (by the duration rule) counted under one user category (its own records,
    not its children's) over a period."""

    category_id: int
    seconds: float


class UserCategoryDay(Row):
    """Seconds under one user category on one logical day."""

    day_local: date
    category_id: int
    seconds: float


class DeviceDay(Row):
    device_id: str
    day_local: date


class Relabelled(Row):
    """A re-label: its audit row, and the device-days to rebuild."""

    label_id: int
    device_days: list[DeviceDay]


class LadderStore(Protocol):
    """What the tool ladder reads of digests, episodes and records, the names a question
    may use (`known_names`, `recent_titles`), and the one write the tools make
    (re-labelling): what `MemoryStore` answers too."""

    def period_metrics(self, *, user_id: int, day_from: date, day_to: date) -> PeriodMetrics:
        """Digest numbers by SQL over the closed episodes of [day_from, day_to]."""
        ...

    def get_digest(self, *, user_id: int, grain: str, scope_key: str) -> DigestRow | None: ...
    def get_digests(
        self, *, user_id: int, grain: str, scope_keys: Sequence[str]
    ) -> list[DigestRow]:
        """The digests of `grain` among `scope_keys` that exist, by key."""
        ...

    def list_signals(self, *, user_id: int, day_from: date, day_to: date) -> list[SignalRow]: ...

    def covering_digests(
        self, *, user_id: int, day_from: date, day_to: date, periods: Sequence[tuple[str, str]]
    ) -> list[CoveringDigest]:
        """The finalized, current digests among `periods` ((grain, scope key) pairs, each
        inside [day_from, day_to]) that cover them largest first, around the period's
        unbuilt days (unbuilt_days): each month with no unbuilt day; each week with none
        that shares no day with a month taken; each day that is not unbuilt and lies in
        no month or week taken. In no particular order."""
        ...

    def open_tail_metrics(
        self, *, user_id: int, day_from: date, day_to: date, ts_from: datetime, ts_to: datetime
    ) -> list[TailSeconds]: ...

    def device_overlap_seconds(
        self, *, user_id: int, ts_from: datetime, ts_to: datetime, read_from: datetime
    ) -> float:
        """Seconds of [ts_from, ts_to) during which two or more devices were active (not
        idle) at once, by each device's effective spans; records are read from `read_from`."""
        ...

    def period_signal_counts(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> list[KindCount]: ...

    def period_signal_kinds(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> list[SignalKind]:
        """Each kind of signal in [day_from, day_to], by kind: one row a kind where
        list_signals gives every signal."""
        ...

    def digest_read(
        self, *, user_id: int, grain: str, scope_keys: Sequence[str], day_from: date, day_to: date
    ) -> DigestRead:
        """unbuilt_days and period_signal_kinds of [day_from, day_to] and get_digests of
        `scope_keys`, in one read."""
        ...

    def unbuilt_days(self, *, user_id: int, day_from: date, day_to: date) -> list[UnbuiltDay]:
        """Days of [day_from, day_to] whose records are not all in current episodes yet."""
        ...

    def latest_records(self, *, user_id: int, now: datetime, limit: int) -> list[RecordLine]: ...
    def last_closed_episode(self, *, user_id: int, now: datetime) -> EpisodeLine | None: ...
    def model_backlog(self, *, user_id: int) -> ModelBacklog: ...

    def get_episode(self, *, user_id: int, episode_id: int) -> EpisodeLine | None:
        """The user's live episode of this id."""
        ...

    def episode_moved(self, *, user_id: int, episode_id: int) -> MovedEpisode | None:
        """Where the time of an episode id that no longer exists went (after a rebuild of
        its day); None for an id that never was the user's or still is live."""
        ...

    def open_sitting(
        self, *, user_id: int, device_id: str, now: datetime
    ) -> OpenSitting | None: ...

    def list_episodes(
        self,
        *,
        user_id: int,
        ts_from: datetime,
        ts_to: datetime,
        category: str | None,
        limit: int,
    ) -> list[EpisodeLine]: ...

    def search_episodes(
        self,
        *,
        user_id: int,
        terms: Sequence[Sequence[str]],
        embedding: list[float] | None,
        day_from: date | None,
        day_to: date | None,
        category: str | None,
        k: int,
        candidates: int,
        before: datetime | None = None,
    ) -> list[SearchHit]:
        """Episodes by keyword terms (all tokens of a term, any term; see
        `app.text.keyword_terms`) and by cosine distance to `embedding`, fused by
        Reciprocal Rank Fusion; the best `k` (ties: the later first). `before`: only
        episodes that started before it."""
        ...

    def episode_neighbors(self, *, user_id: int, ids: list[int]) -> list[Neighbor]: ...

    def uncategorized_time(
        self,
        *,
        user_id: int,
        day_from: date,
        day_to: date,
        ts_from: datetime,
        ts_to: datetime,
        browsers: Sequence[str],
        limit: int,
    ) -> list[UncategorizedTime]:
        """Active `uncategorized` seconds of [day_from, day_to] (records starting in
        [ts_from, ts_to), the read window) by app and domain, and by title for records
        of these browsers without a URL; most first."""
        ...

    def raw_records(
        self,
        *,
        user_id: int,
        ts_from: datetime,
        ts_to: datetime,
        device_id: str | None,
        limit: int,
    ) -> list[RecordLine]: ...

    def raw_expired_before(self, *, user_id: int) -> datetime | None:
        """Before when the user's raw records have expired (retention); None: none has."""
        ...

    def known_names(self, *, user_id: int, title: str | None) -> list[KnownName]:
        """Apps and domains of the user's records in the 90 days before their newest, and
        whether a title of theirs contains `title` (case-insensitive)."""
        ...

    def recent_titles(self, *, user_id: int, limit: int) -> list[str]:
        """The distinct window titles of the user's records in the 90 days before their
        newest, most recorded first, at most `limit`."""
        ...

    def relabel(
        self,
        *,
        user_id: int,
        target_kind: str,
        target_id: int,
        category: str,
        actor: str,
        note: str,
    ) -> Relabelled | None:
        """Re-label a record or an episode's records, audited; mark the episodes built
        from them stale. Returns the label id and the device-days to rebuild; None when
        there is no live target to re-label."""
        ...


class ThingStore(Protocol):
    """Seconds and records of things by the resolver's patterns and the duration rule
    over raw spans (app/tools/things.py): PostgreSQL's alone."""

    def tool_categories(self, *, user_id: int) -> list[UserCategoryRow]:
        """The user's own category tree (migration 0034), parents before children."""
        ...

    def user_category_seconds(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> list[UserCategorySeconds]:
        """Seconds per user category of [day_from, day_to], from records."""
        ...

    def user_category_days(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> list[UserCategoryDay]:
        """Seconds per logical day and user category of [day_from, day_to]."""
        ...

    def thing_seconds(
        self, *, user_id: int, day_from: date, day_to: date, match: RecordMatch, unbuilt_only: bool
    ) -> list[ThingSeconds]:
        """Seconds of the matching records of [day_from, day_to] by the duration rule, by
        day, app, domain and (for site candidates) title; only records not in an episode
        yet when `unbuilt_only`."""
        ...

    def window_seconds(
        self,
        *,
        user_id: int,
        windows: Sequence[tuple[date, datetime, datetime]],
        day_from: date,
        day_to: date,
        read_from: datetime,
        read_to: datetime,
        browsers: Sequence[str],
        title: str | None,
    ) -> list[WindowSeconds]:
        """Seconds of the records starting in [read_from, read_to), clipped to each
        (day, start, end) window and given to its day; with no windows, the records of the
        logical days [day_from, day_to], whole. Grouped by day, category, app, domain, idle,
        the title of a URL-less record of these browsers, and whether the title contains
        `title` (case-insensitive)."""
        ...

    def page_titles(
        self, *, user_id: int, day_from: date, day_to: date, match: RecordMatch
    ) -> list[str]:
        """The distinct titles of the period's URL-less browser records (of
        `match.browsers`) that contain one of `match.page_terms`."""
        ...

    def site_day_seconds(
        self,
        *,
        user_id: int,
        day_from: date,
        day_to: date,
        read_from: datetime,
        read_to: datetime,
        browsers: Sequence[str],
        known: Sequence[str],
        title_sites: dict[str, str],
        only: Sequence[str] | None = None,
    ) -> list[SiteDaySeconds]:
        """Seconds per logical day of [day_from, day_to] and site, from URLs (a domain
        folded into the most specific of the `known` sites it lies under) and from the
        URL-less browser records whose title is a key of `title_sites` (the site it
        names); [read_from, read_to) is the read window of those days. With `only`, just
        the records of those sites (or under them) and of the titles given are read."""
        ...

    def episode_thing_seconds(
        self,
        *,
        user_id: int,
        day_from: date,
        day_to: date,
        apps: Sequence[str],
        categories: Sequence[str],
        idle: bool,
    ) -> list[DaySeconds]:
        """Per day, the closed episodes' seconds in these apps and categories (plus their
        idle seconds when `idle`)."""
        ...

    def latest_matching(
        self, *, user_id: int, match: RecordMatch, since: datetime, before: datetime, limit: int
    ) -> list[RecordLine]:
        """The newest matching records that start in [since, before), newest first."""
        ...

    def records_around(self, *, user_id: int, at: datetime, per_side: int) -> list[MomentRecord]:
        """On each device, up to per_side + 1 records starting at or before `at` (within a
        day) and per_side after it (within a day), with their effective durations."""
        ...


class ToolStore(LadderStore, ThingStore, Protocol):
    """What the query-time tools read, and the one write they make (re-labelling)."""
