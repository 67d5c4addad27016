"""Episodes (L2): what the episode builder reads and writes (mixed into PostgresStore)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

from psycopg.types.json import Jsonb

from app.db.base import retrying
from app.db.queries import QUERIES
from app.db.store_jobs import PostgresJobStore
from app.store import (
    EpisodeDraft,
    JobRequest,
    ReadWindow,
    SegmentInput,
    SegmentRead,
)
from app.text import fts_document


class PostgresEpisodeStore(PostgresJobStore):
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

    def episode_counts(self, *, user_id: int, day_from: date, day_to: date) -> dict[date, int]:
        rows = self._all(
            "episode_counts_by_day", {"user_id": user_id, "day_from": day_from, "day_to": day_to}
        )
        return {r["day_local"]: int(r["n"]) for r in rows}


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
