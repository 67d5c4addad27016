-- 0023: one home for marking device-days for a rebuild. A mark keeps the earliest late
-- and deleted record it was given; the marked days' episodes go stale (a marked day's
-- records count as not built until its rebuild clears the mark). Deletion, re-labels,
-- late records at ingest and the save's jumped days all call it.
CREATE FUNCTION timetrace_mark_days(p_user bigint, p_devices text[], p_days date[],
                                    p_first_ts timestamptz[], p_first_gone timestamptz[])
RETURNS integer
LANGUAGE sql VOLATILE AS $$
    WITH d AS (
        SELECT device_id, day_local, min(first_ts) AS first_ts, min(first_gone) AS first_gone
        FROM unnest(p_devices, p_days, p_first_ts, p_first_gone)
             AS u(device_id, day_local, first_ts, first_gone)
        GROUP BY device_id, day_local
    ), marked AS (
        INSERT INTO build_marks (user_id, device_id, day_local, first_ts, first_gone)
        SELECT p_user, device_id, day_local, first_ts, first_gone FROM d
        ON CONFLICT (user_id, device_id, day_local) DO UPDATE SET
            first_ts = LEAST(build_marks.first_ts, EXCLUDED.first_ts),
            first_gone = LEAST(build_marks.first_gone, EXCLUDED.first_gone),
            marked_at = clock_timestamp()
        RETURNING 1
    ), stale AS (
        UPDATE episodes e SET stale = true, updated_at = now()
        FROM d
        WHERE e.user_id = p_user AND e.device_id = d.device_id AND e.day_local = d.day_local
          AND NOT e.stale
        RETURNING 1
    )
    SELECT count(*)::int FROM marked  -- data-modifying CTEs run whether read or not
$$;
