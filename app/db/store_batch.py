"""The batch build's reads and writes (mixed into PostgresStore): a device's timeline a
chunk at a time, episodes by COPY into staging and one INSERT, a chunk's day digests
read in one query and written in one transaction."""

from __future__ import annotations

from collections.abc import Sequence

from psycopg.types.json import Jsonb

from app.db.base import retrying
from app.db.named import Params, method, rows
from app.db.queries import QUERIES
from app.db.store_digests import upsert_digest_params
from app.db.store_episodes import (
    jumped_days_params,
    stamped_read,
    window_params,
    window_unchanged,
)
from app.db.store_jobs import PostgresJobStore
from app.store.batch import (
    BatchRead,
    BatchStore,
    DayMetrics,
    DayRollup,
    SavedEpisode,
    StreamRecord,
)
from app.store.episodes import EpisodeDraft, ReadWindow
from app.text import fts_document

# The columns of `copy_episode_staging`, in binary.
_STAGING_TYPES = [
    "text", "text", "timestamptz", "text", "timestamptz", "text", "timestamptz", "date",
    "text", "text", "text", "text", "text", "jsonb", "int4", "float8", "float8", "jsonb",
    "jsonb", "int4", "float8", "text", "text", "text", "text",
]  # fmt: skip


class PostgresBatchStore(PostgresJobStore):
    def _batch_stream(self, params: Params) -> BatchRead:
        records, window = stamped_read(
            self.pool, StreamRecord, QUERIES["batch_stream"], params, binary=True
        )
        return BatchRead.model_construct(records=records, window=window)

    batch_stream = method(BatchStore.batch_stream, _batch_stream)

    def _save_episode_chunk(self, params: Params) -> list[SavedEpisode] | None:
        user = {"user_id": params["user_id"]}
        window: ReadWindow = params["window"]
        drafts: Sequence[EpisodeDraft] = params["drafts"]
        read = window_params(params["user_id"], window)

        def save() -> list[SavedEpisode] | None:
            with self.pool.connection() as conn, conn.transaction():
                if not window_unchanged(conn, read, window):
                    return None
                if not drafts:
                    return []
                conn.execute(
                    QUERIES["mark_jumped_days"], jumped_days_params(read, window, drafts[0])
                )
                conn.execute(QUERIES["create_episode_staging"])
                with conn.cursor().copy(QUERIES["copy_episode_staging"]) as copy:
                    copy.set_types(_STAGING_TYPES)
                    for d in drafts:
                        copy.write_row(_staging_row(d))
                # Not `fetch_all`: the drift test cannot describe a query over a temp table.
                saved = [
                    SavedEpisode.model_construct(**row)
                    for row in conn.execute(QUERIES["insert_staged_episodes"], user)
                ]
            return saved

        return retrying(save)

    save_episode_chunk = method(BatchStore.save_episode_chunk, _save_episode_chunk)

    # The span of the days bounds the records their seconds by user category read.
    batch_day_metrics = rows(
        BatchStore.batch_day_metrics,
        DayMetrics,
        derive=lambda params: {
            "day_from": min(params["days"], default=None),
            "day_to": max(params["days"], default=None),
        },
    )

    def _save_day_rollups(self, params: Params) -> None:
        user_id: int = params["user_id"]
        rollups: Sequence[DayRollup] = params["rollups"]
        digests = [{**upsert_digest_params(user_id, r.digest)} for r in rollups]
        signals = [
            {
                **dict(s),
                "user_id": user_id,
                "scope": r.digest.scope_key,
                "signal_key": s.key,
                "day_local": r.day,
                "metrics": Jsonb(s.metrics),
                "evidence": Jsonb(dict(s.evidence)),
            }
            for r in rollups
            for s in r.signals
        ]
        others = [
            {
                "user_id": user_id,
                "scope": r.digest.scope_key,
                "keep": [f"{s.kind}|{s.key}" for s in r.signals],
            }
            for r in rollups
        ]
        with self.pool.connection() as conn, conn.transaction(), conn.cursor() as cur:
            cur.executemany(QUERIES["upsert_digest"], digests)
            if signals:
                cur.executemany(QUERIES["upsert_signal"], signals)
            cur.executemany(QUERIES["delete_other_signals"], others)

    save_day_rollups = method(BatchStore.save_day_rollups, _save_day_rollups)


def _staging_row(d: EpisodeDraft) -> tuple[object, ...]:
    return (
        d.episode_key,
        d.device_id,
        d.ts_start,
        d.first_key,
        d.last_start,
        d.last_key,
        d.ts_end,
        d.day_local,
        d.primary_app,
        d.cluster_key,
        d.category,
        d.title,
        d.summary_status,
        Jsonb(d.interruptions),
        d.frame_count,
        d.duration_s,
        d.active_s,
        Jsonb(d.category_seconds),
        Jsonb(d.app_seconds),
        d.switch_count,
        d.interruption_s,
        d.boundary,
        fts_document(d.title, d.primary_app, d.cluster_key, d.summary),
        d.summary,
        d.summary_by,
    )
