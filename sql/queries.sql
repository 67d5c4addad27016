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
-- record hits the (user, device, client_record_id) key and changes nothing.
INSERT INTO records (
    user_id, device_id, client_record_id, ts_start, ts_end, day_local, app, window_title,
    url, domain, is_idle, capture_reason, screenshot_ref, screenshot_sha256, category,
    category_source, redacted)
SELECT %(user_id)s, %(device_id)s, r.*
FROM unnest(
    %(client_record_id)s::text[], %(ts_start)s::timestamptz[], %(ts_end)s::timestamptz[],
    %(day_local)s::date[], %(app)s::text[], %(window_title)s::text[], %(url)s::text[],
    %(domain)s::text[], %(is_idle)s::boolean[], %(capture_reason)s::text[],
    %(screenshot_ref)s::text[], %(screenshot_sha256)s::text[], %(category)s::text[],
    %(category_source)s::text[], %(redacted)s::boolean[]
) AS r
ON CONFLICT (user_id, device_id, client_record_id) DO NOTHING;

-- name: tombstone_records --
-- Deletion: the span stays (episodes built over it are rebuilt from it later),
-- every piece of captured content goes now, L1 analyses included (cascade below).
WITH gone AS (
    UPDATE records SET
        deleted_at = now(), window_title = '', url = NULL, domain = NULL,
        screenshot_ref = NULL, screenshot_sha256 = NULL
    WHERE user_id = %(user_id)s AND deleted_at IS NULL
      AND (%(record_ids)s::bigint[] IS NULL OR record_id = ANY(%(record_ids)s::bigint[]))
      AND (%(device_id)s::text IS NULL OR device_id = %(device_id)s::text)
      AND (%(ts_from)s::timestamptz IS NULL OR ts_start >= %(ts_from)s::timestamptz)
      AND (%(ts_to)s::timestamptz IS NULL OR ts_start < %(ts_to)s::timestamptz)
    RETURNING user_id, record_id
), analyses AS (
    DELETE FROM record_analyses a USING gone
    WHERE a.user_id = gone.user_id AND a.record_id = gone.record_id
)
SELECT count(*) AS n FROM gone;

-- name: day_category_seconds --
SELECT day_local, category, sum(duration_s) AS seconds
FROM v_record_durations
WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s
GROUP BY day_local, category;
