"""`PostgresStore`: the `Store` protocol over a psycopg connection pool and the
named queries of `sql/queries.sql`, one mixin per family."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from psycopg.errors import DeadlockDetected, UniqueViolation
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from app.db.base import retrying
from app.db.connection import Connection
from app.db.queries import QUERIES
from app.db.store_agent import PostgresConversationStore
from app.db.store_enrich import PostgresModelStore
from app.db.store_jobs import PostgresJobLimits
from app.db.store_things import PostgresThingStore
from app.db.store_tools import PostgresToolStore
from app.db.store_web import PostgresWebStore
from app.errors import DatabaseError
from app.store import (
    DeviceRow,
    DigestDraft,
    DigestMetrics,
    DigestRow,
    EpisodeDraft,
    EpisodeFacts,
    ImportProgress,
    ImportRow,
    JobHealth,
    JobRequest,
    MemberFacts,
    NewRecords,
    PeriodMetrics,
    ReadWindow,
    SegmentInput,
    SegmentRead,
    SignalDraft,
    Store,
    UserContext,
)

if TYPE_CHECKING:
    from procrastinate import App
from app.text import fts_document
from app.timeutil import day_key, scope_keys

# A pass requeues at most this many stalled jobs (a crash leaves one per worker slot).
_MAX_RECOVERED = 1_000


def _user(row: dict[str, Any] | None) -> UserContext | None:
    return UserContext(**row) if row else None


# The columns of `copy_import_staging` and `copy_records`, which go in binary (a fifth
# of text's cost per row): a NewRecords row, then the description and its FTS text.
_STAGING_TYPES = [
    "text", "timestamptz", "timestamptz", "date", "text", "text", "text", "text", "text",
    "bool", "text", "text", "text", "text", "text", "bool", "text", "text",
]  # fmt: skip
_RECORD_COLUMNS = [name for name in NewRecords.__dataclass_fields__ if name != "description"]
_RECORD_TYPES = ["int8", "text", *_STAGING_TYPES[: len(_RECORD_COLUMNS)]]


class PostgresStore(
    PostgresModelStore,
    PostgresToolStore,
    PostgresThingStore,
    PostgresConversationStore,
    PostgresWebStore,
    PostgresJobLimits,
    Store,
):
    def __init__(self, pool: ConnectionPool[Connection]) -> None:
        self.pool = pool
        self._jobs_app: App | None = None
        self._jobs_lock = threading.Lock()

    @property
    def _jobs(self) -> App:
        """Jobs are enqueued through procrastinate's public API, on our own connection,
        so that a job is committed or rolled back with the change that asks for it. The
        App is made at the first deferral: a process that only reads (`timetrace tool`)
        never imports procrastinate."""
        with self._jobs_lock:
            if self._jobs_app is None:
                from procrastinate import App, SyncPsycopgConnector

                self._jobs_app = App(connector=SyncPsycopgConnector())
                self._jobs_app.open(self.pool)
            return self._jobs_app

    # -- accounts -------------------------------------------------------------

    def ping(self) -> None:
        try:
            with self.pool.connection(timeout=2) as conn:
                conn.execute("SELECT 1")
        except Exception as exc:
            raise DatabaseError(f"the database does not answer: {type(exc).__name__}") from exc

    def ensure_user(self, *, name: str, time_zone: str, day_cut_hour: int) -> UserContext:
        row = self._one(
            "ensure_user", {"name": name, "time_zone": time_zone, "day_cut_hour": day_cut_hour}
        )
        assert row is not None  # RETURNING always yields the row
        return UserContext(**row)

    def get_user(self, *, name: str) -> UserContext | None:
        return _user(self._one("get_user", {"name": name}))

    def user_for_token(self, *, token_hash: bytes) -> UserContext | None:
        return _user(self._one("user_for_token", {"token_hash": token_hash}))

    def add_token(self, *, user_id: int, token_hash: bytes, name: str) -> int:
        row = self._one("add_token", {"user_id": user_id, "token_hash": token_hash, "name": name})
        assert row is not None
        return int(row["token_id"])

    def count_tokens(self) -> int:
        row = self._one("count_tokens", {})
        return int(row["n"]) if row else 0

    def add_device(self, *, user_id: int, device_id: str, name: str, kind: str) -> bool:
        with self.pool.connection() as conn:
            cur = conn.execute(
                QUERIES["add_device"],
                {"user_id": user_id, "device_id": device_id, "name": name, "kind": kind},
            )
            return cur.rowcount == 1

    def device_exists(self, *, user_id: int, device_id: str) -> bool:
        return self._one("device_exists", {"user_id": user_id, "device_id": device_id}) is not None

    def list_devices(self, *, user_id: int) -> list[DeviceRow]:
        return [DeviceRow(**row) for row in self._all("list_devices", {"user_id": user_id})]

    # -- records (L0) -----------------------------------------------------------

    def insert_records(self, *, user_id: int, device_id: str, records: NewRecords) -> int:
        columns = {
            name: getattr(records, name)
            for name in NewRecords.__dataclass_fields__
            if name != "description"
        }
        params = {"user_id": user_id, "device_id": device_id, **columns}

        def insert() -> int:
            with self.pool.connection() as conn:
                return conn.execute(QUERIES["insert_records"], params).rowcount

        return retrying(insert)

    def import_records(
        self, *, user_id: int, device_id: str, records: NewRecords, model: str
    ) -> int:
        if not any(records.description):
            copied = self._copy_new_records(user_id=user_id, device_id=device_id, records=records)
            if copied is not None:
                return copied
        fts = [fts_document(text) if text else None for text in records.description]
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(QUERIES["create_import_staging"])
            with conn.cursor().copy(QUERIES["copy_import_staging"]) as copy:
                copy.set_types(_STAGING_TYPES)
                for row in zip(
                    *(getattr(records, name) for name in NewRecords.__dataclass_fields__),
                    fts,
                    strict=True,
                ):
                    copy.write_row(row)
            inserted = conn.execute(
                QUERIES["insert_staged_records"],
                {"user_id": user_id, "device_id": device_id, "model": model},
            ).fetchone()
        return int(inserted["new"]) if inserted else 0

    def _copy_new_records(self, *, user_id: int, device_id: str, records: NewRecords) -> int | None:
        """A batch of records whose key range holds no stored key, on a device with no
        tombstone (a first import): COPY straight into `records`, a fifth cheaper than
        staging. None, with nothing written, when that does not hold (or a key was
        stored meanwhile by another writer): the staged insert then sorts it out."""
        keys = records.client_record_id
        params = {"user_id": user_id, "device_id": device_id, "first": min(keys), "last": max(keys)}
        try:
            with self.pool.connection() as conn, conn.transaction():
                stored = conn.execute(QUERIES["any_key_stored"], params).fetchone()
                if stored is None or stored["found"]:
                    return None
                with conn.cursor().copy(QUERIES["copy_records"]) as copy:
                    copy.set_types(_RECORD_TYPES)
                    columns = (getattr(records, name) for name in _RECORD_COLUMNS)
                    for row in zip(*columns, strict=True):
                        copy.write_row((user_id, device_id, *row))
        except (UniqueViolation, DeadlockDetected):  # another writer of the same keys
            return None
        return len(records)

    def clipped_seconds(self, *, user_id: int, device_id: str, records: NewRecords) -> float:
        if not len(records):
            return 0.0
        ends = [end for end in records.ts_end if end is not None]
        row = self._one(
            "clipped_seconds",
            {
                "user_id": user_id,
                "device_id": device_id,
                "keys": records.client_record_id,
                "ts_from": min(records.ts_start),
                "ts_to": max([*ends, *records.ts_start]),
            },
        )
        return float(row["clipped_s"]) if row else 0.0

    def delete_records(
        self,
        *,
        user_id: int,
        record_ids: Sequence[int] | None = None,
        device_id: str | None = None,
        ts_from: datetime | None = None,
        ts_to: datetime | None = None,
    ) -> dict[tuple[str, date], int]:
        params = {
            "user_id": user_id,
            "record_ids": list(record_ids) if record_ids is not None else None,
            "device_id": device_id,
            "ts_from": ts_from,
            "ts_to": ts_to,
        }

        def delete() -> dict[tuple[str, date], int]:
            # One transaction: nothing built from the deleted records serves their text
            # once it commits; the rebuild (jobs, or the sweep) fills the layers again.
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(QUERIES["lock_records"], {"user_id": user_id})
                hit = {
                    (r["device_id"], r["day_local"]): int(r["n"])
                    for r in conn.execute(QUERIES["tombstone_records"], params)
                }
                if not hit:
                    return {}
                device_days = sorted(hit)
                days = sorted({day for _, day in device_days})
                conn.execute(
                    QUERIES["delete_episodes_of_device_days"],
                    {
                        "user_id": user_id,
                        "devices": [device for device, _ in device_days],
                        "days": [day for _, day in device_days],
                    },
                )
                # Digests before signals, as a rollup writes them (one lock order).
                conn.execute(
                    QUERIES["strip_digests"],
                    {"user_id": user_id, "keys": sorted({k for d in days for k in scope_keys(d)})},
                )
                conn.execute(
                    QUERIES["delete_day_signals"],
                    {"user_id": user_id, "keys": [day_key(day) for day in days]},
                )
                # What quotes the records outside the layers: re-label notes and the
                # conversation turns that read their time.
                conn.execute(QUERIES["blank_notes_touching_deleted"], {"user_id": user_id})
                conn.execute(QUERIES["drop_turns_reaching_deleted"], {"user_id": user_id})
                return hit

        return retrying(delete)

    def day_category_seconds(
        self, *, user_id: int, day_from: date, day_to: date
    ) -> dict[tuple[date, str], float]:
        rows = self._all(
            "day_category_seconds", {"user_id": user_id, "day_from": day_from, "day_to": day_to}
        )
        return {(row["day_local"], row["category"]): float(row["seconds"]) for row in rows}

    # -- imports started over HTTP ------------------------------------------------

    def create_import(self, *, user_id: int, source: str) -> int:
        row = self._one("create_import", {"user_id": user_id, "source": source})
        assert row is not None  # RETURNING always yields the row
        return int(row["import_id"])

    def update_import(self, *, user_id: int, import_id: int, progress: ImportProgress) -> None:
        params = {f: getattr(progress, f) for f in ImportProgress.__dataclass_fields__}
        with self.pool.connection() as conn:
            conn.execute(
                QUERIES["update_import"], {"user_id": user_id, "import_id": import_id, **params}
            )

    def get_import(self, *, user_id: int, import_id: int) -> ImportRow | None:
        return self._one_as(ImportRow, "get_import", {"user_id": user_id, "import_id": import_id})

    # -- jobs --------------------------------------------------------------------

    def defer(self, jobs: Sequence[JobRequest]) -> int:
        with self.pool.connection() as conn:
            return self._defer(conn, jobs)

    def _defer(self, conn: Connection, jobs: Sequence[JobRequest]) -> int:
        from procrastinate.exceptions import AlreadyEnqueued

        added = 0
        # Queueing-lock order: transactions that defer several jobs lock them in one order.
        for job in sorted(jobs, key=lambda j: j.queueing_lock or ""):
            deferrer = self._jobs.configure_task(
                job.task_name,
                queue=job.queue,
                lock=job.lock,
                queueing_lock=job.queueing_lock,
                priority=job.priority,
                connection=conn,
            )
            try:
                with conn.transaction():  # a savepoint: a waiting twin must not abort the caller
                    if job.queueing_lock is not None and self._waiting(conn, job.queueing_lock):
                        continue
                    deferrer.defer(**job.args)
            except AlreadyEnqueued:
                continue  # a twin deferred without the advisory lock won the race
            added += 1
        return added

    @staticmethod
    def _waiting(conn: Connection, queueing_lock: str) -> bool:
        """True when a job already waits under this queueing lock; it then cannot start
        before this transaction commits. The advisory lock serialises deferrals of one
        key, so a duplicate is skipped here instead of failing the unique index (an ERROR
        line in the server log for every de-duplicated job)."""
        params = {"queueing_lock": queueing_lock}
        conn.execute(QUERIES["lock_queueing_lock"], params)
        return conn.execute(QUERIES["job_waiting"], params).fetchone() is not None

    def recover_stalled_jobs(self, *, stalled_after_s: float) -> int:
        recovered = 0
        with self.pool.connection() as conn:
            while recovered < _MAX_RECOVERED:
                with conn.transaction():  # one job at a time: its row stays locked meanwhile
                    row = conn.execute(
                        QUERIES["next_stalled_job"], {"stalled_after_s": stalled_after_s}
                    ).fetchone()
                    if row is None:
                        break
                    conn.execute(
                        QUERIES["requeue_job"],
                        {
                            "job_id": row["id"],
                            "retry_at": None,
                            "priority": None,
                            "queue": None,
                            "lock": None,
                        },
                    )
                recovered += 1
        return recovered

    def job_health(self, *, stalled_after_s: float) -> JobHealth:
        health = self._one_as(JobHealth, "job_health", {"stalled_after_s": stalled_after_s})
        assert health is not None  # an aggregate always yields one row
        return health

    # -- episodes (L2) -------------------------------------------------------------

    def devices_with_work(self) -> list[tuple[int, str]]:
        return [(r["user_id"], r["device_id"]) for r in self._all("devices_with_work", {})]

    def days_to_build(self, *, user_id: int, device_id: str) -> list[date]:
        rows = self._all("days_to_build", {"user_id": user_id, "device_id": device_id})
        return [r["day_local"] for r in rows]

    def days_to_reopen(self, *, user_id: int, device_id: str, days: Sequence[date]) -> list[date]:
        rows = self._all(
            "days_to_reopen", {"user_id": user_id, "device_id": device_id, "days": list(days)}
        )
        return sorted(r["day_local"] for r in rows)

    def reopen_days(
        self,
        *,
        user_id: int,
        device_id: str,
        days: Sequence[date],
        digest_keys: Sequence[str],
        then: Sequence[JobRequest] = (),
    ) -> None:
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(
                QUERIES["delete_device_day_episodes"],
                {"user_id": user_id, "device_id": device_id, "days": list(days)},
            )
            conn.execute(
                QUERIES["mark_digests_stale"],
                {"user_id": user_id, "keys": list(digest_keys)},
            )
            self._defer(conn, then)

    def records_to_segment(
        self, *, user_id: int, device_id: str, day: date, ts_from: datetime, ts_to: datetime
    ) -> SegmentRead:
        params = {"user_id": user_id, "device_id": device_id, "ts_from": ts_from, "ts_to": ts_to}
        with self.pool.connection() as conn, conn.transaction():
            # One snapshot for the records and their window's stamp.
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            rows = conn.execute(QUERIES["records_to_segment"], {**params, "day": day}).fetchall()
            stamp = conn.execute(QUERIES["read_window_stamp"], params).fetchone()
        records = [
            SegmentInput(
                record_id=r["record_id"],
                ts=r["ts_start"].timestamp(),
                duration=r["duration_s"],
                app=r["app"],
                title=r["window_title"],
                domain=r["domain"],
                category=r["category"],
                is_idle=r["is_idle"],
                day=r["day_local"],
                confidence=float(r["confidence"]),
            )
            for r in rows
        ]
        assert stamp is not None  # an aggregate always yields one row
        return SegmentRead(
            records=records,
            window=ReadWindow(
                device_id=device_id, ts_from=ts_from, ts_to=ts_to, stamp=stamp["stamp"]
            ),
        )

    def save_episodes(
        self,
        *,
        user_id: int,
        drafts: Sequence[EpisodeDraft],
        window: ReadWindow,
        then: Sequence[JobRequest] = (),
    ) -> list[int] | None:
        def save() -> list[int] | None:
            ids: list[int] = []
            record_ids: list[int] = []
            episode_ids: list[int] = []
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(QUERIES["lock_records_shared"], {"user_id": user_id})
                live = conn.execute(
                    QUERIES["read_window_stamp"],
                    {
                        "user_id": user_id,
                        "device_id": window.device_id,
                        "ts_from": window.ts_from,
                        "ts_to": window.ts_to,
                    },
                ).fetchone()
                if live is None or live["stamp"] != window.stamp:
                    return None
                for d in drafts:
                    row = conn.execute(
                        QUERIES["insert_episode"], _episode_params(user_id, d)
                    ).fetchone()
                    if row is None:  # already stored by an earlier run of the same job
                        continue
                    ids.append(row["episode_id"])
                    record_ids += d.record_ids
                    episode_ids += [row["episode_id"]] * len(d.record_ids)
                conn.execute(
                    QUERIES["link_records"],
                    {"user_id": user_id, "record_ids": record_ids, "episode_ids": episode_ids},
                )
                self._defer(conn, then)
            return ids

        return retrying(save)

    # -- digests (L3/L4) and signals -------------------------------------------------

    def period_metrics(self, *, user_id: int, day_from: date, day_to: date) -> PeriodMetrics:
        row = self._one(
            "period_metrics", {"user_id": user_id, "day_from": day_from, "day_to": day_to}
        )
        assert row is not None  # an aggregate always yields one row
        metrics = DigestMetrics(
            seconds_by_category=row["seconds_by_category"],
            seconds_by_app=row["seconds_by_app"],
            episode_count=row["episode_count"],
            active_seconds=row["active_seconds"],
            idle_seconds=row["idle_seconds"],
            switch_count=row["switch_count"],
            interruption_seconds=row["interruption_seconds"],
            top_titles=row["top_titles"],
            first_activity=_iso(row["first_activity"]),
            last_activity=_iso(row["last_activity"]),
        )
        return PeriodMetrics(
            metrics=metrics,
            computed_through_ts=row["computed_through_ts"],
            episode_ids=list(row["episode_ids"]),
        )

    def day_facts(self, *, user_id: int, day: date) -> tuple[list[EpisodeFacts], list[MemberFacts]]:
        params = {"user_id": user_id, "day": day}
        episodes = [
            EpisodeFacts(
                episode_id=r["episode_id"],
                device_id=r["device_id"],
                ts_start=r["ts_start"],
                ts_end=r["ts_end"],
                category=r["category"],
                active_s=r["active_s"],
                interruption_s=r["interruption_s"],
                interruptions=r["interruptions"],
                cues=[str(c) for c in r["cues"]],
            )
            for r in self._all("day_episode_facts", params)
        ]
        members = [MemberFacts(**r) for r in self._all("day_member_facts", params)]
        return episodes, members

    def day_is_settled(self, *, user_id: int, day: date) -> bool:
        row = self._one("day_is_settled", {"user_id": user_id, "day": day})
        return bool(row and row["settled"])

    def save_digest(self, *, user_id: int, digest: DigestDraft) -> int:
        with self.pool.connection() as conn:
            return _upsert_digest(conn, user_id, digest)

    def save_day_rollup(
        self,
        *,
        user_id: int,
        digest: DigestDraft,
        day: date,
        signals: Sequence[SignalDraft],
        then: Sequence[JobRequest] = (),
    ) -> int:
        with self.pool.connection() as conn, conn.transaction():
            digest_id = _upsert_digest(conn, user_id, digest)
            for s in signals:
                conn.execute(
                    QUERIES["upsert_signal"],
                    {
                        "user_id": user_id,
                        "kind": s.kind,
                        "scope": digest.scope_key,
                        "signal_key": s.key,
                        "ts_start": s.ts_start,
                        "ts_end": s.ts_end,
                        "day_local": day,
                        "severity": s.severity,
                        "metrics": Jsonb(s.metrics),
                        "evidence": Jsonb(dict(s.evidence)),
                    },
                )
            conn.execute(
                QUERIES["delete_other_signals"],
                {
                    "user_id": user_id,
                    "scope": digest.scope_key,
                    "keep": [f"{s.kind}|{s.key}" for s in signals],
                },
            )
            self._defer(conn, then)
        return digest_id

    def sources_through(
        self, *, user_id: int, grain: str, day_from: date, day_to: date
    ) -> datetime | None:
        if grain == "day":
            row = self._one("day_sources_through", {"user_id": user_id, "day": day_from})
        else:
            row = self._one(
                "period_sources_through",
                {"user_id": user_id, "key_from": day_key(day_from), "key_to": day_key(day_to)},
            )
        return row["through"] if row else None

    def day_digests(self, *, user_id: int, day_from: date, day_to: date) -> list[DigestRow]:
        return self._all_as(
            DigestRow,
            "day_digests",
            {"user_id": user_id, "key_from": day_from.isoformat(), "key_to": day_to.isoformat()},
        )

    def active_days(self, *, user_id: int, day_from: date, day_to: date) -> int:
        row = self._one("active_days", {"user_id": user_id, "day_from": day_from, "day_to": day_to})
        return int(row["n"]) if row else 0

    def rollups_due(self) -> list[tuple[int, date]]:
        return [(r["user_id"], r["day_local"]) for r in self._all("rollups_due", {})]

    def periods_due(self) -> list[tuple[int, str, str]]:
        return [(r["user_id"], r["grain"], r["scope_key"]) for r in self._all("periods_due", {})]

    def episode_counts(self, *, user_id: int, day_from: date, day_to: date) -> dict[date, int]:
        rows = self._all(
            "episode_counts_by_day", {"user_id": user_id, "day_from": day_from, "day_to": day_to}
        )
        return {r["day_local"]: int(r["n"]) for r in rows}

    def get_user_by_id(self, *, user_id: int) -> UserContext | None:
        return _user(self._one("get_user_by_id", {"user_id": user_id}))


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _episode_params(user_id: int, d: EpisodeDraft) -> dict[str, Any]:
    return {
        "user_id": user_id,
        "episode_key": d.episode_key,
        "device_id": d.device_id,
        "ts_start": d.ts_start,
        "ts_end": d.ts_end,
        "day_local": d.day_local,
        "primary_app": d.primary_app,
        "cluster_key": d.cluster_key,
        "category": d.category,
        "title": d.title,
        "summary_status": d.summary_status,
        "interruptions": Jsonb(d.interruptions),
        "frame_count": d.frame_count,
        "duration_s": d.duration_s,
        "active_s": d.active_s,
        "category_seconds": Jsonb(d.category_seconds),
        "app_seconds": Jsonb(d.app_seconds),
        "switch_count": d.switch_count,
        "interruption_s": d.interruption_s,
        "boundary": d.boundary,
        "fts_text": fts_document(d.title, d.primary_app, d.cluster_key),
    }


def _upsert_digest(conn: Connection, user_id: int, digest: DigestDraft) -> int:
    params = {
        "user_id": user_id,
        "grain": digest.grain,
        "scope_key": digest.scope_key,
        "period_start": digest.period_start,
        "period_end": digest.period_end,
        "metrics": Jsonb(digest.metrics),
        "source_ids": Jsonb(digest.source_ids),
        "computed_through_ts": digest.computed_through_ts,
        "finalized": digest.finalized,
        "sources_through": digest.sources_through,
    }
    row = conn.execute(QUERIES["upsert_digest"], params).fetchone()
    if row is None:  # unchanged: the upsert wrote nothing
        row = conn.execute(QUERIES["digest_id"], params).fetchone()
    assert row is not None
    return int(row["digest_id"])
