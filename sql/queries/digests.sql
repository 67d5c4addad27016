-- L3/L4 digests and signals: what the rollups read and write.

-- name: period_metrics --
-- The numbers of a digest, by SQL over the closed episodes of [day_from, day_to].
WITH e AS (
    SELECT * FROM episodes
    WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s
      AND closed AND NOT stale
)
SELECT
    (SELECT COALESCE(jsonb_object_agg(k, s ORDER BY k), '{}') FROM (
        SELECT k, sum(v::double precision) AS s FROM e, jsonb_each_text(e.category_seconds) AS j(k, v)
        GROUP BY k) c) AS seconds_by_category,
    (SELECT COALESCE(jsonb_object_agg(k, s ORDER BY k), '{}') FROM (
        SELECT k, sum(v::double precision) AS s FROM e, jsonb_each_text(e.app_seconds) AS j(k, v)
        GROUP BY k) a) AS seconds_by_app,
    (SELECT count(*) FROM e) AS episode_count,
    (SELECT COALESCE(sum(active_s), 0) FROM e) AS active_seconds,
    (SELECT COALESCE(sum(duration_s - active_s), 0) FROM e) AS idle_seconds,
    (SELECT COALESCE(sum(switch_count), 0) FROM e)::bigint AS switch_count,
    (SELECT COALESCE(sum(interruption_s), 0) FROM e) AS interruption_seconds,
    (SELECT COALESCE(jsonb_agg(jsonb_build_object('title', title, 'seconds', s) ORDER BY s DESC, title), '[]')
     FROM (SELECT auto_title AS title, sum(active_s) AS s FROM e WHERE category <> 'system'
           GROUP BY auto_title ORDER BY s DESC, auto_title LIMIT 10) t) AS top_titles,
    (SELECT min(ts_start) FROM e WHERE category <> 'system') AS first_activity,
    (SELECT max(ts_end) FROM e WHERE category <> 'system') AS last_activity,
    (SELECT max(ts_end) FROM e) AS computed_through_ts,
    (SELECT COALESCE(array_agg(episode_id ORDER BY ts_start, episode_id), '{}') FROM e) AS episode_ids,
    -- Seconds per user category (migration 0034: its rule's), keyed by its id, from the
    -- records of the days by the duration rule. Only a user with a rule naming a
    -- category of theirs has any: for the others the EXISTS is a one-time filter and
    -- the records are never read (the join alone sorted the period's records first).
    (SELECT COALESCE(jsonb_object_agg(k, s ORDER BY k), '{}') FROM (
        SELECT u.category_id::text AS k, sum(x.seconds) AS s
        FROM timetrace_spans_v1(
                 %(user_id)s, (%(day_from)s::date - 1)::timestamp AT TIME ZONE 'UTC',
                 (%(day_to)s::date + 3)::timestamp AT TIME ZONE 'UTC') x
        JOIN user_rules u
          ON u.user_id = %(user_id)s AND x.category_source = 'user:' || u.rule_id
        WHERE x.day_local BETWEEN %(day_from)s AND %(day_to)s AND NOT x.is_idle
          AND u.category_id IS NOT NULL
          AND EXISTS (SELECT 1 FROM user_rules
                      WHERE user_id = %(user_id)s AND category_id IS NOT NULL)
        GROUP BY u.category_id) uc) AS seconds_by_user_category;

-- name: day_episode_facts --
-- Signals are numbers: they see the records' category, never one a model filled in.
SELECT episode_id, device_id, ts_start, ts_end,
       CASE WHEN category_source = 'model' THEN 'uncategorized' ELSE category END AS category,
       active_s, interruption_s, interruptions, cues
FROM episodes
WHERE user_id = %(user_id)s AND day_local = %(day)s AND closed AND NOT stale
ORDER BY device_id, ts_start;

-- name: day_member_facts --
-- The day's closed, current episodes drive; each one's members by range on the
-- timeline index. The episodes are read first, by the day (MATERIALIZED): for the
-- result's order the planner would rather walk every episode of the user in timeline
-- order and filter by day, which grows with history (55 ms a day at three years).
WITH e AS MATERIALIZED (
    SELECT episode_id, user_id, device_id, ts_start, first_key, last_start, last_key
    FROM episodes
    WHERE user_id = %(user_id)s AND day_local = %(day)s AND closed AND NOT stale
)
SELECT e.episode_id, r.device_id, r.ts_start, COALESCE(r.domain, lower(r.app)) AS cluster,
       r.is_idle, concat_ws(' ', r.window_title, a.description) AS text
FROM e
JOIN records r
  ON r.user_id = e.user_id AND r.device_id = e.device_id AND r.deleted_at IS NULL
 -- The UTC days that can hold the logical day (see day_is_settled): constants the
 -- planner prunes the months with (the episodes' bounds alone planned every month).
 AND r.ts_start >= (%(day)s::date - 1)::timestamp AT TIME ZONE 'UTC'
 AND r.ts_start < (%(day)s::date + 3)::timestamp AT TIME ZONE 'UTC'
 AND r.ts_start BETWEEN e.ts_start AND e.last_start
 AND (r.ts_start, r.client_record_id COLLATE "C") >= (e.ts_start, e.first_key COLLATE "C")
 AND (r.ts_start, r.client_record_id COLLATE "C") <= (e.last_start, e.last_key COLLATE "C")
LEFT JOIN record_analyses a ON a.user_id = r.user_id AND a.record_id = r.record_id
ORDER BY r.device_id, r.ts_start, r.client_record_id COLLATE "C";

-- name: day_is_settled --
-- Every live record of the day is in a closed, current episode: the day is marked on
-- no device, and no device has a live record of the day after its watermark (an index
-- range from the watermark, within the UTC days that can hold the logical day: UTC
-- offsets run from -12 to +14 hours and the cut is at most 23:00, so a long tail not
-- built yet is never read whole).
SELECT NOT EXISTS (
           SELECT 1 FROM build_marks WHERE user_id = %(user_id)s AND day_local = %(day)s)
       AND NOT EXISTS (
           SELECT 1 FROM devices d
           LEFT JOIN LATERAL (
               SELECT last_start, last_key FROM episodes x
               WHERE x.user_id = d.user_id AND x.device_id = d.device_id
               ORDER BY x.ts_start DESC, x.first_key COLLATE "C" DESC LIMIT 1
           ) w ON true
           JOIN records r ON r.user_id = d.user_id AND r.device_id = d.device_id
            AND r.deleted_at IS NULL AND r.day_local = %(day)s
            -- The constant bounds prune the partitions when planning; the watermark's
            -- bound only narrows the index range (inside GREATEST it pruned nothing, and
            -- every month of the history was read).
            AND r.ts_start >= (%(day)s::date - 1)::timestamp AT TIME ZONE 'UTC'
            AND r.ts_start < (%(day)s::date + 3)::timestamp AT TIME ZONE 'UTC'
            AND r.ts_start >= COALESCE(w.last_start, '-infinity')
            AND (r.ts_start, r.client_record_id COLLATE "C")
                > (COALESCE(w.last_start, '-infinity'), COALESCE(w.last_key, '') COLLATE "C")
           WHERE d.user_id = %(user_id)s)
       AND NOT EXISTS (
           SELECT 1 FROM episodes WHERE user_id = %(user_id)s AND day_local = %(day)s AND stale)
       AS settled;

-- name: upsert_digest --
-- Same numbers, same row: nothing is written when a rerun computes what is there
-- (only `sources_through` then moves, so the digest is no longer due).
INSERT INTO digests (user_id, grain, scope_key, period_start, period_end, metrics, source_ids,
                     computed_through_ts, finalized, sources_through)
VALUES (%(user_id)s, %(grain)s, %(scope_key)s, %(period_start)s, %(period_end)s, %(metrics)s,
        %(source_ids)s, %(computed_through_ts)s, %(finalized)s, %(sources_through)s)
ON CONFLICT (user_id, grain, scope_key) DO UPDATE SET
    period_start = EXCLUDED.period_start,
    period_end = EXCLUDED.period_end,
    metrics = EXCLUDED.metrics,
    source_ids = EXCLUDED.source_ids,
    computed_through_ts = EXCLUDED.computed_through_ts,
    finalized = EXCLUDED.finalized,
    sources_through = EXCLUDED.sources_through,
    stale = false,
    -- New numbers, new narrative: a done or failed one is written again (and a
    -- failure's reason and raw answer, which may quote what changed, go).
    narrative_status = CASE WHEN digests.metrics IS DISTINCT FROM EXCLUDED.metrics
                            AND digests.narrative_status IN ('done', 'failed') THEN 'pending'
                            ELSE digests.narrative_status END,
    narrative_reason = CASE WHEN digests.metrics IS DISTINCT FROM EXCLUDED.metrics THEN NULL
                            ELSE digests.narrative_reason END,
    narrative_raw = CASE WHEN digests.metrics IS DISTINCT FROM EXCLUDED.metrics THEN NULL
                         ELSE digests.narrative_raw END,
    updated_at = now()
WHERE (digests.metrics, digests.source_ids, digests.computed_through_ts, digests.finalized,
       digests.stale, digests.period_start, digests.period_end, digests.sources_through)
      IS DISTINCT FROM
      (EXCLUDED.metrics, EXCLUDED.source_ids, EXCLUDED.computed_through_ts, EXCLUDED.finalized,
       false, EXCLUDED.period_start, EXCLUDED.period_end, EXCLUDED.sources_through)
RETURNING digest_id;

-- name: digest_id --
SELECT digest_id FROM digests WHERE user_id = %(user_id)s AND grain = %(grain)s AND scope_key = %(scope_key)s;

-- name: upsert_signal --
INSERT INTO signals (user_id, kind, scope, signal_key, ts_start, ts_end, day_local, severity,
                     metrics, evidence)
VALUES (%(user_id)s, %(kind)s, %(scope)s, %(signal_key)s, %(ts_start)s, %(ts_end)s, %(day_local)s,
        %(severity)s, %(metrics)s, %(evidence)s)
ON CONFLICT (user_id, kind, scope, signal_key) DO UPDATE SET
    ts_start = EXCLUDED.ts_start, ts_end = EXCLUDED.ts_end, severity = EXCLUDED.severity,
    metrics = EXCLUDED.metrics, evidence = EXCLUDED.evidence, stale = false
WHERE (signals.ts_start, signals.ts_end, signals.severity, signals.metrics, signals.evidence, signals.stale)
      IS DISTINCT FROM
      (EXCLUDED.ts_start, EXCLUDED.ts_end, EXCLUDED.severity, EXCLUDED.metrics, EXCLUDED.evidence, false);

-- name: delete_other_signals --
DELETE FROM signals
WHERE user_id = %(user_id)s AND scope = %(scope)s AND NOT (kind || '|' || signal_key = ANY(%(keep)s));

-- name: day_digests --
SELECT digest_id, grain, scope_key, period_start, period_end, metrics, narrative, narrative_status,
       source_ids, computed_through_ts, finalized, stale FROM digests
WHERE user_id = %(user_id)s AND grain = 'day' AND scope_key BETWEEN %(key_from)s AND %(key_to)s
ORDER BY scope_key;

-- name: active_days --
SELECT count(DISTINCT day_local) AS n FROM records
WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s AND deleted_at IS NULL
  -- a logical day lies within three days of its date (any time zone): its partitions only
  AND ts_start >= %(day_from)s::date - 3 AND ts_start < %(day_to)s::date + 4;

-- name: rollups_due --
-- global: the sweep: day digests due for every user
-- Day digests to (re)compute: days with closed episodes changed since `since` (all
-- history when NULL) whose digest is missing, stale, computed from older episodes
-- (`sources_through`, see `day_sources_through`), or not finalized though the day is
-- over; stale digests of days left with no episode; and unfinalized digests of days
-- over that still have closed episodes. The periodic sweep passes a recent `since`: it
-- reads what changed lately (episodes_updated) and the few unfinalized digests
-- (digests_unfinalized), not every episode of the history.
WITH changed AS (
    SELECT DISTINCT user_id, day_local FROM episodes
    WHERE closed AND updated_at > COALESCE(%(since)s::timestamptz, '-infinity')
), open_days AS (
    SELECT user_id, scope_key::date AS day_local FROM digests
    WHERE NOT finalized AND grain = 'day' AND period_end < now()
), e AS (
    SELECT c.user_id, c.day_local,
           (SELECT max(x.updated_at) FROM episodes x
            WHERE x.user_id = c.user_id AND x.day_local = c.day_local AND x.closed) AS through
    FROM (SELECT * FROM changed UNION SELECT * FROM open_days) c
)
SELECT e.user_id, e.day_local FROM e
LEFT JOIN digests d ON d.user_id = e.user_id AND d.grain = 'day'
                   AND d.scope_key = to_char(e.day_local, 'YYYY-MM-DD')
WHERE e.through IS NOT NULL
  AND (d.digest_id IS NULL OR d.stale OR d.sources_through IS DISTINCT FROM e.through
       OR (NOT d.finalized AND d.period_end < now()))
UNION
SELECT user_id, scope_key::date FROM digests WHERE NOT finalized AND grain = 'day' AND stale;

-- name: day_sources_through --
-- What a day digest is computed from: read before its numbers, so that a change after
-- them leaves the digest due again.
SELECT max(updated_at) AS through FROM episodes
WHERE user_id = %(user_id)s AND day_local = %(day)s AND closed;

-- name: period_sources_through --
SELECT max(updated_at) AS through FROM digests
WHERE user_id = %(user_id)s AND grain = 'day' AND NOT stale
  AND scope_key BETWEEN %(key_from)s AND %(key_to)s;

-- name: periods_due --
-- global: the sweep: week and month digests due for every user
-- Week and month digests to (re)compute: their days have digests, and the period's
-- digest is missing, stale, computed from older days (a rollup lost to a crash or to a
-- killed back-fill), or not finalized though the period is over and every active day
-- of it has a finalized digest. Only periods with a day digest changed since `since`
-- (all history when NULL; digests_updated) and unfinalized periods (digests_unfinalized)
-- are looked at: the periodic sweep passes a recent `since`.
WITH touched AS (
    SELECT DISTINCT user_id, 'week' AS grain, to_char(scope_key::date, 'IYYY-"W"IW') AS scope_key,
           date_trunc('week', scope_key::date)::date AS first_day
    FROM digests
    WHERE grain = 'day' AND NOT stale AND updated_at > COALESCE(%(since)s::timestamptz, '-infinity')
    UNION
    SELECT DISTINCT user_id, 'month', to_char(scope_key::date, 'YYYY-MM'),
           date_trunc('month', scope_key::date)::date
    FROM digests
    WHERE grain = 'day' AND NOT stale AND updated_at > COALESCE(%(since)s::timestamptz, '-infinity')
    UNION
    SELECT user_id, grain, scope_key,
           CASE grain WHEN 'week' THEN to_date(scope_key, 'IYYY-"W"IW')
                      ELSE to_date(scope_key, 'YYYY-MM') END
    FROM digests WHERE NOT finalized AND grain IN ('week', 'month')
), periods AS (
    SELECT t.user_id, t.grain, t.scope_key, t.first_day,
           (SELECT max(x.updated_at) FROM digests x
            WHERE x.user_id = t.user_id AND x.grain = 'day' AND NOT x.stale
              AND x.scope_key >= to_char(t.first_day, 'YYYY-MM-DD')
              AND x.scope_key < to_char(t.first_day + CASE t.grain WHEN 'week'
                  THEN interval '7 days' ELSE interval '1 month' END, 'YYYY-MM-DD')) AS through
    FROM touched t
)
SELECT p.user_id, p.grain, p.scope_key FROM periods p
LEFT JOIN digests d ON d.user_id = p.user_id AND d.grain = p.grain AND d.scope_key = p.scope_key
WHERE p.through IS NOT NULL
  AND (d.digest_id IS NULL OR d.stale OR d.sources_through IS DISTINCT FROM p.through
   OR (NOT d.finalized AND d.period_end < now() AND NOT EXISTS (
        SELECT 1 FROM (
            SELECT DISTINCT day_local FROM records
            WHERE user_id = p.user_id AND deleted_at IS NULL AND day_local >= p.first_day
              AND day_local < p.first_day + CASE p.grain WHEN 'week' THEN interval '7 days'
                                                         ELSE interval '1 month' END
        ) a
        WHERE NOT EXISTS (
            SELECT 1 FROM digests x WHERE x.user_id = p.user_id AND x.grain = 'day'
              AND x.scope_key = to_char(a.day_local, 'YYYY-MM-DD') AND x.finalized
              AND NOT x.stale))))
ORDER BY p.scope_key DESC, p.user_id;
