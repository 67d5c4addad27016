-- L2 episodes: what the episode builder reads and writes.

-- name: devices_with_work --
-- global: the sweep: finds the devices of every user with work to build
-- Devices with days marked for a rebuild (or stale episodes), or whose newest live
-- record lies after their watermark (one backward probe each of records and episodes).
SELECT user_id, device_id FROM build_marks
UNION
SELECT user_id, device_id FROM episodes WHERE stale
UNION
SELECT d.user_id, d.device_id FROM devices d
CROSS JOIN LATERAL (
    SELECT r.ts_start, r.client_record_id FROM records r
    WHERE r.user_id = d.user_id AND r.device_id = d.device_id AND r.deleted_at IS NULL
    ORDER BY r.ts_start DESC, r.client_record_id COLLATE "C" DESC LIMIT 1
) n
LEFT JOIN LATERAL (
    SELECT e.last_start, e.last_key FROM episodes e
    WHERE e.user_id = d.user_id AND e.device_id = d.device_id
    ORDER BY e.ts_start DESC, e.first_key COLLATE "C" DESC LIMIT 1
) w ON true
WHERE w.last_start IS NULL
   OR (n.ts_start, n.client_record_id COLLATE "C") > (w.last_start, w.last_key COLLATE "C");

-- name: device_watermark --
-- The device's watermark: the last member position of its newest episode (stale or
-- not). Every live record after it is not built yet.
SELECT last_start, last_key FROM episodes
WHERE user_id = %(user_id)s AND device_id = %(device_id)s
ORDER BY ts_start DESC, first_key COLLATE "C" DESC LIMIT 1;

-- name: days_to_build --
-- The marked days (and days with stale episodes), and the days of the live records
-- after the watermark (the tail: an index range from the watermark on). `floor`: the
-- watermark's start (`device_watermark`) read in the same snapshot, NULL without one.
-- Never a day whose raw records have expired (retention): what is left of it stands.
SELECT day_local FROM (
WITH w AS (
    SELECT last_start, last_key FROM episodes
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s
    ORDER BY ts_start DESC, first_key COLLATE "C" DESC LIMIT 1
)
SELECT day_local FROM build_marks WHERE user_id = %(user_id)s AND device_id = %(device_id)s
UNION
SELECT day_local FROM episodes
WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND stale
UNION
SELECT r.day_local FROM records r
WHERE r.user_id = %(user_id)s AND r.device_id = %(device_id)s AND r.deleted_at IS NULL
  -- `floor` (the watermark's start, read in this snapshot) prunes the months when
  -- planning; a bound from the subquery alone would plan every month of the history.
  AND r.ts_start >= COALESCE(%(floor)s::timestamptz, '-infinity')
  AND r.ts_start >= COALESCE((SELECT last_start FROM w), '-infinity')
  AND (r.ts_start, r.client_record_id COLLATE "C")
      > (COALESCE((SELECT last_start FROM w), '-infinity'),
         COALESCE((SELECT last_key FROM w), '') COLLATE "C")
) AS todo
WHERE day_local >= timetrace_raw_expired_day(%(user_id)s)
ORDER BY day_local;

-- name: days_to_reopen --
-- Device-days whose closed episodes can no longer stand: a marked one (deleted records,
-- a late record, a re-label) or one with a stale episode; an earlier day whose last record a late record, or the
-- first record after the watermark, now cuts short (a record runs at most 24 hours, so
-- two days back at most); an earlier day whose last episode runs up to a stale one, or
-- to a record deleted on a marked day: either may have cut that day's last record short.
WITH w AS (
    SELECT last_start, last_key FROM episodes
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s
    ORDER BY ts_start DESC, first_key COLLATE "C" DESC LIMIT 1
), marked AS (
    SELECT day_local, first_ts, first_gone FROM build_marks
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND day_local = ANY(%(days)s)
), tail AS (
    SELECT r.day_local, r.ts_start AS first_ts FROM records r
    WHERE r.user_id = %(user_id)s AND r.device_id = %(device_id)s AND r.deleted_at IS NULL
      AND r.ts_start >= COALESCE(%(floor)s::timestamptz, '-infinity')  -- as in days_to_build
      AND r.ts_start >= COALESCE((SELECT last_start FROM w), '-infinity')
      AND (r.ts_start, r.client_record_id COLLATE "C")
          > (COALESCE((SELECT last_start FROM w), '-infinity'),
             COALESCE((SELECT last_key FROM w), '') COLLATE "C")
    ORDER BY r.ts_start, r.client_record_id COLLATE "C" LIMIT 1
), late AS (
    SELECT day_local, first_ts, first_gone FROM marked
    UNION ALL
    SELECT day_local, first_ts, NULL FROM tail WHERE day_local = ANY(%(days)s)
), stale AS (
    SELECT day_local, ts_start FROM episodes
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND stale
      AND day_local = ANY(%(days)s)
)
-- The device's episodes of two days back at most, on (user, device, day) each time.
-- `near` (the days and the two before each, as constants) holds every day joined
-- below: without it the planner, blind to the ranges' width, read all the device's
-- episodes of the history (12,000 at three years) instead of a few days' worth.
-- Never a day whose raw records have expired (retention): reopening deletes its episodes.
SELECT day_local FROM (
SELECT day_local FROM marked
UNION
SELECT day_local FROM stale
UNION
SELECT e.day_local FROM late r JOIN episodes e
    ON e.user_id = %(user_id)s AND e.device_id = %(device_id)s AND e.day_local = ANY(%(near)s)
   AND e.day_local BETWEEN r.day_local - 2 AND r.day_local AND e.ts_end > r.first_ts
UNION
SELECT e.day_local FROM late r JOIN episodes e
    ON e.user_id = %(user_id)s AND e.device_id = %(device_id)s AND e.day_local = ANY(%(near)s)
   AND e.day_local BETWEEN r.day_local - 2 AND r.day_local - 1 AND e.ts_end >= r.first_gone
UNION
SELECT e.day_local FROM stale s JOIN episodes e
    ON e.user_id = %(user_id)s AND e.device_id = %(device_id)s AND e.day_local = ANY(%(near)s)
   AND e.day_local BETWEEN s.day_local - 2 AND s.day_local - 1 AND e.ts_end >= s.ts_start
) AS reopen
WHERE day_local >= timetrace_raw_expired_day(%(user_id)s)
ORDER BY day_local;

-- name: delete_device_day_episodes --
-- No record changes: the days are marked in the same transaction (mark_device_days),
-- so their records count as not built until the rebuild. Each id goes to
-- episode_redirects with its first position: the rebuild gives it back to the episode
-- that starts there (reclaim_episode_ids).
WITH gone AS (
    DELETE FROM episodes
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND day_local = ANY(%(days)s)
    RETURNING user_id, episode_id, device_id, day_local, ts_start, first_key
)
INSERT INTO episode_redirects (user_id, episode_id, device_id, day_local, ts_start,
                               first_key)
SELECT user_id, episode_id, device_id, day_local, ts_start, first_key FROM gone
ON CONFLICT (user_id, episode_id) DO UPDATE SET
    device_id = EXCLUDED.device_id, day_local = EXCLUDED.day_local,
    ts_start = EXCLUDED.ts_start, first_key = EXCLUDED.first_key, gone_at = now();

-- name: reclaim_episode_ids --
-- A marked day's save: an id its deleted episodes left comes back to the new episode
-- that starts where it started (their redirect goes). An unchanged span keeps its id;
-- so does a sitting that grew or shrank at its end (a merge keeps the first one's).
DELETE FROM episode_redirects g
USING unnest(%(firsts)s::timestamptz[], %(first_keys)s::text[]) AS d(ts_start, first_key)
WHERE g.user_id = %(user_id)s AND g.device_id = %(device_id)s AND g.day_local = %(day)s
  AND g.ts_start = d.ts_start AND g.first_key = d.first_key
RETURNING g.episode_id, g.first_key, g.ts_start;

-- name: mark_device_days --
-- Marks device-days for a rebuild and sets their episodes stale (timetrace_mark_days).
SELECT timetrace_mark_days(%(user_id)s, %(devices)s::text[], %(days)s::date[],
                           %(first_ts)s::timestamptz[], %(first_gone)s::timestamptz[]) AS marked;

-- name: records_to_segment --
-- One device-day's records not built yet, with their durations (timetrace_spans_v1 over
-- the read window: the last one's successor may lie past it): all of a marked day, else
-- those after the device's watermark.
-- Its columns are SegmentInput's fields (times in epoch seconds).
WITH w AS (
    SELECT last_start, last_key FROM episodes
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s
    ORDER BY ts_start DESC, first_key COLLATE "C" DESC LIMIT 1
)
SELECT x.record_id, x.client_record_id AS key,
       extract(epoch FROM x.ts_start)::float8 AS ts, x.seconds AS duration,
       x.app, x.window_title AS title, x.domain, x.category, x.is_idle, x.day_local AS day,
       COALESCE(a.confidence, 1.0)::float8 AS confidence
FROM timetrace_spans_v1(%(user_id)s, %(ts_from)s, %(ts_to)s) x
LEFT JOIN record_analyses a ON a.user_id = x.user_id AND a.record_id = x.record_id
WHERE x.device_id = %(device_id)s AND x.day_local = %(day)s
  AND (EXISTS (SELECT 1 FROM build_marks m
               WHERE m.user_id = %(user_id)s AND m.device_id = %(device_id)s
                 AND m.day_local = %(day)s)
       OR (x.ts_start, x.client_record_id COLLATE "C")
          > (COALESCE((SELECT last_start FROM w), '-infinity'),
             COALESCE((SELECT last_key FROM w), '') COLLATE "C"))
ORDER BY x.ts_start, x.client_record_id COLLATE "C";

-- name: read_window_stamp --
-- What a build read, stamped: the read window's live records by id and row version, the
-- device's watermark and the day's mark. Read in the snapshot of `records_to_segment`,
-- and again before episodes are saved (under the device build lock): a record
-- inserted, deleted or re-labelled in between, another build's save, or a new mark
-- changes the stamp. The watermark (epoch seconds, as the segmenter's times) and
-- whether the day is marked go to the builder.
WITH w AS (
    SELECT last_start, last_key FROM episodes
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s
    ORDER BY ts_start DESC, first_key COLLATE "C" DESC LIMIT 1
), m AS (
    SELECT marked_at FROM build_marks
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND day_local = %(day)s
), r AS (
    SELECT COALESCE(string_agg(record_id || ':' || xmin, ',' ORDER BY record_id), '') AS ids
    FROM records
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND deleted_at IS NULL
      AND ts_start >= %(ts_from)s AND ts_start < %(ts_to)s
)
SELECT md5(r.ids || '|' || COALESCE((SELECT last_start || ' ' || last_key FROM w), '')
           || '|' || COALESCE((SELECT marked_at::text FROM m), '')) AS stamp,
       EXISTS (SELECT 1 FROM m) AS marked,
       (SELECT extract(epoch FROM last_start)::float8 FROM w) AS after_ts,
       (SELECT last_key FROM w) AS after_key
FROM r;

-- name: lock_device_build --
-- A build's save, exclusive: ingest (`lock_device_build_shared`) waits for it, and then
-- sees its watermark.
SELECT pg_advisory_xact_lock(timetrace_build_lock_key(%(user_id)s, %(device_id)s));

-- name: lock_device_build_shared --
-- An insert of records, shared: inserts go on side by side, but not while a build saves.
SELECT pg_advisory_xact_lock_shared(timetrace_build_lock_key(%(user_id)s, %(device_id)s));

-- name: lock_records_shared --
-- Taken by a build's save: saves go on side by side, but not while a deletion or a
-- re-label of the user's records (`lock_records`) runs. Whichever commits second sees
-- the other's rows: the save compares its stamp after the change, or the change finds
-- the new episodes (and drops them, or marks their day).
SELECT pg_advisory_xact_lock_shared(hashtextextended('timetrace-records:' || %(user_id)s, 0));

-- name: lock_records --
-- Taken first by a deletion and by a re-label of the user's records (see above).
SELECT pg_advisory_xact_lock(hashtextextended('timetrace-records:' || %(user_id)s, 0));

-- name: mark_jumped_days --
-- Before a save's episodes raise the watermark: live records between the watermark and
-- the first new episode would fall below it outside any episode (an earlier day's open
-- tail, a record that arrived meanwhile): their days are marked, their episodes stale.
WITH w AS (
    SELECT last_start, last_key FROM episodes
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s
    ORDER BY ts_start DESC, first_key COLLATE "C" DESC LIMIT 1
), jumped AS (
    SELECT r.day_local, min(r.ts_start) AS first_ts FROM records r
    WHERE r.user_id = %(user_id)s AND r.device_id = %(device_id)s AND r.deleted_at IS NULL
      -- `floor`: a second below the watermark the save's window read (its stamp, just
      -- checked, holds it): a constant the planner prunes the months with.
      AND r.ts_start >= COALESCE(%(floor)s::timestamptz, '-infinity')
      AND r.ts_start >= COALESCE((SELECT last_start FROM w), '-infinity')
      AND r.ts_start <= %(first_start)s
      AND (r.ts_start, r.client_record_id COLLATE "C")
          > (COALESCE((SELECT last_start FROM w), '-infinity'),
             COALESCE((SELECT last_key FROM w), '') COLLATE "C")
      AND (r.ts_start, r.client_record_id COLLATE "C")
          < (%(first_start)s::timestamptz, %(first_key)s::text COLLATE "C")
    GROUP BY r.day_local
), marked AS (
    SELECT timetrace_mark_days(%(user_id)s, array_agg(%(device_id)s::text), array_agg(day_local),
                               array_agg(first_ts), NULL) AS n
    FROM jumped
)
SELECT count(*)::int AS days FROM jumped CROSS JOIN marked;

-- name: insert_episode --
-- `episode_id`: an id given back by reclaim_episode_ids, else the next one.
INSERT INTO episodes (
    episode_id, user_id, episode_key, device_id, ts_start, first_key, last_start, last_key, ts_end,
    day_local, primary_app, cluster_key, category, title, auto_title, summary_status,
    interruptions, frame_count, duration_s, active_s, category_seconds, app_seconds,
    switch_count, interruption_s, boundary, closed, fts, summary, summary_by)
OVERRIDING SYSTEM VALUE
VALUES (
    COALESCE(%(episode_id)s::bigint, nextval(pg_get_serial_sequence('episodes', 'episode_id'))),
    %(user_id)s, %(episode_key)s, %(device_id)s, %(ts_start)s, %(first_key)s, %(last_start)s,
    %(last_key)s, %(ts_end)s, %(day_local)s, %(primary_app)s, %(cluster_key)s, %(category)s,
    %(title)s, %(title)s, %(summary_status)s, %(interruptions)s, %(frame_count)s,
    %(duration_s)s, %(active_s)s, %(category_seconds)s, %(app_seconds)s, %(switch_count)s,
    %(interruption_s)s, %(boundary)s, true, to_tsvector('simple', %(fts_text)s),
    %(summary)s, %(summary_by)s)
ON CONFLICT (user_id, episode_key) DO NOTHING
RETURNING episode_id;

-- name: clear_day_mark --
-- The save of a marked day's rebuild: the day is built again.
DELETE FROM build_marks
WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND day_local = %(day)s;

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
