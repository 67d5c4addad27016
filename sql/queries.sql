-- Named queries, loaded by app/db/queries.py. Each starts with a `-- name: x --` line.

-- name: ensure_user --
INSERT INTO users (name, time_zone, day_cut_hour)
VALUES (%(name)s, %(time_zone)s, %(day_cut_hour)s)
ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
RETURNING user_id, name, time_zone, day_cut_hour;

-- name: get_user --
SELECT user_id, name, time_zone, day_cut_hour FROM users WHERE name = %(name)s;

-- name: user_for_token --
SELECT u.user_id, u.name, u.time_zone, u.day_cut_hour
FROM api_tokens t JOIN users u USING (user_id)
WHERE t.token_hash = %(token_hash)s AND t.revoked_at IS NULL;

-- name: add_token --
INSERT INTO api_tokens (user_id, token_hash, name)
VALUES (%(user_id)s, %(token_hash)s, %(name)s)
RETURNING token_id;

-- name: count_tokens --
SELECT count(*) AS n FROM api_tokens WHERE revoked_at IS NULL;

-- name: add_device --
INSERT INTO devices (user_id, device_id, name, kind)
VALUES (%(user_id)s, %(device_id)s, %(name)s, %(kind)s)
ON CONFLICT (user_id, device_id) DO NOTHING;

-- name: device_exists --
SELECT 1 AS ok FROM devices WHERE user_id = %(user_id)s AND device_id = %(device_id)s;

-- name: list_devices --
SELECT device_id, name, kind, created_at FROM devices
WHERE user_id = %(user_id)s ORDER BY device_id;

-- name: insert_records --
-- One statement per batch: column arrays unnested side by side. A replayed
-- record hits the (user, device, client_record_id) key and changes nothing, and so
-- does a deleted one (its tombstone keeps only a hash of the key). Rows go in key
-- order, so that concurrent batches sharing keys lock them in the same order.
INSERT INTO records (
    user_id, device_id, client_record_id, ts_start, ts_end, day_local, app, app_raw, window_title,
    url, domain, is_idle, capture_reason, screenshot_ref, screenshot_sha256, category,
    category_source, redacted)
SELECT %(user_id)s, %(device_id)s, r.*
FROM unnest(
    %(client_record_id)s::text[], %(ts_start)s::timestamptz[], %(ts_end)s::timestamptz[],
    %(day_local)s::date[], %(app)s::text[], %(app_raw)s::text[], %(window_title)s::text[], %(url)s::text[],
    %(domain)s::text[], %(is_idle)s::boolean[], %(capture_reason)s::text[],
    %(screenshot_ref)s::text[], %(screenshot_sha256)s::text[], %(category)s::text[],
    %(category_source)s::text[], %(redacted)s::boolean[]
) AS r(client_record_id, ts_start, ts_end, day_local, app, app_raw, window_title, url, domain,
       is_idle, capture_reason, screenshot_ref, screenshot_sha256, category, category_source,
       redacted)
-- Most devices have no tombstone: then no key is hashed (the first test runs once).
WHERE NOT EXISTS (
        SELECT 1 FROM records t
        WHERE t.user_id = %(user_id)s AND t.device_id = %(device_id)s AND t.deleted_at IS NOT NULL)
   OR NOT EXISTS (
        SELECT 1 FROM records t
        WHERE t.user_id = %(user_id)s AND t.device_id = %(device_id)s AND t.deleted_at IS NOT NULL
          AND t.client_record_id = timetrace_tombstone_key(r.client_record_id))
ORDER BY r.client_record_id COLLATE "C"
ON CONFLICT (user_id, device_id, client_record_id) DO NOTHING;

-- name: clipped_seconds --
-- Seconds the duration rule cuts from records (own end past the next record's start)
-- in the overlaps a batch takes part in: a batch record cut short, or the record it
-- cuts. The window runs from the record before the batch's first start to its last
-- end (ts_from, ts_to): a successor past that cannot cut anything. Clipped rows are
-- few, so the keys are looked at only for them.
WITH timeline AS (
    SELECT r.client_record_id, r.ts_start, r.ts_end,
           lead(r.ts_start) OVER w AS next_start, lead(r.client_record_id) OVER w AS next_key
    FROM records r
    WHERE r.user_id = %(user_id)s AND r.device_id = %(device_id)s AND r.deleted_at IS NULL
      AND r.ts_start <= %(ts_to)s
      AND r.ts_start >= COALESCE((
          SELECT max(p.ts_start) FROM records p
          WHERE p.user_id = %(user_id)s AND p.device_id = %(device_id)s
            AND p.deleted_at IS NULL AND p.ts_start < %(ts_from)s), %(ts_from)s)
    WINDOW w AS (ORDER BY r.ts_start, r.client_record_id COLLATE "C")
), keys AS (
    SELECT unnest(%(keys)s::text[]) AS client_record_id
)
SELECT COALESCE(sum(EXTRACT(EPOCH FROM ts_end - ts_start)
                    - timetrace_duration_s(ts_start, ts_end, next_start)), 0)::double precision
       AS clipped_s
FROM timeline
WHERE ts_end > next_start
  AND (client_record_id IN (SELECT client_record_id FROM keys)
       OR next_key IN (SELECT client_record_id FROM keys));

-- name: any_key_stored --
-- Whether an importer's batch may be copied straight into records: not when the device
-- has a tombstone (whose key is a hash), nor when a stored key falls between the batch's
-- first and last key (two index probes, however many records the device holds). Only a
-- shortcut: a stored key it misses (another collation's order) fails the COPY instead.
SELECT EXISTS (
           SELECT 1 FROM records
           WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND deleted_at IS NOT NULL)
    OR EXISTS (
           SELECT 1 FROM records
           WHERE user_id = %(user_id)s AND device_id = %(device_id)s
             AND client_record_id BETWEEN %(first)s AND %(last)s) AS found;

-- name: copy_records --
COPY records (
    user_id, device_id, client_record_id, ts_start, ts_end, day_local, app, app_raw,
    window_title, url, domain, is_idle, capture_reason, screenshot_ref, screenshot_sha256,
    category, category_source, redacted
) FROM STDIN (FORMAT BINARY);

-- name: create_import_staging --
-- An importer's batch arrives by COPY into this table, dropped at commit.
CREATE TEMP TABLE import_staging (
    client_record_id text, ts_start timestamptz, ts_end timestamptz, day_local date, app text,
    app_raw text, window_title text, url text, domain text, is_idle boolean, capture_reason text,
    screenshot_ref text, screenshot_sha256 text, category text, category_source text,
    redacted boolean, description text, fts_text text
) ON COMMIT DROP;

-- name: copy_import_staging --
COPY import_staging (
    client_record_id, ts_start, ts_end, day_local, app, app_raw, window_title, url, domain,
    is_idle, capture_reason, screenshot_ref, screenshot_sha256, category, category_source,
    redacted, description, fts_text
) FROM STDIN (FORMAT BINARY);

-- name: insert_staged_records --
-- As insert_records, from the staging table (a deleted record is not brought back; rows
-- go in key order); a record's description (the frame's own text, from an importer)
-- becomes its L1 analysis in the same statement.
WITH ins AS (
    INSERT INTO records (
        user_id, device_id, client_record_id, ts_start, ts_end, day_local, app, app_raw,
        window_title, url, domain, is_idle, capture_reason, screenshot_ref, screenshot_sha256,
        category, category_source, redacted)
    SELECT %(user_id)s, %(device_id)s, client_record_id, ts_start, ts_end, day_local, app, app_raw,
           window_title, url, domain, is_idle, capture_reason, screenshot_ref, screenshot_sha256,
           category, category_source, redacted
    FROM import_staging s
    WHERE NOT EXISTS (  -- no tombstone on the device: no key hashed (as insert_records)
            SELECT 1 FROM records t
            WHERE t.user_id = %(user_id)s AND t.device_id = %(device_id)s
              AND t.deleted_at IS NOT NULL)
       OR NOT EXISTS (
            SELECT 1 FROM records t
            WHERE t.user_id = %(user_id)s AND t.device_id = %(device_id)s
              AND t.deleted_at IS NOT NULL
              AND t.client_record_id = timetrace_tombstone_key(s.client_record_id))
    ORDER BY client_record_id COLLATE "C"
    ON CONFLICT (user_id, device_id, client_record_id) DO NOTHING
    RETURNING record_id, client_record_id
), analyses AS (
    INSERT INTO record_analyses (user_id, record_id, description, model, fts)
    SELECT %(user_id)s, ins.record_id, s.description, %(model)s, to_tsvector('simple', s.fts_text)
    FROM ins JOIN import_staging s USING (client_record_id)
    WHERE s.description IS NOT NULL
)
SELECT count(*) AS new FROM ins;

-- name: tombstone_records --
-- Deletion, step 1 of one transaction (see `PostgresStore.delete_records`): a record
-- keeps only what rebuilding needs (ids, device, span, logical day) and a hash of its
-- key, so that a replay cannot bring it back; its analysis goes, and so do the notes
-- of re-labels of it and of the episodes it was in.
WITH gone AS (
    UPDATE records SET
        deleted_at = now(), client_record_id = timetrace_tombstone_key(client_record_id),
        app = '', app_raw = '', window_title = '', url = NULL, domain = NULL, capture_reason = NULL,
        screenshot_ref = NULL, screenshot_sha256 = NULL, category = 'uncategorized',
        category_source = 'deleted'
    WHERE user_id = %(user_id)s AND deleted_at IS NULL
      AND (%(record_ids)s::bigint[] IS NULL OR record_id = ANY(%(record_ids)s::bigint[]))
      AND (%(device_id)s::text IS NULL OR device_id = %(device_id)s::text)
      AND (%(ts_from)s::timestamptz IS NULL OR ts_start >= %(ts_from)s::timestamptz)
      AND (%(ts_to)s::timestamptz IS NULL OR ts_start < %(ts_to)s::timestamptz)
    RETURNING user_id, record_id, device_id, day_local, episode_id
), analyses AS (
    DELETE FROM record_analyses a USING gone
    WHERE a.user_id = gone.user_id AND a.record_id = gone.record_id
), notes AS (
    UPDATE labels l SET note = ''
    WHERE l.user_id = %(user_id)s AND l.note <> ''
      AND ((l.target_kind = 'record' AND l.target_id IN (SELECT record_id FROM gone))
           OR (l.target_kind = 'episode' AND l.target_id IN (SELECT episode_id FROM gone)))
)
SELECT device_id, day_local, count(*) AS n FROM gone GROUP BY device_id, day_local;

-- name: delete_episodes_of_device_days --
-- Deletion: every episode of the device-days the deleted records were on goes now (its
-- title, summary, cues and embedding with it); their other records wait, unassigned,
-- for the rebuild, and count meanwhile through the open tail.
DELETE FROM episodes e
USING unnest(%(devices)s::text[], %(days)s::date[]) AS d(device_id, day_local)
WHERE e.user_id = %(user_id)s AND e.device_id = d.device_id AND e.day_local = d.day_local;

-- name: delete_day_signals --
DELETE FROM signals WHERE user_id = %(user_id)s AND scope = ANY(%(keys)s::text[]);

-- name: strip_digests --
-- Deletion: the day, week and month digests over the deleted records keep no numbers
-- or text (titles, apps, narratives) until they are rolled up again.
UPDATE digests SET stale = true, finalized = false, metrics = '{}', source_ids = '[]',
       narrative = NULL, narrative_status = 'pending', updated_at = now()
WHERE user_id = %(user_id)s AND scope_key = ANY(%(keys)s::text[]);

-- name: day_category_seconds --
SELECT day_local, category, sum(duration_s) AS seconds
FROM v_record_durations
WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s
GROUP BY day_local, category;

-- ---------------------------------------------------------------------------
-- The job queue (procrastinate's tables; jobs are deferred through its API).

-- name: lock_queueing_lock --
-- Until the transaction ends, one deferral (or requeue) per queueing lock at a time.
SELECT pg_advisory_xact_lock(timetrace_queueing_lock_key(%(queueing_lock)s));

-- name: job_waiting --
-- Under that lock: a job already waiting? Then there is nothing to add, and the share
-- lock keeps a worker from taking it (fetching skips locked rows) until this transaction
-- commits, so that it runs after, and sees, the change that asked for it.
SELECT id FROM procrastinate_jobs
WHERE queueing_lock = %(queueing_lock)s AND status = 'todo'
FOR SHARE;

-- name: next_stalled_job --
-- A job left `doing` by a worker silent for longer than the stalled timeout (killed
-- mid-job) or already pruned; locked, so that two workers never requeue the same job.
SELECT j.id FROM procrastinate_jobs j
LEFT JOIN procrastinate_workers w ON w.id = j.worker_id
WHERE j.status = 'doing'
  AND (w.id IS NULL OR w.last_heartbeat < now() - make_interval(secs => %(stalled_after_s)s))
ORDER BY j.id
LIMIT 1
FOR UPDATE OF j SKIP LOCKED;

-- name: requeue_job --
-- Back to `todo` (at retry_at; now when null), or `aborted` when a twin already waits.
SELECT timetrace_requeue_job(%(job_id)s, %(retry_at)s, %(priority)s, %(queue)s, %(lock)s)
    AS outcome;

-- name: job_health --
-- Waiting: `todo` and due (not a retry scheduled for later); its age counts from when it
-- last became `todo`. Stalled: `doing` on a worker without a recent heartbeat.
WITH waiting AS (
    SELECT GREATEST((SELECT max(e.at) FROM procrastinate_events e WHERE e.job_id = j.id),
                    j.scheduled_at) AS since
    FROM procrastinate_jobs j
    WHERE j.status = 'todo' AND (j.scheduled_at IS NULL OR j.scheduled_at <= now())
)
SELECT
    (SELECT count(*) FROM waiting)::int AS waiting,
    (SELECT EXTRACT(EPOCH FROM now() - min(since))::double precision FROM waiting)
        AS oldest_waiting_s,
    (SELECT count(*) FROM procrastinate_jobs WHERE status = 'doing')::int AS running,
    (SELECT count(*) FROM procrastinate_jobs j
     LEFT JOIN procrastinate_workers w ON w.id = j.worker_id
     WHERE j.status = 'doing'
       AND (w.id IS NULL OR w.last_heartbeat < now() - make_interval(secs => %(stalled_after_s)s))
    )::int AS stalled,
    (SELECT count(*) FROM procrastinate_jobs WHERE status = 'failed')::int AS failed,
    (SELECT count(*) FROM procrastinate_workers
     WHERE last_heartbeat >= now() - make_interval(secs => %(stalled_after_s)s))::int AS workers;

-- ---------------------------------------------------------------------------
-- L2 episodes

-- name: devices_with_work --
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
    ON e.day_local BETWEEN s.day_local - 2 AND s.day_local - 1 AND e.ts_end >= s.ts_start;

-- name: delete_device_day_episodes --
-- Records fall back to unassigned (ON DELETE SET NULL) and are segmented again.
DELETE FROM episodes
WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND day_local = ANY(%(days)s);

-- name: records_to_segment --
-- One device-day's unassigned records with their durations (the effective span: ties
-- by key, as everywhere the duration rule runs). The window runs over every live record
-- of the read window; the last one's successor may lie past it.
SELECT x.record_id, x.ts_start, x.duration_s, x.app, x.window_title, x.domain, x.category,
       x.is_idle, x.day_local, COALESCE(a.confidence, 1.0) AS confidence
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


-- ---------------------------------------------------------------------------
-- L3/L4 digests and signals

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
    (SELECT COALESCE(array_agg(episode_id ORDER BY ts_start, episode_id), '{}') FROM e) AS episode_ids;

-- name: day_episode_facts --
-- Signals are numbers: they see the records' category, never one a model filled in.
SELECT episode_id, device_id, ts_start, ts_end,
       CASE WHEN category_source = 'model' THEN 'uncategorized' ELSE category END AS category,
       active_s, interruption_s, interruptions, cues
FROM episodes
WHERE user_id = %(user_id)s AND day_local = %(day)s AND closed AND NOT stale
ORDER BY device_id, ts_start;

-- name: day_member_facts --
SELECT r.episode_id, r.device_id, r.ts_start, COALESCE(r.domain, lower(r.app)) AS cluster, r.is_idle,
       concat_ws(' ', r.window_title, a.description) AS text
FROM records r
JOIN episodes e ON e.user_id = r.user_id AND e.episode_id = r.episode_id
LEFT JOIN record_analyses a ON a.user_id = r.user_id AND a.record_id = r.record_id
WHERE r.user_id = %(user_id)s AND r.day_local = %(day)s AND r.deleted_at IS NULL
  AND e.closed AND NOT e.stale
ORDER BY r.device_id, r.ts_start, r.client_record_id COLLATE "C";

-- name: day_is_settled --
-- Every live record of the day is in a closed, current episode.
SELECT NOT EXISTS (
           SELECT 1 FROM records WHERE user_id = %(user_id)s AND day_local = %(day)s
             AND episode_id IS NULL AND deleted_at IS NULL)
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
WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s AND deleted_at IS NULL;

-- name: rollups_due --
-- Day digests to (re)compute: days with closed episodes whose digest is missing, stale,
-- computed from older episodes (`sources_through`, see `day_sources_through`), or not
-- finalized though the day is over; and stale digests of days left with no episode.
SELECT e.user_id, e.day_local FROM (
    SELECT user_id, day_local, max(updated_at) AS through FROM episodes WHERE closed
    GROUP BY user_id, day_local
) e
LEFT JOIN digests d ON d.user_id = e.user_id AND d.grain = 'day'
                   AND d.scope_key = to_char(e.day_local, 'YYYY-MM-DD')
WHERE d.digest_id IS NULL OR d.stale OR d.sources_through IS DISTINCT FROM e.through
   OR (NOT d.finalized AND d.period_end < now())
UNION
SELECT user_id, scope_key::date FROM digests WHERE grain = 'day' AND stale;

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
-- Week and month digests to (re)compute: their days have digests, and the period's
-- digest is missing, stale, computed from older days (a rollup lost to a crash or to a
-- killed back-fill), or not finalized though the period is over and every active day
-- of it has a finalized digest.
WITH days AS (
    SELECT user_id, scope_key::date AS day, updated_at FROM digests
    WHERE grain = 'day' AND NOT stale
), periods AS (
    SELECT user_id, 'week' AS grain, to_char(day, 'IYYY-"W"IW') AS scope_key,
           date_trunc('week', day)::date AS first_day, max(updated_at) AS through
    FROM days GROUP BY 1, 2, 3, 4
    UNION ALL
    SELECT user_id, 'month', to_char(day, 'YYYY-MM'), date_trunc('month', day)::date,
           max(updated_at)
    FROM days GROUP BY 1, 2, 3, 4
)
SELECT p.user_id, p.grain, p.scope_key FROM periods p
LEFT JOIN digests d ON d.user_id = p.user_id AND d.grain = p.grain AND d.scope_key = p.scope_key
WHERE d.digest_id IS NULL OR d.stale OR d.sources_through IS DISTINCT FROM p.through
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
              AND NOT x.stale)))
ORDER BY p.scope_key DESC, p.user_id;

-- name: get_user_by_id --
SELECT user_id, name, time_zone, day_cut_hour FROM users WHERE user_id = %(user_id)s;

-- name: get_digest --
SELECT digest_id, grain, scope_key, period_start, period_end, metrics, narrative, narrative_status,
       source_ids, computed_through_ts, finalized, stale
FROM digests WHERE user_id = %(user_id)s AND grain = %(grain)s AND scope_key = %(scope_key)s;

-- name: list_signals --
SELECT signal_id, kind, scope, day_local, ts_start, ts_end, severity, metrics, evidence
FROM signals
WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s AND NOT stale
ORDER BY ts_start, kind, signal_id;

-- name: episode_counts_by_day --
SELECT day_local, count(*) AS n FROM episodes
WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s AND NOT stale
GROUP BY day_local ORDER BY day_local;

-- ---------------------------------------------------------------------------
-- The model layer: summaries, embeddings, narratives, frame descriptions

-- name: episode_for_summary --
-- day_apps: every app of the user that day (code-point order), for the grounding check.
SELECT e.episode_id, e.device_id, e.ts_start, e.ts_end, e.day_local, e.primary_app, e.category,
       e.title, e.summary_status,
       ARRAY(SELECT r.app FROM records r
             WHERE r.user_id = e.user_id AND r.day_local = e.day_local AND r.deleted_at IS NULL
               AND r.app <> ''
             GROUP BY r.app ORDER BY r.app COLLATE "C") AS day_apps
FROM episodes e
WHERE e.user_id = %(user_id)s AND e.episode_id = %(episode_id)s AND e.closed AND NOT e.stale;

-- name: episode_members --
-- Members are consecutive on their device: each one's successor is the next member,
-- the last one's the first record after the episode.
SELECT r.record_id, r.ts_start, r.app, r.window_title, r.domain, r.category, r.is_idle,
       a.description,
       timetrace_duration_s(r.ts_start, r.ts_end, COALESCE(
           lead(r.ts_start) OVER (ORDER BY r.ts_start, r.client_record_id COLLATE "C"),
           timetrace_next_start(r.user_id, r.device_id, r.ts_start, r.client_record_id)))
           AS duration_s
FROM records r
LEFT JOIN record_analyses a ON a.user_id = r.user_id AND a.record_id = r.record_id
WHERE r.user_id = %(user_id)s AND r.episode_id = %(episode_id)s AND r.deleted_at IS NULL
ORDER BY r.ts_start, r.client_record_id COLLATE "C";

-- name: save_episode_summary --
-- The model's words are added to the keyword index, never put in place of it: the
-- deterministic title keeps finding its episode whatever the summary says.
UPDATE episodes SET
    title = %(title)s, summary = %(summary)s, tags = %(tags)s, cues = %(cues)s,
    summary_status = %(status)s, summary_reason = %(reason)s, summary_raw = %(raw)s,
    fts = COALESCE(fts, ''::tsvector) || to_tsvector('simple', %(fts_text)s),
    updated_at = now()
WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s AND summary_status = 'pending'
RETURNING day_local;

-- name: fill_episode_category --
-- A summary's category fills in an `uncategorized` episode, never one its records
-- were labelled into by the user. Numbers never read it (see day_episode_facts).
UPDATE episodes e SET category = %(category)s, category_source = 'model'
WHERE e.user_id = %(user_id)s AND e.episode_id = %(episode_id)s AND NOT e.stale
  AND e.category = 'uncategorized' AND e.category_source = 'records'
  AND NOT EXISTS (SELECT 1 FROM records r WHERE r.user_id = e.user_id
                  AND r.episode_id = e.episode_id AND r.category_source = 'label')
RETURNING episode_id;

-- name: episode_day --
SELECT day_local FROM episodes WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s;

-- name: episode_for_embedding --
SELECT title, summary FROM episodes
WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s AND summary_status = 'done'
  AND embedding_status = 'pending';

-- name: save_episode_embedding --
UPDATE episodes SET summary_embedding = %(embedding)s::vector, embedding_status = 'done',
       embedding_reason = NULL
WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s AND embedding_status = 'pending';

-- name: fail_episode_embedding --
UPDATE episodes SET embedding_status = 'failed', embedding_reason = %(reason)s
WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s AND embedding_status = 'pending';

-- name: pending_summaries --
SELECT user_id, episode_id FROM episodes
WHERE summary_status = 'pending' AND closed AND NOT stale
ORDER BY ts_start DESC LIMIT %(limit)s;

-- name: pending_embeddings --
SELECT user_id, episode_id FROM episodes
WHERE summary_status = 'done' AND embedding_status = 'pending' AND NOT stale
ORDER BY ts_start DESC LIMIT %(limit)s;

-- name: pending_narratives --
-- Finalized digests whose narrative is still to write and whose sources are ready:
-- every episode of a day summarised (or failed, or idle); every day of a week or
-- month narrated.
SELECT d.user_id, d.grain, d.scope_key FROM digests d
WHERE d.finalized AND NOT d.stale AND d.narrative_status = 'pending'
  AND CASE WHEN d.grain = 'day' THEN NOT EXISTS (
          SELECT 1 FROM episodes e WHERE e.user_id = d.user_id
            AND e.day_local = d.scope_key::date AND e.summary_status = 'pending' AND NOT e.stale)
      ELSE NOT EXISTS (
          SELECT 1 FROM digests c WHERE c.user_id = d.user_id AND c.grain = 'day'
            AND c.digest_id IN (SELECT jsonb_array_elements_text(d.source_ids)::bigint)
            AND c.narrative_status = 'pending')
      END
ORDER BY d.period_start DESC LIMIT %(limit)s;

-- name: day_episode_summaries --
SELECT episode_id, ts_start, ts_end, category, title, summary, cues, duration_s
FROM episodes
WHERE user_id = %(user_id)s AND day_local = %(day)s AND closed AND NOT stale AND category <> 'system'
ORDER BY ts_start, episode_id;

-- name: child_narratives --
SELECT digest_id, scope_key, narrative FROM digests
WHERE user_id = %(user_id)s AND digest_id IN (SELECT jsonb_array_elements_text(%(ids)s::jsonb)::bigint)
ORDER BY scope_key;

-- name: save_narrative --
UPDATE digests SET narrative = %(narrative)s, narrative_status = %(status)s,
       narrative_reason = %(reason)s, narrative_raw = %(raw)s, updated_at = now(),
       source_ids = CASE WHEN grain = 'day' THEN %(source_ids)s ELSE source_ids END
WHERE user_id = %(user_id)s AND digest_id = %(digest_id)s AND narrative_status = 'pending'
  AND metrics = %(metrics)s;

-- name: record_for_description --
SELECT r.record_id, r.app, r.window_title, r.url, r.screenshot_ref, r.screenshot_sha256
FROM records r
LEFT JOIN record_analyses a ON a.user_id = r.user_id AND a.record_id = r.record_id
WHERE r.user_id = %(user_id)s AND r.record_id = %(record_id)s AND r.deleted_at IS NULL
  AND a.record_id IS NULL AND r.screenshot_ref IS NOT NULL;

-- name: pending_descriptions --
SELECT r.user_id, r.record_id FROM records r
LEFT JOIN record_analyses a ON a.user_id = r.user_id AND a.record_id = r.record_id
WHERE r.screenshot_ref IS NOT NULL AND r.deleted_at IS NULL AND a.record_id IS NULL
ORDER BY r.ts_start DESC LIMIT %(limit)s;

-- name: save_record_analysis --
INSERT INTO record_analyses (user_id, record_id, description, category, confidence, cues, model,
                             reason, raw_answer, fts)
VALUES (%(user_id)s, %(record_id)s, %(description)s, %(category)s, %(confidence)s, %(cues)s,
        %(model)s, %(reason)s, %(raw)s, to_tsvector('simple', %(fts_text)s))
ON CONFLICT (user_id, record_id) DO NOTHING;

-- name: model_work_counts --
-- The model layer's work, done, open and failed, for `timetrace status`.
SELECT
    count(*) FILTER (WHERE summary_status = 'done') AS summaries_done,
    count(*) FILTER (WHERE summary_status = 'pending') AS summaries_pending,
    count(*) FILTER (WHERE summary_status = 'failed') AS summaries_failed,
    count(*) FILTER (WHERE summary_status = 'done' AND embedding_status = 'done') AS embeddings_done,
    count(*) FILTER (WHERE summary_status = 'done' AND embedding_status = 'pending')
        AS embeddings_pending,
    count(*) FILTER (WHERE embedding_status = 'failed') AS embeddings_failed,
    (SELECT count(*) FROM digests WHERE narrative_status = 'done' AND NOT stale) AS narratives_done,
    (SELECT count(*) FROM digests WHERE narrative_status = 'pending' AND finalized AND NOT stale)
        AS narratives_pending,
    (SELECT count(*) FROM digests WHERE narrative_status = 'failed' AND NOT stale)
        AS narratives_failed,
    (SELECT count(*) FROM record_analyses WHERE reason IS NOT NULL) AS descriptions_failed
FROM episodes WHERE closed AND NOT stale;

-- name: model_failures --
-- The latest failures of every kind, newest first.
SELECT kind, target, reason, at FROM (
    (SELECT 'summary' AS kind, 'episode ' || episode_id AS target, summary_reason AS reason,
            updated_at AS at
     FROM episodes WHERE summary_status = 'failed' AND NOT stale
     ORDER BY updated_at DESC LIMIT %(limit)s)
    UNION ALL
    (SELECT 'embedding', 'episode ' || episode_id, embedding_reason, updated_at
     FROM episodes WHERE embedding_status = 'failed' AND NOT stale
     ORDER BY updated_at DESC LIMIT %(limit)s)
    UNION ALL
    (SELECT 'narrative', grain || ' ' || scope_key, narrative_reason, updated_at
     FROM digests WHERE narrative_status = 'failed' AND NOT stale
     ORDER BY updated_at DESC LIMIT %(limit)s)
    UNION ALL
    (SELECT 'description', 'record ' || record_id, reason, analyzed_at
     FROM record_analyses WHERE reason IS NOT NULL
     ORDER BY analyzed_at DESC LIMIT %(limit)s)
) f
ORDER BY at DESC, kind, target LIMIT %(limit)s;

-- ---------------------------------------------------------------------------
-- Tools (query time)

-- name: final_digests_overlapping --
SELECT digest_id, grain, scope_key, period_start, period_end, metrics, narrative, narrative_status,
       source_ids, computed_through_ts, finalized, stale FROM digests
WHERE user_id = %(user_id)s AND finalized AND NOT stale
  AND period_start < %(ts_to)s AND period_end > %(ts_from)s;

-- name: open_tail_metrics --
-- Records not yet in a closed episode (the open tail), by the duration rule.
WITH r AS (
    SELECT r.category, r.app, r.is_idle, r.episode_id, r.day_local, r.ts_start,
           timetrace_duration_s(r.ts_start, r.ts_end, COALESCE(
               lead(r.ts_start) OVER (PARTITION BY r.device_id
                                      ORDER BY r.ts_start, r.client_record_id COLLATE "C"),
               timetrace_next_start(r.user_id, r.device_id, r.ts_start, r.client_record_id)))
               AS d
    FROM records r
    WHERE r.user_id = %(user_id)s AND r.deleted_at IS NULL
      AND r.ts_start >= %(ts_from)s AND r.ts_start < %(ts_to)s
)
SELECT category, app, is_idle, COALESCE(sum(d), 0) AS seconds, max(ts_start) AS last_ts
FROM r WHERE episode_id IS NULL AND day_local BETWEEN %(day_from)s AND %(day_to)s
GROUP BY category, app, is_idle;

-- name: device_overlap_seconds --
-- Seconds of [ts_from, ts_to) during which two or more devices were active at once.
-- One device's effective spans never overlap, so a sweep over every device's active
-- spans counts devices; at equal instants ends go before starts (touching is not
-- overlapping). Of the records before ts_from (back to read_from) only each device's
-- last one can reach into the period: reading starts at the earliest of those.
WITH bound AS (
    SELECT COALESCE(min(last.ts_start), %(ts_from)s) AS read_from
    FROM devices d
    CROSS JOIN LATERAL (
        SELECT max(p.ts_start) AS ts_start FROM records p
        WHERE p.user_id = d.user_id AND p.device_id = d.device_id AND p.deleted_at IS NULL
          AND p.ts_start >= %(read_from)s AND p.ts_start < %(ts_from)s
    ) last
    WHERE d.user_id = %(user_id)s
), r AS (
    SELECT r.ts_start, r.is_idle,
           timetrace_duration_s(r.ts_start, r.ts_end,
               lead(r.ts_start) OVER (PARTITION BY r.device_id
                                      ORDER BY r.ts_start, r.client_record_id COLLATE "C")) AS d
    FROM records r
    WHERE r.user_id = %(user_id)s AND r.deleted_at IS NULL
      AND r.ts_start >= (SELECT read_from FROM bound) AND r.ts_start < %(ts_to)s
), spans AS (
    SELECT GREATEST(ts_start, %(ts_from)s) AS s,
           LEAST(ts_start + make_interval(secs => d), %(ts_to)s) AS e
    FROM r WHERE NOT is_idle
), edges AS (
    SELECT s AS t, 1 AS delta FROM spans WHERE e > s
    UNION ALL
    SELECT e, -1 FROM spans WHERE e > s
), sweep AS (
    SELECT t, sum(delta) OVER w AS active, lead(t) OVER w AS next_t
    FROM edges
    WINDOW w AS (ORDER BY t, delta ROWS UNBOUNDED PRECEDING)
)
SELECT COALESCE(sum(EXTRACT(EPOCH FROM next_t - t)) FILTER (WHERE active >= 2), 0)::double precision
       AS seconds
FROM sweep;

-- name: unbuilt_days --
-- Days of [day_from, day_to] with live records not (or no longer) in a current closed
-- episode: what a digest over them cannot include yet.
SELECT day_local AS day, sum(n)::int AS records FROM (
    SELECT day_local, count(*) AS n FROM records
    WHERE user_id = %(user_id)s AND episode_id IS NULL AND deleted_at IS NULL
      AND day_local BETWEEN %(day_from)s AND %(day_to)s
    GROUP BY day_local
    UNION ALL
    SELECT day_local, frame_count FROM episodes
    WHERE user_id = %(user_id)s AND stale AND day_local BETWEEN %(day_from)s AND %(day_to)s
) x
GROUP BY day_local ORDER BY day_local;

-- name: uncategorized_time --
-- The coverage view: active time no rule categorised, by app and site (by title for a
-- browser record without a URL), by the duration rule (the last record read sees its
-- successor past the window).
WITH r AS (
    SELECT r.app, r.domain, r.window_title, r.is_idle, r.category, r.day_local,
           timetrace_duration_s(r.ts_start, r.ts_end, COALESCE(
               lead(r.ts_start) OVER (PARTITION BY r.device_id
                                      ORDER BY r.ts_start, r.client_record_id COLLATE "C"),
               timetrace_next_start(r.user_id, r.device_id, r.ts_start, r.client_record_id)))
               AS d
    FROM records r
    WHERE r.user_id = %(user_id)s AND r.deleted_at IS NULL
      AND r.ts_start >= %(ts_from)s AND r.ts_start < %(ts_to)s
)
SELECT app, domain,
       CASE WHEN domain IS NULL AND app = ANY(%(browsers)s::text[]) THEN window_title ELSE '' END
           AS window_title,
       sum(d) AS seconds
FROM r
WHERE category = 'uncategorized' AND NOT is_idle AND day_local BETWEEN %(day_from)s AND %(day_to)s
GROUP BY 1, 2, 3
ORDER BY seconds DESC, 1, 2, 3
LIMIT %(limit)s;

-- name: period_signal_counts --
SELECT kind, count(*) AS n FROM signals
WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s AND NOT stale
GROUP BY kind ORDER BY kind;

-- name: latest_records --
SELECT r.record_id, r.device_id, r.ts_start, r.ts_end, r.app, r.window_title, r.domain,
       r.category, r.is_idle, r.episode_id, a.description
FROM (SELECT * FROM records
      WHERE user_id = %(user_id)s AND deleted_at IS NULL AND ts_start <= %(now)s
      ORDER BY ts_start DESC, record_id DESC LIMIT %(limit)s) r
LEFT JOIN record_analyses a ON a.user_id = r.user_id AND a.record_id = r.record_id
ORDER BY r.ts_start DESC, r.record_id DESC;

-- name: last_closed_episode --
SELECT episode_id, device_id, ts_start, ts_end, category, category_source, title, summary,
       duration_s, active_s
FROM episodes WHERE user_id = %(user_id)s AND closed AND NOT stale AND ts_end <= %(now)s
ORDER BY ts_end DESC, episode_id DESC LIMIT 1;

-- name: open_sitting --
-- What the device has done since its last closed episode (no episode yet).
SELECT min(ts_start) AS since, count(*) AS records,
       (SELECT app FROM records x WHERE x.user_id = %(user_id)s AND x.device_id = %(device_id)s
          AND x.episode_id IS NULL AND x.deleted_at IS NULL AND x.ts_start <= %(now)s
        GROUP BY app ORDER BY count(*) DESC, app LIMIT 1) AS main_app
FROM records WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND episode_id IS NULL
  AND deleted_at IS NULL AND ts_start <= %(now)s;

-- name: list_episodes --
SELECT episode_id, device_id, ts_start, ts_end, category, category_source, title, summary,
       duration_s, active_s
FROM episodes
WHERE user_id = %(user_id)s AND NOT stale AND ts_start < %(ts_to)s AND ts_end > %(ts_from)s
  AND (%(category)s::text IS NULL OR category = %(category)s::text)
ORDER BY ts_start DESC, episode_id DESC LIMIT %(limit)s;

-- name: search_episodes --
-- Hybrid search: pgvector cosine and tsvector ranks, each capped, fused with
-- Reciprocal Rank Fusion (k = 60). With no query vector only the text side runs.
WITH filtered AS (
    SELECT episode_id FROM episodes
    WHERE user_id = %(user_id)s AND NOT stale
      AND (%(day_from)s::date IS NULL OR day_local >= %(day_from)s::date)
      AND (%(day_to)s::date IS NULL OR day_local <= %(day_to)s::date)
      AND (%(category)s::text IS NULL OR category = %(category)s::text)
), semantic AS (
    SELECT e.episode_id, row_number() OVER (ORDER BY e.summary_embedding <=> %(embedding)s::vector) AS rank
    FROM episodes e
    WHERE %(embedding)s::vector IS NOT NULL AND e.user_id = %(user_id)s AND NOT e.stale
      AND e.summary_embedding IS NOT NULL
      AND (%(day_from)s::date IS NULL OR e.day_local >= %(day_from)s::date)
      AND (%(day_to)s::date IS NULL OR e.day_local <= %(day_to)s::date)
      AND (%(category)s::text IS NULL OR e.category = %(category)s::text)
    ORDER BY e.summary_embedding <=> %(embedding)s::vector
    LIMIT %(candidates)s
), lexical AS (
    SELECT e.episode_id,
           row_number() OVER (ORDER BY ts_rank_cd(e.fts, q) DESC, e.ts_start DESC) AS rank
    FROM episodes e, to_tsquery('simple', %(tsquery)s) AS q
    WHERE %(tsquery)s::text IS NOT NULL AND e.user_id = %(user_id)s AND e.fts @@ q
      AND e.episode_id IN (SELECT episode_id FROM filtered)
    ORDER BY ts_rank_cd(e.fts, q) DESC, e.ts_start DESC
    LIMIT %(candidates)s
), fused AS (
    SELECT COALESCE(s.episode_id, l.episode_id) AS episode_id,
           COALESCE(1.0 / (60 + s.rank), 0) + COALESCE(1.0 / (60 + l.rank), 0) AS score,
           s.rank AS semantic_rank, l.rank AS lexical_rank
    FROM semantic s FULL OUTER JOIN lexical l ON l.episode_id = s.episode_id
)
SELECT f.score::double precision AS score, f.semantic_rank, f.lexical_rank, e.episode_id,
       e.device_id, e.ts_start, e.ts_end, e.category, e.category_source, e.title, e.summary,
       e.duration_s, e.active_s
FROM fused f JOIN episodes e ON e.user_id = %(user_id)s AND e.episode_id = f.episode_id
ORDER BY f.score DESC, e.ts_start DESC
LIMIT %(k)s;

-- name: episode_neighbors --
-- The episode before and after each given one, on the same device.
SELECT g.episode_id AS of_id, n.side, n.episode_id, n.device_id, n.ts_start, n.ts_end,
       n.category, n.category_source, n.title, n.summary, n.duration_s, n.active_s
FROM episodes g
CROSS JOIN LATERAL (
    (SELECT 'before' AS side, p.* FROM episodes p
     WHERE p.user_id = g.user_id AND p.device_id = g.device_id AND NOT p.stale
       AND p.ts_start < g.ts_start ORDER BY p.ts_start DESC LIMIT 1)
    UNION ALL
    (SELECT 'after' AS side, x.* FROM episodes x
     WHERE x.user_id = g.user_id AND x.device_id = g.device_id AND NOT x.stale
       AND x.ts_start > g.ts_start ORDER BY x.ts_start LIMIT 1)
) n
WHERE g.user_id = %(user_id)s AND g.episode_id = ANY(%(ids)s);

-- name: raw_records --
SELECT r.record_id, r.device_id, r.ts_start, r.ts_end, r.app, r.window_title, r.domain,
       r.category, r.is_idle, r.episode_id, a.description
FROM records r
LEFT JOIN record_analyses a ON a.user_id = r.user_id AND a.record_id = r.record_id
WHERE r.user_id = %(user_id)s AND r.deleted_at IS NULL
  AND r.ts_start >= %(ts_from)s AND r.ts_start < %(ts_to)s
  AND (%(device_id)s::text IS NULL OR r.device_id = %(device_id)s::text)
ORDER BY r.ts_start, r.record_id LIMIT %(limit)s;

-- name: relabel_record --
WITH old AS (
    SELECT record_id, category FROM records
    WHERE user_id = %(user_id)s AND record_id = %(record_id)s AND deleted_at IS NULL
), upd AS (
    UPDATE records r SET category = %(category)s, category_source = 'label'
    FROM old WHERE r.user_id = %(user_id)s AND r.record_id = old.record_id
    RETURNING r.device_id, r.day_local, r.episode_id
)
SELECT upd.device_id, upd.day_local, upd.episode_id, old.category AS old_category FROM upd, old;

-- name: relabel_episode --
WITH ep AS (
    SELECT episode_id, category FROM episodes
    WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s AND NOT stale
), upd AS (
    UPDATE records r SET category = %(category)s, category_source = 'label'
    FROM ep WHERE r.user_id = %(user_id)s AND r.episode_id = ep.episode_id AND r.deleted_at IS NULL
      AND NOT r.is_idle
    RETURNING r.device_id, r.day_local
)
SELECT DISTINCT upd.device_id, upd.day_local, ep.episode_id, ep.category AS old_category
FROM upd, ep;

-- name: label_target_gone --
-- No row to re-label, but the target was there: a deleted record of this user, or an
-- episode id that is not (or no longer) a live episode of this user (episodes are
-- rebuilt, under new ids, when their records change). A conflict to report as such.
-- Every id that is not the user's live episode reads the same: comparing with the
-- global id sequence would tell how many episodes all users have.
SELECT CASE WHEN %(target_kind)s = 'record' THEN EXISTS (
           SELECT 1 FROM records WHERE user_id = %(user_id)s AND record_id = %(target_id)s
             AND deleted_at IS NOT NULL)
       ELSE NOT EXISTS (
           SELECT 1 FROM episodes WHERE user_id = %(user_id)s AND episode_id = %(target_id)s
             AND NOT stale)
       END AS gone;

-- name: insert_label --
INSERT INTO labels (user_id, target_kind, target_id, field, old_value, new_value, actor, note)
VALUES (%(user_id)s, %(target_kind)s, %(target_id)s, 'category', %(old_value)s, %(new_value)s,
        %(actor)s, %(note)s)
RETURNING label_id;

-- name: mark_episodes_stale --
UPDATE episodes SET stale = true, updated_at = now()
WHERE user_id = %(user_id)s AND episode_id = ANY(%(ids)s);

-- ---------------------------------------------------------------------------
-- Imports started over HTTP, with their progress

-- name: create_import --
INSERT INTO imports (user_id, source) VALUES (%(user_id)s, %(source)s) RETURNING import_id;

-- name: update_import --
UPDATE imports SET
    status = %(status)s, stage = %(stage)s, done = %(done)s, total = %(total)s,
    events = %(events)s, new = %(new)s, duplicate = %(duplicate)s, excluded = %(excluded)s,
    redacted = %(redacted)s, error = %(error)s, updated_at = now()
WHERE user_id = %(user_id)s AND import_id = %(import_id)s;

-- name: get_import --
SELECT import_id, source, status, stage, done, total, events, new, duplicate, excluded, redacted,
       error, created_at, updated_at
FROM imports WHERE user_id = %(user_id)s AND import_id = %(import_id)s;

-- == conversations with the agent ==========================================

-- name: create_conversation --
INSERT INTO conversations (user_id, title) VALUES (%(user_id)s, %(title)s)
RETURNING conversation_id;

-- name: get_conversation --
SELECT c.conversation_id, c.title, c.created_at, c.updated_at,
       (SELECT count(*) FROM conversation_turns t
        WHERE t.user_id = c.user_id AND t.conversation_id = c.conversation_id)::int AS turns
FROM conversations c
WHERE c.user_id = %(user_id)s AND c.conversation_id = %(conversation_id)s;

-- name: list_conversations --
SELECT c.conversation_id, c.title, c.created_at, c.updated_at,
       (SELECT count(*) FROM conversation_turns t
        WHERE t.user_id = c.user_id AND t.conversation_id = c.conversation_id)::int AS turns
FROM conversations c
WHERE c.user_id = %(user_id)s
ORDER BY c.updated_at DESC, c.conversation_id DESC
LIMIT %(limit)s;

-- name: conversation_turns --
SELECT turn_no, question, answer, status, mode, steps, episode_ids, tool_tokens, model_calls,
       elapsed_ms, created_at
FROM conversation_turns
WHERE user_id = %(user_id)s AND conversation_id = %(conversation_id)s
ORDER BY turn_no;

-- name: add_conversation_turn --
-- Updating the conversation first locks it: turns of one conversation are numbered in order.
-- A turn whose reach holds a record deleted since it started reading is not kept: it may
-- quote what the deletion erased (run under `lock_records_shared`, so a deletion either
-- commits first and is seen here, or comes after and drops the turn itself).
WITH conv AS (
    UPDATE conversations SET updated_at = now()
    WHERE user_id = %(user_id)s AND conversation_id = %(conversation_id)s
    RETURNING user_id, conversation_id
)
INSERT INTO conversation_turns (user_id, conversation_id, turn_no, question, answer, status,
                                mode, steps, episode_ids, tool_tokens, model_calls, elapsed_ms,
                                reach)
SELECT conv.user_id, conv.conversation_id,
       (SELECT coalesce(max(t.turn_no), 0) + 1 FROM conversation_turns t
        WHERE t.user_id = conv.user_id AND t.conversation_id = conv.conversation_id),
       %(question)s, %(answer)s, %(status)s, %(mode)s, %(steps)s, %(episode_ids)s,
       %(tool_tokens)s, %(model_calls)s, %(elapsed_ms)s, %(reach)s::tstzrange
FROM conv
WHERE %(started_at)s::timestamptz IS NULL OR NOT EXISTS (
    SELECT 1 FROM records r
    WHERE r.user_id = conv.user_id AND r.deleted_at >= %(started_at)s::timestamptz
      AND (%(reach)s::tstzrange IS NULL OR %(reach)s::tstzrange @> r.ts_start))
RETURNING turn_no;

-- name: delete_conversation --
DELETE FROM conversations
WHERE user_id = %(user_id)s AND conversation_id = %(conversation_id)s
RETURNING conversation_id;
-- ---------------------------------------------------------------------------
-- Web pages: sign-in sessions and the reads the pages make beyond the tools

-- name: start_web_session --
-- Only a live token opens a session; expired sessions are cleared on the way.
WITH token AS (
    SELECT user_id, token_id FROM api_tokens
    WHERE token_hash = %(token_hash)s AND revoked_at IS NULL
), expired AS (
    DELETE FROM web_sessions WHERE expires_at < now()
), session AS (
    INSERT INTO web_sessions (user_id, session_hash, token_id, csrf_token, expires_at)
    SELECT user_id, %(session_hash)s, token_id, %(csrf_token)s,
           now() + make_interval(secs => %(ttl_s)s)
    FROM token
    RETURNING user_id
)
SELECT u.user_id, u.name, u.time_zone, u.day_cut_hour FROM session JOIN users u USING (user_id);

-- name: web_session --
SELECT u.user_id, u.name, u.time_zone, u.day_cut_hour, s.csrf_token
FROM web_sessions s
JOIN api_tokens t ON t.user_id = s.user_id AND t.token_id = s.token_id AND t.revoked_at IS NULL
JOIN users u ON u.user_id = s.user_id
WHERE s.session_hash = %(session_hash)s AND s.expires_at > now();

-- name: end_web_session --
DELETE FROM web_sessions WHERE session_hash = %(session_hash)s;

-- name: list_tokens --
SELECT t.token_id, t.name, t.created_at, t.revoked_at,
       (SELECT count(*) FROM web_sessions s
        WHERE s.user_id = t.user_id AND s.token_id = t.token_id AND s.expires_at > now())::int
           AS web_sessions
FROM api_tokens t WHERE t.user_id = %(user_id)s ORDER BY t.created_at, t.token_id;

-- name: revoke_token --
WITH revoked AS (
    UPDATE api_tokens SET revoked_at = now()
    WHERE user_id = %(user_id)s AND token_id = %(token_id)s AND revoked_at IS NULL
    RETURNING user_id, token_id
), ended AS (
    DELETE FROM web_sessions s USING revoked r
    WHERE s.user_id = r.user_id AND s.token_id = r.token_id
)
SELECT count(*) AS n FROM revoked;

-- name: episode_detail --
SELECT episode_id, device_id, ts_start, ts_end, category, category_source, title, summary,
       duration_s, active_s, day_local, primary_app, summary_status, cues, interruptions,
       frame_count
FROM episodes WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s AND NOT stale;

-- name: episode_records --
SELECT r.record_id, r.device_id, r.ts_start, r.ts_end, r.app, r.window_title, r.domain,
       r.category, r.is_idle, r.episode_id, a.description
FROM records r
LEFT JOIN record_analyses a ON a.user_id = r.user_id AND a.record_id = r.record_id
WHERE r.user_id = %(user_id)s AND r.episode_id = %(episode_id)s AND r.deleted_at IS NULL
ORDER BY r.ts_start, r.record_id LIMIT %(limit)s;

-- name: site_seconds --
-- Active seconds per web site (domain) over logical days, by the duration rule; the
-- window reads the records of [ts_from, ts_to), the last one sees its successor past it.
WITH r AS (
    SELECT r.domain, r.is_idle, r.day_local,
           timetrace_duration_s(r.ts_start, r.ts_end, COALESCE(
               lead(r.ts_start) OVER (PARTITION BY r.device_id
                                      ORDER BY r.ts_start, r.client_record_id COLLATE "C"),
               timetrace_next_start(r.user_id, r.device_id, r.ts_start, r.client_record_id)))
               AS d
    FROM records r
    WHERE r.user_id = %(user_id)s AND r.deleted_at IS NULL
      AND r.ts_start >= %(ts_from)s AND r.ts_start < %(ts_to)s
)
SELECT domain, sum(d) AS seconds FROM r
WHERE domain IS NOT NULL AND NOT is_idle AND day_local BETWEEN %(day_from)s AND %(day_to)s
GROUP BY domain ORDER BY seconds DESC, domain LIMIT %(limit)s;

-- name: records_in_range --
-- What deleting [ts_from, ts_to) would erase, per device and logical day.
SELECT device_id, day_local, count(*)::int AS records, min(ts_start) AS first_ts,
       max(ts_start) AS last_ts,
       COALESCE((array_agg(DISTINCT app ORDER BY app) FILTER (WHERE app <> ''))[1:8], '{}') AS apps
FROM records
WHERE user_id = %(user_id)s AND deleted_at IS NULL
  AND ts_start >= %(ts_from)s AND ts_start < %(ts_to)s
  AND (%(device_id)s::text IS NULL OR device_id = %(device_id)s::text)
GROUP BY device_id, day_local ORDER BY day_local, device_id;
