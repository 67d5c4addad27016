-- Web pages: sign-in sessions and the reads the pages make beyond the tools.


-- name: start_web_session --
-- Only a live token opens a session; expired sessions are cleared on the way.
WITH token AS (
    SELECT user_id, token_id FROM api_tokens
    WHERE token_hash = %(token_hash)s AND revoked_at IS NULL
      AND (expires_at IS NULL OR expires_at > now())
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
-- A session sees what its token may (docs/scopes.md), and ends when the token expires.
SELECT u.user_id, u.name, u.time_zone, u.day_cut_hour, s.csrf_token, t.scope
FROM web_sessions s
JOIN api_tokens t ON t.user_id = s.user_id AND t.token_id = s.token_id AND t.revoked_at IS NULL
 AND (t.expires_at IS NULL OR t.expires_at > now())
JOIN users u ON u.user_id = s.user_id
WHERE s.session_hash = %(session_hash)s AND s.expires_at > now();

-- name: end_web_session --
DELETE FROM web_sessions WHERE session_hash = %(session_hash)s;

-- name: list_tokens --
SELECT t.token_id, t.name, t.created_at, t.revoked_at, t.expires_at, t.scope,
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
SELECT count(*) > 0 AS revoked FROM revoked;

-- name: episode_detail --
SELECT episode_id, device_id, ts_start, ts_end, category, category_source, title, summary,
       duration_s, active_s, day_local, primary_app, summary_status, cues, interruptions,
       frame_count, summary_by
FROM episodes WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s AND NOT stale;

-- name: episode_records --
-- The episode's first members in timeline order, by range on the timeline index (the
-- episode drives: ordered by another index, the planner would walk the user's records).
SELECT r.record_id, r.device_id, r.ts_start, r.ts_end, r.app, r.window_title, r.domain,
       r.category, r.is_idle, e.episode_id, a.description
FROM episodes e
CROSS JOIN LATERAL (
    SELECT * FROM records r
    WHERE r.user_id = e.user_id AND r.device_id = e.device_id AND r.deleted_at IS NULL
      AND r.ts_start BETWEEN e.ts_start AND e.last_start
      AND (r.ts_start, r.client_record_id COLLATE "C") >= (e.ts_start, e.first_key COLLATE "C")
      AND (r.ts_start, r.client_record_id COLLATE "C") <= (e.last_start, e.last_key COLLATE "C")
    ORDER BY r.ts_start, r.client_record_id COLLATE "C" LIMIT %(limit)s
) r
LEFT JOIN record_analyses a ON a.user_id = r.user_id AND a.record_id = r.record_id
WHERE e.user_id = %(user_id)s AND e.episode_id = %(episode_id)s
ORDER BY r.ts_start, r.client_record_id COLLATE "C";

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

-- name: title_seconds --
-- Active seconds per window title of one app or site over logical days, by the duration
-- rule (timetrace_spans_v1: a record's successor is any record of its device, so the app
-- is chosen after the spans); `total` is the app's or site's whole time. A site's records
-- are those with a URL on it or under it, and the URL-less browser records whose title
-- names it (`site_titles`, as timetrace_site_seconds_v1 counts a site).
WITH t AS (
    SELECT s.window_title AS title, sum(s.seconds) AS seconds
    FROM timetrace_spans_v1(%(user_id)s, %(ts_from)s, %(ts_to)s) s
    WHERE NOT is_idle AND day_local BETWEEN %(day_from)s AND %(day_to)s
      AND (app = %(name)s OR domain = %(name)s
           OR right(domain, length(%(name)s) + 1) = '.' || %(name)s
           OR (domain IS NULL AND app = ANY(%(browsers)s::text[])
               AND window_title = ANY(%(site_titles)s::text[])))
    GROUP BY window_title
)
SELECT title, seconds, sum(seconds) OVER () AS total, count(*) OVER ()::int AS titles
FROM t ORDER BY seconds DESC, title LIMIT %(limit)s;

-- name: window_records --
-- A window's records per device on the timeline index, just what the zoomed timeline
-- draws (no descriptions, no episode: the caller places them among the window's episodes).
SELECT x.record_id, x.device_id, x.ts_start, x.ts_end, x.app, x.window_title, x.category,
       x.is_idle
FROM devices d
CROSS JOIN LATERAL (
    SELECT r.record_id, r.device_id, r.ts_start, r.ts_end, r.app, r.window_title, r.category,
           r.is_idle
    FROM records r
    WHERE r.user_id = d.user_id AND r.device_id = d.device_id AND r.deleted_at IS NULL
      AND r.ts_start >= %(ts_from)s AND r.ts_start < %(ts_to)s
    ORDER BY r.ts_start, r.record_id LIMIT %(limit)s
) x
WHERE d.user_id = %(user_id)s
ORDER BY x.device_id, x.ts_start, x.record_id;
