-- 0034: the user's own category tree ("Entertainment > Games"), under the six kinds.
-- A category has a name in one or both languages, a colour and a parent; a top-level one
-- belongs to one of the six kinds and every category below it to the same kind (kept so
-- by app/rules/tree.py), so every number by kind stays what it was.
-- A user rule may name a category (user_rules.category_id); its `category` is then that
-- category's kind. A record's user category is the category of the user rule that
-- categorised it (its category_source 'user:<rule id>'): no column of records changes,
-- and renaming or recolouring a category moves nothing.
CREATE TABLE user_categories (
    user_id     bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    category_id bigint GENERATED ALWAYS AS IDENTITY,
    parent_id   bigint,
    kind        text NOT NULL
                CHECK (kind IN ('work', 'study', 'social', 'entertainment', 'system', 'uncategorized')),
    name        text CHECK (length(name) BETWEEN 1 AND 100),
    name_zh     text CHECK (length(name_zh) BETWEEN 1 AND 100),
    color       text CHECK (color ~ '^#[0-9a-f]{6}$'),
    created     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, category_id),
    -- Checked at commit: an import writes a category before its parent when it was moved
    -- under a newer one.
    FOREIGN KEY (user_id, parent_id) REFERENCES user_categories (user_id, category_id)
        DEFERRABLE INITIALLY DEFERRED,
    CHECK (name IS NOT NULL OR name_zh IS NOT NULL),
    CHECK (parent_id IS DISTINCT FROM category_id)
);
-- One name per parent (either language), whatever its case.
CREATE UNIQUE INDEX user_categories_name
    ON user_categories (user_id, COALESCE(parent_id, 0), lower(name)) WHERE name IS NOT NULL;
CREATE UNIQUE INDEX user_categories_name_zh
    ON user_categories (user_id, COALESCE(parent_id, 0), name_zh) WHERE name_zh IS NOT NULL;

ALTER TABLE user_rules ADD COLUMN category_id bigint;
ALTER TABLE user_rules ADD FOREIGN KEY (user_id, category_id)
    REFERENCES user_categories (user_id, category_id) DEFERRABLE INITIALLY DEFERRED;

-- A rule may also be an ActivityWatch regex (kind 'regex', imported from aw-webui's
-- categories): searched in the app and the window title, as aw-core's categorize does;
-- case-sensitive unless the pattern starts with (?i).
ALTER TABLE user_rules DROP CONSTRAINT user_rules_kind_check;
ALTER TABLE user_rules ADD CONSTRAINT user_rules_kind_check
    CHECK (kind IN ('app', 'site', 'title', 'regex'));

CREATE OR REPLACE FUNCTION timetrace_user_rule_matches(p_kind text, p_pattern text, p_app text,
                                                       p_domain text, p_title text)
RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT COALESCE(CASE p_kind
        WHEN 'app' THEN p_app = p_pattern
        WHEN 'site' THEN p_domain = p_pattern OR right(p_domain, length(p_pattern) + 1) = '.' || p_pattern
        WHEN 'title' THEN
            translate(p_title, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
            LIKE '%' || replace(replace(replace(replace(
                translate(p_pattern, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'),
                '\', '\\'), '%', '\%'), '_', '\_'), '*', '%') || '%'
        WHEN 'regex' THEN p_app ~ p_pattern OR p_title ~ p_pattern
    END, false)
$$;

-- As 0031's, with regex rules (few: one per ActivityWatch category) tried on every text.
CREATE OR REPLACE FUNCTION timetrace_user_rule_firsts_v1(p_user_id bigint)
RETURNS TABLE (app text, domain text, window_title text, rule_id bigint, category text)
LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 5000 AS $$
BEGIN
    RETURN QUERY
    WITH t AS MATERIALIZED (
        SELECT DISTINCT r.app, COALESCE(r.domain, '') AS domain, r.window_title,
               translate(r.window_title, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
                         'abcdefghijklmnopqrstuvwxyz') AS folded
        FROM records r
        WHERE r.user_id = p_user_id AND r.deleted_at IS NULL AND NOT r.is_idle
    ), shorts AS MATERIALIZED (
        SELECT x.rule_id, timetrace_user_rule_title_piece(x.pattern) AS piece
        FROM user_rules x
        WHERE x.user_id = p_user_id AND x.kind = 'title'
          AND length(timetrace_user_rule_title_piece(x.pattern)) < 3
    ), titled AS (
        SELECT DISTINCT t.app, t.domain, t.window_title, x.rule_id
        FROM t CROSS JOIN LATERAL generate_series(1, length(t.folded) - 2) AS g(i)
        JOIN user_rules x
          ON x.user_id = p_user_id AND x.kind = 'title'
         AND left(timetrace_user_rule_title_piece(x.pattern), 3) = substr(t.folded, g.i, 3)
        UNION
        SELECT t.app, t.domain, t.window_title, s.rule_id
        FROM t JOIN shorts s ON strpos(t.folded, s.piece) > 0
        UNION
        SELECT t.app, t.domain, t.window_title, x.rule_id
        FROM t JOIN user_rules x ON x.user_id = p_user_id AND x.kind = 'regex'
    ), hits AS (
        SELECT t.app, t.domain, t.window_title, x.position, x.rule_id, x.category
        FROM t CROSS JOIN LATERAL (
            SELECT y.position, y.rule_id, y.category FROM user_rules y
            WHERE y.user_id = p_user_id AND y.kind = 'app' AND y.pattern = t.app
            LIMIT 1  -- the key names one rule; a subquery the planner keeps apart
        ) AS x
        UNION ALL
        SELECT t.app, t.domain, t.window_title, x.position, x.rule_id, x.category
        FROM t CROSS JOIN LATERAL unnest(timetrace_domain_suffixes(NULLIF(t.domain, '')))
            AS s(suffix)
        CROSS JOIN LATERAL (
            SELECT y.position, y.rule_id, y.category FROM user_rules y
            WHERE y.user_id = p_user_id AND y.kind = 'site' AND y.pattern = s.suffix
            LIMIT 1  -- the key names one rule; a subquery the planner keeps apart
        ) AS x
        UNION ALL
        SELECT c.app, c.domain, c.window_title, x.position, x.rule_id, x.category
        FROM titled c JOIN user_rules x ON x.user_id = p_user_id AND x.rule_id = c.rule_id
        WHERE timetrace_user_rule_matches(x.kind, x.pattern, c.app, NULLIF(c.domain, ''),
                                          c.window_title)
    )
    SELECT DISTINCT ON (h.app, h.domain, h.window_title)
           h.app, h.domain, h.window_title, h.rule_id, h.category
    FROM hits h
    ORDER BY h.app, h.domain, h.window_title, h.position, h.rule_id;
END
$$;

-- Each user category with its path of names from the top ("Entertainment > Games").
CREATE VIEW v_user_categories AS
WITH RECURSIVE tree AS (
    SELECT c.user_id, c.category_id, c.parent_id, c.kind, c.name, c.name_zh, c.color,
           COALESCE(c.name, c.name_zh) AS path, 1 AS depth
    FROM user_categories c WHERE c.parent_id IS NULL
    UNION ALL
    SELECT c.user_id, c.category_id, c.parent_id, c.kind, c.name, c.name_zh, c.color,
           t.path || ' > ' || COALESCE(c.name, c.name_zh), t.depth + 1
    FROM user_categories c
    JOIN tree t ON t.user_id = c.user_id AND t.category_id = c.parent_id
)
SELECT * FROM tree;

-- Hours per user, logical day and user category (the category a record is counted
-- under: its rule's), from records by the duration rule.
CREATE VIEW v_day_user_category_hours AS
SELECT d.user_id, d.day_local, c.category_id, c.path, c.kind, c.color,
       sum(d.seconds) AS seconds, round((sum(d.seconds) / 3600)::numeric, 2) AS hours
FROM users x
CROSS JOIN LATERAL timetrace_spans_v1(x.user_id, '-infinity', 'infinity') d
JOIN user_rules u
  ON u.user_id = d.user_id AND d.category_source = 'user:' || u.rule_id
JOIN v_user_categories c ON c.user_id = u.user_id AND c.category_id = u.category_id
WHERE NOT d.is_idle
GROUP BY d.user_id, d.day_local, c.category_id, c.path, c.kind, c.color;
