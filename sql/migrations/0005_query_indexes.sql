-- 0005: indexes for the query-time tools: the newest records (get_now, ties broken by
-- id) and the newest closed episodes.
DROP INDEX records_user_ts;
CREATE INDEX records_user_ts ON records (user_id, ts_start, record_id);
CREATE INDEX episodes_user_end ON episodes (user_id, ts_end);
