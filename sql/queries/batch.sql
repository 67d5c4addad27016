-- The batch build (backfill and imports): a device's timeline read in one ordered pass
-- per chunk of days, episodes written in bulk, day digests in one read per chunk.

-- name: batch_stream --
-- Every live record of a device in [ts_from, ts_to), in timeline order, with its
-- duration (timetrace_spans_v1) and what the segmenter and the signal detectors read
-- of it. `unbuilt`: it lies after the device's watermark; the others are read for
-- the device-overlap sweep only. `records_to_segment` over a whole chunk.
WITH w AS (
    SELECT last_start, last_key FROM episodes
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s
    ORDER BY ts_start DESC, first_key COLLATE "C" DESC LIMIT 1
)
SELECT x.record_id, x.client_record_id AS key, x.ts_start,
       extract(epoch FROM x.ts_start)::float8 AS ts,
       x.seconds AS duration, x.app, x.window_title AS title, x.domain, x.category,
       x.is_idle, x.day_local AS day, COALESCE(a.confidence, 1.0)::float8 AS confidence,
       COALESCE(x.domain, lower(x.app)) AS cluster,
       concat_ws(' ', x.window_title, a.description) AS text,
       (x.ts_start, x.client_record_id COLLATE "C")
           > (COALESCE((SELECT last_start FROM w), '-infinity'),
              COALESCE((SELECT last_key FROM w), '') COLLATE "C") AS unbuilt
FROM timetrace_spans_v1(%(user_id)s, %(ts_from)s, %(ts_to)s) x
LEFT JOIN record_analyses a ON a.user_id = x.user_id AND a.record_id = x.record_id
WHERE x.device_id = %(device_id)s
ORDER BY x.ts_start, x.client_record_id COLLATE "C";

-- name: batch_built_through --
-- Each of the user's devices: the logical day of its watermark (its newest episode's:
-- one backward probe), and its days marked for a rebuild.
SELECT d.device_id,
       (SELECT e.day_local FROM episodes e
        WHERE e.user_id = d.user_id AND e.device_id = d.device_id
        ORDER BY e.ts_start DESC, e.first_key COLLATE "C" DESC LIMIT 1) AS day_local,
       ARRAY(SELECT m.day_local FROM build_marks m
             WHERE m.user_id = d.user_id AND m.device_id = d.device_id
             ORDER BY m.day_local) AS marked
FROM devices d WHERE d.user_id = %(user_id)s
ORDER BY d.device_id;

-- name: create_episode_staging --
-- Gone at the commit: a pooled session keeps no table of its own.
CREATE TEMP TABLE episode_staging (
    episode_key text, device_id text, ts_start timestamptz, first_key text,
    last_start timestamptz, last_key text, ts_end timestamptz,
    day_local date, primary_app text, cluster_key text, category text, title text,
    summary_status text, interruptions jsonb, frame_count integer, duration_s float8,
    active_s float8, category_seconds jsonb, app_seconds jsonb, switch_count integer,
    interruption_s float8, boundary text, fts_text text, summary text, summary_by text
) ON COMMIT DROP;

-- name: copy_episode_staging --
COPY episode_staging (
    episode_key, device_id, ts_start, first_key, last_start, last_key, ts_end, day_local, primary_app, cluster_key, category,
    title, summary_status, interruptions, frame_count, duration_s, active_s,
    category_seconds, app_seconds, switch_count, interruption_s, boundary, fts_text, summary,
    summary_by)
FROM STDIN (FORMAT BINARY);

-- name: insert_staged_episodes --
-- A second run of the same chunk inserts nothing (the key is the device and its first
-- record); the ids of every staged episode come back, new or not.
WITH ins AS (
    INSERT INTO episodes (
        user_id, episode_key, device_id, ts_start, first_key, last_start, last_key, ts_end,
        day_local, primary_app, cluster_key, category, title, auto_title, summary_status,
        interruptions, frame_count, duration_s, active_s, category_seconds, app_seconds,
        switch_count, interruption_s, boundary, closed, fts, summary, summary_by)
    SELECT %(user_id)s, episode_key, device_id, ts_start, first_key, last_start, last_key,
           ts_end, day_local, primary_app,
           cluster_key, category, title, title, summary_status, interruptions, frame_count,
           duration_s, active_s, category_seconds, app_seconds, switch_count, interruption_s,
           boundary, true, to_tsvector('simple', fts_text), summary, summary_by
    FROM episode_staging
    ORDER BY device_id, ts_start
    ON CONFLICT (user_id, episode_key) DO NOTHING
    RETURNING episode_key, episode_id
)
SELECT s.episode_key, COALESCE(i.episode_id, e.episode_id) AS episode_id, i.episode_id IS NOT NULL AS new
FROM episode_staging s
LEFT JOIN ins i ON i.episode_key = s.episode_key
LEFT JOIN episodes e ON i.episode_key IS NULL AND e.user_id = %(user_id)s
                    AND e.episode_key = s.episode_key;

-- name: batch_day_metrics --
-- `period_metrics` for each of some days at once (the same expressions, grouped by
-- day), with what `day_sources_through` reads for each. `day_from` and `day_to` are
-- the first and last of `days` (app/db/store_batch.py derives them).
WITH e AS (
    SELECT * FROM episodes
    WHERE user_id = %(user_id)s AND day_local = ANY(%(days)s) AND closed AND NOT stale
), cats AS (
    SELECT day_local, jsonb_object_agg(k, s ORDER BY k) AS m FROM (
        SELECT day_local, k, sum(v::double precision) AS s
        FROM e, jsonb_each_text(e.category_seconds) AS j(k, v) GROUP BY day_local, k) c
    GROUP BY day_local
), apps AS (
    SELECT day_local, jsonb_object_agg(k, s ORDER BY k) AS m FROM (
        SELECT day_local, k, sum(v::double precision) AS s
        FROM e, jsonb_each_text(e.app_seconds) AS j(k, v) GROUP BY day_local, k) a
    GROUP BY day_local
), titles AS (
    SELECT day_local, jsonb_agg(jsonb_build_object('title', title, 'seconds', s)
                                ORDER BY s DESC, title) AS m
    FROM (SELECT day_local, auto_title AS title, sum(active_s) AS s,
                 row_number() OVER (PARTITION BY day_local
                                    ORDER BY sum(active_s) DESC, auto_title) AS n
          FROM e WHERE category <> 'system' GROUP BY day_local, auto_title) t
    WHERE n <= 10
    GROUP BY day_local
), totals AS (
    SELECT day_local, count(*) AS episode_count,
           COALESCE(sum(active_s), 0) AS active_seconds,
           COALESCE(sum(duration_s - active_s), 0) AS idle_seconds,
           COALESCE(sum(switch_count), 0)::bigint AS switch_count,
           COALESCE(sum(interruption_s), 0) AS interruption_seconds,
           min(ts_start) FILTER (WHERE category <> 'system') AS first_activity,
           max(ts_end) FILTER (WHERE category <> 'system') AS last_activity,
           max(ts_end) AS computed_through_ts,
           array_agg(episode_id ORDER BY ts_start, episode_id) AS episode_ids
    FROM e GROUP BY day_local
), user_cats AS (
    -- `period_metrics`' seconds per user category, from the records of the days by the
    -- duration rule (`day_from`, `day_to`: the first and last of the days). Only a user
    -- with a rule naming a category of theirs has any: for the others the EXISTS is a
    -- one-time filter, and the records are never read.
    SELECT day_local, jsonb_object_agg(k, s ORDER BY k) AS m FROM (
        SELECT x.day_local, u.category_id::text AS k, sum(x.seconds) AS s
        FROM timetrace_spans_v1(
                 %(user_id)s, (%(day_from)s::date - 1)::timestamp AT TIME ZONE 'UTC',
                 (%(day_to)s::date + 3)::timestamp AT TIME ZONE 'UTC') x
        JOIN user_rules u
          ON u.user_id = %(user_id)s AND x.category_source = 'user:' || u.rule_id
        WHERE x.day_local = ANY(%(days)s) AND NOT x.is_idle AND u.category_id IS NOT NULL
          AND EXISTS (SELECT 1 FROM user_rules
                      WHERE user_id = %(user_id)s AND category_id IS NOT NULL)
        GROUP BY x.day_local, u.category_id) uc
    GROUP BY day_local
), through AS (
    SELECT day_local, max(updated_at) AS sources_through FROM episodes
    WHERE user_id = %(user_id)s AND day_local = ANY(%(days)s) AND closed
    GROUP BY day_local
)
SELECT d.day_local,
       COALESCE(c.m, '{}') AS seconds_by_category, COALESCE(a.m, '{}') AS seconds_by_app,
       COALESCE(t.episode_count, 0) AS episode_count,
       COALESCE(t.active_seconds, 0) AS active_seconds,
       COALESCE(t.idle_seconds, 0) AS idle_seconds,
       COALESCE(t.switch_count, 0)::bigint AS switch_count,
       COALESCE(t.interruption_seconds, 0) AS interruption_seconds,
       COALESCE(ti.m, '[]') AS top_titles, t.first_activity, t.last_activity,
       t.computed_through_ts, COALESCE(t.episode_ids, '{}') AS episode_ids,
       COALESCE(uc.m, '{}') AS seconds_by_user_category, th.sources_through
FROM unnest(%(days)s::date[]) AS d(day_local)
LEFT JOIN totals t USING (day_local)
LEFT JOIN cats c USING (day_local)
LEFT JOIN apps a USING (day_local)
LEFT JOIN titles ti USING (day_local)
LEFT JOIN user_cats uc USING (day_local)
LEFT JOIN through th USING (day_local)
ORDER BY d.day_local;

-- name: batch_episode_facts --
-- `day_episode_facts` for each of some days at once.
SELECT day_local, episode_id, device_id, ts_start, ts_end,
       CASE WHEN category_source = 'model' THEN 'uncategorized' ELSE category END AS category,
       active_s, interruption_s, interruptions, cues
FROM episodes
WHERE user_id = %(user_id)s AND day_local = ANY(%(days)s) AND closed AND NOT stale
ORDER BY day_local, device_id, ts_start;
