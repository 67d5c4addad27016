-- Each user's own category rules (migration 0027), and what they do to the history.
-- A record a user rule may re-categorise: live, not idle, not re-labelled by hand. Its
-- first rule comes from timetrace_user_rule_firsts_v1 (migration 0031): one pass over
-- the history's distinct texts, however many rules the user has.

-- name: list_user_rules --
SELECT rule_id, position, kind, pattern, category, category_id, created, updated
FROM user_rules
WHERE user_id = %(user_id)s
ORDER BY position, rule_id;

-- name: delete_user_rules_but --
-- Every rule of the user but those kept.
DELETE FROM user_rules
WHERE user_id = %(user_id)s AND NOT rule_id = ANY (%(kept)s::bigint[]);

-- name: park_user_rules --
-- Rules about to take another kind or pattern, moved out of each other's way first (the
-- same kind and pattern appear once per user, checked row by row).
UPDATE user_rules SET pattern = chr(1) || rule_id
WHERE user_id = %(user_id)s AND rule_id = ANY (%(rule_ids)s::bigint[]);

-- name: edit_user_rules --
UPDATE user_rules u
SET kind = e.kind, pattern = e.pattern, category = e.category, category_id = e.category_id,
    updated = now()
FROM unnest(%(rule_ids)s::bigint[], %(kinds)s::text[], %(patterns)s::text[],
            %(categories)s::text[], %(category_ids)s::bigint[])
    AS e(rule_id, kind, pattern, category, category_id)
WHERE u.user_id = %(user_id)s AND u.rule_id = e.rule_id;

-- name: insert_user_rules --
-- New rules, each at the position given (above every one in use until the list is
-- numbered again).
INSERT INTO user_rules (user_id, position, kind, pattern, category, category_id)
SELECT %(user_id)s, n.position, n.kind, n.pattern, n.category, n.category_id
FROM unnest(%(positions)s::int[], %(kinds)s::text[], %(patterns)s::text[],
            %(categories)s::text[], %(category_ids)s::bigint[])
    AS n(position, kind, pattern, category, category_id)
RETURNING rule_id, position;

-- name: order_user_rules --
-- Positions 1..n in the order given (one statement: the unique position is checked at
-- its end).
UPDATE user_rules u SET position = o.n, updated = now()
FROM unnest(%(rule_ids)s::bigint[]) WITH ORDINALITY AS o(rule_id, n)
WHERE u.user_id = %(user_id)s AND u.rule_id = o.rule_id AND u.position <> o.n;

-- name: user_rule_effects --
-- What the user's rules, as they stand in this transaction, would change: the seconds
-- (timetrace_spans_v1 over all time), records and device-days whose category (or user
-- category) moves.
WITH named AS MATERIALIZED (
    SELECT * FROM timetrace_user_rule_firsts_v1(%(user_id)s)
), r AS (
    SELECT s.device_id, s.day_local, s.app, s.domain, s.window_title, s.category,
           s.category_source, s.is_idle, s.seconds AS d
    FROM timetrace_spans_v1(%(user_id)s, '-infinity', 'infinity') s
), moved AS (
    SELECT r.device_id, r.day_local, r.d
    FROM r JOIN named w
        ON w.app = r.app AND w.domain = COALESCE(r.domain, '')
       AND w.window_title = r.window_title
    JOIN user_rules nu ON nu.user_id = %(user_id)s AND nu.rule_id = w.rule_id
    WHERE NOT r.is_idle AND r.category_source <> 'label'
      AND (w.category <> r.category
           -- or a rule of another source counts it under a category of the user's
           -- (migration 0034), its kind the same
           OR (nu.category_id IS NOT NULL AND r.category_source <> 'user:' || w.rule_id))
)
SELECT COALESCE(sum(d), 0)::float8 AS seconds, count(*)::int AS records,
       count(DISTINCT (device_id, day_local))::int AS device_days,
       (SELECT count(*) FROM r)::int AS scanned
FROM moved;

-- name: user_rule_orphans --
-- Records a user rule categorised that no rule matches any more, by their text: the
-- file and default rules decide them again (in Python), with their seconds.
WITH named AS MATERIALIZED (
    SELECT * FROM timetrace_user_rule_firsts_v1(%(user_id)s)
), r AS (
    SELECT s.app, s.app_raw, s.domain, s.window_title, s.redacted, s.category,
           s.category_source, s.is_idle, s.seconds AS d
    FROM timetrace_spans_v1(%(user_id)s, '-infinity', 'infinity') s
)
SELECT r.app_raw, r.window_title, r.domain, r.redacted, r.category,
       COALESCE(sum(r.d), 0)::float8 AS seconds
FROM r LEFT JOIN named w
    ON w.app = r.app AND w.domain = COALESCE(r.domain, '') AND w.window_title = r.window_title
WHERE NOT r.is_idle AND starts_with(r.category_source, 'user:') AND w.rule_id IS NULL
GROUP BY 1, 2, 3, 4, 5
ORDER BY 1, 2, 3, 4, 5;

-- name: apply_user_rules --
-- Each record the user's rules match takes the first one's category (its source names
-- the rule); the device-days whose categories moved come back, to be rebuilt.
WITH named AS MATERIALIZED (
    SELECT * FROM timetrace_user_rule_firsts_v1(%(user_id)s)
), hit AS (
    SELECT r.record_id, r.ts_start, r.category, w.category AS to_category, w.rule_id
    FROM records r JOIN named w
        ON w.app = r.app AND w.domain = COALESCE(r.domain, '')
       AND w.window_title = r.window_title
    WHERE r.user_id = %(user_id)s AND r.deleted_at IS NULL AND NOT r.is_idle
      AND r.category_source <> 'label'
      AND (r.category <> w.category OR r.category_source <> 'user:' || w.rule_id)
), upd AS (
    UPDATE records r SET category = hit.to_category, category_source = 'user:' || hit.rule_id
    FROM hit
    WHERE r.user_id = %(user_id)s AND r.record_id = hit.record_id AND r.ts_start = hit.ts_start
    -- A new source may name another user category (migration 0034) with the same kind:
    -- its days are rebuilt too.
    RETURNING r.device_id, r.day_local, true AS moved
)
SELECT device_id, day_local FROM upd WHERE moved
GROUP BY device_id, day_local ORDER BY device_id, day_local;

-- name: recategorize_orphans --
-- The orphans' new categories, by text (as user_rule_orphans grouped them); the
-- device-days whose categories moved come back.
WITH named AS MATERIALIZED (
    SELECT * FROM timetrace_user_rule_firsts_v1(%(user_id)s)
), t AS (
    SELECT * FROM unnest(%(apps_raw)s::text[], %(titles)s::text[], %(domains)s::text[],
                         %(redacted)s::boolean[], %(from_categories)s::text[],
                         %(categories)s::text[], %(sources)s::text[])
        AS t(app_raw, window_title, domain, redacted, from_category, category, source)
), upd AS (
    UPDATE records r SET category = t.category, category_source = t.source
    FROM t
    WHERE r.user_id = %(user_id)s AND r.deleted_at IS NULL AND NOT r.is_idle
      AND starts_with(r.category_source, 'user:')
      AND r.app_raw = t.app_raw AND r.window_title = t.window_title
      AND r.domain IS NOT DISTINCT FROM t.domain AND r.redacted = t.redacted
      AND r.category = t.from_category
      AND NOT EXISTS (
          SELECT 1 FROM named w
          WHERE w.app = r.app AND w.domain = COALESCE(r.domain, '')
            AND w.window_title = r.window_title)
    -- Leaving a user rule may leave a user category (migration 0034): always rebuilt.
    RETURNING r.device_id, r.day_local, true AS moved
)
SELECT device_id, day_local FROM upd WHERE moved
GROUP BY device_id, day_local ORDER BY device_id, day_local;

-- name: live_records_beyond --
-- Whether the user keeps more than n live records: a cheap look (it stops at n + 1)
-- before a rules change whose preview would read them all.
SELECT EXISTS (
    SELECT 1 FROM records
    WHERE user_id = %(user_id)s AND deleted_at IS NULL
    OFFSET %(n)s
) AS beyond;

-- name: marked_days_count --
-- Device-days marked for a rebuild and not rebuilt yet: how far re-categorising is.
SELECT count(*)::int AS n FROM build_marks WHERE user_id = %(user_id)s;

-- name: recategorizing --
-- global: the job queue is the coordinator's; the lock names the user (job_requests.py).
SELECT EXISTS (
    SELECT 1 FROM procrastinate_jobs
    WHERE queueing_lock = 'recategorize:' || %(user_id)s AND status IN ('todo', 'doing')
) AS busy;
