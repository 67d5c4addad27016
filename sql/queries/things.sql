-- Things by the names people use (app/tools/things.py) and the tools on them:
-- seconds of an app, site, category or idle time by day, the newest record of a
-- thing, the records around an instant. Every duration is the duration rule
-- (timetrace_duration_s); a record's successor on its device is looked up by the
-- timeline index, so only the matching records are read, never a whole period.
--
-- A record matches a thing (app/store/tools.py: RecordMatch) when it is idle and idle is
-- asked for; or its category is asked for; or, not idle, its app is one of the apps,
-- its URL's domain is one of the domains or under one, it is a browser record without
-- a URL whose title contains a page pattern (a candidate the caller confirms), or its
-- title contains the title pattern. Patterns arrive as ILIKE patterns, escaped.

-- name: thing_seconds --
-- With `unbuilt_only`: the records not built yet (after their device's watermark, or on
-- a marked day).
WITH w AS (
    SELECT d.device_id, COALESCE(e.last_start, '-infinity') AS last_start,
           COALESCE(e.last_key, '') AS last_key
    FROM devices d
    LEFT JOIN LATERAL (
        SELECT last_start, last_key FROM episodes x
        WHERE x.user_id = d.user_id AND x.device_id = d.device_id
        ORDER BY x.ts_start DESC, x.first_key COLLATE "C" DESC LIMIT 1
    ) e ON true
    WHERE d.user_id = %(user_id)s AND %(unbuilt_only)s
), c AS (
    SELECT r.user_id, r.device_id, r.client_record_id, r.ts_start, r.ts_end, r.day_local,
           r.app, r.domain,
           CASE WHEN r.domain IS NULL AND r.app = ANY(%(browsers)s::text[])
                     AND (r.window_title ILIKE ANY(%(page_patterns)s::text[])
                          OR r.window_title = ANY(%(page_titles)s::text[]))
                THEN r.window_title END AS page_title
    FROM records r
    WHERE r.user_id = %(user_id)s AND r.deleted_at IS NULL
      AND r.day_local BETWEEN %(day_from)s AND %(day_to)s
      -- a logical day lies within three days of its date (any time zone): its partitions only
      AND r.ts_start >= %(day_from)s::date - 3 AND r.ts_start < %(day_to)s::date + 4
      AND (NOT %(unbuilt_only)s
           OR EXISTS (SELECT 1 FROM w WHERE w.device_id = r.device_id
                        AND (r.ts_start, r.client_record_id COLLATE "C")
                            > (w.last_start, w.last_key COLLATE "C"))
           OR EXISTS (SELECT 1 FROM build_marks m
                      WHERE m.user_id = %(user_id)s AND m.device_id = r.device_id
                        AND m.day_local = r.day_local))
      AND ((%(idle)s AND r.is_idle)
           OR r.category = ANY(%(categories)s::text[])
           OR (NOT r.is_idle AND (
               r.app = ANY(%(apps)s::text[])
               OR r.domain = ANY(%(domains)s::text[])
               OR r.domain LIKE ANY(%(domain_patterns)s::text[])
               OR (r.domain IS NULL AND r.app = ANY(%(browsers)s::text[])
                   AND (r.window_title ILIKE ANY(%(page_patterns)s::text[])
                        OR r.window_title = ANY(%(page_titles)s::text[])))
               OR r.window_title ILIKE %(title_pattern)s)))
)
SELECT c.day_local, c.app, c.domain, c.page_title,
       COALESCE(sum(timetrace_duration_s(c.ts_start, c.ts_end, nx.ts_start)), 0) AS seconds,
       max(c.ts_start) AS last_ts
FROM c
LEFT JOIN LATERAL (
    SELECT n.ts_start FROM records n
    WHERE n.user_id = c.user_id AND n.device_id = c.device_id AND n.deleted_at IS NULL
      AND (n.ts_start, n.client_record_id COLLATE "C") > (c.ts_start, c.client_record_id COLLATE "C")
      AND n.ts_start >= c.ts_start  -- implied; lets each probe skip the earlier months
    ORDER BY n.ts_start, n.client_record_id COLLATE "C"
    LIMIT 1
) nx ON true
GROUP BY 1, 2, 3, 4
ORDER BY 1, 2, 3, 4;

-- name: page_titles --
-- The distinct titles of a period's URL-less browser records holding a site's name: the
-- caller keeps those that name the site, so only their records are read for durations.
SELECT DISTINCT r.window_title
FROM records r
WHERE r.user_id = %(user_id)s AND r.deleted_at IS NULL AND NOT r.is_idle
  AND r.day_local BETWEEN %(day_from)s AND %(day_to)s
  AND r.ts_start >= %(day_from)s::date - 3 AND r.ts_start < %(day_to)s::date + 4  -- partitions
  AND r.domain IS NULL AND r.app = ANY(%(browsers)s::text[])
  AND r.window_title ILIKE ANY(%(page_patterns)s::text[]);

-- name: site_day_seconds --
-- Seconds on each site per logical day, from URLs and from URL-less browser titles that
-- name it: the one definition of time on a site (timetrace_site_seconds_v1, migration
-- 0040). `titles` and `named_sites` pair each such title with the site the rules read in
-- it; with `only`, just those sites (and what lies under them) are read.
SELECT day_local, site, from_url_s, from_title_s, unnamed_title
FROM timetrace_site_seconds_v1(%(user_id)s, %(read_from)s, %(read_to)s, %(day_from)s,
                               %(day_to)s, %(browsers)s::text[], %(known)s::text[],
                               %(titles)s::text[], %(named_sites)s::text[],
                               %(only)s::text[])
ORDER BY day_local, site, unnamed_title;

-- name: episode_thing_seconds --
-- Per day, the closed episodes' seconds in some apps and categories, and their idle time.
SELECT e.day_local,
       sum(COALESCE((SELECT sum(v::double precision) FROM jsonb_each_text(e.app_seconds) AS j(k, v)
                     WHERE k = ANY(%(apps)s::text[])), 0)
           + COALESCE((SELECT sum(v::double precision)
                       FROM jsonb_each_text(e.category_seconds) AS j(k, v)
                       WHERE k = ANY(%(categories)s::text[])), 0)
           + CASE WHEN %(idle)s THEN e.duration_s - e.active_s ELSE 0 END) AS seconds
FROM episodes e
WHERE e.user_id = %(user_id)s AND e.day_local BETWEEN %(day_from)s AND %(day_to)s
  AND e.closed AND NOT e.stale
GROUP BY e.day_local
ORDER BY e.day_local;

-- name: recent_titles --
-- The distinct window titles of the user's records in the 90 days before their newest,
-- most recorded first: the words a question may name a file, a page or a song by.
WITH newest AS (
    SELECT max(ts_start) AS ts FROM records WHERE user_id = %(user_id)s AND deleted_at IS NULL
)
SELECT r.window_title
FROM records r, newest
WHERE r.user_id = %(user_id)s AND r.deleted_at IS NULL AND NOT r.is_idle
  AND r.ts_start > newest.ts - interval '90 days' AND r.window_title <> ''
GROUP BY 1
ORDER BY count(*) DESC, 1
LIMIT %(limit)s;

-- name: known_names --
-- The apps and sites of the user's recent records (the names suggestions come from), and
-- whether any of their titles contains a text; then the user's own categories. Titles repeat record after record: each
-- distinct one is compared once.
WITH newest AS (
    SELECT max(ts_start) AS ts FROM records WHERE user_id = %(user_id)s AND deleted_at IS NULL
), titles AS (
    SELECT r.app, r.domain, r.window_title, count(*) AS n
    FROM records r, newest
    WHERE r.user_id = %(user_id)s AND r.deleted_at IS NULL AND NOT r.is_idle
      AND r.ts_start > newest.ts - interval '90 days'
    GROUP BY 1, 2, 3
)
(SELECT app, domain, sum(n)::bigint AS records,
        COALESCE(bool_or(window_title ILIKE %(title_pattern)s), false) AS titled,
        NULL::text AS category, NULL::text AS category_kind, NULL::text[] AS category_names
 FROM titles
 GROUP BY 1, 2
 ORDER BY records DESC, 1, 2
 LIMIT 500)
UNION ALL
-- The user's own categories (migration 0034) by their names in both languages: the
-- names a question may use for them ("games", "游戏"), with no app or site.
(SELECT '', NULL, 0, false, c.path, c.kind, array_remove(ARRAY[c.name, c.name_zh], NULL)
 FROM v_user_categories c WHERE c.user_id = %(user_id)s ORDER BY c.path);

-- name: latest_matching --
SELECT r.record_id, r.device_id, r.ts_start, r.ts_end, r.app, r.window_title, r.domain,
       r.category, r.is_idle,
       timetrace_episode_of(r.user_id, r.device_id, r.ts_start, r.client_record_id) AS episode_id,
       a.description
FROM (
    SELECT * FROM records r
    WHERE r.user_id = %(user_id)s AND r.deleted_at IS NULL
      AND r.ts_start < %(before)s AND r.ts_start >= %(since)s
      AND ((%(idle)s AND r.is_idle)
           OR r.category = ANY(%(categories)s::text[])
           OR (NOT r.is_idle AND (
               r.app = ANY(%(apps)s::text[])
               OR r.domain = ANY(%(domains)s::text[])
               OR r.domain LIKE ANY(%(domain_patterns)s::text[])
               OR (r.domain IS NULL AND r.app = ANY(%(browsers)s::text[])
                   AND (r.window_title ILIKE ANY(%(page_patterns)s::text[])
                        OR r.window_title = ANY(%(page_titles)s::text[])))
               OR r.window_title ILIKE %(title_pattern)s)))
    ORDER BY r.ts_start DESC, r.record_id DESC
    LIMIT %(limit)s
) r
LEFT JOIN record_analyses a ON a.user_id = r.user_id AND a.record_id = r.record_id
ORDER BY r.ts_start DESC, r.record_id DESC;

-- name: records_around --
-- On each device: the records that start at or before an instant (the first of them
-- may cover it) and those after it, each with its effective duration.
WITH near AS (
    SELECT b.* FROM devices d
    CROSS JOIN LATERAL (
        SELECT * FROM records r
        WHERE r.user_id = d.user_id AND r.device_id = d.device_id AND r.deleted_at IS NULL
          AND r.ts_start <= %(at)s AND r.ts_start > %(at)s - interval '1 day'
        ORDER BY r.ts_start DESC, r.client_record_id COLLATE "C" DESC
        LIMIT %(per_side)s + 1
    ) b
    WHERE d.user_id = %(user_id)s
    UNION ALL
    SELECT f.* FROM devices d
    CROSS JOIN LATERAL (
        SELECT * FROM records r
        WHERE r.user_id = d.user_id AND r.device_id = d.device_id AND r.deleted_at IS NULL
          AND r.ts_start > %(at)s AND r.ts_start < %(at)s + interval '1 day'
        ORDER BY r.ts_start, r.client_record_id COLLATE "C"
        LIMIT %(per_side)s
    ) f
    WHERE d.user_id = %(user_id)s
)
SELECT n.record_id, n.device_id, n.ts_start, n.ts_end, n.app, n.window_title, n.domain,
       n.category, n.is_idle,
       timetrace_episode_of(n.user_id, n.device_id, n.ts_start, n.client_record_id) AS episode_id,
       a.description,
       timetrace_duration_s(n.ts_start, n.ts_end, nx.ts_start) AS duration_s
FROM near n
LEFT JOIN LATERAL (
    SELECT x.ts_start FROM records x
    WHERE x.user_id = n.user_id AND x.device_id = n.device_id AND x.deleted_at IS NULL
      AND (x.ts_start, x.client_record_id COLLATE "C") > (n.ts_start, n.client_record_id COLLATE "C")
    ORDER BY x.ts_start, x.client_record_id COLLATE "C"
    LIMIT 1
) nx ON true
LEFT JOIN record_analyses a ON a.user_id = n.user_id AND a.record_id = n.record_id
ORDER BY n.device_id, n.ts_start, n.client_record_id COLLATE "C";

-- name: window_seconds --
-- Seconds by the duration rule inside windows (each [start, end) with the logical day it
-- belongs to): a record counts only for the part of its effective span inside a window.
-- Without windows (`by_day`), the logical days' records count whole, as thing_seconds
-- counts them. Grouped by day, category, app, domain, idle, the title of a URL-less
-- browser record (a site candidate, confirmed by the caller) and whether the title
-- holds `title_pattern`: enough to count any thing, the active time and the sites.
WITH win AS (
    SELECT * FROM unnest(%(starts)s::timestamptz[], %(ends)s::timestamptz[], %(days)s::date[])
        AS w(ts_from, ts_to, day)
), r AS (
    SELECT s.ts_start, s.span_end, s.day_local, s.app, s.domain, s.category, s.is_idle,
           s.window_title, s.seconds AS d
    FROM timetrace_spans_v1(%(user_id)s, %(read_from)s, %(read_to)s) s
), near AS (
    -- The windows a record may reach. One window (two instants): every record read. A
    -- window in each day: those of the days beside the record's own (a window lies
    -- within its day and the next; two days either side allow for a record stamped in
    -- another zone, and one more after for a record of up to 24 hours, the longest
    -- ingest takes), found by equality on the day, not by comparing every pair.
    SELECT r.*, w.day, w.ts_from, w.ts_to
    FROM r CROSS JOIN win w
    WHERE NOT %(by_day)s AND cardinality(%(days)s::date[]) = 1
    UNION ALL
    SELECT r.*, w.day, w.ts_from, w.ts_to
    FROM r CROSS JOIN generate_series(-2, 3) AS k(shift)
    JOIN win w ON w.day = r.day_local + k.shift
    WHERE NOT %(by_day)s AND cardinality(%(days)s::date[]) > 1
), parts AS (
    SELECT day, app, domain, category, is_idle, window_title,
           EXTRACT(EPOCH FROM LEAST(span_end, ts_to) - GREATEST(ts_start, ts_from))::double precision
               AS s
    FROM near
    WHERE ts_start < ts_to AND span_end > ts_from
    UNION ALL
    SELECT r.day_local, r.app, r.domain, r.category, r.is_idle, r.window_title, r.d
    FROM r
    WHERE %(by_day)s AND r.day_local BETWEEN %(day_from)s AND %(day_to)s
)
SELECT day AS day_local, category, app, domain, is_idle,
       CASE WHEN domain IS NULL AND app = ANY(%(browsers)s::text[]) THEN window_title END
           AS page_title,
       COALESCE(window_title ILIKE %(title_pattern)s, false) AS titled,
       sum(s) AS seconds
FROM parts
WHERE s > 0
GROUP BY 1, 2, 3, 4, 5, 6, 7
ORDER BY 1, 2, 3, 4, 5, 6, 7;
