-- 0040: one definition of time on a site. A site's time is the time of records whose
-- URL's domain is the site or lies under it, plus the time of URL-less browser records
-- whose title names the site. The pages counted only URLs, query_stats both: the same
-- month gave two numbers for one site. Now every site count reads this function.
--
-- Which site a title names is decided by the rules (app/rules/apps.py: [[site]] tables,
-- shipped and the user's), so the caller passes it in: the distinct titles of the
-- period's URL-less browser records that name a site, each with its site. A URL's domain
-- is folded into the most specific known site it lies under (m.bilibili.com is
-- bilibili.com; p_known: the sites the rules know); a domain under none is its own site.
--
-- It returns, per logical day of [p_day_from, p_day_to] and site, the seconds from URLs
-- and the seconds from titles, by the duration rule (timetrace_spans_v1 over the read
-- window [p_from, p_to)). Idle time is never time on a site. Records are grouped by day,
-- domain and title site before the fold, so the fold runs once per group, not per record.
-- Titles the caller did not pass come back once each (unnamed_title), so that one read
-- both counts the sites and finds the titles to check: a caller that remembers which
-- titles name a site reads a period once.
-- With p_sites (a site asked about by name), only the records of those sites are read
-- (the titles passed are then those naming them): a month of one site costs its
-- records, not the month's.
--
-- Its history, folded into this file: 0035 made it and 0039 made it faster (both files
-- are gone; a database made before keeps their rows in schema_version, and this body
-- replaces theirs). Counting every site, the records are summed per day, domain and
-- URL-less title before any title is looked up (0035 joined every record with every
-- title passed; 0039 looked each URL-less record's title up: a week's ~12,000 browser
-- records were each looked up). A site asked about by name probes each
-- of its records' successor with a lower bound on the start (implied by the row
-- comparison), so the months of `records` before the record are pruned at run time.
CREATE OR REPLACE FUNCTION timetrace_site_seconds_v1(
    p_user bigint, p_from timestamptz, p_to timestamptz, p_day_from date, p_day_to date,
    p_browsers text[], p_known text[], p_titles text[], p_title_sites text[],
    p_sites text[] DEFAULT NULL
)
RETURNS TABLE (
    day_local date,
    site text,
    from_url_s double precision,    -- records with a URL on the site
    from_title_s double precision,  -- URL-less browser records whose title names it
    unnamed_title text              -- (every site only) a URL-less browser title not in
                                    -- p_titles, once, on a row of its own: the caller
                                    -- checks whether it names a site and asks again if so
)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    WITH named AS (
        SELECT DISTINCT ON (t.title) t.title, t.site
        FROM unnest(p_titles, p_title_sites) AS t(title, site)
        WHERE t.site IS NOT NULL
        ORDER BY t.title, t.site
    ), every_site AS (
        -- Every site: the window's records with their effective spans, read once and
        -- summed per day, domain and (URL-less) title first; then each URL-less
        -- group's title is looked up, once per title and day, not once per record.
        SELECT g.day_local, g.domain, g.title_site, g.seconds,
               CASE WHEN g.domain IS NULL AND g.title_site IS NULL THEN g.window_title
               END AS unnamed
        FROM (
            SELECT t.day_local, t.domain, t.window_title, t.seconds,
                   CASE WHEN t.domain IS NULL
                        THEN (SELECT n.site FROM named n WHERE n.title = t.window_title)
                   END AS title_site
            FROM (
                SELECT s.day_local, s.domain,
                       CASE WHEN s.domain IS NULL THEN s.window_title END AS window_title,
                       sum(s.seconds) AS seconds
                FROM timetrace_spans_v1(p_user, p_from, p_to) s
                WHERE p_sites IS NULL AND NOT s.is_idle
                  AND s.day_local BETWEEN p_day_from AND p_day_to
                  AND (s.domain IS NOT NULL OR s.app = ANY(p_browsers))
                GROUP BY 1, 2, 3
            ) t
        ) g
    ), some_sites AS (
        -- Some sites (p_sites, and what lies under them): only their records are read,
        -- each with its successor from the timeline index. The same spans: a record
        -- runs to the next live record of its device (timetrace_duration_s).
        SELECT r.day_local, r.domain, n.site AS title_site,
               timetrace_duration_s(r.ts_start, r.ts_end, nx.ts_start) AS seconds,
               NULL::text AS unnamed
        FROM records r
        LEFT JOIN named n
            ON r.domain IS NULL AND n.title = r.window_title AND r.app = ANY(p_browsers)
        LEFT JOIN LATERAL (
            SELECT x.ts_start FROM records x
            WHERE x.user_id = r.user_id AND x.device_id = r.device_id AND x.deleted_at IS NULL
              AND (x.ts_start, x.client_record_id COLLATE "C")
                  > (r.ts_start, r.client_record_id COLLATE "C")
              AND x.ts_start >= r.ts_start  -- implied; lets each probe skip earlier months
            ORDER BY x.ts_start, x.client_record_id COLLATE "C"
            LIMIT 1
        ) nx ON true
        WHERE p_sites IS NOT NULL AND r.user_id = p_user AND r.deleted_at IS NULL
          AND NOT r.is_idle AND r.ts_start >= p_from AND r.ts_start < p_to
          AND r.day_local BETWEEN p_day_from AND p_day_to
          AND (r.domain = ANY(p_sites)
               OR r.domain LIKE ANY (ARRAY(  -- under one: the patterns made once
                   SELECT '%.' || replace(replace(replace(w, '\', '\\'), '_', '\_'), '%', '\%')
                   FROM unnest(p_sites) AS w))
               OR (r.domain IS NULL AND n.site IS NOT NULL))
    ), grouped AS (
        SELECT g.day_local, g.domain, g.title_site, g.unnamed, sum(g.seconds) AS seconds
        FROM (SELECT * FROM every_site UNION ALL SELECT * FROM some_sites) g
        GROUP BY 1, 2, 3, 4
    )
    SELECT g.day_local, COALESCE(g.title_site, k.site, g.domain) AS site,
           COALESCE(sum(g.seconds) FILTER (WHERE g.domain IS NOT NULL), 0),
           COALESCE(sum(g.seconds) FILTER (WHERE g.domain IS NULL), 0),
           NULL::text
    FROM grouped g
    LEFT JOIN LATERAL (
        SELECT x AS site FROM unnest(p_known) AS x
        WHERE g.domain = x OR right(g.domain, length(x) + 1) = '.' || x
        ORDER BY length(x) DESC, x
        LIMIT 1
    ) k ON g.domain IS NOT NULL
    WHERE g.unnamed IS NULL
    GROUP BY 1, 2
    UNION ALL
    SELECT DISTINCT NULL::date, NULL::text, 0::double precision, 0::double precision, g.unnamed
    FROM grouped g
    WHERE g.unnamed IS NOT NULL
$$;
