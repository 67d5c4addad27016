-- The ActivityWatch door (app/awdoor): buckets, events and settings as aw-server keeps
-- them, and the conversion of a host's events into records.

-- name: aw_buckets --
-- Every bucket, with the end of its newest event (aw-server's `last_updated`).
SELECT b.bucket_id, b.name, b.type, b.client, b.hostname, b.created, b.data::text AS data,
       l.last_updated
FROM aw_buckets b
LEFT JOIN LATERAL (
    SELECT e.ts + e.duration_us * interval '1 microsecond' AS last_updated
    FROM aw_events e
    WHERE e.user_id = b.user_id AND e.bucket_id = b.bucket_id
    ORDER BY e.ts DESC LIMIT 1
) AS l ON true
WHERE b.user_id = %(user_id)s
ORDER BY b.bucket_id;

-- name: aw_create_bucket --
INSERT INTO aw_buckets (user_id, bucket_id, name, type, client, hostname, created, data)
VALUES (%(user_id)s, %(bucket_id)s, %(name)s, %(type)s, %(client)s, %(hostname)s, %(created)s,
        %(data)s::json)
ON CONFLICT (user_id, bucket_id) DO NOTHING
RETURNING bucket_id;

-- name: aw_update_bucket --
UPDATE aw_buckets SET
    type = COALESCE(%(type)s, type), client = COALESCE(%(client)s, client),
    hostname = COALESCE(%(hostname)s, hostname), data = COALESCE(%(data)s::json, data)
WHERE user_id = %(user_id)s AND bucket_id = %(bucket_id)s
RETURNING bucket_id;

-- name: aw_delete_bucket --
-- Its events go with it (ON DELETE CASCADE); its records stay, as after aw-server.
DELETE FROM aw_buckets WHERE user_id = %(user_id)s AND bucket_id = %(bucket_id)s
RETURNING bucket_id;

-- name: aw_last_events --
-- Each bucket's newest event by start (what a heartbeat merges into), for buckets given;
-- never one set aside.
SELECT b.bucket_id, e.event_id, e.ts, e.duration_us, e.data::text AS data
FROM unnest(%(bucket_ids)s::text[]) AS b(bucket_id)
JOIN LATERAL (
    SELECT x.event_id, x.ts, x.duration_us, x.data FROM aw_events x
    WHERE x.user_id = %(user_id)s AND x.bucket_id = b.bucket_id AND x.set_aside IS NULL
    ORDER BY x.ts DESC, x.event_id DESC LIMIT 1
) AS e ON true;

-- name: aw_new_event_ids --
-- global: ids from the door's sequence, unique across users as aw-server's are per server
-- (also the numbers of its group commits, `aw_events.changed`)
SELECT nextval('aw_event_ids') AS event_id FROM generate_series(1, %(n)s);

-- name: aw_relaxed_commit --
-- global: a setting of the door's writer connection alone (nothing else runs on it)
-- Heartbeats commit without waiting for the WAL to reach the disk: a database crash
-- may lose the last fraction of a second of them (the next heartbeat carries the same
-- state again), and a commit costs no disk flush, which is what bounds the door.
SET synchronous_commit TO off;

-- name: aw_save_events --
-- A group of heartbeats and inserts: new events and replaced ones, in one statement,
-- each stamped with the group's number (`change`), by which a crash's unconverted
-- writes are found. Nothing else: the door marks the buckets in memory. The rows come
-- as one JSON array of [bucket, id, start µs, duration µs, data as text] (one
-- parameter: cheaper to send than five arrays of values adapted one by one).
INSERT INTO aw_events (user_id, bucket_id, event_id, ts, duration_us, data, changed)
SELECT %(user_id)s, r->>0, (r->>1)::bigint,
       timestamptz 'epoch' + (r->>2)::bigint * interval '1 microsecond',
       (r->>3)::bigint, (r->>4)::json, %(change)s
FROM json_array_elements(%(rows)s::json) AS r
ON CONFLICT (user_id, bucket_id, event_id) DO UPDATE SET
    ts = EXCLUDED.ts, duration_us = EXCLUDED.duration_us, data = EXCLUDED.data,
    changed = EXCLUDED.changed;

-- name: aw_events --
-- aw-server's event list (its SQLite store): newest first, those ending at or after
-- `start_at` and starting at or before `end_at`, at most `lim` (NULL: all).
SELECT e.event_id, e.ts, e.duration_us, e.data::text AS data
FROM aw_events e
WHERE e.user_id = %(user_id)s AND e.bucket_id = %(bucket_id)s
  AND (%(start_at)s::timestamptz IS NULL
       OR e.ts + e.duration_us * interval '1 microsecond' >= %(start_at)s)
  AND (%(end_at)s::timestamptz IS NULL OR e.ts <= %(end_at)s)
ORDER BY e.ts DESC, e.event_id DESC
LIMIT %(lim)s;

-- name: aw_event --
SELECT e.event_id, e.ts, e.duration_us, e.data::text AS data
FROM aw_events e
WHERE e.user_id = %(user_id)s AND e.bucket_id = %(bucket_id)s AND e.event_id = %(event_id)s;

-- name: aw_count_events --
SELECT count(*)::bigint AS n FROM aw_events e
WHERE e.user_id = %(user_id)s AND e.bucket_id = %(bucket_id)s
  AND (%(start_at)s::timestamptz IS NULL OR e.ts >= %(start_at)s)
  AND (%(end_at)s::timestamptz IS NULL OR e.ts <= %(end_at)s);

-- name: aw_delete_event --
WITH gone AS (
    DELETE FROM aw_events
    WHERE user_id = %(user_id)s AND bucket_id = %(bucket_id)s AND event_id = %(event_id)s
    RETURNING bucket_id, ts
), marked AS (
    UPDATE aw_buckets b SET dirty_from = LEAST(b.dirty_from, g.ts), changes = b.changes + 1
    FROM gone g WHERE b.user_id = %(user_id)s AND b.bucket_id = g.bucket_id
    RETURNING 1
)
SELECT count(*)::int AS n FROM gone;

-- name: aw_settings --
SELECT key, value::text AS value FROM aw_settings WHERE user_id = %(user_id)s ORDER BY key;

-- name: aw_set_setting --
INSERT INTO aw_settings (user_id, key, value) VALUES (%(user_id)s, %(key)s, %(value)s::json)
ON CONFLICT (user_id, key) DO UPDATE SET value = EXCLUDED.value;

-- name: aw_drop_setting --
DELETE FROM aw_settings WHERE user_id = %(user_id)s AND key = %(key)s;

-- name: aw_dirty --
-- Every bucket (a host's window, afk and web buckets are converted together) with its
-- mark in the database: only a deleted event marks there (the door's other writes are
-- marked in its memory, and found after a crash by `aw_changed_since`).
SELECT bucket_id, type, client, hostname, dirty_from, changes
FROM aw_buckets WHERE user_id = %(user_id)s ORDER BY bucket_id;

-- name: aw_clear_dirty --
-- After a conversion: the marks it saw, unless written again since.
UPDATE aw_buckets b SET dirty_from = NULL
FROM unnest(%(bucket_ids)s::text[], %(changes)s::bigint[]) AS u(bucket_id, changes)
WHERE b.user_id = %(user_id)s AND b.bucket_id = u.bucket_id AND b.changes = u.changes;

-- name: aw_converted_through --
-- Every group commit numbered up to this has been converted (NULL: none yet).
SELECT through FROM aw_converted WHERE user_id = %(user_id)s;

-- name: aw_set_converted --
INSERT INTO aw_converted (user_id, through) VALUES (%(user_id)s, %(through)s)
ON CONFLICT (user_id) DO UPDATE SET through = GREATEST(aw_converted.through, EXCLUDED.through);

-- name: aw_changed_since --
-- What a crash may have left unconverted: per bucket, the earliest start of the events
-- written by group commits numbered above `after`, and the highest such number.
SELECT bucket_id, min(ts) AS dirty_from, max(changed) AS changed
FROM aw_events
WHERE user_id = %(user_id)s AND changed > %(after)s AND set_aside IS NULL
GROUP BY bucket_id ORDER BY bucket_id;

-- name: aw_events_before --
-- The newest `n` events of each bucket starting at or before `before_at`, newest first
-- (none set aside: here and in every read of the conversion).
SELECT b.bucket_id, e.ts, e.duration_us, e.data::text AS data, e.event_id
FROM unnest(%(bucket_ids)s::text[]) AS b(bucket_id)
JOIN LATERAL (
    SELECT x.ts, x.duration_us, x.data, x.event_id FROM aw_events x
    WHERE x.user_id = %(user_id)s AND x.bucket_id = b.bucket_id AND x.ts <= %(before_at)s
      AND x.set_aside IS NULL
    ORDER BY x.ts DESC, x.event_id DESC LIMIT %(n)s
) AS e ON true
ORDER BY e.ts DESC;

-- name: aw_events_from --
-- What a conversion reads: each bucket's events starting at or after its own entry of
-- `from_ats` (all when NULL), and the three before them (a neighbour that floods into
-- the window, or reaches over its start), in time order.
SELECT b.bucket_id, e.ts, e.duration_us, e.data::text AS data, e.event_id
FROM unnest(%(bucket_ids)s::text[], %(from_ats)s::timestamptz[]) AS b(bucket_id, from_at)
JOIN LATERAL (
    SELECT x.ts, x.duration_us, x.data, x.event_id FROM aw_events x
    WHERE x.user_id = %(user_id)s AND x.bucket_id = b.bucket_id
      AND (b.from_at IS NULL OR x.ts >= b.from_at) AND x.set_aside IS NULL
    UNION ALL
    (SELECT y.ts, y.duration_us, y.data, y.event_id FROM aw_events y
     WHERE y.user_id = %(user_id)s AND y.bucket_id = b.bucket_id AND y.ts < b.from_at
       AND y.set_aside IS NULL
     ORDER BY y.ts DESC, y.event_id DESC LIMIT 3)
) AS e ON true
ORDER BY b.bucket_id, e.ts, e.event_id;

-- name: aw_first_event --
-- The earliest start among buckets (where a host's first conversion begins).
SELECT min(ts) AS first FROM aw_events
WHERE user_id = %(user_id)s AND bucket_id = ANY(%(bucket_ids)s::text[]) AND set_aside IS NULL;

-- name: aw_set_aside --
-- Events the conversion could not use, with why: its reads skip them from now on.
UPDATE aw_events e SET set_aside = %(reason)s
FROM unnest(%(bucket_ids)s::text[], %(event_ids)s::bigint[]) AS u(bucket_id, event_id)
WHERE e.user_id = %(user_id)s AND e.bucket_id = u.bucket_id AND e.event_id = u.event_id;

-- name: aw_redact_windows --
-- A host's window events from `from_at` on (all when NULL) whose data is one of `datas`
-- (windows an incognito tab showed in), redacted as the door redacts as it stores: title
-- and URL blanked, marked incognito. Returns how many.
WITH done AS (
    UPDATE aw_events e SET data = (
        e.data::jsonb || jsonb_build_object('title', '', 'incognito', true)
        || CASE WHEN e.data::jsonb ? 'url' THEN jsonb_build_object('url', '') ELSE '{}' END
    )::json
    WHERE e.user_id = %(user_id)s AND e.bucket_id = ANY(%(bucket_ids)s::text[])
      AND (%(from_at)s::timestamptz IS NULL OR e.ts >= %(from_at)s)
      AND e.data::jsonb = ANY(%(datas)s::jsonb[])
    RETURNING 1
)
SELECT count(*)::int AS n FROM done;

-- name: aw_set_aside_counts --
-- global: every user's set-aside door events by reason, for `timetrace status` and /healthz
SELECT user_id, set_aside AS reason, count(*)::bigint AS events
FROM aw_events WHERE set_aside IS NOT NULL
GROUP BY user_id, set_aside ORDER BY user_id, set_aside;

-- name: aw_import_buckets --
-- An import's buckets, created together; yields the first that exists already (its
-- caller then rolls the whole import back).
WITH given AS (
    SELECT b->>0 AS bucket_id, b->>1 AS name, b->>2 AS type, b->>3 AS client,
           b->>4 AS hostname, (b->>5)::timestamptz AS created, (b->>6)::json AS data, n
    FROM json_array_elements(%(buckets)s::json) WITH ORDINALITY AS t(b, n)
), made AS (
    INSERT INTO aw_buckets (user_id, bucket_id, name, type, client, hostname, created, data)
    SELECT %(user_id)s, bucket_id, name, type, client, hostname, created, data FROM given
    ON CONFLICT (user_id, bucket_id) DO NOTHING
    RETURNING bucket_id
)
SELECT g.bucket_id FROM given g
WHERE NOT EXISTS (SELECT 1 FROM made m WHERE m.bucket_id = g.bucket_id)
ORDER BY g.n LIMIT 1;

-- name: aw_import_events --
-- An import's events, with ids from the door's sequence, and their buckets marked for the
-- conversion in the database (as a deleted event marks them: nothing of the door's
-- memory, so a crash before the next pass loses no mark).
WITH ins AS (
    INSERT INTO aw_events (user_id, bucket_id, event_id, ts, duration_us, data)
    SELECT %(user_id)s, r->>0, nextval('aw_event_ids'),
           timestamptz 'epoch' + (r->>1)::bigint * interval '1 microsecond',
           (r->>2)::bigint, (r->>3)::json
    FROM json_array_elements(%(events)s::json) AS r
    RETURNING bucket_id, ts
)
UPDATE aw_buckets b SET dirty_from = LEAST(b.dirty_from, f.first), changes = b.changes + 1
FROM (SELECT bucket_id, min(ts) AS first FROM ins GROUP BY bucket_id) AS f
WHERE b.user_id = %(user_id)s AND b.bucket_id = f.bucket_id;

-- name: create_aw_staging --
-- A host's records as the conversion made them, by binary COPY, dropped at commit.
CREATE TEMP TABLE aw_staging (
    client_record_id text, ts_start timestamptz, ts_end timestamptz, day_local date, app text,
    app_raw text, window_title text, url text, domain text, is_idle boolean, capture_reason text,
    screenshot_ref text, screenshot_sha256 text, category text, category_source text,
    redacted boolean
) ON COMMIT DROP;

-- name: copy_aw_staging --
COPY aw_staging (
    client_record_id, ts_start, ts_end, day_local, app, app_raw, window_title, url, domain,
    is_idle, capture_reason, screenshot_ref, screenshot_sha256, category, category_source,
    redacted
) FROM STDIN (FORMAT BINARY);

-- name: aw_reconcile --
-- A host's records from `since_at` on (all when NULL) made equal to the conversion's:
-- a door record (key `aw:…`) no longer made is removed, one made differently (a
-- heartbeat extended its event) is updated in place, a new one inserted as ingest
-- inserts (a deleted record's tombstone keeps it out). Any of them at or below the
-- device's watermark marks its day for a rebuild, as a late record does.
-- Runs after `lock_device_build_shared`, in its transaction.
WITH gone AS (
    DELETE FROM records r
    WHERE r.user_id = %(user_id)s AND r.device_id = %(device_id)s
      AND (%(since_at)s::timestamptz IS NULL OR r.ts_start >= %(since_at)s)
      AND r.deleted_at IS NULL AND r.client_record_id LIKE 'aw:%%'
      AND NOT EXISTS (SELECT 1 FROM aw_staging s
                      WHERE s.ts_start = r.ts_start
                        AND s.client_record_id = r.client_record_id)
    RETURNING r.ts_start, r.client_record_id, r.day_local
), changed AS (
    UPDATE records r SET
        ts_end = s.ts_end, app = s.app, app_raw = s.app_raw, window_title = s.window_title,
        url = s.url, domain = s.domain, is_idle = s.is_idle, category = s.category,
        category_source = s.category_source, redacted = s.redacted
    FROM aw_staging s
    WHERE r.user_id = %(user_id)s AND r.device_id = %(device_id)s
      AND r.ts_start = s.ts_start AND r.client_record_id = s.client_record_id
      AND r.deleted_at IS NULL
      AND (r.ts_end, r.app, r.app_raw, r.window_title, r.url, r.domain, r.is_idle, r.category,
           r.category_source, r.redacted)
          IS DISTINCT FROM
          (s.ts_end, s.app, s.app_raw, s.window_title, s.url, s.domain, s.is_idle, s.category,
           s.category_source, s.redacted)
    RETURNING r.ts_start, r.client_record_id, r.day_local
), ins AS (
    INSERT INTO records (
        user_id, device_id, client_record_id, ts_start, ts_end, day_local, app, app_raw,
        window_title, url, domain, is_idle, capture_reason, screenshot_ref, screenshot_sha256,
        category, category_source, redacted)
    SELECT %(user_id)s, %(device_id)s, s.client_record_id, s.ts_start, s.ts_end, s.day_local,
           s.app, s.app_raw, s.window_title, s.url, s.domain, s.is_idle, s.capture_reason,
           s.screenshot_ref, s.screenshot_sha256, s.category, s.category_source, s.redacted
    FROM aw_staging s
    WHERE NOT EXISTS (
        SELECT 1 FROM records t
        WHERE t.user_id = %(user_id)s AND t.device_id = %(device_id)s
          AND t.ts_start = s.ts_start
          AND (t.client_record_id = s.client_record_id
               OR (t.deleted_at IS NOT NULL
                   AND t.client_record_id COLLATE "C"
                       = timetrace_tombstone_key(s.client_record_id))))
    ORDER BY s.ts_start, s.client_record_id COLLATE "C"
    ON CONFLICT (user_id, device_id, ts_start, client_record_id COLLATE "C") DO NOTHING
    RETURNING ts_start, client_record_id, day_local
), touched AS (
    SELECT ts_start, client_record_id, day_local, true AS removed FROM gone
    UNION ALL SELECT ts_start, client_record_id, day_local, false FROM changed
    UNION ALL SELECT ts_start, client_record_id, day_local, false FROM ins
), w AS (
    SELECT last_start, last_key FROM episodes
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s
    ORDER BY ts_start DESC, first_key COLLATE "C" DESC LIMIT 1
), late AS (
    SELECT t.day_local, min(t.ts_start) AS first_ts,
           min(t.ts_start) FILTER (WHERE t.removed) AS first_gone
    FROM touched t, w
    WHERE (t.ts_start, t.client_record_id COLLATE "C") <= (w.last_start, w.last_key COLLATE "C")
    GROUP BY t.day_local
), marked AS (  -- one row: the final SELECT joins it, so that it runs
    SELECT timetrace_mark_days(%(user_id)s, array_agg(%(device_id)s::text), array_agg(day_local),
                               array_agg(first_ts), array_agg(first_gone)) AS n
    FROM late
)
SELECT (SELECT count(*) FROM ins)::int AS inserted,
       (SELECT count(*) FROM changed)::int AS updated,
       (SELECT count(*) FROM gone)::int AS removed,
       (SELECT count(*) FROM late)::int AS late_days
FROM marked;

-- name: aw_edits --
-- How many deletions and edits (not the door's own writes) the user's door events have
-- had (NULL: none): a new count drops the canonical query's kept results.
SELECT edits FROM aw_edits WHERE user_id = %(user_id)s;
