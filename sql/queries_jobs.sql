-- Named queries of fair, bounded jobs (migration 0017; app/db/job_manager.py, app/jobs/limits.py,
-- app/runtime/health.py).

-- name: fetch_job_fairly --
-- procrastinate's fetch_job, through timetrace_fetch_job: one running job per user and
-- lane, users in turn.
-- Always one row (all null when no job is ready), as procrastinate's fetch returns.
SELECT f.id, f.status, f.task_name, f.priority, f.lock, f.queueing_lock, f.args,
       f.scheduled_at, f.queue_name, f.attempts, f.worker_id
FROM (SELECT 1) AS one
LEFT JOIN LATERAL timetrace_fetch_job(%(queues)s::varchar[], %(worker_id)s) AS f ON true;

-- name: record_job_stop --
INSERT INTO job_stops (user_id, job_id, task_name, reason, outcome, ran_s, limit_s)
VALUES (%(user_id)s, %(job_id)s, %(task_name)s, %(reason)s, %(outcome)s, %(ran_s)s, %(limit_s)s);

-- name: jobs_past_limit --
-- Jobs `doing` for longer than their limit (imports have their own), longest first.
SELECT j.id AS job_id, j.task_name, (j.args->>'user_id')::bigint AS user_id,
       EXTRACT(EPOCH FROM now() - s.started_at)::double precision AS running_s
FROM procrastinate_jobs j
CROSS JOIN LATERAL (
    SELECT max(e.at) AS started_at FROM procrastinate_events e
    WHERE e.job_id = j.id AND e.type = 'started'
) s
WHERE j.status = 'doing'
  AND s.started_at < now() - make_interval(secs => CASE WHEN j.queue_name = 'imports'
                                                        THEN %(import_limit_s)s
                                                        ELSE %(limit_s)s END)
ORDER BY running_s DESC;

-- name: stuck_users --
-- Users with jobs due in a lane (the pyramid's, or the models') none of whose jobs in
-- that lane is running or has started for `stuck_after_s`, counted from when the oldest
-- became due. (A job running too long is reported as past its limit instead.)
WITH waiting AS (
    SELECT (j.args->>'user_id')::bigint AS user_id, timetrace_job_lane(j.queue_name) AS lane,
           min(GREATEST((SELECT max(e.at) FROM procrastinate_events e WHERE e.job_id = j.id),
                        j.scheduled_at)) AS since
    FROM procrastinate_jobs j
    WHERE j.status = 'todo' AND j.args ? 'user_id'
      AND (j.scheduled_at IS NULL OR j.scheduled_at <= now())
    GROUP BY 1, 2
)
SELECT w.user_id, w.lane,
       EXTRACT(EPOCH FROM now() - GREATEST(w.since, t.last_started_at))::double precision
           AS still_s
FROM waiting w
LEFT JOIN job_turns t ON t.user_id = w.user_id AND t.lane = w.lane
WHERE GREATEST(w.since, t.last_started_at) < now() - make_interval(secs => %(stuck_after_s)s)
  AND NOT EXISTS (
      SELECT 1 FROM procrastinate_jobs d
      WHERE d.status = 'doing' AND d.args ? 'user_id'
        AND (d.args->>'user_id')::bigint = w.user_id
        AND timetrace_job_lane(d.queue_name) = w.lane)
ORDER BY still_s DESC;

-- name: recent_job_stops --
-- Jobs stopped at their time limit lately, newest first.
SELECT user_id, job_id, task_name, reason, outcome, ran_s, limit_s, stopped_at
FROM job_stops
WHERE stopped_at >= now() - make_interval(secs => %(since_s)s)
ORDER BY stopped_at DESC
LIMIT 20;

-- name: prune_job_stops --
DELETE FROM job_stops WHERE stopped_at < now() - make_interval(secs => %(older_than_s)s);
