"""The in-memory store (`app/store/memory.py`) answers every method it has (all of
`LadderStore`, which it claims) as `PostgresStore` does.

One database copied from the built sample month, shaped so every read has something to
tell apart (a second user on the same device id, summaries done and failed in Chinese
and English, embeddings, a re-labelled episode left stale, records after the month not
yet in episodes, overlapping devices), is copied row by row into a `MemoryStore`; then
each case calls one read with the same arguments on both and compares the answers.

Exact agreement everywhere but one place: keyword ranking. PostgreSQL ranks keyword
hits by `ts_rank_cd` over the tsvector; the in-memory store by how many of the query's
terms an episode matches. So a keyword search is held to the same set of hits (with
every candidate kept), and a hybrid one to that set and the same semantic rank of each
hit; a search by embedding alone agrees in full (order, ranks and fused scores).

The one write, `relabel`, is held to the same answer (label id and days, None, or the
error) on a fresh copy, and the re-labelled day reads the same in both afterwards. The
comparison has teeth: altering one loaded row breaks the case that reads it.
"""

from __future__ import annotations

import copy
import inspect
import math
import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

import pytest
from pydantic import BaseModel

import app.store.memory as memory_module
from app.db.connection import connect, drop_database, ensure_database
from app.db.derived import protocol_methods
from app.errors import TimeTraceError
from app.ingest.records import RecordBatch, ingest_batch
from app.pyramid.build import backfill
from app.runtime.services import Services, open_services
from app.settings import Settings
from app.store.accounts import UserContext
from app.store.digests import DigestRow, SignalRow
from app.store.episodes import EpisodeLine
from app.store.memory import MemoryEpisode, MemoryRecord, MemoryStore
from app.store.records import RecordLine
from app.store.tools import LadderStore, ThingStore, ToolStore
from app.text import fts_document, keyword_terms
from app.timeutil import day_bounds, period_days, read_window, scope_keys, zone
from tests.helpers import NOW, SAMPLE_MONTH, TemplateDatabases, isolated_env, url_for

BROWSERS = ("Google Chrome", "Firefox", "Safari")
MID = datetime(2003, 3, 15, 6, 0, tzinfo=UTC)  # inside the built month
AFTER = datetime(2003, 4, 1, 6, 0, tzinfo=UTC)  # among the records not in episodes yet
BEFORE = datetime(2002, 1, 1, tzinfo=UTC)  # before anything


# -- the pair of stores ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pair:
    postgres: ToolStore
    memory: MemoryStore
    user: UserContext
    other: UserContext
    episodes: dict[date, list[int]]  # the user's live episode ids by day
    stale_id: int  # the re-labelled episode
    other_id: int  # an episode of the other user
    embedded: list[float]  # the vector of one embedded episode: a query that finds it


def _vector(seed: int, dim: int) -> list[float]:
    rng = random.Random(seed)
    return [rng.uniform(-1.0, 1.0) for _ in range(dim)]


def _ingest(services: Services, user: UserContext, device: str, rows: list[dict[str, Any]]) -> None:
    batch = RecordBatch.model_validate({"device_id": device, "records": rows})
    ingest_batch(services.store, user=user, batch=batch, rules=services.rules)


def _at(day: int, hh: int, mm: int = 0, *, month: int = 3) -> str:
    return datetime(2003, month, day, hh, mm, tzinfo=UTC).isoformat()


def shape(services: Services, conn: Any, user: UserContext) -> dict[str, Any]:
    """What the sample month lacks for telling reads apart, written through the store."""
    store = services.store
    dim = services.settings.embedding_dim
    # A second user, with the same device id and the same hours as the first.
    other = store.ensure_user(name="other", time_zone="Europe/Berlin", day_cut_hour=4)
    store.add_device(user_id=other.user_id, device_id="laptop", name="laptop", kind="laptop")
    _ingest(
        services,
        other,
        "laptop",
        [
            {
                "client_record_id": f"o{i}",
                "ts_start": _at(5, 2 + i // 6, (i % 6) * 10),
                "ts_end": _at(5, 2 + i // 6, (i % 6) * 10 + 9),
                "app": app,
                "window_title": title,
            }
            for i, (app, title) in enumerate(
                [("Code", "ingest.py — timetrace"), ("微信", "项目群（12）")] * 6
            )
        ],
    )
    backfill(store, now=NOW, settings=services.settings)
    # Summaries (done and failed) and embeddings for the first week's episodes.
    week = conn.execute(
        "SELECT episode_id, day_local FROM episodes WHERE user_id = %s AND NOT stale "
        "AND category <> 'system' AND day_local BETWEEN '2003-03-03' AND '2003-03-09' "
        "ORDER BY ts_start, episode_id",
        [user.user_id],
    ).fetchall()
    summaries = [
        ("调试支付回调超时", "修复了支付回调的超时问题，并补了测试"),
        ("Reading the payment callback docs", "Read how the payment callback retries work"),
        ("周报 · 项目计划", "写周报，整理下周的项目计划"),
    ]
    for i, row in enumerate(week):
        eid = row["episode_id"]
        if i % 7 < 3:
            title, summary = summaries[i % 7]
            store.save_episode_summary(
                user_id=user.user_id,
                episode_id=eid,
                title=title,
                summary=summary,
                tags=[],
                cues=[],
                status="done",
                fts_text=fts_document(title, summary),
            )
            store.save_episode_embedding(
                user_id=user.user_id, episode_id=eid, embedding=_vector(eid, dim)
            )
        elif i % 7 == 3:
            store.save_episode_summary(
                user_id=user.user_id,
                episode_id=eid,
                title="",
                summary=None,
                tags=[],
                cues=[],
                status="failed",
                fts_text="",
                reason=f"wrong language (episode {eid})",
                raw="…",
            )
    embedded = next(r["episode_id"] for i, r in enumerate(week) if i % 7 == 1)
    # A re-label leaves its episode stale until the rebuild it asks for.
    stale_id = conn.execute(
        "SELECT episode_id FROM episodes WHERE user_id = %s AND day_local = '2003-03-12' "
        "AND category = 'work' ORDER BY ts_start LIMIT 1",
        [user.user_id],
    ).fetchone()["episode_id"]
    assert store.relabel(
        user_id=user.user_id,
        target_kind="episode",
        target_id=stale_id,
        category="study",
        actor="test",
        note="a lecture",
    )
    # Records after the month (and one late record on its last day), not built yet: the
    # laptop and the phone overlap; some are uncategorized, one is idle, one a browser
    # without a URL.
    tail = {
        "laptop": [
            ("t1", _at(31, 19, 0), _at(31, 19, 4), "Code", "迁移说明.md — timetrace", None),
            ("t2", _at(1, 1, 0, month=4), _at(1, 1, 20, month=4), "hades2", "Hades II", None),
            ("t3", _at(1, 1, 20, month=4), _at(1, 1, 30, month=4), "Firefox", "Acme Wiki", None),
            ("t4", _at(1, 1, 30, month=4), _at(1, 1, 40, month=4), "Preview", "invoice.pdf", None),
            ("t5", _at(1, 1, 40, month=4), _at(1, 2, 0, month=4), "LockApp", "", True),
        ],
        "desktop": [("d1", _at(31, 19, 1), _at(31, 19, 3), "Code", "api.py — timetrace", None)],
        "phone": [
            ("p1", _at(1, 1, 5, month=4), None, "微信", "项目群（12）", None),
            ("p2", _at(1, 1, 8, month=4), None, "抖音", "推荐", None),
        ],
    }
    for device, rows in tail.items():
        _ingest(
            services,
            user,
            device,
            [
                {
                    "client_record_id": key,
                    "ts_start": start,
                    **({"ts_end": end} if end else {}),
                    "app": app,
                    "window_title": title,
                    "is_idle": bool(idle),
                }
                for key, start, end, app, title, idle in rows
            ],
        )
    episodes: dict[date, list[int]] = {}
    for row in conn.execute(
        "SELECT episode_id, day_local FROM episodes WHERE user_id = %s AND NOT stale "
        "ORDER BY ts_start, episode_id",
        [user.user_id],
    ):
        episodes.setdefault(row["day_local"], []).append(row["episode_id"])
    other_id = conn.execute(
        "SELECT min(episode_id) AS id FROM episodes WHERE user_id = %s", [other.user_id]
    ).fetchone()["id"]
    # The other user's raw expired (retention), the reads of records aside.
    conn.execute(
        "INSERT INTO retention (user_id, raw_days, raw_expired_before, raw_expired_day) "
        "VALUES (%s, 30, '2003-02-01 04:00+01', '2003-02-01')",
        [other.user_id],
    )
    return {
        "other": other,
        "episodes": episodes,
        "stale_id": stale_id,
        "other_id": other_id,
        "embedded": _vector(embedded, dim),
    }


def memory_copy(conn: Any) -> MemoryStore:
    """Every user's rows as the pyramid left them in PostgreSQL, as a MemoryStore: the
    episodes with their breakdowns, model state and keyword index (the tsvector's words),
    the live records with their durations by the duration rule, the digests and the live
    signals."""
    store = MemoryStore()
    for r in conn.execute(
        "SELECT *, summary_embedding::real[] AS vector, tsvector_to_array(fts) AS words "
        "FROM episodes ORDER BY user_id, episode_id"
    ):
        line = EpisodeLine(
            episode_id=r["episode_id"],
            device_id=r["device_id"],
            ts_start=r["ts_start"],
            ts_end=r["ts_end"],
            category=r["category"],
            category_source=r["category_source"],
            title=r["title"],
            summary=r["summary"],
            duration_s=r["duration_s"],
            active_s=r["active_s"],
            summary_by=r["summary_by"],
        )
        store.episodes.append(
            MemoryEpisode(
                user_id=r["user_id"],
                line=line,
                day_local=r["day_local"],
                category_seconds=r["category_seconds"],
                app_seconds=r["app_seconds"],
                active_s=r["active_s"],
                switch_count=r["switch_count"],
                interruption_s=r["interruption_s"],
                auto_title=r["auto_title"],
                closed=r["closed"],
                stale=r["stale"],
                embedding=None if r["vector"] is None else [float(x) for x in r["vector"]],
                summary_status=r["summary_status"],
                summary_reason=r["summary_reason"],
                updated_at=r["updated_at"],
                keywords=frozenset(r["words"] or ()),
                last_start=r["last_start"],
            )
        )
    for r in conn.execute(
        "SELECT d.*, v.episode_id, a.description FROM v_record_durations d "
        "JOIN v_record_episodes v ON v.user_id = d.user_id AND v.record_id = d.record_id "
        "LEFT JOIN record_analyses a ON a.user_id = d.user_id AND a.record_id = d.record_id "
        "ORDER BY d.user_id, d.record_id"
    ):
        line = RecordLine(
            record_id=r["record_id"],
            device_id=r["device_id"],
            ts_start=r["ts_start"],
            ts_end=r["ts_end"],
            app=r["app"],
            window_title=r["window_title"],
            domain=r["domain"],
            category=r["category"],
            is_idle=r["is_idle"],
            episode_id=r["episode_id"],
            description=r["description"],
        )
        store.records.append(
            MemoryRecord(
                user_id=r["user_id"],
                line=line,
                day_local=r["day_local"],
                duration_s=r["duration_s"],
            )
        )
    for r in conn.execute("SELECT * FROM digests ORDER BY user_id, digest_id"):
        digest = DigestRow(
            digest_id=r["digest_id"],
            grain=r["grain"],
            scope_key=r["scope_key"],
            period_start=r["period_start"],
            period_end=r["period_end"],
            metrics=r["metrics"],
            narrative=r["narrative"],
            narrative_status=r["narrative_status"],
            source_ids=r["source_ids"],
            computed_through_ts=r["computed_through_ts"],
            finalized=r["finalized"],
            stale=r["stale"],
        )
        store.digests.append((r["user_id"], digest))
    for r in conn.execute("SELECT * FROM signals WHERE NOT stale ORDER BY user_id, signal_id"):
        signal = SignalRow(
            signal_id=r["signal_id"],
            kind=r["kind"],
            scope=r["scope"],
            day_local=r["day_local"],
            ts_start=r["ts_start"],
            ts_end=r["ts_end"],
            severity=r["severity"],
            metrics=r["metrics"],
            evidence=r["evidence"],
        )
        store.signals.append((r["user_id"], signal))
    for r in conn.execute("SELECT user_id, raw_expired_before FROM retention"):
        store.raw_expired[r["user_id"]] = r["raw_expired_before"]
    return store


@pytest.fixture(scope="module")
def pair(
    admin_url: str, data_templates: TemplateDatabases, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Pair]:
    """Both stores over the same rows, shared by the module's reads (none writes)."""
    template, preloaded = data_templates.template(SAMPLE_MONTH)
    name = f"tt_contract_{os.getpid()}"
    drop_database(admin_url, database=name)
    ensure_database(admin_url, database=name, template=template)
    url = url_for(admin_url, name)
    try:
        with pytest.MonkeyPatch.context() as monkeypatch:
            isolated_env(monkeypatch)
            settings = Settings(
                _env_file=None, database_url=url, data_dir=tmp_path_factory.mktemp("contract")
            )
            with (
                open_services(settings, url=url, auto_migrate=False) as services,
                connect(url, settings=settings, autocommit=True) as conn,
            ):
                shaped = shape(services, conn, preloaded.user)
                yield Pair(
                    postgres=services.store,
                    memory=memory_copy(conn),
                    user=preloaded.user,
                    **shaped,
                )
    finally:
        drop_database(admin_url, database=name)


# -- the reads ------------------------------------------------------------------------------


Read = Callable[[ToolStore, Pair], Any]


@dataclass(frozen=True, slots=True)
class Case:
    method: str  # the store method it calls
    read: Read
    ordered: bool = True  # False where the protocol promises no order
    compare: Callable[[Any], Any] | None = None  # the narrower view, where not exact
    empty: bool = False  # finds nothing (else it must find something: no vacuous agreement)


def _parts_found(read: dict[str, Any]) -> dict[str, Any]:
    """A read of several parts, without its empty ones: one that finds nothing is {}."""
    return {part: value for part, value in read.items() if value}


def _days(first: str, last: str) -> dict[str, date]:
    return {"day_from": date.fromisoformat(first), "day_to": date.fromisoformat(last)}


def _span(p: Pair, first: str, last: str, *, user: UserContext | None = None) -> dict[str, Any]:
    u = user or p.user
    tz = zone(u.time_zone)
    start = day_bounds(date.fromisoformat(first), tz=tz, cut_hour=u.day_cut_hour)[0]
    end = day_bounds(date.fromisoformat(last), tz=tz, cut_hour=u.day_cut_hour)[1]
    return {"ts_from": start, "ts_to": end}


def _touching(s: Any, p: Pair) -> list[Any]:
    """The episodes of a window that starts at one episode's end and ends at another's
    start (the day's first and last)."""
    day = s.list_episodes(user_id=p.user.user_id, **_span(p, *DAY), category=None, limit=500)
    first, last = day[-1], day[0]
    found = s.list_episodes(
        user_id=p.user.user_id, ts_from=first.ts_end, ts_to=last.ts_start, category=None, limit=500
    )
    assert first not in found and last not in found
    return [e.episode_id for e in found]


def _periods_of(first: str, last: str) -> list[tuple[str, str]]:
    """The days, weeks and months (grain, key) whose days all lie in [first, last]."""
    start, end = date.fromisoformat(first), date.fromisoformat(last)
    keys = (scope_keys(start + timedelta(days=i)) for i in range((end - start).days + 1))
    pairs = (p for d, w, m in keys for p in (("day", d), ("week", w), ("month", m)))
    inside = (p for p in dict.fromkeys(pairs) if start <= period_days(*p)[0])
    return [p for p in inside if period_days(*p)[1] <= end]


DAY, WEEK, MONTH = ("2003-03-05",) * 2, ("2003-03-03", "2003-03-09"), ("2003-03-01", "2003-03-31")
TAIL, EMPTY = ("2003-03-30", "2003-04-01"), ("2002-06-01", "2002-06-07")
PERIODS = {"day": DAY, "week": WEEK, "month": MONTH, "tail": TAIL, "empty": EMPTY}


def _overlap(period: tuple[str, str]) -> Read:
    def read(s: ToolStore, p: Pair) -> Any:
        span = _span(p, *period)
        read_from = read_window(span["ts_from"], span["ts_to"], idle_gap_s=300)[0]
        return s.device_overlap_seconds(user_id=p.user.user_id, **span, read_from=read_from)

    return read


def _search(
    query: str | None,
    *,
    vector: bool = False,
    period: tuple[str, str] | None = None,
    category: str | None = None,
    k: int = 1_000,
) -> Read:
    def read(s: ToolStore, p: Pair) -> Any:
        return s.search_episodes(
            user_id=p.user.user_id,
            terms=keyword_terms(query) if query else [],
            embedding=p.embedded if vector else None,
            day_from=date.fromisoformat(period[0]) if period else None,
            day_to=date.fromisoformat(period[1]) if period else None,
            category=category,
            k=k,
            candidates=k,
        )

    return read


def _hit_set(hits: list[Any]) -> Any:
    return sorted(h["episode_id"] for h in hits)


def _hits_and_semantic_ranks(hits: list[Any]) -> Any:
    return sorted((h["episode_id"], h["semantic_rank"]) for h in hits)


def _cases() -> dict[str, Case]:
    cases: dict[str, Case] = {}
    for name, period in PERIODS.items():
        cases[f"period_metrics-{name}"] = Case(
            "period_metrics",
            lambda s, p, d=period: s.period_metrics(user_id=p.user.user_id, **_days(*d)),
        )
    cases["period_metrics-other-user"] = Case(
        "period_metrics", lambda s, p: s.period_metrics(user_id=p.other.user_id, **_days(*MONTH))
    )
    for grain, key in [
        ("day", "2003-03-05"),
        ("day", "2003-03-12"),  # stale after the re-label
        ("week", "2003-W10"),
        ("month", "2003-03"),
        ("day", "2002-01-01"),
    ]:
        cases[f"get_digest-{grain}-{key}"] = Case(
            "get_digest",
            lambda s, p, g=grain, k=key: s.get_digest(user_id=p.user.user_id, grain=g, scope_key=k),
        )
    for name, grain, keys in [
        ("day-and-before", "day", ["2003-03-05", "2003-03-04"]),
        ("day-after-a-stale-one", "day", ["2003-03-13", "2003-03-12"]),
        ("month-one-missing", "month", ["2003-03", "2003-02"]),
        ("none", "day", ["2002-01-01"]),
    ]:
        cases[f"get_digests-{name}"] = Case(
            "get_digests",
            lambda s, p, g=grain, k=keys: s.get_digests(
                user_id=p.user.user_id, grain=g, scope_keys=k
            ),
        )
    cases["get_digest-other-user"] = Case(
        "get_digest",
        lambda s, p: s.get_digest(user_id=p.other.user_id, grain="day", scope_key="2003-03-05"),
    )
    for name in ("week", "month", "empty"):
        cases[f"list_signals-{name}"] = Case(
            "list_signals",
            lambda s, p, d=PERIODS[name]: s.list_signals(user_id=p.user.user_id, **_days(*d)),
        )
        cases[f"period_signal_counts-{name}"] = Case(
            "period_signal_counts",
            lambda s, p, d=PERIODS[name]: s.period_signal_counts(
                user_id=p.user.user_id, **_days(*d)
            ),
        )
        cases[f"digest_read-{name}"] = Case(
            "digest_read",
            lambda s, p, d=PERIODS[name]: s.digest_read(
                user_id=p.user.user_id, grain="day", scope_keys=list(d), **_days(*d)
            ),
            compare=_parts_found,
        )
        cases[f"period_signal_kinds-{name}"] = Case(
            "period_signal_kinds",
            lambda s, p, d=PERIODS[name]: s.period_signal_kinds(
                user_id=p.user.user_id, **_days(*d)
            ),
        )
    cases["digest_read-tail"] = Case(  # days with records not in episodes yet
        "digest_read",
        lambda s, p: s.digest_read(
            user_id=p.user.user_id, grain="month", scope_keys=["2003-04", "2003-03"], **_days(*TAIL)
        ),
        compare=_parts_found,
    )
    for name in ("week", "month", "tail", "empty"):
        cases[f"covering_digests-{name}"] = Case(
            "covering_digests",
            lambda s, p, d=PERIODS[name]: s.covering_digests(
                user_id=p.user.user_id, **_days(*d), periods=_periods_of(*d)
            ),
            ordered=False,
        )
    for name in ("month", "tail", "empty"):
        cases[f"open_tail_metrics-{name}"] = Case(
            "open_tail_metrics",
            lambda s, p, d=PERIODS[name]: s.open_tail_metrics(
                user_id=p.user.user_id, **_days(*d), **_span(p, *d)
            ),
            ordered=False,
        )
        cases[f"unbuilt_days-{name}"] = Case(
            "unbuilt_days",
            lambda s, p, d=PERIODS[name]: s.unbuilt_days(user_id=p.user.user_id, **_days(*d)),
        )
        cases[f"uncategorized_time-{name}"] = Case(
            "uncategorized_time",
            lambda s, p, d=PERIODS[name]: s.uncategorized_time(
                user_id=p.user.user_id, **_days(*d), **_span(p, *d), browsers=BROWSERS, limit=20
            ),
        )
    for name in ("day", "month", "tail", "empty"):
        cases[f"device_overlap_seconds-{name}"] = Case(
            "device_overlap_seconds", _overlap(PERIODS[name])
        )
    for name, now, limit in [("mid", MID, 20), ("after", AFTER, 5), ("before", BEFORE, 5)]:
        cases[f"latest_records-{name}"] = Case(
            "latest_records",
            lambda s, p, n=now, k=limit: s.latest_records(user_id=p.user.user_id, now=n, limit=k),
        )
        cases[f"last_closed_episode-{name}"] = Case(
            "last_closed_episode",
            lambda s, p, n=now: s.last_closed_episode(user_id=p.user.user_id, now=n),
        )
    # A live id has not moved (the memory store rebuilds nothing: tests/db/test_stable_ids.py
    # holds the moves).
    live = lambda p: p.episodes[min(p.episodes)][0]  # noqa: E731
    cases["get_episode-live"] = Case(
        "get_episode", lambda s, p: s.get_episode(user_id=p.user.user_id, episode_id=live(p))
    )
    cases["get_episode-other-user"] = Case(
        "get_episode", lambda s, p: s.get_episode(user_id=p.user.user_id, episode_id=p.other_id)
    )
    cases["episode_moved-live"] = Case(
        "episode_moved",
        lambda s, p: s.episode_moved(user_id=p.user.user_id, episode_id=p.other_id),
    )
    for who in ("user", "other"):
        cases[f"model_backlog-{who}"] = Case(
            "model_backlog",
            lambda s, p, w=who: s.model_backlog(user_id=getattr(p, w).user_id),
        )
    for device, now in [("laptop", AFTER), ("phone", AFTER), ("desktop", AFTER), ("tv", AFTER)]:
        cases[f"open_sitting-{device}"] = Case(
            "open_sitting",
            lambda s, p, d=device, n=now: s.open_sitting(
                user_id=p.user.user_id, device_id=d, now=n
            ),
        )
    cases["open_sitting-laptop-mid-month"] = Case(
        "open_sitting",
        lambda s, p: s.open_sitting(user_id=p.user.user_id, device_id="laptop", now=MID),
    )
    for name, period, category, limit in [
        ("day", DAY, None, 500),
        ("week-work", WEEK, "work", 30),
        ("month-newest", MONTH, None, 5),
        ("stale-day", ("2003-03-12",) * 2, None, 500),
        ("empty", EMPTY, None, 10),
    ]:
        cases[f"list_episodes-{name}"] = Case(
            "list_episodes",
            lambda s, p, d=period, c=category, k=limit: s.list_episodes(
                user_id=p.user.user_id, **_span(p, *d), category=c, limit=k
            ),
        )
    # Bounds are exact: an episode that ends where the period starts, or starts where it
    # ends, is not in it (the span index's closed ranges would keep the first).
    cases["list_episodes-touching"] = Case("list_episodes", _touching)
    cases["list_episodes-other-user"] = Case(
        "list_episodes",
        lambda s, p: s.list_episodes(
            user_id=p.other.user_id, **_span(p, *MONTH, user=p.other), category=None, limit=50
        ),
    )
    for name, read in [
        ("zh", _search("项目群")),
        ("en", _search("pytest")),
        ("zh-en", _search("timetrace 迁移说明")),
        ("summary-zh", _search("支付回调")),
        ("url", _search("github.com")),
        ("week-study", _search("coursera 机器学习", period=WEEK, category="study")),
        ("nothing", _search("xyzzyplugh")),
    ]:
        cases[f"search_episodes-keyword-{name}"] = Case("search_episodes", read, compare=_hit_set)
    cases["search_episodes-vector"] = Case("search_episodes", _search(None, vector=True, k=10))
    cases["search_episodes-vector-day"] = Case(
        "search_episodes", _search(None, vector=True, period=DAY)
    )
    cases["search_episodes-hybrid"] = Case(
        "search_episodes",
        _search("payment callback 周报", vector=True),
        compare=_hits_and_semantic_ranks,
    )
    cases["episode_neighbors"] = Case(
        "episode_neighbors",
        lambda s, p: s.episode_neighbors(
            user_id=p.user.user_id,
            ids=[*p.episodes[date(2003, 3, 5)][:6], p.stale_id, p.other_id, 10**9],
        ),
        ordered=False,
    )
    for name, hour, device, limit in [
        ("morning", 1, None, 500),
        ("afternoon-phone", 7, "phone", 500),
        ("capped", 2, None, 3),
        ("tail", None, None, 50),
        ("unknown-device", 1, "tv", 50),
    ]:
        cases[f"raw_records-{name}"] = Case(
            "raw_records",
            lambda s, p, h=hour, d=device, k=limit: s.raw_records(
                user_id=p.user.user_id,
                ts_from=AFTER - timedelta(hours=6) if h is None else MID + timedelta(hours=h),
                ts_to=AFTER if h is None else MID + timedelta(hours=h + 2),
                device_id=d,
                limit=k,
            ),
        )
    for name, who in (("none", "user"), ("expired", "other")):
        cases[f"raw_expired_before-{name}"] = Case(
            "raw_expired_before",
            lambda s, p, w=who: s.raw_expired_before(user_id=getattr(p, w).user_id),
        )
    for name, who, title in [
        ("user", "user", None),
        ("user-titled", "user", "GITHUB"),
        ("other-titled", "other", "Ingest"),
        ("other-cjk", "other", "项目"),
    ]:
        cases[f"known_names-{name}"] = Case(
            "known_names",
            lambda s, p, w=who, x=title: s.known_names(user_id=getattr(p, w).user_id, title=x),
        )
    for name, who, limit in [
        ("user", "user", 500),
        ("user-capped", "user", 3),
        ("other", "other", 50),
    ]:
        cases[f"recent_titles-{name}"] = Case(
            "recent_titles",
            lambda s, p, w=who, k=limit: s.recent_titles(user_id=getattr(p, w).user_id, limit=k),
        )
    assert cases.keys() >= NOTHING
    return {name: replace(case, empty=name in NOTHING) for name, case in cases.items()}


# The cases that find nothing by design (a period or an instant before all data, a
# device or a word nobody has, a day with one device); every other case finds something.
NOTHING = frozenset(
    {
        "get_digest-day-2002-01-01",
        "get_digests-none",
        "list_signals-empty",
        "period_signal_counts-empty",
        "period_signal_kinds-empty",
        "digest_read-empty",
        "covering_digests-empty",
        "open_tail_metrics-empty",
        "unbuilt_days-empty",
        "uncategorized_time-empty",
        "device_overlap_seconds-day",
        "device_overlap_seconds-empty",
        "latest_records-before",
        "last_closed_episode-before",
        "open_sitting-tv",
        "open_sitting-laptop-mid-month",
        "list_episodes-empty",
        "search_episodes-keyword-nothing",
        "raw_records-unknown-device",
        "raw_expired_before-none",
        "episode_moved-live",
        "get_episode-other-user",
    }
)
CASES = _cases()


# -- comparing ------------------------------------------------------------------------------


def plain(value: Any) -> Any:
    """A row (a model, in field order: a row from SQL keeps column order), as plain data."""
    if isinstance(value, BaseModel):
        return {name: plain(getattr(value, name)) for name in type(value).model_fields}
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def agree(a: Any, b: Any) -> bool:
    """Equal, but for float sums added up in another order (a JSON object's keys have
    no order: PostgreSQL's jsonb keeps them shortest first)."""
    if isinstance(a, float) or isinstance(b, float):
        return (
            isinstance(a, int | float)
            and isinstance(b, int | float)
            and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-6)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(agree(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(agree(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def answers(case: Case, pair: Pair, memory: MemoryStore | None = None) -> tuple[Any, Any]:
    """What PostgreSQL and the in-memory store answer, as the case compares them."""
    out = []
    for store in (pair.postgres, memory or pair.memory):
        value = plain(case.read(store, pair))
        if not case.ordered:
            value = sorted(value, key=repr)
        out.append(case.compare(value) if case.compare else value)
    return out[0], out[1]


@pytest.mark.parametrize("name", list(CASES))
def test_memory_store_answers_as_postgres_does(pair: Pair, name: str) -> None:
    postgres, memory = answers(CASES[name], pair)
    if not agree(postgres, memory):
        assert postgres == memory  # pytest shows where they part
    # Nothing agrees with nothing: every case finds what the data was shaped to hold.
    found = postgres not in (None, [], {}, 0, 0.0)
    assert found != CASES[name].empty, f"{name}: found {postgres!r}"


def test_the_in_memory_store_implements_all_it_claims_and_every_method_has_cases() -> None:
    claimed = set(protocol_methods(LadderStore))
    own = {n for n, v in vars(MemoryStore).items() if callable(v) and not n.startswith("_")}
    # Every method of the protocol it claims is its own (not the protocol's empty body),
    # it claims none of the things reads, and none of its methods gives up.
    assert claimed <= own
    assert not set(protocol_methods(ThingStore)) & own
    assert "NotImplementedError" not in inspect.getsource(memory_module)
    # relabel: test_a_relabel_answers_and_leaves_both_stores_alike.
    assert own - {"relabel"} == {case.method for case in CASES.values()}


T = TypeVar("T")


def _swap(items: list[T], pick: Callable[[T], bool], change: Callable[[T], None]) -> None:
    """Alter a copy of the first item picked, in its place (the shared original stays)."""
    i = next(i for i, item in enumerate(items) if pick(item))
    items[i] = copy.copy(items[i])
    change(items[i])


def _more_work_seconds(m: MemoryStore, p: Pair) -> None:
    def change(e: MemoryEpisode) -> None:
        e.category_seconds = {**e.category_seconds, "work": e.category_seconds["work"] + 1.0}

    _swap(
        m.episodes, lambda e: e.user_id == p.user.user_id and "work" in e.category_seconds, change
    )


def _shorter_record(m: MemoryStore, p: Pair) -> None:
    def change(r: MemoryRecord) -> None:
        r.duration_s -= 1.0

    _swap(m.records, lambda r: r.line.app == "hades2", change)


def _lost_digest(m: MemoryStore, p: Pair) -> None:
    m.digests.remove(
        next(
            d
            for d in m.digests
            if d[0] == p.user.user_id and d[1].finalized and d[1].scope_key == "2003-W10"
        )
    )


def _unindexed_word(m: MemoryStore, p: Pair) -> None:
    def change(e: MemoryEpisode) -> None:
        e.keywords = e.tokens() - {"pytest"}

    _swap(m.episodes, lambda e: e.user_id == p.user.user_id and "pytest" in e.tokens(), change)


def _other_reasons(m: MemoryStore, p: Pair) -> None:
    for i, e in enumerate(m.episodes):
        if e.summary_status == "failed":
            m.episodes[i] = copy.copy(e)
            m.episodes[i].summary_reason = "another reason"


# Each alteration of the loaded rows, and a case it must break: the comparison has teeth.
ALTERATIONS: dict[str, tuple[Callable[[MemoryStore, Pair], None], str]] = {
    "an episode's category seconds": (_more_work_seconds, "period_metrics-month"),
    "a record's duration": (_shorter_record, "uncategorized_time-tail"),
    "a digest left out": (_lost_digest, "covering_digests-week"),
    "a word left out of an episode's keyword index": (
        _unindexed_word,
        "search_episodes-keyword-en",
    ),
    "a failed summary's reason": (_other_reasons, "model_backlog-user"),
}


@pytest.mark.parametrize("what", list(ALTERATIONS))
def test_the_contract_fails_when_one_row_disagrees(pair: Pair, what: str) -> None:
    alter, breaks = ALTERATIONS[what]
    assert agree(*answers(CASES[breaks], pair))
    m = pair.memory
    altered = MemoryStore(
        episodes=list(m.episodes),
        records=list(m.records),
        digests=list(m.digests),
        signals=list(m.signals),
        labels=list(m.labels),
    )
    alter(altered, pair)
    assert not agree(*answers(CASES[breaks], pair, altered))


# -- the one write ------------------------------------------------------------------------


def _relabel(store: ToolStore, user_id: int, kind: str, target: int) -> Any:
    """What a re-label answers: its label id and days, None, or the error it raises."""
    try:
        return plain(
            store.relabel(
                user_id=user_id,
                target_kind=kind,
                target_id=target,
                category="study",
                actor="test",
                note="a lecture",
            )
        )
    except TimeTraceError as exc:
        return type(exc).__name__


@pytest.mark.preloaded(SAMPLE_MONTH)
def test_a_relabel_answers_and_leaves_both_stores_alike(
    services: Services, conn: Any, preloaded: Any
) -> None:
    user = preloaded.user
    memory = memory_copy(conn)
    mixed = conn.execute(
        # An episode whose records are not all of its category: the label's old value is
        # the episode's.
        "SELECT e.episode_id, e.day_local FROM episodes e JOIN v_record_episodes v "
        "ON v.user_id = e.user_id AND v.episode_id = e.episode_id "
        "JOIN records r ON r.user_id = v.user_id AND r.record_id = v.record_id "
        "WHERE e.user_id = %s AND NOT r.is_idle AND e.category <> 'system' "
        "GROUP BY e.episode_id, e.day_local "
        "HAVING count(DISTINCT r.category) > 1 ORDER BY min(r.ts_start) LIMIT 1",
        [user.user_id],
    ).fetchone()
    record = conn.execute(
        "SELECT record_id FROM records WHERE user_id = %s AND day_local = %s "
        "ORDER BY ts_start DESC LIMIT 1",
        [user.user_id, mixed["day_local"]],
    ).fetchone()["record_id"]
    for kind, target in [
        ("episode", mixed["episode_id"]),
        ("episode", mixed["episode_id"]),  # now stale: no longer live
        ("record", record),
        ("record", 10**9),
        ("episode", 10**9),
    ]:
        postgres = _relabel(services.store, user.user_id, kind, target)
        assert postgres == _relabel(memory, user.user_id, kind, target), (kind, target)
    labels = conn.execute(
        "SELECT label_id, target_kind, target_id, old_value, new_value FROM labels "
        "ORDER BY label_id"
    ).fetchall()
    assert [
        {
            "label_id": m.label_id,
            "target_kind": m.target_kind,
            "target_id": m.target_id,
            "old_value": m.old_value,
            "new_value": m.new_value,
        }
        for m in memory.labels
    ] == labels
    # The re-labelled day reads the same afterwards: its episode stale, its records in
    # their new category, the day unbuilt again.
    day = (mixed["day_local"].isoformat(),) * 2
    pair = Pair(
        postgres=services.store,
        memory=memory,
        user=user,
        other=user,
        episodes={},
        stale_id=mixed["episode_id"],
        other_id=0,
        embedded=[],
    )
    for name, read in {
        "list_episodes": lambda s, p: s.list_episodes(
            user_id=user.user_id, **_span(p, *day), category=None, limit=500
        ),
        "raw_records": lambda s, p: s.raw_records(
            user_id=user.user_id, **_span(p, *day), device_id=None, limit=5_000
        ),
        "unbuilt_days": lambda s, p: s.unbuilt_days(user_id=user.user_id, **_days(*day)),
        "period_metrics": lambda s, p: s.period_metrics(user_id=user.user_id, **_days(*day)),
    }.items():
        postgres, in_memory = answers(Case(name, read), pair)
        assert postgres and agree(postgres, in_memory), name
