-- 0032: the duration rule, applied once. Every named query that counts seconds read a
-- user's records with their successor (`lead` over the device's timeline, and
-- `timetrace_next_start` for the last record of its window) and passed both to
-- timetrace_duration_s; that pattern stood in ten queries. Now one function returns the
-- records of a window with their effective spans, and the queries read from it.
--
-- It is `LANGUAGE sql STABLE`, one SELECT, no SET and not STRICT: the planner inlines it
-- into the calling query, so constant bounds still prune the months of `records` when
-- planning, and a filter on the device (the window's partition) is pushed into the scan
-- of the timeline index. The device is therefore not an argument: `WHERE s.device_id =
-- %(device_id)s` outside does the same, also on generic plans (where an argument's
-- `p IS NULL OR device_id = p` would be left as a filter on every device's records).
--
-- A record's successor is the next live record of its device, ordered by start, ties
-- by client_record_id in code-point order. Every live record of the device in
-- [p_from, p_to) is in the window, so the last one's successor is the device's first
-- live record at or after p_to: a probe from a constant, which prunes months too
-- (timetrace_next_start's probe from each record's own position planned every month).
CREATE FUNCTION timetrace_spans_v1(p_user bigint, p_from timestamptz, p_to timestamptz)
RETURNS TABLE (
    user_id bigint, record_id bigint, device_id text, client_record_id text,
    ts_start timestamptz, ts_end timestamptz, day_local date, app text, app_raw text,
    window_title text, url text, domain text, category text, category_source text,
    is_idle boolean, redacted boolean,
    next_start timestamptz,   -- the successor's start (NULL: none yet)
    span_end timestamptz,     -- where the effective span ends
    seconds double precision  -- its length: the duration rule
)
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT t.user_id, t.record_id, t.device_id, t.client_record_id, t.ts_start, t.ts_end,
           t.day_local, t.app, t.app_raw, t.window_title, t.url, t.domain, t.category,
           t.category_source, t.is_idle, t.redacted, t.next_start,
           t.ts_start + make_interval(secs => t.seconds), t.seconds
    FROM (
        SELECT n.*, timetrace_duration_s(n.ts_start, n.ts_end, n.next_start) AS seconds
        FROM (
            SELECT r.user_id, r.record_id, r.device_id, r.client_record_id, r.ts_start,
                   r.ts_end, r.day_local, r.app, r.app_raw, r.window_title, r.url,
                   r.domain, r.category, r.category_source, r.is_idle, r.redacted,
                   COALESCE(
                       lead(r.ts_start) OVER (PARTITION BY r.device_id
                                              ORDER BY r.ts_start, r.client_record_id COLLATE "C"),
                       (SELECT min(x.ts_start) FROM records x
                        WHERE x.user_id = p_user AND x.device_id = r.device_id
                          AND x.deleted_at IS NULL AND x.ts_start >= p_to)) AS next_start
            FROM records r
            WHERE r.user_id = p_user AND r.deleted_at IS NULL
              AND r.ts_start >= p_from AND r.ts_start < p_to
        ) n
    ) t
$$;

-- The psql view reads the same function (its window: all time), so it cannot drift.
CREATE OR REPLACE VIEW v_record_durations AS
SELECT s.user_id, s.record_id, s.device_id, s.client_record_id, s.ts_start, s.ts_end,
       s.day_local, s.app, s.window_title, s.domain, s.category, s.is_idle,
       s.seconds AS duration_s
FROM users u
CROSS JOIN LATERAL timetrace_spans_v1(u.user_id, '-infinity', 'infinity') s;
