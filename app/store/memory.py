"""A second implementation of the query side of the seam (`app.store.tools.LadderStore`),
in memory, so the tool layer has fast tests that need no database — shipped in
the package as procrastinate ships its in-memory connector, for tests only.

It holds typed rows the way the pyramid leaves them — episodes with their
per-category and per-app seconds, digests, signals, records with their
durations already decided — and answers the tools' reads with plain Python.
It decides nothing the pyramid decides (no segmenting, no duration rule): a
test states those facts and checks what the tools make of them.

`tests/db/test_store_contract.py` loads the rows of a built PostgreSQL pyramid into
one and holds every method of it to PostgreSQL's answer. It claims `LadderStore`, all
of it; the things reads (`ThingStore`: seconds by the resolver's patterns and the
duration rule over raw spans) are PostgreSQL's alone, and it does not claim them.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from app.errors import ConflictError
from app.store.digests import DigestRow, PeriodMetrics, SignalRow
from app.store.documents import DigestMetrics, TitleTime
from app.store.episodes import EpisodeLine
from app.store.records import RecordLine
from app.store.tools import (
    CoveringDigest,
    DeviceDay,
    DigestRead,
    KindCount,
    KnownName,
    LadderStore,
    ModelBacklog,
    MovedEpisode,
    Neighbor,
    OpenSitting,
    Relabelled,
    SearchHit,
    SignalKind,
    TailSeconds,
    UnbuiltDay,
    UncategorizedTime,
)
from app.text import tokenize
from app.timeutil import period_days

RRF_K = 60


@dataclass(slots=True)
class MemoryEpisode:
    user_id: int
    line: EpisodeLine
    day_local: date
    category_seconds: dict[str, float]
    app_seconds: dict[str, float]
    active_s: float
    switch_count: int = 0
    interruption_s: float = 0.0
    auto_title: str = ""
    closed: bool = True
    stale: bool = False
    embedding: list[float] | None = None
    summary_status: str = "pending"
    summary_reason: str | None = None
    updated_at: datetime | None = None
    # The words its keyword index holds; None: the tokens of its titles and summary.
    keywords: frozenset[str] | None = None
    # The start of its last member (its span's end); None: the episode's start.
    last_start: datetime | None = None

    def tokens(self) -> frozenset[str]:
        if self.keywords is not None:
            return self.keywords
        # Like the keyword index: the deterministic title stays beside the model's words.
        return frozenset(tokenize(f"{self.auto_title} {self.line.title} {self.line.summary or ''}"))


@dataclass(slots=True)
class MemoryRecord:
    user_id: int
    line: RecordLine
    day_local: date
    duration_s: float  # as the duration rule decided it


@dataclass(slots=True)
class MemoryLabel:
    user_id: int
    label_id: int
    target_kind: str
    target_id: int
    old_value: str
    new_value: str
    actor: str
    note: str


@dataclass(slots=True)
class MemoryStore(LadderStore):
    episodes: list[MemoryEpisode] = field(default_factory=list)
    records: list[MemoryRecord] = field(default_factory=list)
    digests: list[tuple[int, DigestRow]] = field(default_factory=list)
    signals: list[tuple[int, SignalRow]] = field(default_factory=list)
    labels: list[MemoryLabel] = field(default_factory=list)
    raw_expired: dict[int, datetime] = field(default_factory=dict)  # user → retention's expiry

    def _live(self, user_id: int) -> list[MemoryEpisode]:
        return [e for e in self.episodes if e.user_id == user_id and not e.stale]

    # -- digests and signals ----------------------------------------------------------

    def period_metrics(self, *, user_id: int, day_from: date, day_to: date) -> PeriodMetrics:
        eps = [e for e in self._live(user_id) if e.closed and day_from <= e.day_local <= day_to]
        by_category: dict[str, float] = {}
        by_app: dict[str, float] = {}
        titles: dict[str, float] = {}
        for e in eps:
            _add(by_category, e.category_seconds)
            _add(by_app, e.app_seconds)
            if e.line.category != "system":
                _add(titles, {e.auto_title or e.line.title: e.active_s})
        active = [e for e in eps if e.line.category != "system"]
        metrics = DigestMetrics(
            seconds_by_category=dict(sorted(by_category.items())),
            seconds_by_app=dict(sorted(by_app.items())),
            episode_count=len(eps),
            active_seconds=sum(e.active_s for e in eps),
            idle_seconds=sum(e.line.duration_s - e.active_s for e in eps),
            switch_count=sum(e.switch_count for e in eps),
            interruption_seconds=sum(e.interruption_s for e in eps),
            top_titles=[
                TitleTime(title=t, seconds=s)
                for t, s in sorted(titles.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
            ],
            first_activity=min(e.line.ts_start for e in active).isoformat() if active else None,
            last_activity=max(e.line.ts_end for e in active).isoformat() if active else None,
        )
        ordered = sorted(eps, key=lambda e: (e.line.ts_start, e.line.episode_id))
        return PeriodMetrics(
            metrics=metrics,
            computed_through_ts=max((e.line.ts_end for e in eps), default=None),
            episode_ids=[e.line.episode_id for e in ordered],
        )

    def get_digest(self, *, user_id: int, grain: str, scope_key: str) -> DigestRow | None:
        return next(
            (
                d
                for u, d in self.digests
                if u == user_id and d.grain == grain and d.scope_key == scope_key
            ),
            None,
        )

    def get_digests(
        self, *, user_id: int, grain: str, scope_keys: Sequence[str]
    ) -> list[DigestRow]:
        found = [
            d
            for u, d in self.digests
            if u == user_id and d.grain == grain and d.scope_key in scope_keys
        ]
        return sorted(found, key=lambda d: d.scope_key)

    def list_signals(self, *, user_id: int, day_from: date, day_to: date) -> list[SignalRow]:
        rows = [s for u, s in self.signals if u == user_id and day_from <= s.day_local <= day_to]
        return sorted(rows, key=lambda s: (s.ts_start, s.kind, s.signal_id))

    def covering_digests(
        self, *, user_id: int, day_from: date, day_to: date, periods: Sequence[tuple[str, str]]
    ) -> list[CoveringDigest]:
        final = {
            (d.grain, d.scope_key): d
            for u, d in self.digests
            if u == user_id and d.finalized and not d.stale
        }
        # A day of a digest taken, or one no digest may cover.
        unbuilt = self.unbuilt_days(user_id=user_id, day_from=day_from, day_to=day_to)
        covered = {d.day for d in unbuilt}
        taken: list[CoveringDigest] = []
        for grain in ("month", "week", "day"):  # largest first
            for key in (k for g, k in periods if g == grain):
                first, last = period_days(grain, key)
                days = {first + timedelta(days=i) for i in range((last - first).days + 1)}
                digest = final.get((grain, key))
                if digest is not None and not days & covered:
                    covered |= days
                    taken.append(
                        CoveringDigest(
                            grain=grain,
                            scope_key=key,
                            metrics=digest.metrics,
                            computed_through_ts=digest.computed_through_ts,
                        )
                    )
        return taken

    def open_tail_metrics(
        self, *, user_id: int, day_from: date, day_to: date, ts_from: datetime, ts_to: datetime
    ) -> list[TailSeconds]:
        groups: dict[tuple[str, str, bool], list[MemoryRecord]] = {}
        for r in self.records:
            if (
                r.user_id == user_id
                and r.line.episode_id is None
                and day_from <= r.day_local <= day_to
                and ts_from <= r.line.ts_start < ts_to
            ):
                key = (r.line.category, r.line.app, r.line.is_idle)
                groups.setdefault(key, []).append(r)
        return [
            TailSeconds(
                category=category,
                app=app,
                is_idle=idle,
                seconds=sum(r.duration_s for r in rows),
                last_ts=max(r.line.ts_start for r in rows),
            )
            for (category, app, idle), rows in sorted(groups.items())
        ]

    def device_overlap_seconds(
        self, *, user_id: int, ts_from: datetime, ts_to: datetime, read_from: datetime
    ) -> float:
        # Durations are already decided, so one device's spans never overlap: sweep the
        # edges in time order (ends first at one instant) and count active devices.
        edges: list[tuple[datetime, int]] = []
        for r in self.records:
            if r.user_id != user_id or r.line.is_idle or not read_from <= r.line.ts_start < ts_to:
                continue
            start = max(r.line.ts_start, ts_from)
            end = min(r.line.ts_start + timedelta(seconds=r.duration_s), ts_to)
            if end > start:
                edges += [(start, 1), (end, -1)]
        active, overlap = 0, 0.0
        for (t, delta), (t_next, _) in itertools.pairwise(sorted(edges)):
            active += delta
            if active >= 2:
                overlap += (t_next - t).total_seconds()
        return overlap

    def period_signal_counts(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> list[KindCount]:
        counts = Counter(
            s.kind for s in self.list_signals(user_id=user_id, day_from=day_from, day_to=day_to)
        )
        return [KindCount(kind=kind, n=n) for kind, n in sorted(counts.items())]

    def digest_read(
        self, *, user_id: int, grain: str, scope_keys: Sequence[str], day_from: date, day_to: date
    ) -> DigestRead:
        period = {"day_from": day_from, "day_to": day_to}
        return DigestRead(
            unbuilt=self.unbuilt_days(user_id=user_id, **period),
            digests=self.get_digests(user_id=user_id, grain=grain, scope_keys=scope_keys),
            signal_kinds=self.period_signal_kinds(user_id=user_id, **period),
        )

    def period_signal_kinds(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> list[SignalKind]:
        by_kind: dict[str, list[SignalRow]] = defaultdict(list)
        for s in self.list_signals(user_id=user_id, day_from=day_from, day_to=day_to):
            by_kind[s.kind].append(s)
        tops = {
            k: min(rows, key=lambda s: (-s.severity, s.ts_start)) for k, rows in by_kind.items()
        }
        return [
            SignalKind(
                kind=k,
                times=len(rows),
                days=len({s.day_local for s in rows}),
                top_severity=tops[k].severity,
                top_start=tops[k].ts_start,
            )
            for k, rows in sorted(by_kind.items())
        ]

    def unbuilt_days(self, *, user_id: int, day_from: date, day_to: date) -> list[UnbuiltDay]:
        stale = {e.line.episode_id for e in self.episodes if e.user_id == user_id and e.stale}
        waiting = Counter(
            r.day_local
            for r in self.records
            if r.user_id == user_id
            and day_from <= r.day_local <= day_to
            and (r.line.episode_id is None or r.line.episode_id in stale)
        )
        return [UnbuiltDay(day=day, records=n) for day, n in sorted(waiting.items())]

    # -- records and episodes -------------------------------------------------------------

    def latest_records(self, *, user_id: int, now: datetime, limit: int) -> list[RecordLine]:
        rows = [r.line for r in self.records if r.user_id == user_id and r.line.ts_start <= now]
        return sorted(rows, key=lambda r: (r.ts_start, r.record_id), reverse=True)[:limit]

    def last_closed_episode(self, *, user_id: int, now: datetime) -> EpisodeLine | None:
        done = [e.line for e in self._live(user_id) if e.closed and e.line.ts_end <= now]
        return max(done, key=lambda e: (e.ts_end, e.episode_id), default=None)

    def model_backlog(self, *, user_id: int) -> ModelBacklog:
        recent = [e for e in self._live(user_id) if e.closed]
        failed = [e for e in recent if e.summary_status == "failed"]
        days = sorted(e.day_local for e in failed)
        last = max(
            # The last reason, as PostgreSQL reads it: of any live failed episode.
            (e for e in self._live(user_id) if e.summary_status == "failed"),
            key=lambda e: (e.updated_at or e.line.ts_end, e.line.episode_id),
            default=None,
        )
        return ModelBacklog(
            pending=sum(e.summary_status == "pending" for e in recent),
            failed=len(failed),
            last_reason=last.summary_reason if last else None,
            first_failed_day=days[0] if days else None,
            last_failed_day=days[-1] if days else None,
        )

    def get_episode(self, *, user_id: int, episode_id: int) -> EpisodeLine | None:
        return next((e.line for e in self._live(user_id) if e.line.episode_id == episode_id), None)

    def episode_moved(self, *, user_id: int, episode_id: int) -> MovedEpisode | None:
        return None  # nothing is rebuilt here: no id has moved

    def open_sitting(self, *, user_id: int, device_id: str, now: datetime) -> OpenSitting | None:
        # The records after the device's watermark: its newest episode's last member.
        newest = max(
            (e for e in self.episodes if e.user_id == user_id and e.line.device_id == device_id),
            key=lambda e: (e.line.ts_start, e.line.episode_id),
            default=None,
        )
        mark = None if newest is None else (newest.last_start or newest.line.ts_start)
        rows = [
            r.line
            for r in self.records
            if r.user_id == user_id
            and r.line.device_id == device_id
            and r.line.episode_id is None
            and r.line.ts_start <= now
            and (
                mark is None
                or r.line.ts_start > mark
                # A tie with the last member: after it, unless its episode is stale.
                or (r.line.ts_start == mark and newest is not None and not newest.stale)
            )
        ]
        if not rows:
            return None
        apps = Counter(r.app for r in rows)
        main_app = min(apps, key=lambda a: (-apps[a], a))
        return OpenSitting(
            since=min(r.ts_start for r in rows), records=len(rows), main_app=main_app
        )

    def list_episodes(
        self,
        *,
        user_id: int,
        ts_from: datetime,
        ts_to: datetime,
        category: str | None,
        limit: int,
    ) -> list[EpisodeLine]:
        rows = [
            e.line
            for e in self._live(user_id)
            if e.line.ts_start < ts_to
            and e.line.ts_end > ts_from
            and (category is None or e.line.category == category)
        ]
        return sorted(rows, key=lambda e: (e.ts_start, e.episode_id), reverse=True)[:limit]

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
        pool = [
            e
            for e in self._live(user_id)
            if (day_from is None or e.day_local >= day_from)
            and (day_to is None or e.day_local <= day_to)
            and (category is None or e.line.category == category)
            and (before is None or e.line.ts_start < before)
        ]
        lexical: dict[int, int] = {}
        if terms:
            groups = [set(term) for term in terms]
            scored = [(sum(g <= e.tokens() for g in groups), e) for e in pool]
            hits = sorted(
                ((n, e) for n, e in scored if n),
                key=lambda ne: (-ne[0], -ne[1].line.ts_start.timestamp()),
            )[:candidates]
            lexical = {e.line.episode_id: rank for rank, (_, e) in enumerate(hits, 1)}
        semantic: dict[int, int] = {}
        if embedding is not None:
            near = sorted(
                (e for e in pool if e.embedding is not None),
                key=lambda e: _cosine_distance(embedding, e.embedding or []),
            )[:candidates]
            semantic = {e.line.episode_id: rank for rank, e in enumerate(near, 1)}
        by_id = {e.line.episode_id: e for e in pool}
        fused = [
            SearchHit(
                **{f: getattr(by_id[i].line, f) for f in EpisodeLine.model_fields},
                score=sum(1.0 / (RRF_K + r[i]) for r in (semantic, lexical) if i in r),
                semantic_rank=semantic.get(i),
                lexical_rank=lexical.get(i),
            )
            for i in set(semantic) | set(lexical)
        ]
        return sorted(fused, key=lambda h: (-h.score, -h.ts_start.timestamp(), -h.episode_id))[:k]

    def episode_neighbors(self, *, user_id: int, ids: list[int]) -> list[Neighbor]:
        live = sorted(self._live(user_id), key=lambda e: e.line.ts_start)
        mine = [e for e in self.episodes if e.user_id == user_id]
        out: list[Neighbor] = []
        # A stale episode still has live neighbours (a hit read before a re-label).
        for of in (e for e in mine if e.line.episode_id in ids):
            same = [e.line for e in live if e.line.device_id == of.line.device_id]
            before = [e for e in same if e.ts_start < of.line.ts_start]
            after = [e for e in same if e.ts_start > of.line.ts_start]
            for side, found in (("before", before[-1:]), ("after", after[:1])):
                out += [_neighbor(n, of_id=of.line.episode_id, side=side) for n in found]
        return out

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
        seconds: dict[tuple[str, str | None, str], float] = {}
        for r in self.records:
            line = r.line
            if (
                r.user_id == user_id
                and line.category == "uncategorized"
                and not line.is_idle
                and day_from <= r.day_local <= day_to
                and ts_from <= line.ts_start < ts_to
            ):
                by_title = line.domain is None and line.app in browsers
                key = (line.app, line.domain, line.window_title if by_title else "")
                seconds[key] = seconds.get(key, 0.0) + r.duration_s
        ordered = sorted(
            seconds.items(), key=lambda kv: (-kv[1], kv[0][0], kv[0][1] or "", kv[0][2])
        )
        return [
            UncategorizedTime(app=a, domain=d, window_title=t, seconds=s)
            for (a, d, t), s in ordered[:limit]
        ]

    def raw_records(
        self,
        *,
        user_id: int,
        ts_from: datetime,
        ts_to: datetime,
        device_id: str | None,
        limit: int,
    ) -> list[RecordLine]:
        rows = [
            r.line
            for r in self.records
            if r.user_id == user_id
            and ts_from <= r.line.ts_start < ts_to
            and (device_id is None or r.line.device_id == device_id)
        ]
        return sorted(rows, key=lambda r: (r.ts_start, r.record_id))[:limit]

    def raw_expired_before(self, *, user_id: int) -> datetime | None:
        return self.raw_expired.get(user_id)

    # -- the names a question may use ------------------------------------------------------

    def _recent(self, user_id: int) -> list[RecordLine]:
        """The user's active records of the 90 days before their newest (any record)."""
        mine = [r.line for r in self.records if r.user_id == user_id]
        if not mine:
            return []
        since = max(r.ts_start for r in mine) - timedelta(days=90)
        return [r for r in mine if not r.is_idle and r.ts_start > since]

    def known_names(self, *, user_id: int, title: str | None) -> list[KnownName]:
        records: Counter[tuple[str, str | None]] = Counter()
        titled: set[tuple[str, str | None]] = set()
        for r in self._recent(user_id):
            records[(r.app, r.domain)] += 1
            if title is not None and title.lower() in r.window_title.lower():
                titled.add((r.app, r.domain))
        # As PostgreSQL orders them: most records first, then app, then domain (NULL last).
        ordered = sorted(records, key=lambda k: (-records[k], k[0], k[1] is None, k[1] or ""))
        return [
            KnownName(app=key[0], domain=key[1], records=records[key], titled=key in titled)
            for key in ordered[:500]
        ]

    def recent_titles(self, *, user_id: int, limit: int) -> list[str]:
        counts = Counter(r.window_title for r in self._recent(user_id) if r.window_title)
        return sorted(counts, key=lambda t: (-counts[t], t))[:limit]

    # -- the one write ------------------------------------------------------------------

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
        if target_kind == "record":
            hit = [
                r for r in self.records if r.user_id == user_id and r.line.record_id == target_id
            ]
            old = hit[0].line.category if hit else ""
        else:
            episode = next((e for e in self._live(user_id) if e.line.episode_id == target_id), None)
            if episode is None:
                # As PostgreSQL says it: any id that is not a live episode of this user
                # (stale, rebuilt under a new id, another user's) reads the same.
                raise ConflictError(
                    f"{target_kind} {target_id} is not live: deleted, rebuilt "
                    "under a new id, or never yours; look it up again"
                )
            hit = [
                r
                for r in self.records
                if r.user_id == user_id and r.line.episode_id == target_id and not r.line.is_idle
            ]
            old = episode.line.category
        if not hit:
            return None
        for r in hit:
            r.line = r.line.model_copy(update={"category": category})
        # As PostgreSQL marks them: the hit records' device-days are rebuilt, their
        # episodes stale meanwhile, and none of their records is in a current episode.
        marked = {(r.line.device_id, r.day_local) for r in hit}
        for e in self.episodes:
            if e.user_id == user_id and (e.line.device_id, e.day_local) in marked:
                e.stale = True
        for r in self.records:
            if r.user_id == user_id and (r.line.device_id, r.day_local) in marked:
                r.line = r.line.model_copy(update={"episode_id": None})
        label_id = len(self.labels) + 1
        self.labels.append(
            MemoryLabel(
                user_id=user_id,
                label_id=label_id,
                target_kind=target_kind,
                target_id=target_id,
                old_value=old,
                new_value=category,
                actor=actor,
                note=note,
            )
        )
        device_days = sorted({(r.line.device_id, r.day_local) for r in hit})
        return Relabelled(
            label_id=label_id,
            device_days=[DeviceDay(device_id=d, day_local=day) for d, day in device_days],
        )


def _add(total: dict[str, float], more: dict[str, float]) -> None:
    for key, seconds in more.items():
        total[key] = total.get(key, 0.0) + seconds


def _neighbor(line: EpisodeLine, *, of_id: int, side: str) -> Neighbor:
    fields = {f: getattr(line, f) for f in EpisodeLine.model_fields}
    return Neighbor(**fields, of_id=of_id, side=side)


def _cosine_distance(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return 1.0 if norm == 0 else 1.0 - dot / norm
