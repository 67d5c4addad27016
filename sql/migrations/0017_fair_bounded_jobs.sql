-- 0017: fair, bounded jobs.
--
-- Fair: a worker takes jobs through timetrace_fetch_job instead of procrastinate's own
-- fetch. A user (a job's args->>'user_id') runs at most one job at a time on the
-- pyramid's worker (episodes, rollups, imports) and one on the model worker, so one
-- user's backlog can never hold every slot; among users with work, the one whose last
-- job started longest ago goes first (round robin), then priority, then age. Jobs with
-- no user (the sweeps) are not limited. procrastinate's `lock` still keeps one running
-- job per lock; unlike procrastinate's fetch, a waiting job scheduled for later (a
-- retry backing off) does not hold back the other jobs of its lock.
--
-- Bounded: a job stopped at its time limit is recorded in job_stops with why (task
-- names, ids, days and seconds only, never captured text).

CREATE TABLE job_turns (
    user_id bigint NOT NULL,
    lane text NOT NULL,  -- 'models' or 'main'
    last_started_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, lane)
);

CREATE FUNCTION timetrace_job_lane(queue_name character varying) RETURNS text
LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN queue_name = 'models' THEN 'models' ELSE 'main' END $$;

-- Returns the job it started (no row when none is ready). Plain column types, not the
-- procrastinate_jobs row type: procrastinate's schema is installed after the migrations.
CREATE FUNCTION timetrace_fetch_job(target_queue_names character varying[], p_worker_id bigint)
    RETURNS TABLE (
        id bigint, status text, task_name character varying, priority integer, lock text,
        queueing_lock text, args jsonb, scheduled_at timestamptz,
        queue_name character varying, attempts integer, worker_id bigint
    )
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    _id bigint;
    _user_id bigint;
    _lane text;
BEGIN
    -- One fetch at a time: two workers must not both see a user as idle.
    PERFORM pg_advisory_xact_lock(17, 17);
    WITH busy AS (
        SELECT DISTINCT (d.args->>'user_id')::bigint AS user_id,
               timetrace_job_lane(d.queue_name) AS lane
        FROM procrastinate_jobs AS d
        WHERE d.status = 'doing' AND d.args ? 'user_id'
    )
    SELECT jobs.id, (jobs.args->>'user_id')::bigint, timetrace_job_lane(jobs.queue_name)
    INTO _id, _user_id, _lane
    FROM procrastinate_jobs AS jobs
    LEFT JOIN job_turns AS turn
        ON jobs.args ? 'user_id'
       AND turn.user_id = (jobs.args->>'user_id')::bigint
       AND turn.lane = timetrace_job_lane(jobs.queue_name)
    WHERE jobs.status = 'todo'
      AND (target_queue_names IS NULL OR jobs.queue_name = ANY(target_queue_names))
      AND (jobs.scheduled_at IS NULL OR jobs.scheduled_at <= now())
      AND (jobs.lock IS NULL OR NOT EXISTS (
              SELECT 1 FROM procrastinate_jobs AS other
              WHERE other.lock = jobs.lock AND other.status = 'doing'))
      AND NOT (jobs.args ? 'user_id' AND EXISTS (
              SELECT 1 FROM busy
              WHERE busy.user_id = (jobs.args->>'user_id')::bigint
                AND busy.lane = timetrace_job_lane(jobs.queue_name)))
    ORDER BY turn.last_started_at ASC NULLS FIRST, jobs.priority DESC, jobs.id ASC
    LIMIT 1
    FOR UPDATE OF jobs SKIP LOCKED;
    IF _id IS NULL THEN
        RETURN;
    END IF;
    IF _user_id IS NOT NULL THEN
        INSERT INTO job_turns AS t (user_id, lane, last_started_at)
        VALUES (_user_id, _lane, clock_timestamp())
        ON CONFLICT (user_id, lane) DO UPDATE SET last_started_at = excluded.last_started_at;
    END IF;
    RETURN QUERY
        UPDATE procrastinate_jobs AS j SET status = 'doing', worker_id = p_worker_id
        WHERE j.id = _id
        RETURNING j.id, j.status::text, j.task_name, j.priority, j.lock, j.queueing_lock,
                  j.args, j.scheduled_at, j.queue_name, j.attempts, j.worker_id;
END;
$$;

CREATE TABLE job_stops (
    stop_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id bigint,  -- null for a job of no user (a sweep)
    job_id bigint NOT NULL,
    task_name text NOT NULL,
    reason text NOT NULL,  -- what it was doing when its limit came, in words
    outcome text NOT NULL,  -- 'continued' (the rest queued as a new job) or 'failed'
    ran_s double precision NOT NULL,
    limit_s double precision NOT NULL,
    stopped_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX job_stops_recent ON job_stops (stopped_at);
