-- 0021: the periodic sweep reads what changed lately, not the whole history.
-- rollups_due: the days of episodes changed since the sweep's lookback.
CREATE INDEX episodes_updated ON episodes (updated_at) WHERE closed;
-- periods_due: the weeks and months of day digests changed since then.
CREATE INDEX digests_day_updated ON digests (updated_at) WHERE grain = 'day' AND NOT stale;
-- pending_summaries: the newest pending episodes, LIMIT rows read, not all of them sorted.
CREATE INDEX episodes_pending_summary ON episodes (ts_start)
    WHERE summary_status = 'pending' AND closed AND NOT stale;
