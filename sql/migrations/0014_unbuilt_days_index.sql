-- 0014: `unbuilt_days` (every query_stats and get_digest over digests asks it) reads the
-- records of a period that are not in an episode yet. Without an index on exactly those,
-- the planner walked every record of the period (~7 ms for a month of 21,000 records).
CREATE INDEX records_unassigned_day ON records (user_id, day_local)
    WHERE episode_id IS NULL AND deleted_at IS NULL;
