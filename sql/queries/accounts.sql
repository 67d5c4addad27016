-- Users, API tokens and devices. Each query starts with a `-- name: x --` line.

-- name: ensure_user --
INSERT INTO users (name, time_zone, day_cut_hour)
VALUES (%(name)s, %(time_zone)s, %(day_cut_hour)s)
ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name
RETURNING user_id, name, time_zone, day_cut_hour;

-- name: get_user --
SELECT user_id, name, time_zone, day_cut_hour FROM users WHERE name = %(name)s;

-- name: user_for_token --
SELECT u.user_id, u.name, u.time_zone, u.day_cut_hour, t.scope, t.expires_at
FROM api_tokens t JOIN users u USING (user_id)
WHERE t.token_hash = %(token_hash)s AND t.revoked_at IS NULL;

-- name: add_token --
INSERT INTO api_tokens (user_id, token_hash, name, scope, expires_at)
VALUES (%(user_id)s, %(token_hash)s, %(name)s, %(scope)s, %(expires_at)s)
RETURNING token_id;

-- name: count_tokens --
SELECT count(*) AS n FROM api_tokens WHERE revoked_at IS NULL;

-- name: add_device --
INSERT INTO devices (user_id, device_id, name, kind)
VALUES (%(user_id)s, %(device_id)s, %(name)s, %(kind)s)
ON CONFLICT (user_id, device_id) DO NOTHING
RETURNING device_id;

-- name: device_exists --
SELECT 1 AS ok FROM devices WHERE user_id = %(user_id)s AND device_id = %(device_id)s;

-- name: list_devices --
SELECT device_id, name, kind, created_at FROM devices
WHERE user_id = %(user_id)s ORDER BY device_id;

-- name: get_user_by_id --
SELECT user_id, name, time_zone, day_cut_hour FROM users WHERE user_id = %(user_id)s;


-- name: device_activity --
-- global: `timetrace device list` by the operator, for every user or the one named
-- Each user's devices with their live records; a user without a device: one row of NULLs.
SELECT u.name AS user_name, d.device_id, d.name, d.kind,
       count(r.ts_start)::bigint AS records,
       min(r.ts_start) AS first_seen, max(r.ts_end) AS last_seen
FROM users u
LEFT JOIN devices d ON d.user_id = u.user_id
LEFT JOIN records r
       ON r.user_id = d.user_id AND r.device_id = d.device_id AND r.deleted_at IS NULL
WHERE %(user_name)s::text IS NULL OR u.name = %(user_name)s
GROUP BY u.name, d.device_id, d.name, d.kind
ORDER BY u.name, d.device_id;

-- name: beginnings --
-- global: `timetrace serve`'s first lines: is there any user, any record at all
SELECT (SELECT count(*) FROM users)::int AS users,
       EXISTS (SELECT 1 FROM records WHERE deleted_at IS NULL) AS any_record;

-- name: raw_expired_day --
SELECT raw_expired_day FROM retention WHERE user_id = %(user_id)s;

-- name: set_user_clock --
UPDATE users SET time_zone = %(time_zone)s, day_cut_hour = %(day_cut_hour)s
WHERE user_id = %(user_id)s;

-- name: move_record_days --
-- A record's logical day in the user's new zone and cut (as timeutil.logical_day).
UPDATE records SET day_local =
    ((ts_start AT TIME ZONE %(time_zone)s) - make_interval(hours => %(day_cut_hour)s))::date
WHERE user_id = %(user_id)s
  AND day_local <> ((ts_start AT TIME ZONE %(time_zone)s)
                    - make_interval(hours => %(day_cut_hour)s))::date;

-- name: drop_user_episodes --
-- Every episode of the user goes; each id waits in episode_redirects under the day its
-- first position now falls on, for the rebuild to give back (reclaim_episode_ids).
WITH gone AS (
    DELETE FROM episodes WHERE user_id = %(user_id)s
    RETURNING user_id, episode_id, device_id, ts_start, first_key
)
INSERT INTO episode_redirects (user_id, episode_id, device_id, day_local, ts_start,
                               first_key)
SELECT user_id, episode_id, device_id,
       ((ts_start AT TIME ZONE %(time_zone)s) - make_interval(hours => %(day_cut_hour)s))::date,
       ts_start, first_key
FROM gone
ON CONFLICT (user_id, episode_id) DO UPDATE SET
    device_id = EXCLUDED.device_id, day_local = EXCLUDED.day_local,
    ts_start = EXCLUDED.ts_start, first_key = EXCLUDED.first_key, gone_at = now();

-- name: move_redirect_days --
UPDATE episode_redirects SET day_local =
    ((ts_start AT TIME ZONE %(time_zone)s) - make_interval(hours => %(day_cut_hour)s))::date
WHERE user_id = %(user_id)s;

-- name: drop_user_digests --
WITH d AS (DELETE FROM digests WHERE user_id = %(user_id)s RETURNING 1),
     s AS (DELETE FROM signals WHERE user_id = %(user_id)s RETURNING 1),
     m AS (DELETE FROM build_marks WHERE user_id = %(user_id)s RETURNING 1)
SELECT (SELECT count(*) FROM d)::int AS digests, (SELECT count(*) FROM s)::int AS signals,
       (SELECT count(*) FROM m)::int AS marks;
