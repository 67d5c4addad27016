-- Users, API tokens and devices. Each query starts with a `-- name: x --` line.

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
ON CONFLICT (user_id, device_id) DO NOTHING
RETURNING device_id;

-- name: device_exists --
SELECT 1 AS ok FROM devices WHERE user_id = %(user_id)s AND device_id = %(device_id)s;

-- name: list_devices --
SELECT device_id, name, kind, created_at FROM devices
WHERE user_id = %(user_id)s ORDER BY device_id;

-- name: get_user_by_id --
SELECT user_id, name, time_zone, day_cut_hour FROM users WHERE user_id = %(user_id)s;

