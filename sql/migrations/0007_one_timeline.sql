-- 0007: one device, one timeline. The duration rule becomes the effective span: a
-- record runs from its start to the earlier of its own end and the next record's
-- start on the same device (records ordered by start, ties by client_record_id in
-- code-point order); with no end it is capped at the idle gap and at now. Overlaps
-- are clipped, never counted twice. A database made before the history was thinned
-- has 0003's function of the same name: this replaces its body, so there is still
-- one definition.
CREATE OR REPLACE FUNCTION timetrace_duration_s(ts_start timestamptz, ts_end timestamptz, next_start timestamptz)
RETURNS double precision
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT EXTRACT(EPOCH FROM GREATEST(interval '0', LEAST(
        COALESCE(ts_end, LEAST(ts_start + timetrace_idle_gap(), GREATEST(now(), ts_start))),
        next_start
    ) - ts_start))::double precision
$$;

-- The start of the record that follows (ts, key) on a device: the successor of the
-- last record in a query's read window, which may lie past the window's end.
CREATE OR REPLACE FUNCTION timetrace_next_start(p_user bigint, p_device text, p_ts timestamptz, p_key text)
RETURNS timestamptz
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT min(ts_start) FROM records
    WHERE user_id = p_user AND device_id = p_device AND deleted_at IS NULL AND ts_start >= p_ts
      AND (ts_start > p_ts OR client_record_id COLLATE "C" > p_key)
$$;

-- The timeline order as an index: a window over one device's records reads them in
-- order (start, then key) instead of sorting them.
DROP INDEX records_device_ts;
CREATE INDEX records_device_ts ON records (user_id, device_id, ts_start, client_record_id COLLATE "C");

-- Episodes built under the old rule over overlapping records counted the overlap
-- twice (and ties went by insertion order): mark them stale, so the builder rebuilds
-- those device-days and their digests.
UPDATE episodes e SET stale = true, updated_at = now()
FROM (
    SELECT DISTINCT user_id, device_id, day_local FROM (
        SELECT user_id, device_id, day_local, ts_start, ts_end,
               lead(ts_start) OVER (PARTITION BY user_id, device_id
                                    ORDER BY ts_start, client_record_id COLLATE "C") AS next_start
        FROM records WHERE deleted_at IS NULL
    ) r
    WHERE r.ts_end > r.next_start OR r.ts_start = r.next_start
) d
WHERE e.user_id = d.user_id AND e.device_id = d.device_id AND e.day_local = d.day_local
  AND NOT e.stale;
