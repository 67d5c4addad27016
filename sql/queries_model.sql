-- name: model_backlog --
-- get_now's line on the model layer: summaries still owed or failed, on whatever
-- days they are (the first and last day with a failure say which).
SELECT count(*) FILTER (WHERE summary_status = 'pending') AS pending,
       count(*) FILTER (WHERE summary_status = 'failed') AS failed,
       min(day_local) FILTER (WHERE summary_status = 'failed') AS first_failed_day,
       max(day_local) FILTER (WHERE summary_status = 'failed') AS last_failed_day,
       (SELECT summary_reason FROM episodes
        WHERE user_id = %(user_id)s AND summary_status = 'failed' AND NOT stale
        ORDER BY updated_at DESC, episode_id DESC LIMIT 1) AS last_reason
FROM episodes
WHERE user_id = %(user_id)s AND closed AND NOT stale
  AND summary_status IN ('pending', 'failed');
