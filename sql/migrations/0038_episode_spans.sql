-- 0038: episodes by the time they overlap. get_episodes asks for the episodes that
-- overlap a period (ts_start < to AND ts_end > from), newest first. On the start index
-- alone the second half of that is a filter: the scan walked back from the period's end
-- through every earlier episode of the user, unless it met the limit first (a day holds
-- far fewer than the limit), so a day's list cost the history before it. A GiST index
-- on the span answers the overlap itself. No user_id in it: that would need btree_gist,
-- an extension an external database may not allow; a period's episodes of other users
-- are few next to a user's whole history. ts_end >= ts_start (a CHECK), so the range
-- is never empty of its bounds.
CREATE INDEX episodes_span ON episodes USING gist (tstzrange(ts_start, ts_end, '[]'))
    WHERE NOT stale;
