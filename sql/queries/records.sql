-- Records (L0): ingest, import, deletion; and the imports started over HTTP.

-- name: batch_neighbours --
-- A capture client's batch, before it is stored (one transaction, `store_batch`, after
-- `lock_device_build_shared`, so the watermark read here holds until it commits):
-- whether its device is registered and has a tombstone, the device's watermark (a
-- batch at or below it is late), the record stored just before its first start (its
-- successor may cut it short), and whether any live record is stored inside the
-- batch's span (then the clipped seconds come from `clipped_seconds`, not Python).
-- A batch on a device with no tombstone, with nothing stored inside its span and after
-- the watermark, is copied straight into records. `expired_before`: the user's raw
-- tier has removed every record before it (a batch reaching back there is staged:
-- insert_records drops what it holds from before it).
SELECT d.device_id IS NOT NULL AS device_known, COALESCE(d.has_tombstones, false) AS tombstones,
       m.last_start AS mark_start, m.last_key AS mark_key,
       (SELECT t.raw_expired_before FROM retention t WHERE t.user_id = %(user_id)s)
           AS expired_before,
       p.ts_start AS before_start, p.ts_end AS before_end,
       EXISTS (SELECT 1 FROM records w
               WHERE w.user_id = %(user_id)s AND w.device_id = %(device_id)s
                 AND w.ts_start BETWEEN %(ts_from)s AND %(ts_to)s
                 AND w.deleted_at IS NULL) AS inside
FROM (SELECT 1) AS one
LEFT JOIN devices d ON d.user_id = %(user_id)s AND d.device_id = %(device_id)s
LEFT JOIN LATERAL (
    SELECT e.last_start, e.last_key FROM episodes e
    WHERE e.user_id = %(user_id)s AND e.device_id = %(device_id)s
    ORDER BY e.ts_start DESC, e.first_key COLLATE "C" DESC
    LIMIT 1
) AS m ON true
LEFT JOIN LATERAL (
    SELECT r.ts_start, r.ts_end FROM records r
    WHERE r.user_id = %(user_id)s AND r.device_id = %(device_id)s AND r.deleted_at IS NULL
      AND r.ts_start < %(ts_from)s
    ORDER BY r.ts_start DESC, r.client_record_id COLLATE "C" DESC
    LIMIT 1
) AS p ON true;

-- name: create_ingest_staging --
-- A capture client's batch arrives by binary COPY into this table, dropped at commit:
-- psycopg formats COPY rows in C, where array parameters are formatted in Python, at
-- ten times the cost (text arrays: 20 µs a record).
CREATE TEMP TABLE ingest_staging (
    client_record_id text, ts_start timestamptz, ts_end timestamptz, day_local date, app text,
    app_raw text, window_title text, url text, domain text, is_idle boolean, capture_reason text,
    screenshot_ref text, screenshot_sha256 text, category text, category_source text,
    redacted boolean
) ON COMMIT DROP;

-- name: copy_ingest_staging --
COPY ingest_staging (
    client_record_id, ts_start, ts_end, day_local, app, app_raw, window_title, url, domain,
    is_idle, capture_reason, screenshot_ref, screenshot_sha256, category, category_source,
    redacted
) FROM STDIN (FORMAT BINARY);

-- name: insert_records --
-- One statement per batch. The key is the timeline position (records_timeline): an exact
-- replay hits it and changes nothing, and so does a deleted record, whose tombstone
-- keeps its start and a hash of its key (looked for only on a device that has a
-- tombstone). Rows go in timeline order, the key's own: concurrent batches sharing
-- records lock them in one order, and the index grows at its right edge.
-- A new record at or below the device's watermark arrived late: its day is marked
-- for a rebuild and the day's episodes go stale (nothing happens for the tail).
-- A record before the user's raw expiry (retention) is dropped: that span is gone, and
-- a replay must not bring any of it back.
-- Runs after `lock_device_build_shared`, in its transaction.
WITH ins AS (
INSERT INTO records (
    user_id, device_id, client_record_id, ts_start, ts_end, day_local, app, app_raw, window_title,
    url, domain, is_idle, capture_reason, screenshot_ref, screenshot_sha256, category,
    category_source, redacted)
SELECT %(user_id)s, %(device_id)s, s.client_record_id, s.ts_start, s.ts_end, s.day_local, s.app,
       s.app_raw, s.window_title, s.url, s.domain, s.is_idle, s.capture_reason, s.screenshot_ref,
       s.screenshot_sha256, s.category, s.category_source, s.redacted
FROM ingest_staging s
WHERE (NOT (SELECT d.has_tombstones FROM devices d
            WHERE d.user_id = %(user_id)s AND d.device_id = %(device_id)s)
       OR NOT EXISTS (
            SELECT 1 FROM records t
            WHERE t.user_id = %(user_id)s AND t.device_id = %(device_id)s
              AND t.ts_start = s.ts_start
              AND t.client_record_id COLLATE "C" = timetrace_tombstone_key(s.client_record_id)
              AND t.deleted_at IS NOT NULL))
  AND s.ts_start >= COALESCE((SELECT x.raw_expired_before FROM retention x
                              WHERE x.user_id = %(user_id)s), '-infinity')
ORDER BY s.ts_start, s.client_record_id COLLATE "C"
ON CONFLICT (user_id, device_id, ts_start, client_record_id COLLATE "C") DO NOTHING
RETURNING ts_start, client_record_id, day_local
), w AS (
    SELECT last_start, last_key FROM episodes
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s
    ORDER BY ts_start DESC, first_key COLLATE "C" DESC LIMIT 1
), late AS (
    SELECT i.day_local, min(i.ts_start) AS first_ts FROM ins i, w
    WHERE (i.ts_start, i.client_record_id COLLATE "C") <= (w.last_start, w.last_key COLLATE "C")
    GROUP BY i.day_local
), marked AS (  -- one row: the final SELECT joins it, so that it runs
    SELECT timetrace_mark_days(%(user_id)s, array_agg(%(device_id)s::text), array_agg(day_local),
                               array_agg(first_ts), NULL) AS n
    FROM late
)
SELECT count(*)::int AS new FROM ins CROSS JOIN marked;

-- name: clipped_seconds --
-- Seconds the duration rule cuts from records (own end past the effective span's end,
-- which is then the next record's start) in the overlaps a batch takes part in: a batch
-- record cut short, or the record it cuts. The window runs from the record before the
-- batch's first start to its last end (ts_from, ts_to), inclusive: a successor past
-- that cannot cut anything. Clipped rows are few, so the keys are looked at only for them.
WITH timeline AS (
    SELECT s.client_record_id, s.ts_end, s.span_end,
           lead(s.client_record_id) OVER (ORDER BY s.ts_start, s.client_record_id COLLATE "C")
               AS next_key
    FROM (
        SELECT COALESCE((
            SELECT max(p.ts_start) FROM records p
            WHERE p.user_id = %(user_id)s AND p.device_id = %(device_id)s
              AND p.deleted_at IS NULL AND p.ts_start < %(ts_from)s), %(ts_from)s) AS ts_from
    ) b
    CROSS JOIN LATERAL timetrace_spans_v1(%(user_id)s, b.ts_from,
                                          %(ts_to)s::timestamptz + interval '1 microsecond') s
    WHERE s.device_id = %(device_id)s
), keys AS (
    SELECT unnest(%(keys)s::text[]) AS client_record_id
)
SELECT COALESCE(sum(EXTRACT(EPOCH FROM ts_end - span_end)), 0)::double precision AS clipped_s
FROM timeline
WHERE ts_end > span_end
  AND (client_record_id IN (SELECT client_record_id FROM keys)
       OR next_key IN (SELECT client_record_id FROM keys));

-- name: any_key_stored --
-- Whether an importer's batch may be copied straight into records: not when the device
-- has a tombstone (whose key is a hash), nor when any record is stored inside the
-- batch's span (a key is a timeline position: one range probe of records_timeline,
-- however many records the device holds), nor when the batch reaches back before the
-- user's raw expiry (the staged insert drops what lies there).
SELECT EXISTS (
           SELECT 1 FROM devices
           WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND has_tombstones)
    OR EXISTS (
           SELECT 1 FROM retention
           WHERE user_id = %(user_id)s AND raw_expired_before > %(first)s)
    OR EXISTS (
           SELECT 1 FROM records
           WHERE user_id = %(user_id)s AND device_id = %(device_id)s
             AND ts_start BETWEEN %(first)s AND %(last)s) AS found;

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
-- go in timeline order, late ones mark their day); a record's description (the frame's
-- own text, from an importer) becomes its L1 analysis in the same statement.
WITH ins AS (
    INSERT INTO records (
        user_id, device_id, client_record_id, ts_start, ts_end, day_local, app, app_raw,
        window_title, url, domain, is_idle, capture_reason, screenshot_ref, screenshot_sha256,
        category, category_source, redacted)
    SELECT %(user_id)s, %(device_id)s, client_record_id, ts_start, ts_end, day_local, app, app_raw,
           window_title, url, domain, is_idle, capture_reason, screenshot_ref, screenshot_sha256,
           category, category_source, redacted
    FROM import_staging s
    WHERE (NOT (SELECT d.has_tombstones FROM devices d  -- as insert_records
                WHERE d.user_id = %(user_id)s AND d.device_id = %(device_id)s)
           OR NOT EXISTS (
                SELECT 1 FROM records t
                WHERE t.user_id = %(user_id)s AND t.device_id = %(device_id)s
                  AND t.ts_start = s.ts_start
                  AND t.client_record_id COLLATE "C" = timetrace_tombstone_key(s.client_record_id)
                  AND t.deleted_at IS NOT NULL))
      AND s.ts_start >= COALESCE((SELECT x.raw_expired_before FROM retention x
                                  WHERE x.user_id = %(user_id)s), '-infinity')
    ORDER BY ts_start, client_record_id COLLATE "C"
    ON CONFLICT (user_id, device_id, ts_start, client_record_id COLLATE "C") DO NOTHING
    RETURNING record_id, client_record_id, ts_start, day_local
), w AS (  -- late records mark their day (as insert_records)
    SELECT last_start, last_key FROM episodes
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s
    ORDER BY ts_start DESC, first_key COLLATE "C" DESC LIMIT 1
), late AS (
    SELECT i.day_local, min(i.ts_start) AS first_ts FROM ins i, w
    WHERE (i.ts_start, i.client_record_id COLLATE "C") <= (w.last_start, w.last_key COLLATE "C")
    GROUP BY i.day_local
), marked AS (  -- one row: the final SELECT joins it, so that it runs
    SELECT timetrace_mark_days(%(user_id)s, array_agg(%(device_id)s::text), array_agg(day_local),
                               array_agg(first_ts), NULL) AS n
    FROM late
), analyses AS (
    INSERT INTO record_analyses (user_id, record_id, ts_start, description, model, fts)
    SELECT %(user_id)s, ins.record_id, ins.ts_start, s.description, %(model)s,
           to_tsvector('simple', s.fts_text)
    FROM ins JOIN import_staging s USING (client_record_id, ts_start)
    WHERE s.description IS NOT NULL
)
SELECT count(*) AS new FROM ins CROSS JOIN marked;

-- name: tombstone_records --
-- Deletion, step 1 of one transaction (see `PostgresStore.delete_records`): a record
-- keeps only what rebuilding needs (ids, device, span, logical day) and a hash of its
-- key, so that a replay cannot bring it back; its analysis goes, and so do the notes
-- of re-labels of it (those of its episodes go by their touched span:
-- blank_notes_touching_deleted). Returns the hits per device-day with the earliest.
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
    RETURNING user_id, record_id, device_id, day_local, ts_start
), analyses AS (
    DELETE FROM record_analyses a USING gone
    WHERE a.user_id = gone.user_id AND a.record_id = gone.record_id
), notes AS (
    UPDATE labels l SET note = ''
    WHERE l.user_id = %(user_id)s AND l.note <> ''
      AND l.target_kind = 'record' AND l.target_id IN (SELECT record_id FROM gone)
)
SELECT device_id, day_local, count(*)::int AS records, min(ts_start) AS first_gone
FROM gone GROUP BY device_id, day_local;

-- name: flag_tombstones --
-- Deletion: the devices that now hold a tombstone, whose replays are checked against them.
UPDATE devices SET has_tombstones = true
WHERE user_id = %(user_id)s AND device_id = ANY(%(devices)s::text[]) AND NOT has_tombstones;

-- name: ensure_months --
-- The monthly partitions of records for these days (each its own month), made if missing.
SELECT count(*) FILTER (WHERE timetrace_ensure_month(m))::int AS made
FROM unnest(%(months)s::date[]) AS m;

-- name: delete_episodes_of_device_days --
-- Deletion: every episode of the device-days the deleted records were on goes now (its
-- title, summary, cues and embedding with it); the days are marked in the same
-- transaction, so their other records count through the open tail until the rebuild.
-- Each id goes to episode_redirects with its first position (no text; the key of a
-- record just deleted is not kept, so deleted time has no cover and takes no id back).
WITH gone AS (
    DELETE FROM episodes e
    USING unnest(%(devices)s::text[], %(days)s::date[]) AS d(device_id, day_local)
    WHERE e.user_id = %(user_id)s AND e.device_id = d.device_id AND e.day_local = d.day_local
    RETURNING e.user_id, e.episode_id, e.device_id, e.day_local, e.ts_start, e.first_key
)
INSERT INTO episode_redirects (user_id, episode_id, device_id, day_local, ts_start,
                               first_key)
SELECT g.user_id, g.episode_id, g.device_id, g.day_local, g.ts_start,
       CASE WHEN timetrace_record_live(g.user_id, g.device_id, g.ts_start, g.first_key)
            THEN g.first_key END
FROM gone g
ON CONFLICT (user_id, episode_id) DO UPDATE SET
    device_id = EXCLUDED.device_id, day_local = EXCLUDED.day_local,
    ts_start = EXCLUDED.ts_start, first_key = EXCLUDED.first_key, gone_at = now();

-- name: forget_deleted_redirect_keys --
-- Deletion: an id an earlier rebuild left on these device-days keeps no key of a record
-- deleted now (its time has no cover any more, and no new episode takes the id back).
UPDATE episode_redirects g SET first_key = NULL
FROM unnest(%(devices)s::text[], %(days)s::date[]) AS d(device_id, day_local)
WHERE g.user_id = %(user_id)s AND g.device_id = d.device_id AND g.day_local = d.day_local
  AND g.first_key IS NOT NULL
  AND NOT timetrace_record_live(g.user_id, g.device_id, g.ts_start, g.first_key);

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

