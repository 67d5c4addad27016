-- 0027: category rules each user writes ("always count Slack as work"), kept in the
-- database per user and tried before the file and default rules, in `position` order
-- (lowest first; ties by rule_id). A rule names one thing:
--   kind 'app'   pattern is a canonical app name (app/rules/apps.toml), matched exactly;
--   kind 'site'  pattern is a host, matching the record's domain or any subdomain of it;
--   kind 'title' pattern is text a window title contains, case-insensitively, where `*`
--                stands for any run of characters.
-- The same kind and pattern appear once per user: adding it again changes its category.
CREATE TABLE user_rules (
    user_id   bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    rule_id   bigint GENERATED ALWAYS AS IDENTITY,
    position  integer NOT NULL,
    kind      text NOT NULL CHECK (kind IN ('app', 'site', 'title')),
    pattern   text NOT NULL CHECK (length(pattern) BETWEEN 1 AND 500),
    category  text NOT NULL
              CHECK (category IN ('work', 'study', 'social', 'entertainment', 'system', 'uncategorized')),
    created   timestamptz NOT NULL DEFAULT now(),
    updated   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, rule_id),
    UNIQUE (user_id, kind, pattern),
    -- Checked at the end of each statement, so that one UPDATE can reorder the rules.
    UNIQUE (user_id, position) DEFERRABLE INITIALLY IMMEDIATE
);

-- Whether a user rule names a record's canonical app, domain and title: the one reading
-- of a rule that the history's preview and re-categorising share with ingest
-- (app/rules/user.py). Case is folded for ASCII letters only, so that the answer is the
-- same whatever the database's locale.
CREATE FUNCTION timetrace_user_rule_matches(p_kind text, p_pattern text, p_app text,
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
    END, false)
$$;
