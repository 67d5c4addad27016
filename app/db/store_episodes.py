"""Episodes (L2): what the episode builder reads and writes (mixed into PostgresStore)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, LiteralString

from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from app.db.base import RowT, fetch_all, retrying
from app.db.connection import Connection
from app.db.named import Params, column, execute, method, rows
from app.db.queries import QUERIES
from app.db.store_jobs import PostgresJobStore
from app.store import (
    DayCount,
    EpisodeDraft,
    EpisodeStore,
    ReadWindow,
    SegmentInput,
    SegmentRead,
    UserDevice,
)
from app.text import fts_document


def stamped_read(
    pool: ConnectionPool[Connection],
    row: type[RowT],
    query: LiteralString,
    params: Params,
    *,
    binary: bool = False,
) -> tuple[list[RowT], ReadWindow]:
    """A window's records and its stamp, in one snapshot (a save compares the stamp)."""
    with pool.connection() as conn, conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        records = fetch_all(conn, row, query, params, binary=binary)
        stamp = conn.execute(QUERIES["read_window_stamp"], params).fetchone()
    assert stamp is not None  # one row, always
    window = {k: params[k] for k in ("device_id", "day", "ts_from", "ts_to")}
    return records, ReadWindow.model_construct(**window, **stamp)


class PostgresEpisodeStore(PostgresJobStore):
    devices_with_work = rows(EpisodeStore.devices_with_work, UserDevice)
    refresh_statistics = execute(EpisodeStore.refresh_statistics)
    days_to_build = column(EpisodeStore.days_to_build)
    days_to_reopen = column(EpisodeStore.days_to_reopen)
    episode_counts = rows(EpisodeStore.episode_counts, DayCount, query="episode_counts_by_day")

    def _reopen_days(self, params: Params) -> None:
        days = list(params["days"])
        marks = {
            "user_id": params["user_id"],
            "devices": [params["device_id"]] * len(days),
            "days": days,
            "first_ts": [None] * len(days),
            "first_gone": [None] * len(days),
        }

        def reopen() -> None:
            # Retried: a late record's insert marks the same day's rows in its own order.
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(QUERIES["delete_device_day_episodes"], params)
                conn.execute(QUERIES["mark_device_days"], marks)
                conn.execute(
                    QUERIES["mark_digests_stale"], {**params, "keys": params["digest_keys"]}
                )
                self._defer(conn, params["then"])

        retrying(reopen)

    reopen_days = method(EpisodeStore.reopen_days, _reopen_days)

    def _records_to_segment(self, params: Params) -> SegmentRead:
        records, window = stamped_read(
            self.pool, SegmentInput, QUERIES["records_to_segment"], params
        )
        return SegmentRead.model_construct(records=records, window=window)

    records_to_segment = method(EpisodeStore.records_to_segment, _records_to_segment)

    def _save_episodes(self, params: Params) -> list[int] | None:
        user = {"user_id": params["user_id"]}
        window: ReadWindow = params["window"]
        drafts: Sequence[EpisodeDraft] = params["drafts"]
        read = {
            **user,
            "device_id": window.device_id,
            "day": window.day,
            "ts_from": window.ts_from,
            "ts_to": window.ts_to,
        }

        def save() -> list[int] | None:
            ids: list[int] = []
            with self.pool.connection() as conn, conn.transaction():
                conn.execute(QUERIES["lock_records_shared"], user)
                conn.execute(QUERIES["lock_device_build"], read)
                live = conn.execute(QUERIES["read_window_stamp"], read).fetchone()
                if live is None or live["stamp"] != window.stamp:
                    return None
                if drafts:
                    first = drafts[0]
                    conn.execute(
                        QUERIES["mark_jumped_days"],
                        {**read, "first_start": first.ts_start, "first_key": first.first_key},
                    )
                    # One round trip for the day's episodes (psycopg pipelines them).
                    with conn.cursor() as cur:
                        cur.executemany(
                            QUERIES["insert_episode"],
                            [_episode(user, d) for d in drafts],
                            returning=True,
                        )
                        while True:
                            row = cur.fetchone()
                            if row is not None:  # None: stored by an earlier run of the job
                                ids.append(row["episode_id"])
                            if not cur.nextset():
                                break
                if window.marked:
                    conn.execute(QUERIES["clear_day_mark"], read)
                self._defer(conn, params["then"])
            return ids

        return retrying(save)

    save_episodes = method(EpisodeStore.save_episodes, _save_episodes)


def _episode(user: dict[str, int], d: EpisodeDraft) -> dict[str, Any]:
    """An episode's parameters: its draft, the jsonb documents wrapped, its FTS text."""
    return {
        **user,
        **{k: v for k, v in d if k != "record_ids"},
        "interruptions": Jsonb(d.interruptions),
        "category_seconds": Jsonb(d.category_seconds),
        "app_seconds": Jsonb(d.app_seconds),
        "fts_text": fts_document(d.title, d.primary_app, d.cluster_key),
    }
