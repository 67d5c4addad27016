-- 0002: the idle gap, and views for people with psql (examples in README.md).

-- The idle gap (seconds) that caps a record with no end. The app sets
-- timetrace.idle_gap_s on every connection; psql sessions get the default.
CREATE FUNCTION timetrace_idle_gap() RETURNS interval
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT make_interval(secs => COALESCE(NULLIF(current_setting('timetrace.idle_gap_s', true), ''), '300')::int)
$$;

-- v_record_durations and v_day_category_hours stood here until 0019 dropped them and
-- made them again; they are made there, once (docs/architecture.md, "Migrations").

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
