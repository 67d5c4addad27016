-- 0002: the duration rule, and views for people with psql (examples in README.md).

-- The idle gap (seconds) that caps a record with no end. The app sets
-- timetrace.idle_gap_s on every connection; psql sessions get the default.
CREATE FUNCTION timetrace_idle_gap() RETURNS interval
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT make_interval(secs => COALESCE(NULLIF(current_setting('timetrace.idle_gap_s', true), ''), '300')::int)
$$;

-- THE duration rule (docs/architecture.md, "Data rules"), the only copy: a record lasts ts_end - ts_start,
-- or, with no end, until the next record of the same device, capped at the idle
-- gap and at now. Never negative. Deleted records count for nothing.
CREATE VIEW v_record_durations AS
SELECT r.user_id, r.record_id, r.device_id, r.client_record_id, r.ts_start, r.ts_end, r.day_local,
       r.app, r.window_title, r.domain, r.category, r.is_idle, r.episode_id,
       EXTRACT(EPOCH FROM GREATEST(interval '0', COALESCE(
           r.ts_end,
           LEAST(r.next_start, r.ts_start + timetrace_idle_gap(), GREATEST(now(), r.ts_start))
       ) - r.ts_start))::double precision AS duration_s
FROM (
    SELECT records.*,
           lead(ts_start) OVER (PARTITION BY user_id, device_id ORDER BY ts_start, record_id) AS next_start
    FROM records
    WHERE deleted_at IS NULL
) AS r;

-- Hours per logical day and category, from records (the ground layer).
CREATE VIEW v_day_category_hours AS
SELECT user_id, day_local, category,
       sum(duration_s) AS seconds,
       round((sum(duration_s) / 3600)::numeric, 2) AS hours,
       count(*) AS records
FROM v_record_durations
GROUP BY user_id, day_local, category;

-- One line per episode.
CREATE VIEW v_episodes AS
SELECT user_id, episode_id, day_local, ts_start, ts_end, device_id, category, primary_app, title,
       round((duration_s / 3600)::numeric, 2) AS hours, duration_s, active_s, frame_count,
       summary_status, closed, stale, summary
FROM episodes;

-- Hours per logical day and category, from episodes (the pyramid).
CREATE VIEW v_episode_day_category_hours AS
SELECT user_id, day_local, category,
       sum(duration_s) AS seconds,
       round((sum(duration_s) / 3600)::numeric, 2) AS hours,
       count(*) AS episodes
FROM episodes
WHERE NOT stale
GROUP BY user_id, day_local, category;
