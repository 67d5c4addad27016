-- 0003: what the episode builder and rollups need.

-- THE duration rule as a function (docs/architecture.md, "Data rules"), used by the view below and by
-- the builder's named queries: ts_end - ts_start, or, with no end, until the next
-- record of the same device, capped at the idle gap and at now. Never negative.
CREATE FUNCTION timetrace_duration_s(ts_start timestamptz, ts_end timestamptz, next_start timestamptz)
RETURNS double precision
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT EXTRACT(EPOCH FROM GREATEST(interval '0', COALESCE(
        ts_end,
        LEAST(next_start, ts_start + timetrace_idle_gap(), GREATEST(now(), ts_start))
    ) - ts_start))::double precision
$$;

CREATE OR REPLACE VIEW v_record_durations AS
SELECT r.user_id, r.record_id, r.device_id, r.client_record_id, r.ts_start, r.ts_end, r.day_local,
       r.app, r.window_title, r.domain, r.category, r.is_idle, r.episode_id,
       timetrace_duration_s(r.ts_start, r.ts_end, r.next_start) AS duration_s
FROM (
    SELECT records.*,
           lead(ts_start) OVER (PARTITION BY user_id, device_id ORDER BY ts_start, record_id) AS next_start
    FROM records
    WHERE deleted_at IS NULL
) AS r;

-- Per-episode breakdowns, so that day metrics are sums over episodes and still
-- exact per record category (an interruption counts as entertainment).
ALTER TABLE episodes
    ADD COLUMN category_seconds jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN app_seconds      jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN switch_count     integer NOT NULL DEFAULT 0 CHECK (switch_count >= 0),
    ADD COLUMN interruption_s   double precision NOT NULL DEFAULT 0 CHECK (interruption_s >= 0),
    ADD COLUMN boundary         text NOT NULL DEFAULT '';

-- The builder's work list: live records not yet in an episode.
CREATE INDEX records_unassigned ON records (user_id, device_id, day_local)
    WHERE episode_id IS NULL AND deleted_at IS NULL;
CREATE INDEX episodes_device_day ON episodes (user_id, device_id, day_local);
CREATE INDEX digests_unfinalized ON digests (user_id, grain, period_end) WHERE NOT finalized;
