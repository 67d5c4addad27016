"""Episodes (L2): what the episode builder reads and writes (mixed into PostgresStore)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any, LiteralString

from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool

from app.db.base import RowT, fetch_all, retrying
from app.db.connection import Connection
from app.db.named import Params, method, rows
from app.db.queries import QUERIES
from app.db.store_jobs import PostgresJobStore
from app.store.episodes import (
    DayCount,
    EpisodeDraft,
    EpisodeStore,
    ReadWindow,
    SegmentInput,
    SegmentRead,
)
from app.text import fts_document

# The live build's statements over `records` run on generic plans once psycopg has
# prepared them: planned once per connection, each month not in the window pruned as the
# executor starts (the bounds are parameters, never the watermark's subquery alone). Left
# to choose, PostgreSQL keeps a custom plan for them once `records` has many months (the
# generic plan's cost counts every month), and plans each call again: at three years of
# history that cost more than the day's reads themselves.
GENERIC_PLANS: LiteralString = "SET LOCAL plan_cache_mode = force_generic_plan"
SNAPSHOT: LiteralString = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"


def stamped_read(
    pool: ConnectionPool[Connection],
    row: type[RowT],
    query: LiteralString,
    params: Params,
    *,
    binary: bool = False,
    generic: bool = False,
) -> tuple[list[RowT], ReadWindow]:
    """A window's records and its stamp, in one snapshot (a save compares the stamp);
    `generic`: on generic plans (the live build's day, see GENERIC_PLANS)."""
    with pool.connection() as conn, conn.transaction():
        # One round trip: without parameters psycopg sends both statements as one query.
        conn.execute(SNAPSHOT + "; " + GENERIC_PLANS if generic else SNAPSHOT)
        records = fetch_all(conn, row, query, params, binary=binary)
        stamp = conn.execute(QUERIES["read_window_stamp"], params).fetchone()
    assert stamp is not None  # one row, always
    window = {k: params[k] for k in ("device_id", "day", "ts_from", "ts_to")}
    return records, ReadWindow.model_construct(**window, **stamp)


def window_params(user_id: int, window: ReadWindow) -> Params:
    """The parameters that name a read window (its device, day and bounds)."""
    return {
        "user_id": user_id,
        "device_id": window.device_id,
        "day": window.day,
        "ts_from": window.ts_from,
        "ts_to": window.ts_to,
    }


def window_unchanged(
    conn: Connection, read: Params, window: ReadWindow, *, generic: bool = False
) -> bool:
    """Take a save's locks (records shared, the device's build exclusive) and say whether
    the window's records are still as they were read (its stamp); `generic`: the rest of
    the transaction on generic plans."""
    if generic:
        conn.execute(GENERIC_PLANS)
    conn.execute(QUERIES["lock_records_shared"], read)
    conn.execute(QUERIES["lock_device_build"], read)
    live = conn.execute(QUERIES["read_window_stamp"], read).fetchone()
    return live is not None and live["stamp"] == window.stamp


def days_after_watermark(
    pool: ConnectionPool[Connection], query: LiteralString, params: Params
) -> list[date]:
    """The days a query over the device's records after its watermark finds. The
    watermark is read first, in the same snapshot, and passed as `floor`: a constant
    the planner prunes the months of `records` with (a bound that comes only from the
    watermark's subquery plans every month of the history, each time)."""
    with pool.connection() as conn, conn.transaction():
        conn.execute(SNAPSHOT + "; " + GENERIC_PLANS)
        mark = conn.execute(QUERIES["device_watermark"], params).fetchone()
        floor = mark["last_start"] if mark is not None else None
        return [row["day_local"] for row in conn.execute(query, {**params, "floor": floor})]


def jumped_days_params(read: Params, window: ReadWindow, first: EpisodeDraft) -> Params:
    """`mark_jumped_days`' parameters for a save whose stamp check just held: `floor` is
    a second below the watermark the window read (the stamp holds it; epoch seconds, so
    the second covers their rounding)."""
    floor = (
        None
        if window.after_ts is None
        else datetime.fromtimestamp(window.after_ts, UTC) - timedelta(seconds=1)
    )
    return {**read, "floor": floor, "first_start": first.ts_start, "first_key": first.first_key}


def _near_days(params: Params) -> Params:
    """The days and the two before each: every day `days_to_reopen` may reopen."""
    days = params["days"]
    return {"near": sorted({d - timedelta(days=k) for d in days for k in range(3)})}


class PostgresEpisodeStore(PostgresJobStore):
    episode_counts = rows(EpisodeStore.episode_counts, DayCount, query="episode_counts_by_day")

    def _days_to_build(self, params: Params) -> list[date]:
        return days_after_watermark(self.pool, QUERIES["days_to_build"], params)

    days_to_build = method(EpisodeStore.days_to_build, _days_to_build)

    def _days_to_reopen(self, params: Params) -> list[date]:
        return days_after_watermark(self.pool, QUERIES["days_to_reopen"], params)

    days_to_reopen = method(EpisodeStore.days_to_reopen, _days_to_reopen, derive=_near_days)

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
            self.pool, SegmentInput, QUERIES["records_to_segment"], params, generic=True
        )
        return SegmentRead.model_construct(records=records, window=window)

    records_to_segment = method(EpisodeStore.records_to_segment, _records_to_segment)

    def _save_episodes(self, params: Params) -> list[int] | None:
        user = {"user_id": params["user_id"]}
        window: ReadWindow = params["window"]
        drafts: Sequence[EpisodeDraft] = params["drafts"]
        read = window_params(params["user_id"], window)

        def save() -> list[int] | None:
            ids: list[int] = []
            with self.pool.connection() as conn, conn.transaction():
                if not window_unchanged(conn, read, window, generic=True):
                    return None
                if drafts:
                    conn.execute(
                        QUERIES["mark_jumped_days"], jumped_days_params(read, window, drafts[0])
                    )
                    # A marked day was built before: its episodes keep their ids.
                    kept = _reclaimed_ids(conn, read, drafts) if window.marked else {}
                    # One round trip for the day's episodes (psycopg pipelines them).
                    with conn.cursor() as cur:
                        cur.executemany(
                            QUERIES["insert_episode"],
                            [
                                _episode(user, d, kept.get((d.ts_start, d.first_key)))
                                for d in drafts
                            ],
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


def _start(d: EpisodeDraft) -> tuple[datetime, str]:
    return d.ts_start, d.first_key


def _reclaimed_ids(
    conn: Connection, read: Params, drafts: Sequence[EpisodeDraft]
) -> dict[tuple[datetime, str], int]:
    """The ids the day's rebuilt episodes left, given back to the drafts that start where
    they started (by first position)."""
    params = {
        **read,
        "firsts": [d.ts_start for d in drafts],
        "first_keys": [d.first_key for d in drafts],
    }
    return {
        (r["ts_start"], r["first_key"]): r["episode_id"]
        for r in conn.execute(QUERIES["reclaim_episode_ids"], params)
    }


def _episode(user: dict[str, int], d: EpisodeDraft, episode_id: int | None) -> dict[str, Any]:
    """An episode's parameters: its draft, the jsonb documents wrapped, its FTS text;
    `episode_id`: the id it takes back (None: a new one)."""
    return {
        **user,
        "episode_id": episode_id,
        **{k: v for k, v in d if k != "record_ids"},
        "interruptions": Jsonb(d.interruptions),
        "category_seconds": Jsonb(d.category_seconds),
        "app_seconds": Jsonb(d.app_seconds),
        "fts_text": fts_document(d.title, d.primary_app, d.cluster_key, d.summary),
    }
