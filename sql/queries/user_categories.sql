-- The user's category tree (migration 0034) and the counts by it. A record's user
-- category is the category of the user rule named by its category_source
-- ('user:<rule id>'); records of other sources have none.

-- name: list_user_categories --
SELECT category_id, parent_id, kind, name, name_zh, color, path, depth
FROM v_user_categories
WHERE user_id = %(user_id)s
ORDER BY path, category_id;

-- name: add_user_category --
INSERT INTO user_categories (user_id, parent_id, kind, name, name_zh, color)
VALUES (%(user_id)s, %(parent_id)s, %(kind)s, %(name)s, %(name_zh)s, %(color)s)
RETURNING category_id;

-- name: edit_user_category --
UPDATE user_categories
SET parent_id = %(parent_id)s, name = %(name)s, name_zh = %(name_zh)s, color = %(color)s
WHERE user_id = %(user_id)s AND category_id = %(category_id)s;

-- name: set_user_category_kind --
-- The category and its subtree take the kind, and so do the rules that name them.
WITH RECURSIVE sub AS (
    SELECT category_id FROM user_categories
    WHERE user_id = %(user_id)s AND category_id = %(category_id)s
    UNION ALL
    SELECT c.category_id FROM user_categories c
    JOIN sub ON c.user_id = %(user_id)s AND c.parent_id = sub.category_id
), cats AS (
    UPDATE user_categories c SET kind = %(kind)s
    FROM sub WHERE c.user_id = %(user_id)s AND c.category_id = sub.category_id
    RETURNING c.category_id
)
UPDATE user_rules u SET category = %(kind)s, updated = now()
FROM cats WHERE u.user_id = %(user_id)s AND u.category_id = cats.category_id;

-- name: retarget_user_category_rules --
-- The rules of a category about to go name its parent (NULL: only the kind).
UPDATE user_rules u SET category_id = c.parent_id, updated = now()
FROM user_categories c
WHERE u.user_id = %(user_id)s AND c.user_id = u.user_id
  AND c.category_id = %(category_id)s AND u.category_id = c.category_id
RETURNING u.rule_id;

-- name: delete_user_category --
DELETE FROM user_categories WHERE user_id = %(user_id)s AND category_id = %(category_id)s;

-- name: rule_device_days --
-- The device-days holding live records these rules categorised.
SELECT DISTINCT r.device_id, r.day_local
FROM records r
WHERE r.user_id = %(user_id)s AND r.deleted_at IS NULL
  AND r.category_source = ANY (
      SELECT 'user:' || x FROM unnest(%(rule_ids)s::bigint[]) AS x)
ORDER BY r.device_id, r.day_local;

-- name: user_category_seconds --
-- Seconds per user category of [day_from, day_to] by the duration rule (idle time is
-- never in one).
SELECT u.category_id, COALESCE(sum(s.seconds), 0)::float8 AS seconds
FROM timetrace_spans_v1(
         %(user_id)s, (%(day_from)s::date - 1)::timestamp AT TIME ZONE 'UTC',
         (%(day_to)s::date + 3)::timestamp AT TIME ZONE 'UTC') s
JOIN user_rules u
  ON u.user_id = %(user_id)s AND s.category_source = 'user:' || u.rule_id
WHERE s.day_local BETWEEN %(day_from)s AND %(day_to)s AND NOT s.is_idle
  AND u.category_id IS NOT NULL
GROUP BY u.category_id
ORDER BY u.category_id;

-- name: user_category_days --
-- Seconds per logical day and user category of [day_from, day_to].
SELECT s.day_local, u.category_id, COALESCE(sum(s.seconds), 0)::float8 AS seconds
FROM timetrace_spans_v1(
         %(user_id)s, (%(day_from)s::date - 1)::timestamp AT TIME ZONE 'UTC',
         (%(day_to)s::date + 3)::timestamp AT TIME ZONE 'UTC') s
JOIN user_rules u
  ON u.user_id = %(user_id)s AND s.category_source = 'user:' || u.rule_id
WHERE s.day_local BETWEEN %(day_from)s AND %(day_to)s AND NOT s.is_idle
  AND u.category_id IS NOT NULL
GROUP BY s.day_local, u.category_id
ORDER BY s.day_local, u.category_id;

-- name: tool_categories --
-- The tree as the tools read it (the resolver, the counts by user category).
SELECT category_id, parent_id, kind, name, name_zh, color, path, depth
FROM v_user_categories
WHERE user_id = %(user_id)s
ORDER BY path, category_id;
