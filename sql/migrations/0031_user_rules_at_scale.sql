-- 0031: a user's own category rules matched in one pass, however many there are (at most
-- 1,000 per user, app/rules/user.py). Until now each record was tried against every rule
-- in turn (timetrace_user_rule_matches, 0027), so a preview cost records x rules.
-- Now each distinct text of the history (canonical app, domain, window title) finds the
-- rules that may name it by joins that do not try every rule:
--   app rules    by the app, through user_rules' (user_id, kind, pattern) key;
--   site rules   by the domain and each of its parents (timetrace_domain_suffixes), the
--                same key: `domain = p OR domain ends with '.' || p` is exactly
--                "p is one of those suffixes";
--   title rules  only those whose longest piece starts with three characters the folded
--                title holds (a hash join on its three-character pieces; a rule with a
--                shorter piece is tried on every title), each then checked by
--                timetrace_user_rule_matches itself.
-- and the first of those, in the user's order, names the text.
-- The result is the same rule as trying every rule in order, record for record
-- (tests/db/test_rules_boundary.py holds it to app/rules/user_match.py).

-- The domain and each parent of it after a dot: 'a.b.c' -> {a.b.c, b.c, c}.
CREATE FUNCTION timetrace_domain_suffixes(p_domain text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT array_agg(array_to_string(s.parts[i:], '.') ORDER BY i)
    FROM (SELECT string_to_array(p_domain, '.') AS parts) AS s,
         generate_subscripts(s.parts, 1) AS i
$$;

-- The longest piece (between `*`) of a title rule, ASCII letters in lower case: a title
-- the rule names holds it (app/rules/user_match.py's RuleSet finds rules by it too).
CREATE FUNCTION timetrace_user_rule_title_piece(p_pattern text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT p.piece
    FROM unnest(string_to_array(
        translate(p_pattern, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), '*'))
        WITH ORDINALITY AS p(piece, n)
    ORDER BY length(p.piece) DESC, p.n
    LIMIT 1
$$;

-- For each distinct (app, domain, title) of a user's live, non-idle records, the first of
-- the user's rules, as they stand in this transaction, that names it (texts no rule
-- names are left out). `domain` is '' for a record without one.
CREATE FUNCTION timetrace_user_rule_firsts_v1(p_user_id bigint)
RETURNS TABLE (app text, domain text, window_title text, rule_id bigint, category text)
-- PL/pgSQL, so that it is never inlined into a query that joins it: run once, its rows
-- hashed (an inlined body was re-run for every record of a nested loop).
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
        -- Title rules with a piece under three characters (few, if any): tried on every
        -- title.
        SELECT x.rule_id, timetrace_user_rule_title_piece(x.pattern) AS piece
        FROM user_rules x
        WHERE x.user_id = p_user_id AND x.kind = 'title'
          AND length(timetrace_user_rule_title_piece(x.pattern)) < 3
    ), titled AS (
        -- Title rules whose piece starts with three characters the title holds (by
        -- user_rules_title_gram), and the short ones.
        SELECT DISTINCT t.app, t.domain, t.window_title, x.rule_id
        FROM t CROSS JOIN LATERAL generate_series(1, length(t.folded) - 2) AS g(i)
        JOIN user_rules x
          ON x.user_id = p_user_id AND x.kind = 'title'
         AND left(timetrace_user_rule_title_piece(x.pattern), 3) = substr(t.folded, g.i, 3)
        UNION
        SELECT t.app, t.domain, t.window_title, s.rule_id
        FROM t JOIN shorts s ON strpos(t.folded, s.piece) > 0
    ), hits AS (
        -- App and site rules by a probe of user_rules' key per text (a LATERAL subquery
        -- with LIMIT stays one: joined, the planner may scan every rule per text when it
        -- has no statistics of user_rules yet).
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
        WHERE timetrace_user_rule_matches('title', x.pattern, c.app, NULLIF(c.domain, ''),
                                          c.window_title)
    )
    SELECT DISTINCT ON (h.app, h.domain, h.window_title)
           h.app, h.domain, h.window_title, h.rule_id, h.category
    FROM hits h
    ORDER BY h.app, h.domain, h.window_title, h.position, h.rule_id;
END
$$;

-- A user's title rules by the first three characters of their longest piece.
CREATE INDEX user_rules_title_gram
    ON user_rules (user_id, left(timetrace_user_rule_title_piece(pattern), 3))
    WHERE kind = 'title';
