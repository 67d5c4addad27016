-- Episodes by id, and ids that no longer exist (episode_redirects, migration 0028).

-- name: episode_moved --
-- Where a gone episode's time went: the live episode whose span now holds its first
-- position (NULL: that record was deleted, or its day is not built again yet).
-- `deleted`: its first record is gone, so its time has no cover.
SELECT g.episode_id AS gone_id,
       NOT timetrace_record_live(g.user_id, g.device_id, g.ts_start, g.first_key) AS deleted,
       e.episode_id, e.day_local
FROM episode_redirects g
LEFT JOIN episodes e
  ON timetrace_record_live(g.user_id, g.device_id, g.ts_start, g.first_key)
 AND e.user_id = g.user_id
 AND e.episode_id = timetrace_episode_of(g.user_id, g.device_id, g.ts_start, g.first_key)
WHERE g.user_id = %(user_id)s AND g.episode_id = %(episode_id)s;

-- name: get_episode --
SELECT episode_id, device_id, ts_start, ts_end, category, category_source, title, summary,
       duration_s, active_s, summary_by
FROM episodes WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s AND NOT stale;
