-- 0037: a scoped token's shadow (docs/scopes.md) in one pass. 0033 asked, for every span
-- of the user's history, whether the scope allows it through a function that read the
-- scope's lists out of its JSON again (a SQL function with a FROM is never inlined), and
-- joined every span to every window of the scope's hours by inequalities alone: seconds
-- for a month, minutes for a year. The lists are now read once per call and the test
-- inlines; a span meets only the windows of the local days it can touch.

-- The scope's lists, read once (apps in lower case, as they are compared).
CREATE FUNCTION timetrace_scope_lists_v1(p_scope jsonb)
RETURNS TABLE (kinds_allow text[], kinds_deny text[], apps_allow text[], apps_deny text[],
               sites_allow text[], sites_deny text[])
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT timetrace_scope_list_v1(p_scope, 'kinds_allow'),
           timetrace_scope_list_v1(p_scope, 'kinds_deny'),
           (SELECT array_agg(lower(x)) FROM unnest(timetrace_scope_list_v1(p_scope, 'apps_allow')) x),
           (SELECT array_agg(lower(x)) FROM unnest(timetrace_scope_list_v1(p_scope, 'apps_deny')) x),
           timetrace_scope_list_v1(p_scope, 'sites_allow'),
           timetrace_scope_list_v1(p_scope, 'sites_deny')
$$;

-- Whether lists the scope gave allow a record's category, app and domain: the one rule,
-- one expression (so PostgreSQL inlines it).
CREATE FUNCTION timetrace_scope_admits_v1(p_category text, p_app text, p_domain text,
                                          kinds_allow text[], kinds_deny text[],
                                          apps_allow text[], apps_deny text[],
                                          sites_allow text[], sites_deny text[])
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (kinds_allow IS NULL OR p_category = ANY(kinds_allow))
       AND NOT (p_category = ANY(COALESCE(kinds_deny, '{}')))
       AND (apps_allow IS NULL OR lower(p_app) = ANY(apps_allow))
       AND NOT (lower(p_app) = ANY(COALESCE(apps_deny, '{}')))
       AND (sites_allow IS NULL
            OR COALESCE(timetrace_domain_suffixes(p_domain), '{}') && sites_allow)
       AND NOT (sites_deny IS NOT NULL AND p_domain IS NOT NULL
                AND COALESCE(timetrace_domain_suffixes(p_domain), '{}') && sites_deny)
$$;

CREATE OR REPLACE FUNCTION timetrace_scope_allows_v1(p_scope jsonb, p_category text,
                                                     p_app text, p_domain text)
RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT timetrace_scope_admits_v1(p_category, p_app, p_domain, l.kinds_allow,
                                     l.kinds_deny, l.apps_allow, l.apps_deny,
                                     l.sites_allow, l.sites_deny)
    FROM timetrace_scope_lists_v1(p_scope) l
$$;

-- A window [lo, hi) is at most a day long (25 hours across a DST change) and is keyed by
-- the local date of its start; a span [a, b) that meets it starts before hi and ends
-- after lo, so that date lies between a's local date less one and b's local date.
CREATE OR REPLACE FUNCTION timetrace_scoped_spans_v1(p_user bigint, p_from timestamptz,
                                                     p_to timestamptz, p_scope jsonb)
RETURNS TABLE (record_id bigint, ts_start timestamptz, piece bigint, clip_start timestamptz,
               clip_end timestamptz)
LANGUAGE sql STABLE AS $$
    WITH u AS (SELECT time_zone FROM users WHERE user_id = p_user),
    w AS MATERIALIZED (
        SELECT w.lo, w.hi, (w.lo AT TIME ZONE u.time_zone)::date AS day
        FROM u CROSS JOIN LATERAL timetrace_scope_windows_v1(
            p_scope, u.time_zone, p_from - interval '2 days', p_to + interval '2 days') w
    ),
    s AS MATERIALIZED (
        SELECT s.record_id, s.ts_start, s.span_end,
               (s.ts_start AT TIME ZONE u.time_zone)::date AS first_day,
               (s.span_end AT TIME ZONE u.time_zone)::date AS last_day
        FROM u, timetrace_scope_lists_v1(p_scope) l, timetrace_spans_v1(p_user, p_from, p_to) s
        WHERE timetrace_scope_admits_v1(s.category, s.app, s.domain, l.kinds_allow,
                                        l.kinds_deny, l.apps_allow, l.apps_deny,
                                        l.sites_allow, l.sites_deny)
    )
    SELECT s.record_id, s.ts_start,
           row_number() OVER (PARTITION BY s.record_id ORDER BY w.lo),
           GREATEST(s.ts_start, w.lo), LEAST(s.span_end, w.hi)
    FROM s
    CROSS JOIN LATERAL generate_series(-1, s.last_day - s.first_day) AS k(i)
    JOIN w ON w.day = s.first_day + k.i
     AND s.ts_start < w.hi
     AND (s.span_end > w.lo OR (s.span_end = s.ts_start AND s.ts_start >= w.lo))
$$;
