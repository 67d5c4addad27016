-- The job queue (procrastinate's tables; jobs are deferred through its API), and
-- fair, bounded jobs (migration 0017; app/db/job_manager.py, app/jobs/limits.py,
-- app/runtime/health.py).

-- name: lock_queueing_lock --
-- Until the transaction ends, one deferral (or requeue) per queueing lock at a time.
SELECT pg_advisory_xact_lock(timetrace_queueing_lock_key(%(queueing_lock)s));

-- name: job_waiting --
-- Under that lock: a job already waiting? Then there is nothing to add, and the share
-- lock keeps a worker from taking it (fetching skips locked rows) until this transaction
-- commits, so that it runs after, and sees, the change that asked for it.
SELECT id FROM procrastinate_jobs
WHERE queueing_lock = %(queueing_lock)s AND status = 'todo'
FOR SHARE;

-- name: next_stalled_job --
-- A job left `doing` by a worker silent for longer than the stalled timeout (killed
-- mid-job) or already pruned; locked, so that two workers never requeue the same job.
SELECT j.id FROM procrastinate_jobs j
LEFT JOIN procrastinate_workers w ON w.id = j.worker_id
WHERE j.status = 'doing'
  AND (w.id IS NULL OR w.last_heartbeat < now() - make_interval(secs => %(stalled_after_s)s))
ORDER BY j.id
LIMIT 1
FOR UPDATE OF j SKIP LOCKED;

-- name: requeue_job --
-- Back to `todo` (at retry_at; now when null), or `aborted` when a twin already waits.
SELECT timetrace_requeue_job(%(job_id)s, %(retry_at)s, %(priority)s, %(queue)s, %(lock)s)
    AS outcome;

-- name: job_health --
-- Waiting: `todo` and due (not a retry scheduled for later); its age counts from when it
-- last became `todo`. Stalled: `doing` on a worker without a recent heartbeat.
WITH waiting AS (
    SELECT GREATEST((SELECT max(e.at) FROM procrastinate_events e WHERE e.job_id = j.id),
                    j.scheduled_at) AS since
    FROM procrastinate_jobs j
    WHERE j.status = 'todo' AND (j.scheduled_at IS NULL OR j.scheduled_at <= now())
)
SELECT
    (SELECT count(*) FROM waiting)::int AS waiting,
    (SELECT EXTRACT(EPOCH FROM now() - min(since))::double precision FROM waiting)
        AS oldest_waiting_s,
    (SELECT count(*) FROM procrastinate_jobs WHERE status = 'doing')::int AS running,
    (SELECT count(*) FROM procrastinate_jobs j
     LEFT JOIN procrastinate_workers w ON w.id = j.worker_id
     WHERE j.status = 'doing'
       AND (w.id IS NULL OR w.last_heartbeat < now() - make_interval(secs => %(stalled_after_s)s))
    )::int AS stalled,
    (SELECT count(*) FROM procrastinate_jobs WHERE status = 'failed')::int AS failed,
    (SELECT count(*) FROM procrastinate_workers
     WHERE last_heartbeat >= now() - make_interval(secs => %(stalled_after_s)s))::int AS workers;

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
                                                        THEN %(import_limit_s)s::float8
                                                        ELSE %(limit_s)s::float8 END)
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
