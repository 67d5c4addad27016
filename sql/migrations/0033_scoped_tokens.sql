-- 0033: scoped API tokens (docs/scopes.md). A token may carry a scope: read-only, the
-- tools it may call, the categories, apps and sites it may see, the hours of the day,
-- days of the week and dates it may see (in the user's zone), and an expiry. The token
-- itself is still stored only as its SHA-256 digest.
ALTER TABLE api_tokens
    ADD COLUMN scope jsonb CHECK (scope IS NULL OR jsonb_typeof(scope) = 'object'),
    ADD COLUMN expires_at timestamptz;

-- The text values of a scope's list (NULL: the scope sets no such list).
CREATE FUNCTION timetrace_scope_list_v1(p_scope jsonb, p_key text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN jsonb_typeof(p_scope -> p_key) = 'array'
                THEN ARRAY(SELECT jsonb_array_elements_text(p_scope -> p_key)) END
$$;

-- Whether a scope lets a record of this category, app and site be seen: every allow
-- list that is set holds it (a site list: the domain or a parent of it), and no deny
-- list does. Apps compare in lower case.
CREATE FUNCTION timetrace_scope_allows_v1(p_scope jsonb, p_category text, p_app text,
                                          p_domain text) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT (k.allow IS NULL OR p_category = ANY(k.allow))
       AND NOT (p_category = ANY(COALESCE(k.deny, '{}')))
       AND (a.allow IS NULL OR lower(p_app) = ANY(a.allow))
       AND NOT (lower(p_app) = ANY(COALESCE(a.deny, '{}')))
       AND (s.allow IS NULL OR COALESCE(timetrace_domain_suffixes(p_domain), '{}') && s.allow)
       AND NOT (COALESCE(timetrace_domain_suffixes(p_domain), '{}') && COALESCE(s.deny, '{}'))
    FROM (SELECT timetrace_scope_list_v1(p_scope, 'kinds_allow') AS allow,
                 timetrace_scope_list_v1(p_scope, 'kinds_deny') AS deny) k,
         (SELECT (SELECT array_agg(lower(x)) FROM unnest(timetrace_scope_list_v1(p_scope, 'apps_allow')) x) AS allow,
                 (SELECT array_agg(lower(x)) FROM unnest(timetrace_scope_list_v1(p_scope, 'apps_deny')) x) AS deny) a,
         (SELECT timetrace_scope_list_v1(p_scope, 'sites_allow') AS allow,
                 timetrace_scope_list_v1(p_scope, 'sites_deny') AS deny) s
$$;

-- The instants a scope lets be seen inside [p_from, p_to): one window per local date of
-- the zone that lies in the scope's dates and days of the week (ISO: Monday 1), from its
-- hour_from to its hour_to on that date (the next date when hour_to is not later, a
-- window over midnight). A scope without hours sees whole dates.
CREATE FUNCTION timetrace_scope_windows_v1(p_scope jsonb, p_zone text, p_from timestamptz,
                                           p_to timestamptz)
RETURNS TABLE (lo timestamptz, hi timestamptz)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT GREATEST(w.lo, p_from), LEAST(w.hi, p_to)
    FROM (
        SELECT (g.day::date + h.t_from) AT TIME ZONE p_zone AS lo,
               (g.day::date + CASE WHEN h.t_to <= h.t_from THEN 1 ELSE 0 END + h.t_to)
                   AT TIME ZONE p_zone AS hi
        FROM (SELECT COALESCE((p_scope ->> 'hour_from')::time, '00:00') AS t_from,
                     COALESCE((p_scope ->> 'hour_to')::time, '24:00') AS t_to) h,
             generate_series(
                 GREATEST((p_from AT TIME ZONE p_zone)::date - 1,
                          COALESCE((p_scope ->> 'date_from')::date, '-infinity')),
                 LEAST((p_to AT TIME ZONE p_zone)::date,
                       COALESCE((p_scope ->> 'date_to')::date, 'infinity')),
                 interval '1 day') AS g(day)
        WHERE timetrace_scope_list_v1(p_scope, 'weekdays') IS NULL
           OR EXTRACT(ISODOW FROM g.day)::text = ANY(timetrace_scope_list_v1(p_scope, 'weekdays'))
    ) w
    WHERE w.lo < p_to AND w.hi > p_from
$$;

-- The user's record spans (the duration rule over all their records, timetrace_spans_v1)
-- seen through a scope: each span clipped to the scope's windows, one piece a window,
-- kept only when the scope allows its category, app and site. `piece` numbers the
-- pieces of one record (a span over two windows), from 1.
CREATE FUNCTION timetrace_scoped_spans_v1(p_user bigint, p_from timestamptz,
                                          p_to timestamptz, p_scope jsonb)
RETURNS TABLE (record_id bigint, ts_start timestamptz, piece bigint, clip_start timestamptz,
               clip_end timestamptz)
LANGUAGE sql STABLE AS $$
    SELECT s.record_id, s.ts_start,
           row_number() OVER (PARTITION BY s.record_id ORDER BY w.lo),
           GREATEST(s.ts_start, w.lo), LEAST(s.span_end, w.hi)
    FROM timetrace_spans_v1(p_user, p_from, p_to) s
    JOIN users u ON u.user_id = p_user
    JOIN timetrace_scope_windows_v1(p_scope, u.time_zone, p_from - interval '2 days',
                                    p_to + interval '2 days') w
      ON s.ts_start < w.hi
     AND (s.span_end > w.lo OR (s.span_end = s.ts_start AND s.ts_start >= w.lo))
    WHERE timetrace_scope_allows_v1(p_scope, s.category, s.app, s.domain)
$$;
