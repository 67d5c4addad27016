-- L2 episodes: what the episode builder reads and writes.

-- name: devices_with_work --
-- global: the sweep: finds the devices of every user with work to build
-- Devices with records waiting for an episode, or stale episodes to rebuild.
SELECT DISTINCT user_id, device_id FROM records WHERE episode_id IS NULL AND deleted_at IS NULL
UNION
SELECT DISTINCT user_id, device_id FROM episodes WHERE stale;

-- name: days_to_build --
SELECT DISTINCT day_local FROM records
WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND episode_id IS NULL AND deleted_at IS NULL
UNION
SELECT DISTINCT day_local FROM episodes
WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND stale
ORDER BY day_local;

-- name: days_to_reopen --
-- Device-days whose closed episodes can no longer stand: a stale one (its records
-- changed); a record that arrived late, before the end of a closed episode of its day,
-- or of an earlier day whose last record it now cuts short (a record runs at most
-- 24 hours, so two days back at most); an earlier day whose last episode runs up to a
-- stale one, or to a deleted record of a rebuilt day (deletion drops that day's
-- episodes, so its tombstones are unassigned): either may have cut that day's last
-- record short.
WITH stale AS (
    SELECT day_local, ts_start FROM episodes
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND stale
      AND day_local = ANY(%(days)s)
), late AS (
    SELECT day_local, min(ts_start) FILTER (WHERE deleted_at IS NULL) AS first_ts,
           min(ts_start) FILTER (WHERE deleted_at IS NOT NULL) AS first_gone
    FROM records
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND episode_id IS NULL
      AND day_local = ANY(%(days)s)
    GROUP BY day_local
), device_episodes AS (
    SELECT day_local, ts_end FROM episodes
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s
)
SELECT day_local FROM stale
UNION
SELECT e.day_local FROM late r JOIN device_episodes e
    ON e.day_local BETWEEN r.day_local - 2 AND r.day_local AND e.ts_end > r.first_ts
UNION
SELECT e.day_local FROM late r JOIN device_episodes e
    ON e.day_local BETWEEN r.day_local - 2 AND r.day_local - 1 AND e.ts_end >= r.first_gone
UNION
SELECT e.day_local FROM stale s JOIN device_episodes e
    ON e.day_local BETWEEN s.day_local - 2 AND s.day_local - 1 AND e.ts_end >= s.ts_start
ORDER BY day_local;

-- name: delete_device_day_episodes --
-- Records fall back to unassigned (ON DELETE SET NULL) and are segmented again.
DELETE FROM episodes
WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND day_local = ANY(%(days)s);

-- name: records_to_segment --
-- One device-day's unassigned records with their durations (the effective span: ties
-- by key, as everywhere the duration rule runs). The window runs over every live record
-- of the read window; the last one's successor may lie past it.
-- Its columns are SegmentInput's fields (times in epoch seconds).
SELECT x.record_id, extract(epoch FROM x.ts_start)::float8 AS ts, x.duration_s AS duration,
       x.app, x.window_title AS title, x.domain, x.category, x.is_idle, x.day_local AS day,
       COALESCE(a.confidence, 1.0)::float8 AS confidence
FROM (
    SELECT r.record_id, r.user_id, r.ts_start, r.client_record_id, r.app, r.window_title,
           r.domain, r.category, r.is_idle, r.day_local, r.episode_id,
           timetrace_duration_s(r.ts_start, r.ts_end, COALESCE(
               lead(r.ts_start) OVER (ORDER BY r.ts_start, r.client_record_id COLLATE "C"),
               timetrace_next_start(r.user_id, r.device_id, r.ts_start, r.client_record_id)))
               AS duration_s
    FROM records r
    WHERE r.user_id = %(user_id)s AND r.device_id = %(device_id)s AND r.deleted_at IS NULL
      AND r.ts_start >= %(ts_from)s AND r.ts_start < %(ts_to)s
) x
LEFT JOIN record_analyses a ON a.user_id = x.user_id AND a.record_id = x.record_id
WHERE x.episode_id IS NULL AND x.day_local = %(day)s
ORDER BY x.ts_start, x.client_record_id COLLATE "C";

-- name: read_window_stamp --
-- The read window's live records stamped by id and row version: read in the snapshot of
-- `records_to_segment`, and again before episodes are saved (under
-- `lock_records_shared`). A record deleted, re-labelled or linked by another build in
-- between changes the stamp.
SELECT COALESCE(md5(string_agg(record_id || ':' || xmin, ',' ORDER BY record_id)), '')
       AS stamp
FROM records
WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND deleted_at IS NULL
  AND ts_start >= %(ts_from)s AND ts_start < %(ts_to)s;

-- name: lock_records_shared --
-- Taken by a build's save: saves go on side by side, but not while a deletion or a
-- re-label of the user's records (`lock_records`) runs. Whichever commits second sees
-- the other's rows: the save compares its stamp after the change, or the change finds
-- the records linked to the new episodes (and drops them, or marks them stale).
SELECT pg_advisory_xact_lock_shared(hashtextextended('timetrace-records:' || %(user_id)s, 0));

-- name: lock_records --
-- Taken first by a deletion and by a re-label of the user's records (see above).
SELECT pg_advisory_xact_lock(hashtextextended('timetrace-records:' || %(user_id)s, 0));

-- name: insert_episode --
INSERT INTO episodes (
    user_id, episode_key, device_id, ts_start, ts_end, day_local, primary_app, cluster_key,
    category, title, auto_title, summary_status, interruptions, frame_count, duration_s, active_s,
    category_seconds, app_seconds, switch_count, interruption_s, boundary, closed, fts)
VALUES (
    %(user_id)s, %(episode_key)s, %(device_id)s, %(ts_start)s, %(ts_end)s, %(day_local)s,
    %(primary_app)s, %(cluster_key)s, %(category)s, %(title)s, %(title)s, %(summary_status)s,
    %(interruptions)s, %(frame_count)s, %(duration_s)s, %(active_s)s, %(category_seconds)s,
    %(app_seconds)s, %(switch_count)s, %(interruption_s)s, %(boundary)s, true,
    to_tsvector('simple', %(fts_text)s))
ON CONFLICT (user_id, episode_key) DO NOTHING
RETURNING episode_id;

-- name: link_records --
UPDATE records r SET episode_id = u.episode_id
FROM unnest(%(record_ids)s::bigint[], %(episode_ids)s::bigint[]) AS u(record_id, episode_id)
WHERE r.user_id = %(user_id)s AND r.record_id = u.record_id AND r.episode_id IS NULL;

-- name: mark_digests_stale --
-- Scope keys of the three grains never collide (2026-06-02, 2026-W23, 2026-06).
UPDATE digests SET stale = true, finalized = false
WHERE user_id = %(user_id)s AND NOT stale AND scope_key = ANY(%(keys)s);


-- name: episode_counts_by_day --
SELECT day_local, count(*) AS n FROM episodes
WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s AND NOT stale
GROUP BY day_local ORDER BY day_local;


-- name: refresh_statistics --
-- global: maintenance: the planner's statistics of the whole table
-- Before a bulk build: the planner's statistics of records as they are now (a sample of
-- rows, so about a second for a year), not as they were before a large load.
ANALYZE records;
