--
-- PostgreSQL database dump
--

\restrict timetrace


SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET transaction_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: vector; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;


--
-- Name: EXTENSION vector; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION vector IS 'vector data type and ivfflat and hnsw access methods';


--
-- Name: procrastinate_job_event_type; Type: TYPE; Schema: public; Owner: -
--

CREATE TYPE public.procrastinate_job_event_type AS ENUM (
    'deferred',
    'started',
    'deferred_for_retry',
    'failed',
    'succeeded',
    'cancelled',
    'abort_requested',
    'aborted',
    'scheduled',
    'retried'
);


--
-- Name: procrastinate_job_status; Type: TYPE; Schema: public; Owner: -
--

CREATE TYPE public.procrastinate_job_status AS ENUM (
    'todo',
    'doing',
    'succeeded',
    'failed',
    'cancelled',
    'aborting',
    'aborted'
);


--
-- Name: procrastinate_job_to_defer_v1; Type: TYPE; Schema: public; Owner: -
--

CREATE TYPE public.procrastinate_job_to_defer_v1 AS (
	queue_name character varying,
	task_name character varying,
	priority integer,
	lock text,
	queueing_lock text,
	args jsonb,
	scheduled_at timestamp with time zone
);


--
-- Name: aw_count_deletes(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.aw_count_deletes() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO aw_edits (user_id, edits)
    SELECT DISTINCT user_id, 1 FROM aw_gone
    ON CONFLICT (user_id) DO UPDATE SET edits = aw_edits.edits + 1;
    RETURN NULL;
END $$;


--
-- Name: aw_count_edit(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.aw_count_edit() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO aw_edits (user_id, edits) VALUES (NEW.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET edits = aw_edits.edits + 1;
    RETURN NULL;
END $$;


--
-- Name: procrastinate_cancel_job_v1(bigint, boolean, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_cancel_job_v1(job_id bigint, abort boolean, delete_job boolean) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE
    _job_id bigint;
BEGIN
    IF delete_job THEN
        DELETE FROM procrastinate_jobs
        WHERE id = job_id AND status = 'todo'
        RETURNING id INTO _job_id;
    END IF;
    IF _job_id IS NULL THEN
        IF abort THEN
            UPDATE procrastinate_jobs
            SET abort_requested = true,
                status = CASE status
                    WHEN 'todo' THEN 'cancelled'::procrastinate_job_status ELSE status
                END
            WHERE id = job_id AND status IN ('todo', 'doing')
            RETURNING id INTO _job_id;
        ELSE
            UPDATE procrastinate_jobs
            SET status = 'cancelled'::procrastinate_job_status
            WHERE id = job_id AND status = 'todo'
            RETURNING id INTO _job_id;
        END IF;
    END IF;
    RETURN _job_id;
END;
$$;


--
-- Name: procrastinate_defer_jobs_v1(public.procrastinate_job_to_defer_v1[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_defer_jobs_v1(jobs public.procrastinate_job_to_defer_v1[]) RETURNS bigint[]
    LANGUAGE plpgsql
    AS $$
DECLARE
    job_ids bigint[];
BEGIN
    WITH inserted_jobs AS (
        INSERT INTO procrastinate_jobs (queue_name, task_name, priority, lock, queueing_lock, args, scheduled_at)
        SELECT (job).queue_name,
               (job).task_name,
               (job).priority,
               (job).lock,
               (job).queueing_lock,
               (job).args,
               (job).scheduled_at
        FROM unnest(jobs) AS job
        RETURNING id
    )
    SELECT array_agg(id) FROM inserted_jobs INTO job_ids;

    RETURN job_ids;
END;
$$;


--
-- Name: procrastinate_defer_periodic_job_v2(character varying, character varying, character varying, character varying, integer, character varying, bigint, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_defer_periodic_job_v2(_queue_name character varying, _lock character varying, _queueing_lock character varying, _task_name character varying, _priority integer, _periodic_id character varying, _defer_timestamp bigint, _args jsonb) RETURNS bigint
    LANGUAGE plpgsql
    AS $$
DECLARE
	_job_id bigint;
	_defer_id bigint;
BEGIN
    INSERT
        INTO procrastinate_periodic_defers (task_name, periodic_id, defer_timestamp)
        VALUES (_task_name, _periodic_id, _defer_timestamp)
        ON CONFLICT DO NOTHING
        RETURNING id into _defer_id;

    IF _defer_id IS NULL THEN
        RETURN NULL;
    END IF;

    UPDATE procrastinate_periodic_defers
        SET job_id = (
            SELECT COALESCE((
                SELECT unnest(procrastinate_defer_jobs_v1(
                    ARRAY[
                        ROW(
                            _queue_name,
                            _task_name,
                            _priority,
                            _lock,
                            _queueing_lock,
                            _args,
                            NULL::timestamptz
                        )
                    ]::procrastinate_job_to_defer_v1[]
                ))
            ), NULL)
        )
        WHERE id = _defer_id
        RETURNING job_id INTO _job_id;

    DELETE
        FROM procrastinate_periodic_defers
        USING (
            SELECT id
            FROM procrastinate_periodic_defers
            WHERE procrastinate_periodic_defers.task_name = _task_name
            AND procrastinate_periodic_defers.periodic_id = _periodic_id
            AND procrastinate_periodic_defers.defer_timestamp < _defer_timestamp
            ORDER BY id
            FOR UPDATE
        ) to_delete
        WHERE procrastinate_periodic_defers.id = to_delete.id;

    RETURN _job_id;
END;
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: procrastinate_jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.procrastinate_jobs (
    id bigint NOT NULL,
    queue_name character varying(128) NOT NULL,
    task_name character varying(128) NOT NULL,
    priority integer DEFAULT 0 NOT NULL,
    lock text,
    queueing_lock text,
    args jsonb DEFAULT '{}'::jsonb NOT NULL,
    status public.procrastinate_job_status DEFAULT 'todo'::public.procrastinate_job_status NOT NULL,
    scheduled_at timestamp with time zone,
    attempts integer DEFAULT 0 NOT NULL,
    abort_requested boolean DEFAULT false NOT NULL,
    worker_id bigint,
    CONSTRAINT check_not_todo_abort_requested CHECK ((NOT ((status = 'todo'::public.procrastinate_job_status) AND (abort_requested = true))))
);


--
-- Name: procrastinate_fetch_job_v2(character varying[], bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_fetch_job_v2(target_queue_names character varying[], p_worker_id bigint) RETURNS public.procrastinate_jobs
    LANGUAGE plpgsql
    AS $$
DECLARE
	found_jobs procrastinate_jobs;
BEGIN
    WITH candidate AS (
        SELECT jobs.*
            FROM procrastinate_jobs AS jobs
            WHERE
                -- reject the job if its lock has earlier or higher priority jobs
                NOT EXISTS (
                    SELECT 1
                        FROM procrastinate_jobs AS other_jobs
                        WHERE
                            jobs.lock IS NOT NULL
                            AND other_jobs.lock = jobs.lock
                            AND (
                                -- job with same lock is already running
                                other_jobs.status = 'doing'
                                OR
                                -- job with same lock is waiting and has higher priority (or same priority but was queued first)
                                (
                                    other_jobs.status = 'todo'
                                    AND (
                                        other_jobs.priority > jobs.priority
                                        OR (
                                        other_jobs.priority = jobs.priority
                                        AND other_jobs.id < jobs.id
                                        )
                                    )
                                )
                            )
                )
                AND jobs.status = 'todo'
                AND (target_queue_names IS NULL OR jobs.queue_name = ANY( target_queue_names ))
                AND (jobs.scheduled_at IS NULL OR jobs.scheduled_at <= now())
            ORDER BY jobs.priority DESC, jobs.id ASC LIMIT 1
            FOR UPDATE OF jobs SKIP LOCKED
    )
    UPDATE procrastinate_jobs
        SET status = 'doing', worker_id = p_worker_id
        FROM candidate
        WHERE procrastinate_jobs.id = candidate.id
        RETURNING procrastinate_jobs.* INTO found_jobs;

 RETURN found_jobs;
END;
$$;


--
-- Name: procrastinate_finish_job_v1(bigint, public.procrastinate_job_status, boolean); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_finish_job_v1(job_id bigint, end_status public.procrastinate_job_status, delete_job boolean) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    _job_id bigint;
BEGIN
    IF end_status NOT IN ('succeeded', 'failed', 'aborted') THEN
        RAISE 'End status should be either "succeeded", "failed" or "aborted" (job id: %)', job_id;
    END IF;
    IF delete_job THEN
        DELETE FROM procrastinate_jobs
        WHERE id = job_id AND status IN ('todo', 'doing')
        RETURNING id INTO _job_id;
    ELSE
        UPDATE procrastinate_jobs
        SET status = end_status,
            abort_requested = false,
            attempts = CASE status
                WHEN 'doing' THEN attempts + 1 ELSE attempts
            END
        WHERE id = job_id AND status IN ('todo', 'doing')
        RETURNING id INTO _job_id;
    END IF;
    IF _job_id IS NULL THEN
        RAISE 'Job was not found or not in "doing" or "todo" status (job id: %)', job_id;
    END IF;
END;
$$;


--
-- Name: procrastinate_notify_queue_abort_job_v1(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_notify_queue_abort_job_v1() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    payload TEXT;
BEGIN
    SELECT json_build_object('type', 'abort_job_requested', 'job_id', NEW.id)::text INTO payload;
	PERFORM pg_notify('procrastinate_queue_v1#' || NEW.queue_name, payload);
	PERFORM pg_notify('procrastinate_any_queue_v1', payload);
	RETURN NEW;
END;
$$;


--
-- Name: procrastinate_notify_queue_job_inserted_v1(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_notify_queue_job_inserted_v1() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
DECLARE
    payload TEXT;
BEGIN
    SELECT json_build_object('type', 'job_inserted', 'job_id', NEW.id)::text INTO payload;
	PERFORM pg_notify('procrastinate_queue_v1#' || NEW.queue_name, payload);
	PERFORM pg_notify('procrastinate_any_queue_v1', payload);
	RETURN NEW;
END;
$$;


--
-- Name: procrastinate_prune_stalled_workers_v1(double precision); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_prune_stalled_workers_v1(seconds_since_heartbeat double precision) RETURNS TABLE(worker_id bigint)
    LANGUAGE plpgsql
    AS $$
BEGIN
    RETURN QUERY
    DELETE FROM procrastinate_workers
    WHERE last_heartbeat < NOW() - (seconds_since_heartbeat || 'SECOND')::INTERVAL
    RETURNING procrastinate_workers.id;
END;
$$;


--
-- Name: procrastinate_register_worker_v1(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_register_worker_v1() RETURNS TABLE(worker_id bigint)
    LANGUAGE plpgsql
    AS $$
BEGIN
    RETURN QUERY
    INSERT INTO procrastinate_workers DEFAULT VALUES
    RETURNING procrastinate_workers.id;
END;
$$;


--
-- Name: procrastinate_retry_job_v1(bigint, timestamp with time zone, integer, character varying, character varying); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_retry_job_v1(job_id bigint, retry_at timestamp with time zone, new_priority integer, new_queue_name character varying, new_lock character varying) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    _job_id bigint;
    _abort_requested boolean;
BEGIN
    SELECT abort_requested FROM procrastinate_jobs
    WHERE id = job_id AND status = 'doing'
    FOR UPDATE
    INTO _abort_requested;
    IF _abort_requested THEN
        UPDATE procrastinate_jobs
        SET status = 'failed'::procrastinate_job_status
        WHERE id = job_id AND status = 'doing'
        RETURNING id INTO _job_id;
    ELSE
        UPDATE procrastinate_jobs
        SET status = 'todo'::procrastinate_job_status,
            attempts = attempts + 1,
            scheduled_at = retry_at,
            priority = COALESCE(new_priority, priority),
            queue_name = COALESCE(new_queue_name, queue_name),
            lock = COALESCE(new_lock, lock)
        WHERE id = job_id AND status = 'doing'
        RETURNING id INTO _job_id;
    END IF;

    IF _job_id IS NULL THEN
        RAISE 'Job was not found or not in "doing" status (job id: %)', job_id;
    END IF;
END;
$$;


--
-- Name: procrastinate_retry_job_v2(bigint, timestamp with time zone, integer, character varying, character varying); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_retry_job_v2(job_id bigint, retry_at timestamp with time zone, new_priority integer, new_queue_name character varying, new_lock character varying) RETURNS void
    LANGUAGE plpgsql
    AS $$
DECLARE
    _job_id bigint;
    _abort_requested boolean;
    _current_status procrastinate_job_status;
BEGIN
    SELECT status, abort_requested FROM procrastinate_jobs
    WHERE id = job_id AND status IN ('doing', 'failed')
    FOR UPDATE
    INTO _current_status, _abort_requested;
    IF _current_status = 'doing' AND _abort_requested THEN
        UPDATE procrastinate_jobs
        SET status = 'failed'::procrastinate_job_status
        WHERE id = job_id AND status = 'doing'
        RETURNING id INTO _job_id;
    ELSE
        UPDATE procrastinate_jobs
        SET status = 'todo'::procrastinate_job_status,
            attempts = attempts + 1,
            scheduled_at = retry_at,
            priority = COALESCE(new_priority, priority),
            queue_name = COALESCE(new_queue_name, queue_name),
            lock = COALESCE(new_lock, lock)
        WHERE id = job_id AND status IN ('doing', 'failed')
        RETURNING id INTO _job_id;
    END IF;

    IF _job_id IS NULL THEN
        RAISE 'Job was not found or has an invalid status to retry (job id: %)', job_id;
    END IF;

END;
$$;


--
-- Name: procrastinate_trigger_abort_requested_events_procedure_v1(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_trigger_abort_requested_events_procedure_v1() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO procrastinate_events(job_id, type)
        VALUES (NEW.id, 'abort_requested'::procrastinate_job_event_type);
    RETURN NEW;
END;
$$;


--
-- Name: procrastinate_trigger_function_scheduled_events_v1(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_trigger_function_scheduled_events_v1() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO procrastinate_events(job_id, type, at)
        VALUES (NEW.id, 'scheduled'::procrastinate_job_event_type, NEW.scheduled_at);

	RETURN NEW;
END;
$$;


--
-- Name: procrastinate_trigger_function_status_events_insert_v1(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_trigger_function_status_events_insert_v1() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    INSERT INTO procrastinate_events(job_id, type)
        VALUES (NEW.id, 'deferred'::procrastinate_job_event_type);
	RETURN NEW;
END;
$$;


--
-- Name: procrastinate_trigger_function_status_events_update_v1(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_trigger_function_status_events_update_v1() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    WITH t AS (
        SELECT CASE
            WHEN OLD.status = 'todo'::procrastinate_job_status
                AND NEW.status = 'doing'::procrastinate_job_status
                THEN 'started'::procrastinate_job_event_type
            WHEN OLD.status = 'doing'::procrastinate_job_status
                AND NEW.status = 'todo'::procrastinate_job_status
                THEN 'deferred_for_retry'::procrastinate_job_event_type
            WHEN OLD.status = 'doing'::procrastinate_job_status
                AND NEW.status = 'failed'::procrastinate_job_status
                THEN 'failed'::procrastinate_job_event_type
            WHEN OLD.status = 'doing'::procrastinate_job_status
                AND NEW.status = 'succeeded'::procrastinate_job_status
                THEN 'succeeded'::procrastinate_job_event_type
            WHEN OLD.status = 'todo'::procrastinate_job_status
                AND (
                    NEW.status = 'cancelled'::procrastinate_job_status
                    OR NEW.status = 'failed'::procrastinate_job_status
                    OR NEW.status = 'succeeded'::procrastinate_job_status
                )
                THEN 'cancelled'::procrastinate_job_event_type
            WHEN OLD.status = 'doing'::procrastinate_job_status
                AND NEW.status = 'aborted'::procrastinate_job_status
                THEN 'aborted'::procrastinate_job_event_type
            WHEN OLD.status = 'failed'::procrastinate_job_status
                AND NEW.status = 'todo'::procrastinate_job_status
                THEN 'retried'::procrastinate_job_event_type
            ELSE NULL
        END as event_type
    )
    INSERT INTO procrastinate_events(job_id, type)
        SELECT NEW.id, t.event_type
        FROM t
        WHERE t.event_type IS NOT NULL;
	RETURN NEW;
END;
$$;


--
-- Name: procrastinate_unlink_periodic_defers_v1(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_unlink_periodic_defers_v1() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    UPDATE procrastinate_periodic_defers
    SET job_id = NULL
    WHERE job_id = OLD.id;
    RETURN OLD;
END;
$$;


--
-- Name: procrastinate_unregister_worker_v1(bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_unregister_worker_v1(worker_id bigint) RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
    DELETE FROM procrastinate_workers
    WHERE id = worker_id;
END;
$$;


--
-- Name: procrastinate_update_heartbeat_v1(bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.procrastinate_update_heartbeat_v1(worker_id bigint) RETURNS void
    LANGUAGE plpgsql
    AS $$
BEGIN
    UPDATE procrastinate_workers
    SET last_heartbeat = NOW()
    WHERE id = worker_id;
END;
$$;


--
-- Name: timetrace_analysis_start(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_analysis_start() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF NEW.ts_start IS NULL THEN
        SELECT r.ts_start INTO NEW.ts_start FROM records r
        WHERE r.user_id = NEW.user_id AND r.record_id = NEW.record_id;
    END IF;
    RETURN NEW;
END $$;


--
-- Name: timetrace_build_lock_key(bigint, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_build_lock_key(p_user bigint, p_device text) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT hashtextextended('timetrace-build:' || p_user || ':' || p_device, 0)
$$;


--
-- Name: timetrace_domain_suffixes(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_domain_suffixes(p_domain text) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT array_agg(array_to_string(s.parts[i:], '.') ORDER BY i)
    FROM (SELECT string_to_array(p_domain, '.') AS parts) AS s,
         generate_subscripts(s.parts, 1) AS i
$$;


--
-- Name: timetrace_duration_s(timestamp with time zone, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_duration_s(ts_start timestamp with time zone, ts_end timestamp with time zone, next_start timestamp with time zone) RETURNS double precision
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
    SELECT EXTRACT(EPOCH FROM GREATEST(interval '0', LEAST(
        COALESCE(ts_end, LEAST(ts_start + timetrace_idle_gap(), GREATEST(now(), ts_start))),
        next_start
    ) - ts_start))::double precision
$$;


--
-- Name: timetrace_ensure_month(date); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_ensure_month(p_day date) RETURNS boolean
    LANGUAGE plpgsql
    AS $$
DECLARE
    first date := date_trunc('month', p_day)::date;
    part text := 'records_' || to_char(first, 'YYYY_MM');
    lo timestamptz := first::timestamp AT TIME ZONE 'UTC';
    hi timestamptz := (first + 1 * interval '1 month')::timestamp AT TIME ZONE 'UTC';
BEGIN
    IF to_regclass(part) IS NOT NULL THEN
        RETURN false;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('timetrace-records-month', 0));
    -- Made meanwhile by another session? Asked of pg_class with this statement's own
    -- snapshot: the name cache need not have heard of that commit yet.
    IF EXISTS (SELECT 1 FROM pg_class c JOIN pg_class r ON r.relnamespace = c.relnamespace
               WHERE c.relname = part AND r.oid = 'records'::regclass) THEN
        RETURN false;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE records INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part);
    EXECUTE format('ALTER TABLE records ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                   part, lo, hi);
    -- Insert-only months: let autovacuum freeze and mark them visible as they fill.
    EXECUTE format('ALTER TABLE %I SET (autovacuum_vacuum_insert_scale_factor = 0.05)', part);
    RETURN true;
END $$;


--
-- Name: timetrace_episode_of(bigint, text, timestamp with time zone, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_episode_of(p_user bigint, p_device text, p_ts timestamp with time zone, p_key text) RETURNS bigint
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
    SELECT x.episode_id FROM (
        SELECT episode_id, stale, last_start, last_key FROM episodes
        WHERE user_id = p_user AND device_id = p_device
          AND (ts_start, first_key COLLATE "C") <= (p_ts, p_key COLLATE "C")
        ORDER BY ts_start DESC, first_key COLLATE "C" DESC LIMIT 1) x
    WHERE NOT x.stale AND (p_ts, p_key COLLATE "C") <= (x.last_start, x.last_key COLLATE "C")
$$;


--
-- Name: timetrace_fetch_job(character varying[], bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_fetch_job(target_queue_names character varying[], p_worker_id bigint) RETURNS TABLE(id bigint, status text, task_name character varying, priority integer, lock text, queueing_lock text, args jsonb, scheduled_at timestamp with time zone, queue_name character varying, attempts integer, worker_id bigint)
    LANGUAGE plpgsql
    AS $$
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


--
-- Name: timetrace_idle_gap(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_idle_gap() RETURNS interval
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
    SELECT make_interval(secs => COALESCE(NULLIF(current_setting('timetrace.idle_gap_s', true), ''), '300')::int)
$$;


--
-- Name: timetrace_job_lane(character varying); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_job_lane(queue_name character varying) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT CASE WHEN queue_name = 'models' THEN 'models' ELSE 'main' END $$;


--
-- Name: timetrace_mark_days(bigint, text[], date[], timestamp with time zone[], timestamp with time zone[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_mark_days(p_user bigint, p_devices text[], p_days date[], p_first_ts timestamp with time zone[], p_first_gone timestamp with time zone[]) RETURNS integer
    LANGUAGE sql
    AS $$
    WITH d AS (
        SELECT device_id, day_local, min(first_ts) AS first_ts, min(first_gone) AS first_gone
        FROM unnest(p_devices, p_days, p_first_ts, p_first_gone)
             AS u(device_id, day_local, first_ts, first_gone)
        WHERE day_local >= timetrace_raw_expired_day(p_user)
        GROUP BY device_id, day_local
    ), marked AS (
        INSERT INTO build_marks (user_id, device_id, day_local, first_ts, first_gone)
        SELECT p_user, device_id, day_local, first_ts, first_gone FROM d
        ON CONFLICT (user_id, device_id, day_local) DO UPDATE SET
            first_ts = LEAST(build_marks.first_ts, EXCLUDED.first_ts),
            first_gone = LEAST(build_marks.first_gone, EXCLUDED.first_gone),
            marked_at = clock_timestamp()
        RETURNING 1
    ), stale AS (
        UPDATE episodes e SET stale = true, updated_at = now()
        FROM d
        WHERE e.user_id = p_user AND e.device_id = d.device_id AND e.day_local = d.day_local
          AND NOT e.stale
        RETURNING 1
    )
    SELECT count(*)::int FROM marked  -- data-modifying CTEs run whether read or not
$$;


--
-- Name: timetrace_queueing_lock_key(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_queueing_lock_key(queueing_lock text) RETURNS bigint
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT hashtextextended('timetrace-queue:' || queueing_lock, 0)
$$;


--
-- Name: timetrace_raw_expired_day(bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_raw_expired_day(p_user bigint) RETURNS date
    LANGUAGE sql STABLE
    AS $$
    SELECT COALESCE((SELECT raw_expired_day FROM retention WHERE user_id = p_user),
                    '-infinity'::date)
$$;


--
-- Name: timetrace_record_live(bigint, text, timestamp with time zone, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_record_live(p_user bigint, p_device text, p_ts timestamp with time zone, p_key text) RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
    SELECT p_key IS NOT NULL AND EXISTS (
        SELECT 1 FROM records
        WHERE user_id = p_user AND device_id = p_device AND ts_start = p_ts
          AND client_record_id COLLATE "C" = p_key AND deleted_at IS NULL)
$$;


--
-- Name: timetrace_requeue_job(bigint, timestamp with time zone, integer, character varying, character varying); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_requeue_job(job_id bigint, retry_at timestamp with time zone, new_priority integer, new_queue_name character varying, new_lock character varying) RETURNS text
    LANGUAGE plpgsql
    AS $$
DECLARE
    _queueing_lock text;
BEGIN
    SELECT queueing_lock INTO _queueing_lock FROM procrastinate_jobs WHERE id = job_id;
    IF _queueing_lock IS NOT NULL THEN
        PERFORM pg_advisory_xact_lock(timetrace_queueing_lock_key(_queueing_lock));
        IF EXISTS (SELECT 1 FROM procrastinate_jobs
                   WHERE queueing_lock = _queueing_lock AND status = 'todo' AND id <> job_id) THEN
            PERFORM procrastinate_finish_job_v1(job_id, 'aborted', false);
            RETURN 'superseded';
        END IF;
    END IF;
    PERFORM procrastinate_retry_job_v2(job_id, retry_at, new_priority, new_queue_name, new_lock);
    RETURN 'retried';
END;
$$;


--
-- Name: timetrace_scope_admits_v1(text, text, text, text[], text[], text[], text[], text[], text[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_scope_admits_v1(p_category text, p_app text, p_domain text, kinds_allow text[], kinds_deny text[], apps_allow text[], apps_deny text[], sites_allow text[], sites_deny text[]) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT (kinds_allow IS NULL OR p_category = ANY(kinds_allow))
       AND NOT (p_category = ANY(COALESCE(kinds_deny, '{}')))
       AND (apps_allow IS NULL OR lower(p_app) = ANY(apps_allow))
       AND NOT (lower(p_app) = ANY(COALESCE(apps_deny, '{}')))
       AND (sites_allow IS NULL
            OR COALESCE(timetrace_domain_suffixes(p_domain), '{}') && sites_allow)
       AND NOT (sites_deny IS NOT NULL AND p_domain IS NOT NULL
                AND COALESCE(timetrace_domain_suffixes(p_domain), '{}') && sites_deny)
$$;


--
-- Name: timetrace_scope_allows_v1(jsonb, text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_scope_allows_v1(p_scope jsonb, p_category text, p_app text, p_domain text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT timetrace_scope_admits_v1(p_category, p_app, p_domain, l.kinds_allow,
                                     l.kinds_deny, l.apps_allow, l.apps_deny,
                                     l.sites_allow, l.sites_deny)
    FROM timetrace_scope_lists_v1(p_scope) l
$$;


--
-- Name: timetrace_scope_list_v1(jsonb, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_scope_list_v1(p_scope jsonb, p_key text) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT CASE WHEN jsonb_typeof(p_scope -> p_key) = 'array'
                THEN ARRAY(SELECT jsonb_array_elements_text(p_scope -> p_key)) END
$$;


--
-- Name: timetrace_scope_lists_v1(jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_scope_lists_v1(p_scope jsonb) RETURNS TABLE(kinds_allow text[], kinds_deny text[], apps_allow text[], apps_deny text[], sites_allow text[], sites_deny text[])
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT timetrace_scope_list_v1(p_scope, 'kinds_allow'),
           timetrace_scope_list_v1(p_scope, 'kinds_deny'),
           (SELECT array_agg(lower(x)) FROM unnest(timetrace_scope_list_v1(p_scope, 'apps_allow')) x),
           (SELECT array_agg(lower(x)) FROM unnest(timetrace_scope_list_v1(p_scope, 'apps_deny')) x),
           timetrace_scope_list_v1(p_scope, 'sites_allow'),
           timetrace_scope_list_v1(p_scope, 'sites_deny')
$$;


--
-- Name: timetrace_scope_windows_v1(jsonb, text, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_scope_windows_v1(p_scope jsonb, p_zone text, p_from timestamp with time zone, p_to timestamp with time zone) RETURNS TABLE(lo timestamp with time zone, hi timestamp with time zone)
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
    SELECT GREATEST(w.lo, p_from), LEAST(w.hi, p_to)
    FROM (
        SELECT (g.day::date + h.t_from) AT TIME ZONE p_zone AS lo,
               (g.day::date + CASE WHEN h.t_to <= h.t_from THEN 1 ELSE 0 END + h.t_to)
                   AT TIME ZONE p_zone AS hi
        FROM (SELECT COALESCE((p_scope ->> 'hour_from')::time, '00:00') AS t_from,
                     COALESCE((p_scope ->> 'hour_to')::time, '24:00') AS t_to) h,
             generate_series(
                 GREATEST((p_from AT TIME ZONE p_zone)::date - 1,
                          COALESCE((p_scope ->> 'date_from')::date, '-infinity')),
                 LEAST((p_to AT TIME ZONE p_zone)::date,
                       COALESCE((p_scope ->> 'date_to')::date, 'infinity')),
                 interval '1 day') AS g(day)
        WHERE timetrace_scope_list_v1(p_scope, 'weekdays') IS NULL
           OR EXTRACT(ISODOW FROM g.day)::text = ANY(timetrace_scope_list_v1(p_scope, 'weekdays'))
    ) w
    WHERE w.lo < p_to AND w.hi > p_from
$$;


--
-- Name: timetrace_scoped_spans_v1(bigint, timestamp with time zone, timestamp with time zone, jsonb); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_scoped_spans_v1(p_user bigint, p_from timestamp with time zone, p_to timestamp with time zone, p_scope jsonb) RETURNS TABLE(record_id bigint, ts_start timestamp with time zone, piece bigint, clip_start timestamp with time zone, clip_end timestamp with time zone)
    LANGUAGE sql STABLE
    AS $$
    WITH u AS (SELECT time_zone FROM users WHERE user_id = p_user),
    w AS MATERIALIZED (
        SELECT w.lo, w.hi, (w.lo AT TIME ZONE u.time_zone)::date AS day
        FROM u CROSS JOIN LATERAL timetrace_scope_windows_v1(
            p_scope, u.time_zone, p_from - interval '2 days', p_to + interval '2 days') w
    ),
    s AS MATERIALIZED (
        SELECT s.record_id, s.ts_start, s.span_end,
               (s.ts_start AT TIME ZONE u.time_zone)::date AS first_day,
               (s.span_end AT TIME ZONE u.time_zone)::date AS last_day
        FROM u, timetrace_scope_lists_v1(p_scope) l, timetrace_spans_v1(p_user, p_from, p_to) s
        WHERE timetrace_scope_admits_v1(s.category, s.app, s.domain, l.kinds_allow,
                                        l.kinds_deny, l.apps_allow, l.apps_deny,
                                        l.sites_allow, l.sites_deny)
    )
    SELECT s.record_id, s.ts_start,
           row_number() OVER (PARTITION BY s.record_id ORDER BY w.lo),
           GREATEST(s.ts_start, w.lo), LEAST(s.span_end, w.hi)
    FROM s
    CROSS JOIN LATERAL generate_series(-1, s.last_day - s.first_day) AS k(i)
    JOIN w ON w.day = s.first_day + k.i
     AND s.ts_start < w.hi
     AND (s.span_end > w.lo OR (s.span_end = s.ts_start AND s.ts_start >= w.lo))
$$;


--
-- Name: timetrace_site_seconds_v1(bigint, timestamp with time zone, timestamp with time zone, date, date, text[], text[], text[], text[], text[]); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_site_seconds_v1(p_user bigint, p_from timestamp with time zone, p_to timestamp with time zone, p_day_from date, p_day_to date, p_browsers text[], p_known text[], p_titles text[], p_title_sites text[], p_sites text[] DEFAULT NULL::text[]) RETURNS TABLE(day_local date, site text, from_url_s double precision, from_title_s double precision, unnamed_title text)
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
    WITH named AS (
        SELECT DISTINCT ON (t.title) t.title, t.site
        FROM unnest(p_titles, p_title_sites) AS t(title, site)
        WHERE t.site IS NOT NULL
        ORDER BY t.title, t.site
    ), every_site AS (
        -- Every site: the window's records with their effective spans, read once and
        -- summed per day, domain and (URL-less) title first; then each URL-less
        -- group's title is looked up, once per title and day, not once per record.
        SELECT g.day_local, g.domain, g.title_site, g.seconds,
               CASE WHEN g.domain IS NULL AND g.title_site IS NULL THEN g.window_title
               END AS unnamed
        FROM (
            SELECT t.day_local, t.domain, t.window_title, t.seconds,
                   CASE WHEN t.domain IS NULL
                        THEN (SELECT n.site FROM named n WHERE n.title = t.window_title)
                   END AS title_site
            FROM (
                SELECT s.day_local, s.domain,
                       CASE WHEN s.domain IS NULL THEN s.window_title END AS window_title,
                       sum(s.seconds) AS seconds
                FROM timetrace_spans_v1(p_user, p_from, p_to) s
                WHERE p_sites IS NULL AND NOT s.is_idle
                  AND s.day_local BETWEEN p_day_from AND p_day_to
                  AND (s.domain IS NOT NULL OR s.app = ANY(p_browsers))
                GROUP BY 1, 2, 3
            ) t
        ) g
    ), some_sites AS (
        -- Some sites (p_sites, and what lies under them): only their records are read,
        -- each with its successor from the timeline index. The same spans: a record
        -- runs to the next live record of its device (timetrace_duration_s).
        SELECT r.day_local, r.domain, n.site AS title_site,
               timetrace_duration_s(r.ts_start, r.ts_end, nx.ts_start) AS seconds,
               NULL::text AS unnamed
        FROM records r
        LEFT JOIN named n
            ON r.domain IS NULL AND n.title = r.window_title AND r.app = ANY(p_browsers)
        LEFT JOIN LATERAL (
            SELECT x.ts_start FROM records x
            WHERE x.user_id = r.user_id AND x.device_id = r.device_id AND x.deleted_at IS NULL
              AND (x.ts_start, x.client_record_id COLLATE "C")
                  > (r.ts_start, r.client_record_id COLLATE "C")
              AND x.ts_start >= r.ts_start  -- implied; lets each probe skip earlier months
            ORDER BY x.ts_start, x.client_record_id COLLATE "C"
            LIMIT 1
        ) nx ON true
        WHERE p_sites IS NOT NULL AND r.user_id = p_user AND r.deleted_at IS NULL
          AND NOT r.is_idle AND r.ts_start >= p_from AND r.ts_start < p_to
          AND r.day_local BETWEEN p_day_from AND p_day_to
          AND (r.domain = ANY(p_sites)
               OR r.domain LIKE ANY (ARRAY(  -- under one: the patterns made once
                   SELECT '%.' || replace(replace(replace(w, '\', '\\'), '_', '\_'), '%', '\%')
                   FROM unnest(p_sites) AS w))
               OR (r.domain IS NULL AND n.site IS NOT NULL))
    ), grouped AS (
        SELECT g.day_local, g.domain, g.title_site, g.unnamed, sum(g.seconds) AS seconds
        FROM (SELECT * FROM every_site UNION ALL SELECT * FROM some_sites) g
        GROUP BY 1, 2, 3, 4
    )
    SELECT g.day_local, COALESCE(g.title_site, k.site, g.domain) AS site,
           COALESCE(sum(g.seconds) FILTER (WHERE g.domain IS NOT NULL), 0),
           COALESCE(sum(g.seconds) FILTER (WHERE g.domain IS NULL), 0),
           NULL::text
    FROM grouped g
    LEFT JOIN LATERAL (
        SELECT x AS site FROM unnest(p_known) AS x
        WHERE g.domain = x OR right(g.domain, length(x) + 1) = '.' || x
        ORDER BY length(x) DESC, x
        LIMIT 1
    ) k ON g.domain IS NOT NULL
    WHERE g.unnamed IS NULL
    GROUP BY 1, 2
    UNION ALL
    SELECT DISTINCT NULL::date, NULL::text, 0::double precision, 0::double precision, g.unnamed
    FROM grouped g
    WHERE g.unnamed IS NOT NULL
$$;


--
-- Name: timetrace_spans_v1(bigint, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_spans_v1(p_user bigint, p_from timestamp with time zone, p_to timestamp with time zone) RETURNS TABLE(user_id bigint, record_id bigint, device_id text, client_record_id text, ts_start timestamp with time zone, ts_end timestamp with time zone, day_local date, app text, app_raw text, window_title text, url text, domain text, category text, category_source text, is_idle boolean, redacted boolean, next_start timestamp with time zone, span_end timestamp with time zone, seconds double precision)
    LANGUAGE sql STABLE PARALLEL SAFE
    AS $$
    SELECT t.user_id, t.record_id, t.device_id, t.client_record_id, t.ts_start, t.ts_end,
           t.day_local, t.app, t.app_raw, t.window_title, t.url, t.domain, t.category,
           t.category_source, t.is_idle, t.redacted, t.next_start,
           t.ts_start + make_interval(secs => t.seconds), t.seconds
    FROM (
        SELECT n.*, timetrace_duration_s(n.ts_start, n.ts_end, n.next_start) AS seconds
        FROM (
            SELECT r.user_id, r.record_id, r.device_id, r.client_record_id, r.ts_start,
                   r.ts_end, r.day_local, r.app, r.app_raw, r.window_title, r.url,
                   r.domain, r.category, r.category_source, r.is_idle, r.redacted,
                   COALESCE(
                       lead(r.ts_start) OVER (PARTITION BY r.device_id
                                              ORDER BY r.ts_start, r.client_record_id COLLATE "C"),
                       (SELECT min(x.ts_start) FROM records x
                        WHERE x.user_id = p_user AND x.device_id = r.device_id
                          AND x.deleted_at IS NULL AND x.ts_start >= p_to)) AS next_start
            FROM records r
            WHERE r.user_id = p_user AND r.deleted_at IS NULL
              AND r.ts_start >= p_from AND r.ts_start < p_to
        ) n
    ) t
$$;


--
-- Name: timetrace_tombstone_key(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_tombstone_key(client_record_id text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT 'deleted:' || encode(sha256(convert_to(client_record_id, 'UTF8')), 'hex')
$$;


--
-- Name: timetrace_user_rule_firsts_v1(bigint); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_user_rule_firsts_v1(p_user_id bigint) RETURNS TABLE(app text, domain text, window_title text, rule_id bigint, category text)
    LANGUAGE plpgsql STABLE ROWS 5000 PARALLEL SAFE
    AS $$
BEGIN
    RETURN QUERY
    WITH t AS MATERIALIZED (
        SELECT DISTINCT r.app, COALESCE(r.domain, '') AS domain, r.window_title,
               translate(r.window_title, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
                         'abcdefghijklmnopqrstuvwxyz') AS folded
        FROM records r
        WHERE r.user_id = p_user_id AND r.deleted_at IS NULL AND NOT r.is_idle
    ), shorts AS MATERIALIZED (
        SELECT x.rule_id, timetrace_user_rule_title_piece(x.pattern) AS piece
        FROM user_rules x
        WHERE x.user_id = p_user_id AND x.kind = 'title'
          AND length(timetrace_user_rule_title_piece(x.pattern)) < 3
    ), titled AS (
        SELECT DISTINCT t.app, t.domain, t.window_title, x.rule_id
        FROM t CROSS JOIN LATERAL generate_series(1, length(t.folded) - 2) AS g(i)
        JOIN user_rules x
          ON x.user_id = p_user_id AND x.kind = 'title'
         AND left(timetrace_user_rule_title_piece(x.pattern), 3) = substr(t.folded, g.i, 3)
        UNION
        SELECT t.app, t.domain, t.window_title, s.rule_id
        FROM t JOIN shorts s ON strpos(t.folded, s.piece) > 0
        UNION
        SELECT t.app, t.domain, t.window_title, x.rule_id
        FROM t JOIN user_rules x ON x.user_id = p_user_id AND x.kind = 'regex'
    ), hits AS (
        SELECT t.app, t.domain, t.window_title, x.position, x.rule_id, x.category
        FROM t CROSS JOIN LATERAL (
            SELECT y.position, y.rule_id, y.category FROM user_rules y
            WHERE y.user_id = p_user_id AND y.kind = 'app' AND y.pattern = t.app
            LIMIT 1  -- the key names one rule; a subquery the planner keeps apart
        ) AS x
        UNION ALL
        SELECT t.app, t.domain, t.window_title, x.position, x.rule_id, x.category
        FROM t CROSS JOIN LATERAL unnest(timetrace_domain_suffixes(NULLIF(t.domain, '')))
            AS s(suffix)
        CROSS JOIN LATERAL (
            SELECT y.position, y.rule_id, y.category FROM user_rules y
            WHERE y.user_id = p_user_id AND y.kind = 'site' AND y.pattern = s.suffix
            LIMIT 1  -- the key names one rule; a subquery the planner keeps apart
        ) AS x
        UNION ALL
        SELECT c.app, c.domain, c.window_title, x.position, x.rule_id, x.category
        FROM titled c JOIN user_rules x ON x.user_id = p_user_id AND x.rule_id = c.rule_id
        WHERE timetrace_user_rule_matches(x.kind, x.pattern, c.app, NULLIF(c.domain, ''),
                                          c.window_title)
    )
    SELECT DISTINCT ON (h.app, h.domain, h.window_title)
           h.app, h.domain, h.window_title, h.rule_id, h.category
    FROM hits h
    ORDER BY h.app, h.domain, h.window_title, h.position, h.rule_id;
END
$$;


--
-- Name: timetrace_user_rule_matches(text, text, text, text, text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_user_rule_matches(p_kind text, p_pattern text, p_app text, p_domain text, p_title text) RETURNS boolean
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT COALESCE(CASE p_kind
        WHEN 'app' THEN p_app = p_pattern
        WHEN 'site' THEN p_domain = p_pattern OR right(p_domain, length(p_pattern) + 1) = '.' || p_pattern
        WHEN 'title' THEN
            translate(p_title, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')
            LIKE '%' || replace(replace(replace(replace(
                translate(p_pattern, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'),
                '\', '\\'), '%', '\%'), '_', '\_'), '*', '%') || '%'
        WHEN 'regex' THEN p_app ~ p_pattern OR p_title ~ p_pattern
    END, false)
$$;


--
-- Name: timetrace_user_rule_title_piece(text); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.timetrace_user_rule_title_piece(p_pattern text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$
    SELECT p.piece
    FROM unnest(string_to_array(
        translate(p_pattern, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'), '*'))
        WITH ORDINALITY AS p(piece, n)
    ORDER BY length(p.piece) DESC, p.n
    LIMIT 1
$$;


--
-- Name: api_tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.api_tokens (
    user_id bigint NOT NULL,
    token_id bigint NOT NULL,
    token_hash bytea NOT NULL,
    name text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone,
    scope jsonb,
    expires_at timestamp with time zone,
    CONSTRAINT api_tokens_scope_check CHECK (((scope IS NULL) OR (jsonb_typeof(scope) = 'object'::text))),
    CONSTRAINT api_tokens_token_hash_check CHECK ((length(token_hash) = 32))
);


--
-- Name: api_tokens_token_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.api_tokens ALTER COLUMN token_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.api_tokens_token_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: aw_buckets; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.aw_buckets (
    user_id bigint NOT NULL,
    bucket_id text NOT NULL,
    name text,
    type text NOT NULL,
    client text NOT NULL,
    hostname text NOT NULL,
    device_id text GENERATED ALWAYS AS (COALESCE(NULLIF("left"(btrim(regexp_replace(hostname, '[^A-Za-z0-9._:-]+'::text, '-'::text, 'g'::text), '-._:'::text), 64), ''::text), 'activitywatch'::text)) STORED NOT NULL,
    created timestamp with time zone NOT NULL,
    data json DEFAULT '{}'::json NOT NULL,
    dirty_from timestamp with time zone,
    changes bigint DEFAULT 0 NOT NULL,
    CONSTRAINT aw_buckets_bucket_id_check CHECK (((length(bucket_id) >= 1) AND (length(bucket_id) <= 512)))
);


--
-- Name: aw_converted; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.aw_converted (
    user_id bigint NOT NULL,
    through bigint NOT NULL
);


--
-- Name: aw_edits; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.aw_edits (
    user_id bigint NOT NULL,
    edits bigint NOT NULL
);


--
-- Name: aw_event_ids; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.aw_event_ids
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: aw_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.aw_events (
    user_id bigint NOT NULL,
    bucket_id text NOT NULL,
    event_id bigint NOT NULL,
    ts timestamp with time zone NOT NULL,
    duration_us bigint NOT NULL,
    data json NOT NULL,
    changed bigint DEFAULT 0 NOT NULL,
    set_aside text,
    CONSTRAINT aw_events_set_aside_check CHECK ((length(set_aside) <= 200))
);


--
-- Name: aw_settings; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.aw_settings (
    user_id bigint NOT NULL,
    key text NOT NULL,
    value json NOT NULL,
    CONSTRAINT aw_settings_key_check CHECK (((length(key) >= 1) AND (length(key) <= 512)))
);


--
-- Name: build_marks; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.build_marks (
    user_id bigint NOT NULL,
    device_id text NOT NULL,
    day_local date NOT NULL,
    first_ts timestamp with time zone,
    first_gone timestamp with time zone,
    marked_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL
);


--
-- Name: conversation_turns; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.conversation_turns (
    user_id bigint NOT NULL,
    conversation_id bigint NOT NULL,
    turn_no integer NOT NULL,
    question text NOT NULL,
    answer text DEFAULT ''::text NOT NULL,
    status text NOT NULL,
    mode text NOT NULL,
    steps jsonb DEFAULT '[]'::jsonb NOT NULL,
    episode_ids jsonb DEFAULT '[]'::jsonb NOT NULL,
    tool_tokens integer DEFAULT 0 NOT NULL,
    model_calls integer DEFAULT 0 NOT NULL,
    elapsed_ms integer DEFAULT 0 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    reach tstzrange,
    CONSTRAINT conversation_turns_elapsed_ms_check CHECK ((elapsed_ms >= 0)),
    CONSTRAINT conversation_turns_mode_check CHECK ((mode = ANY (ARRAY['agent'::text, 'offline'::text]))),
    CONSTRAINT conversation_turns_model_calls_check CHECK ((model_calls >= 0)),
    CONSTRAINT conversation_turns_status_check CHECK ((status = ANY (ARRAY['done'::text, 'cancelled'::text]))),
    CONSTRAINT conversation_turns_tool_tokens_check CHECK ((tool_tokens >= 0)),
    CONSTRAINT conversation_turns_turn_no_check CHECK ((turn_no >= 1))
);


--
-- Name: conversations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.conversations (
    user_id bigint NOT NULL,
    conversation_id bigint NOT NULL,
    title text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: conversations_conversation_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.conversations ALTER COLUMN conversation_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.conversations_conversation_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: devices; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.devices (
    user_id bigint NOT NULL,
    device_id text NOT NULL,
    name text DEFAULT ''::text NOT NULL,
    kind text DEFAULT 'desktop'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    has_tombstones boolean DEFAULT false NOT NULL,
    CONSTRAINT devices_device_id_check CHECK ((device_id ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$'::text)),
    CONSTRAINT devices_kind_check CHECK ((kind = ANY (ARRAY['desktop'::text, 'laptop'::text, 'phone'::text, 'tablet'::text, 'other'::text])))
);


--
-- Name: digests; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.digests (
    user_id bigint NOT NULL,
    digest_id bigint NOT NULL,
    grain text NOT NULL,
    scope_key text NOT NULL,
    period_start timestamp with time zone NOT NULL,
    period_end timestamp with time zone NOT NULL,
    metrics jsonb DEFAULT '{}'::jsonb NOT NULL,
    narrative text,
    narrative_status text DEFAULT 'pending'::text NOT NULL,
    source_ids jsonb DEFAULT '[]'::jsonb NOT NULL,
    computed_through_ts timestamp with time zone,
    finalized boolean DEFAULT false NOT NULL,
    stale boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    sources_through timestamp with time zone,
    narrative_reason text,
    narrative_raw text,
    CONSTRAINT digests_check CHECK ((period_end > period_start)),
    CONSTRAINT digests_grain_check CHECK ((grain = ANY (ARRAY['day'::text, 'week'::text, 'month'::text]))),
    CONSTRAINT digests_narrative_status_check CHECK ((narrative_status = ANY (ARRAY['pending'::text, 'done'::text, 'failed'::text, 'skipped'::text]))),
    CONSTRAINT digests_scope_key_check CHECK ((scope_key ~ '^\d{4}-(\d{2}-\d{2}|W\d{2}|\d{2})$'::text))
);


--
-- Name: digests_digest_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.digests ALTER COLUMN digest_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.digests_digest_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: episode_redirects; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.episode_redirects (
    user_id bigint NOT NULL,
    episode_id bigint NOT NULL,
    device_id text NOT NULL,
    day_local date NOT NULL,
    ts_start timestamp with time zone NOT NULL,
    first_key text,
    gone_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: episodes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.episodes (
    user_id bigint NOT NULL,
    episode_id bigint NOT NULL,
    episode_key text NOT NULL,
    device_id text NOT NULL,
    ts_start timestamp with time zone NOT NULL,
    ts_end timestamp with time zone NOT NULL,
    day_local date NOT NULL,
    primary_app text DEFAULT ''::text NOT NULL,
    cluster_key text DEFAULT ''::text NOT NULL,
    category text DEFAULT 'uncategorized'::text NOT NULL,
    title text DEFAULT ''::text NOT NULL,
    summary text,
    summary_status text DEFAULT 'pending'::text NOT NULL,
    cues jsonb DEFAULT '[]'::jsonb NOT NULL,
    tags jsonb DEFAULT '[]'::jsonb NOT NULL,
    interruptions jsonb DEFAULT '[]'::jsonb NOT NULL,
    frame_count integer DEFAULT 0 NOT NULL,
    duration_s double precision DEFAULT 0 NOT NULL,
    active_s double precision DEFAULT 0 NOT NULL,
    closed boolean DEFAULT false NOT NULL,
    stale boolean DEFAULT false NOT NULL,
    summary_embedding public.vector(384),
    fts tsvector,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    category_seconds jsonb DEFAULT '{}'::jsonb NOT NULL,
    app_seconds jsonb DEFAULT '{}'::jsonb NOT NULL,
    switch_count integer DEFAULT 0 NOT NULL,
    interruption_s double precision DEFAULT 0 NOT NULL,
    boundary text DEFAULT ''::text NOT NULL,
    auto_title text DEFAULT ''::text NOT NULL,
    category_source text DEFAULT 'records'::text NOT NULL,
    summary_reason text,
    summary_raw text,
    embedding_status text DEFAULT 'pending'::text NOT NULL,
    embedding_reason text,
    first_key text NOT NULL,
    last_start timestamp with time zone NOT NULL,
    last_key text NOT NULL,
    summary_by text,
    CONSTRAINT episodes_active_s_check CHECK ((active_s >= (0)::double precision)),
    CONSTRAINT episodes_category_check CHECK ((category = ANY (ARRAY['work'::text, 'study'::text, 'social'::text, 'entertainment'::text, 'system'::text, 'uncategorized'::text]))),
    CONSTRAINT episodes_category_source_check CHECK ((category_source = ANY (ARRAY['records'::text, 'model'::text]))),
    CONSTRAINT episodes_check CHECK ((ts_end >= ts_start)),
    CONSTRAINT episodes_duration_s_check CHECK ((duration_s >= (0)::double precision)),
    CONSTRAINT episodes_embedding_status_check CHECK ((embedding_status = ANY (ARRAY['pending'::text, 'done'::text, 'failed'::text]))),
    CONSTRAINT episodes_frame_count_check CHECK ((frame_count >= 0)),
    CONSTRAINT episodes_interruption_s_check CHECK ((interruption_s >= (0)::double precision)),
    CONSTRAINT episodes_summary_by_check CHECK ((summary_by = ANY (ARRAY['rules'::text, 'model'::text]))),
    CONSTRAINT episodes_summary_status_check CHECK ((summary_status = ANY (ARRAY['pending'::text, 'done'::text, 'failed'::text, 'idle'::text]))),
    CONSTRAINT episodes_switch_count_check CHECK ((switch_count >= 0))
);
ALTER TABLE ONLY public.episodes ALTER COLUMN summary_embedding SET STORAGE PLAIN;


--
-- Name: episodes_episode_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.episodes ALTER COLUMN episode_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.episodes_episode_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: imports; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.imports (
    user_id bigint NOT NULL,
    import_id bigint NOT NULL,
    source text NOT NULL,
    status text DEFAULT 'queued'::text NOT NULL,
    stage text DEFAULT ''::text NOT NULL,
    done bigint DEFAULT 0 NOT NULL,
    total bigint,
    events bigint DEFAULT 0 NOT NULL,
    new bigint DEFAULT 0 NOT NULL,
    duplicate bigint DEFAULT 0 NOT NULL,
    excluded bigint DEFAULT 0 NOT NULL,
    redacted bigint DEFAULT 0 NOT NULL,
    error text,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT imports_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'done'::text, 'failed'::text])))
);


--
-- Name: imports_import_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.imports ALTER COLUMN import_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.imports_import_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: job_stops; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_stops (
    stop_id bigint NOT NULL,
    user_id bigint,
    job_id bigint NOT NULL,
    task_name text NOT NULL,
    reason text NOT NULL,
    outcome text NOT NULL,
    ran_s double precision NOT NULL,
    limit_s double precision NOT NULL,
    stopped_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: job_stops_stop_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.job_stops ALTER COLUMN stop_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.job_stops_stop_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: job_turns; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_turns (
    user_id bigint NOT NULL,
    lane text NOT NULL,
    last_started_at timestamp with time zone NOT NULL
);


--
-- Name: labels; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.labels (
    user_id bigint NOT NULL,
    label_id bigint NOT NULL,
    target_kind text NOT NULL,
    target_id bigint NOT NULL,
    field text DEFAULT 'category'::text NOT NULL,
    old_value text,
    new_value text NOT NULL,
    actor text DEFAULT ''::text NOT NULL,
    note text DEFAULT ''::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    touched tstzrange,
    CONSTRAINT labels_target_kind_check CHECK ((target_kind = ANY (ARRAY['record'::text, 'episode'::text])))
);


--
-- Name: labels_label_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.labels ALTER COLUMN label_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.labels_label_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: procrastinate_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.procrastinate_events (
    id bigint NOT NULL,
    job_id bigint NOT NULL,
    type public.procrastinate_job_event_type,
    at timestamp with time zone DEFAULT now()
);


--
-- Name: procrastinate_events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.procrastinate_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: procrastinate_events_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.procrastinate_events_id_seq OWNED BY public.procrastinate_events.id;


--
-- Name: procrastinate_jobs_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.procrastinate_jobs_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: procrastinate_jobs_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.procrastinate_jobs_id_seq OWNED BY public.procrastinate_jobs.id;


--
-- Name: procrastinate_periodic_defers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.procrastinate_periodic_defers (
    id bigint NOT NULL,
    task_name character varying(128) NOT NULL,
    defer_timestamp bigint,
    job_id bigint,
    periodic_id character varying(128) DEFAULT ''::character varying NOT NULL
);


--
-- Name: procrastinate_periodic_defers_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.procrastinate_periodic_defers_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: procrastinate_periodic_defers_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.procrastinate_periodic_defers_id_seq OWNED BY public.procrastinate_periodic_defers.id;


--
-- Name: procrastinate_workers; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.procrastinate_workers (
    id bigint NOT NULL,
    last_heartbeat timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: procrastinate_workers_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.procrastinate_workers ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.procrastinate_workers_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: record_analyses; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.record_analyses (
    user_id bigint NOT NULL,
    record_id bigint NOT NULL,
    description text,
    category text,
    confidence real,
    cues jsonb DEFAULT '[]'::jsonb NOT NULL,
    model text,
    embedding public.vector(384),
    fts tsvector,
    analyzed_at timestamp with time zone DEFAULT now() NOT NULL,
    reason text,
    raw_answer text,
    ts_start timestamp with time zone NOT NULL,
    CONSTRAINT record_analyses_category_check CHECK ((category = ANY (ARRAY['work'::text, 'study'::text, 'social'::text, 'entertainment'::text, 'system'::text, 'uncategorized'::text]))),
    CONSTRAINT record_analyses_confidence_check CHECK (((confidence >= (0)::double precision) AND (confidence <= (1)::double precision)))
);


--
-- Name: records; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.records (
    user_id bigint NOT NULL,
    record_id bigint NOT NULL,
    device_id text NOT NULL,
    client_record_id text NOT NULL,
    ts_start timestamp with time zone NOT NULL,
    ts_end timestamp with time zone,
    day_local date NOT NULL,
    app text DEFAULT ''::text NOT NULL,
    window_title text DEFAULT ''::text NOT NULL,
    url text,
    domain text,
    is_idle boolean DEFAULT false NOT NULL,
    capture_reason text,
    screenshot_ref text,
    screenshot_sha256 text,
    category text NOT NULL,
    category_source text NOT NULL,
    redacted boolean DEFAULT false NOT NULL,
    deleted_at timestamp with time zone,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    app_raw text DEFAULT ''::text NOT NULL,
    CONSTRAINT records_category_check CHECK ((category = ANY (ARRAY['work'::text, 'study'::text, 'social'::text, 'entertainment'::text, 'system'::text, 'uncategorized'::text]))),
    CONSTRAINT records_check CHECK (((ts_end IS NULL) OR (ts_end >= ts_start))),
    CONSTRAINT records_screenshot_sha256_check CHECK ((screenshot_sha256 ~ '^[0-9a-f]{64}$'::text))
)
PARTITION BY RANGE (ts_start);


--
-- Name: records_record_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.records_record_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: records_record_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.records_record_id_seq OWNED BY public.records.record_id;


--
-- Name: retention; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.retention (
    user_id bigint NOT NULL,
    raw_days integer,
    episode_days integer,
    keep_digest_titles boolean DEFAULT true NOT NULL,
    raw_expired_before timestamp with time zone,
    raw_expired_day date,
    episodes_expired_day date,
    applied_at timestamp with time zone,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    raw_applied_before timestamp with time zone,
    episodes_applied_day date,
    CONSTRAINT retention_check CHECK (((episode_days IS NULL) OR ((raw_days IS NOT NULL) AND (episode_days >= raw_days)))),
    CONSTRAINT retention_check1 CHECK (((raw_expired_before IS NULL) = (raw_expired_day IS NULL))),
    CONSTRAINT retention_episode_days_check CHECK ((episode_days >= 1)),
    CONSTRAINT retention_raw_days_check CHECK ((raw_days >= 1))
);


--
-- Name: schema_meta; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_meta (
    key text NOT NULL,
    value text NOT NULL
);


--
-- Name: schema_version; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_version (
    version integer NOT NULL,
    name text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: signals; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.signals (
    user_id bigint NOT NULL,
    signal_id bigint NOT NULL,
    kind text NOT NULL,
    scope text NOT NULL,
    signal_key text NOT NULL,
    ts_start timestamp with time zone NOT NULL,
    ts_end timestamp with time zone NOT NULL,
    day_local date NOT NULL,
    severity real DEFAULT 0 NOT NULL,
    metrics jsonb DEFAULT '{}'::jsonb NOT NULL,
    evidence jsonb DEFAULT '{}'::jsonb NOT NULL,
    stale boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT signals_check CHECK ((ts_end >= ts_start)),
    CONSTRAINT signals_kind_check CHECK ((kind = ANY (ARRAY['rework'::text, 'forced_rollback'::text, 'context_switch_storm'::text, 'focus_block'::text, 'distraction'::text, 'late_night'::text, 'idle_gap'::text]))),
    CONSTRAINT signals_severity_check CHECK ((severity >= (0)::double precision))
);


--
-- Name: signals_signal_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.signals ALTER COLUMN signal_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.signals_signal_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: user_categories; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.user_categories (
    user_id bigint NOT NULL,
    category_id bigint NOT NULL,
    parent_id bigint,
    kind text NOT NULL,
    name text,
    name_zh text,
    color text,
    created timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT user_categories_check CHECK (((name IS NOT NULL) OR (name_zh IS NOT NULL))),
    CONSTRAINT user_categories_check1 CHECK ((parent_id IS DISTINCT FROM category_id)),
    CONSTRAINT user_categories_color_check CHECK ((color ~ '^#[0-9a-f]{6}$'::text)),
    CONSTRAINT user_categories_kind_check CHECK ((kind = ANY (ARRAY['work'::text, 'study'::text, 'social'::text, 'entertainment'::text, 'system'::text, 'uncategorized'::text]))),
    CONSTRAINT user_categories_name_check CHECK (((length(name) >= 1) AND (length(name) <= 100))),
    CONSTRAINT user_categories_name_zh_check CHECK (((length(name_zh) >= 1) AND (length(name_zh) <= 100)))
);


--
-- Name: user_categories_category_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.user_categories ALTER COLUMN category_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.user_categories_category_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: user_rules; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.user_rules (
    user_id bigint NOT NULL,
    rule_id bigint NOT NULL,
    "position" integer NOT NULL,
    kind text NOT NULL,
    pattern text NOT NULL,
    category text NOT NULL,
    created timestamp with time zone DEFAULT now() NOT NULL,
    updated timestamp with time zone DEFAULT now() NOT NULL,
    category_id bigint,
    CONSTRAINT user_rules_category_check CHECK ((category = ANY (ARRAY['work'::text, 'study'::text, 'social'::text, 'entertainment'::text, 'system'::text, 'uncategorized'::text]))),
    CONSTRAINT user_rules_kind_check CHECK ((kind = ANY (ARRAY['app'::text, 'site'::text, 'title'::text, 'regex'::text]))),
    CONSTRAINT user_rules_pattern_check CHECK (((length(pattern) >= 1) AND (length(pattern) <= 500)))
);


--
-- Name: user_rules_rule_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.user_rules ALTER COLUMN rule_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.user_rules_rule_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: users; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.users (
    user_id bigint NOT NULL,
    name text NOT NULL,
    time_zone text NOT NULL,
    day_cut_hour smallint DEFAULT 4 NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT users_day_cut_hour_check CHECK (((day_cut_hour >= 0) AND (day_cut_hour <= 23))),
    CONSTRAINT users_name_check CHECK (((length(name) >= 1) AND (length(name) <= 200)))
);


--
-- Name: users_user_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

ALTER TABLE public.users ALTER COLUMN user_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME public.users_user_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: v_record_durations; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.v_record_durations AS
 SELECT s.user_id,
    s.record_id,
    s.device_id,
    s.client_record_id,
    s.ts_start,
    s.ts_end,
    s.day_local,
    s.app,
    s.window_title,
    s.domain,
    s.category,
    s.is_idle,
    s.seconds AS duration_s
   FROM (public.users u
     CROSS JOIN LATERAL public.timetrace_spans_v1(u.user_id, '-infinity'::timestamp with time zone, 'infinity'::timestamp with time zone) s(user_id, record_id, device_id, client_record_id, ts_start, ts_end, day_local, app, app_raw, window_title, url, domain, category, category_source, is_idle, redacted, next_start, span_end, seconds));


--
-- Name: v_day_category_hours; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.v_day_category_hours AS
 SELECT user_id,
    day_local,
    category,
    sum(duration_s) AS seconds,
    round(((sum(duration_s) / (3600)::double precision))::numeric, 2) AS hours,
    count(*) AS records
   FROM public.v_record_durations
  GROUP BY user_id, day_local, category;


--
-- Name: v_user_categories; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.v_user_categories AS
 WITH RECURSIVE tree AS (
         SELECT c.user_id,
            c.category_id,
            c.parent_id,
            c.kind,
            c.name,
            c.name_zh,
            c.color,
            COALESCE(c.name, c.name_zh) AS path,
            1 AS depth
           FROM public.user_categories c
          WHERE (c.parent_id IS NULL)
        UNION ALL
         SELECT c.user_id,
            c.category_id,
            c.parent_id,
            c.kind,
            c.name,
            c.name_zh,
            c.color,
            ((t.path || ' > '::text) || COALESCE(c.name, c.name_zh)),
            (t.depth + 1)
           FROM (public.user_categories c
             JOIN tree t ON (((t.user_id = c.user_id) AND (t.category_id = c.parent_id))))
        )
 SELECT user_id,
    category_id,
    parent_id,
    kind,
    name,
    name_zh,
    color,
    path,
    depth
   FROM tree;


--
-- Name: v_day_user_category_hours; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.v_day_user_category_hours AS
 SELECT d.user_id,
    d.day_local,
    c.category_id,
    c.path,
    c.kind,
    c.color,
    sum(d.seconds) AS seconds,
    round(((sum(d.seconds) / (3600)::double precision))::numeric, 2) AS hours
   FROM (((public.users x
     CROSS JOIN LATERAL public.timetrace_spans_v1(x.user_id, '-infinity'::timestamp with time zone, 'infinity'::timestamp with time zone) d(user_id, record_id, device_id, client_record_id, ts_start, ts_end, day_local, app, app_raw, window_title, url, domain, category, category_source, is_idle, redacted, next_start, span_end, seconds))
     JOIN public.user_rules u ON (((u.user_id = d.user_id) AND (d.category_source = ('user:'::text || u.rule_id)))))
     JOIN public.v_user_categories c ON (((c.user_id = u.user_id) AND (c.category_id = u.category_id))))
  WHERE (NOT d.is_idle)
  GROUP BY d.user_id, d.day_local, c.category_id, c.path, c.kind, c.color;


--
-- Name: v_episode_day_category_hours; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.v_episode_day_category_hours AS
 SELECT user_id,
    day_local,
    category,
    sum(duration_s) AS seconds,
    round(((sum(duration_s) / (3600)::double precision))::numeric, 2) AS hours,
    count(*) AS episodes
   FROM public.episodes
  WHERE (NOT stale)
  GROUP BY user_id, day_local, category;


--
-- Name: v_episodes; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.v_episodes AS
 SELECT user_id,
    episode_id,
    day_local,
    ts_start,
    ts_end,
    device_id,
    category,
    primary_app,
    title,
    round(((duration_s / (3600)::double precision))::numeric, 2) AS hours,
    duration_s,
    active_s,
    frame_count,
    summary_status,
    closed,
    stale,
    summary
   FROM public.episodes;


--
-- Name: v_record_episodes; Type: VIEW; Schema: public; Owner: -
--

CREATE VIEW public.v_record_episodes AS
 SELECT user_id,
    record_id,
    device_id,
    client_record_id,
    ts_start,
    day_local,
    public.timetrace_episode_of(user_id, device_id, ts_start, client_record_id) AS episode_id
   FROM public.records r
  WHERE (deleted_at IS NULL);


--
-- Name: web_sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.web_sessions (
    user_id bigint NOT NULL,
    session_hash bytea NOT NULL,
    token_id bigint NOT NULL,
    csrf_token text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    expires_at timestamp with time zone NOT NULL,
    CONSTRAINT web_sessions_check CHECK ((expires_at > created_at)),
    CONSTRAINT web_sessions_csrf_token_check CHECK ((length(csrf_token) >= 32)),
    CONSTRAINT web_sessions_session_hash_check CHECK ((length(session_hash) = 32))
);


--
-- Name: procrastinate_events id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.procrastinate_events ALTER COLUMN id SET DEFAULT nextval('public.procrastinate_events_id_seq'::regclass);


--
-- Name: procrastinate_jobs id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.procrastinate_jobs ALTER COLUMN id SET DEFAULT nextval('public.procrastinate_jobs_id_seq'::regclass);


--
-- Name: procrastinate_periodic_defers id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.procrastinate_periodic_defers ALTER COLUMN id SET DEFAULT nextval('public.procrastinate_periodic_defers_id_seq'::regclass);


--
-- Name: records record_id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.records ALTER COLUMN record_id SET DEFAULT nextval('public.records_record_id_seq'::regclass);


--
-- Name: api_tokens api_tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_tokens
    ADD CONSTRAINT api_tokens_pkey PRIMARY KEY (user_id, token_id);


--
-- Name: api_tokens api_tokens_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_tokens
    ADD CONSTRAINT api_tokens_token_hash_key UNIQUE (token_hash);


--
-- Name: aw_buckets aw_buckets_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.aw_buckets
    ADD CONSTRAINT aw_buckets_pkey PRIMARY KEY (user_id, bucket_id);


--
-- Name: aw_converted aw_converted_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.aw_converted
    ADD CONSTRAINT aw_converted_pkey PRIMARY KEY (user_id);


--
-- Name: aw_edits aw_edits_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.aw_edits
    ADD CONSTRAINT aw_edits_pkey PRIMARY KEY (user_id);


--
-- Name: aw_events aw_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.aw_events
    ADD CONSTRAINT aw_events_pkey PRIMARY KEY (user_id, bucket_id, event_id);


--
-- Name: aw_settings aw_settings_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.aw_settings
    ADD CONSTRAINT aw_settings_pkey PRIMARY KEY (user_id, key);


--
-- Name: build_marks build_marks_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.build_marks
    ADD CONSTRAINT build_marks_pkey PRIMARY KEY (user_id, device_id, day_local);


--
-- Name: conversation_turns conversation_turns_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversation_turns
    ADD CONSTRAINT conversation_turns_pkey PRIMARY KEY (user_id, conversation_id, turn_no);


--
-- Name: conversations conversations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_pkey PRIMARY KEY (user_id, conversation_id);


--
-- Name: devices devices_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.devices
    ADD CONSTRAINT devices_pkey PRIMARY KEY (user_id, device_id);


--
-- Name: digests digests_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.digests
    ADD CONSTRAINT digests_pkey PRIMARY KEY (user_id, digest_id);


--
-- Name: digests digests_user_id_grain_scope_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.digests
    ADD CONSTRAINT digests_user_id_grain_scope_key_key UNIQUE (user_id, grain, scope_key);


--
-- Name: episode_redirects episode_redirects_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.episode_redirects
    ADD CONSTRAINT episode_redirects_pkey PRIMARY KEY (user_id, episode_id);


--
-- Name: episodes episodes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.episodes
    ADD CONSTRAINT episodes_pkey PRIMARY KEY (user_id, episode_id);


--
-- Name: episodes episodes_user_id_episode_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.episodes
    ADD CONSTRAINT episodes_user_id_episode_key_key UNIQUE (user_id, episode_key);


--
-- Name: imports imports_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.imports
    ADD CONSTRAINT imports_pkey PRIMARY KEY (user_id, import_id);


--
-- Name: job_stops job_stops_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_stops
    ADD CONSTRAINT job_stops_pkey PRIMARY KEY (stop_id);


--
-- Name: job_turns job_turns_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_turns
    ADD CONSTRAINT job_turns_pkey PRIMARY KEY (user_id, lane);


--
-- Name: labels labels_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.labels
    ADD CONSTRAINT labels_pkey PRIMARY KEY (user_id, label_id);


--
-- Name: procrastinate_events procrastinate_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.procrastinate_events
    ADD CONSTRAINT procrastinate_events_pkey PRIMARY KEY (id);


--
-- Name: procrastinate_jobs procrastinate_jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.procrastinate_jobs
    ADD CONSTRAINT procrastinate_jobs_pkey PRIMARY KEY (id);


--
-- Name: procrastinate_periodic_defers procrastinate_periodic_defers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.procrastinate_periodic_defers
    ADD CONSTRAINT procrastinate_periodic_defers_pkey PRIMARY KEY (id);


--
-- Name: procrastinate_periodic_defers procrastinate_periodic_defers_unique; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.procrastinate_periodic_defers
    ADD CONSTRAINT procrastinate_periodic_defers_unique UNIQUE (task_name, periodic_id, defer_timestamp);


--
-- Name: procrastinate_workers procrastinate_workers_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.procrastinate_workers
    ADD CONSTRAINT procrastinate_workers_pkey PRIMARY KEY (id);


--
-- Name: record_analyses record_analyses_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.record_analyses
    ADD CONSTRAINT record_analyses_pkey PRIMARY KEY (user_id, record_id);


--
-- Name: records records_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.records
    ADD CONSTRAINT records_pkey PRIMARY KEY (user_id, record_id, ts_start);


--
-- Name: retention retention_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.retention
    ADD CONSTRAINT retention_pkey PRIMARY KEY (user_id);


--
-- Name: schema_meta schema_meta_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_meta
    ADD CONSTRAINT schema_meta_pkey PRIMARY KEY (key);


--
-- Name: schema_version schema_version_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_version
    ADD CONSTRAINT schema_version_pkey PRIMARY KEY (version);


--
-- Name: signals signals_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.signals
    ADD CONSTRAINT signals_pkey PRIMARY KEY (user_id, signal_id);


--
-- Name: signals signals_user_id_kind_scope_signal_key_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.signals
    ADD CONSTRAINT signals_user_id_kind_scope_signal_key_key UNIQUE (user_id, kind, scope, signal_key);


--
-- Name: user_categories user_categories_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_categories
    ADD CONSTRAINT user_categories_pkey PRIMARY KEY (user_id, category_id);


--
-- Name: user_rules user_rules_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_rules
    ADD CONSTRAINT user_rules_pkey PRIMARY KEY (user_id, rule_id);


--
-- Name: user_rules user_rules_user_id_kind_pattern_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_rules
    ADD CONSTRAINT user_rules_user_id_kind_pattern_key UNIQUE (user_id, kind, pattern);


--
-- Name: user_rules user_rules_user_id_position_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_rules
    ADD CONSTRAINT user_rules_user_id_position_key UNIQUE (user_id, "position") DEFERRABLE;


--
-- Name: users users_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_name_key UNIQUE (name);


--
-- Name: users users_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.users
    ADD CONSTRAINT users_pkey PRIMARY KEY (user_id);


--
-- Name: web_sessions web_sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.web_sessions
    ADD CONSTRAINT web_sessions_pkey PRIMARY KEY (user_id, session_hash);


--
-- Name: web_sessions web_sessions_session_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.web_sessions
    ADD CONSTRAINT web_sessions_session_hash_key UNIQUE (session_hash);


--
-- Name: aw_events_by_change; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX aw_events_by_change ON public.aw_events USING brin (changed);


--
-- Name: aw_events_by_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX aw_events_by_time ON public.aw_events USING btree (user_id, bucket_id, ts);


--
-- Name: aw_events_set_aside; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX aw_events_set_aside ON public.aw_events USING btree (user_id) WHERE (set_aside IS NOT NULL);


--
-- Name: conversations_recent; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX conversations_recent ON public.conversations USING btree (user_id, updated_at DESC);


--
-- Name: digests_day_updated; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX digests_day_updated ON public.digests USING btree (updated_at) WHERE ((grain = 'day'::text) AND (NOT stale));


--
-- Name: digests_unfinalized; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX digests_unfinalized ON public.digests USING btree (user_id, grain, period_end) WHERE (NOT finalized);


--
-- Name: episode_redirects_day; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX episode_redirects_day ON public.episode_redirects USING btree (user_id, device_id, day_local);


--
-- Name: episodes_device_day; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX episodes_device_day ON public.episodes USING btree (user_id, device_id, day_local);


--
-- Name: episodes_embedded; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX episodes_embedded ON public.episodes USING btree (user_id, day_local, category) WHERE ((summary_embedding IS NOT NULL) AND (NOT stale));


--
-- Name: episodes_embedding; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX episodes_embedding ON public.episodes USING hnsw (summary_embedding public.vector_cosine_ops);


--
-- Name: episodes_fts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX episodes_fts ON public.episodes USING gin (fts);


--
-- Name: episodes_pending_summary; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX episodes_pending_summary ON public.episodes USING btree (ts_start) WHERE ((summary_status = 'pending'::text) AND closed AND (NOT stale));


--
-- Name: episodes_span; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX episodes_span ON public.episodes USING gist (tstzrange(ts_start, ts_end, '[]'::text)) WHERE (NOT stale);


--
-- Name: episodes_stale; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX episodes_stale ON public.episodes USING btree (user_id) WHERE stale;


--
-- Name: episodes_timeline; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX episodes_timeline ON public.episodes USING btree (user_id, device_id, ts_start, first_key COLLATE "C");


--
-- Name: episodes_updated; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX episodes_updated ON public.episodes USING btree (updated_at) WHERE closed;


--
-- Name: episodes_user_day; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX episodes_user_day ON public.episodes USING btree (user_id, day_local, category);


--
-- Name: episodes_user_end; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX episodes_user_end ON public.episodes USING btree (user_id, ts_end);


--
-- Name: episodes_user_ts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX episodes_user_ts ON public.episodes USING btree (user_id, ts_start);


--
-- Name: idx_procrastinate_jobs_worker_not_null; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_procrastinate_jobs_worker_not_null ON public.procrastinate_jobs USING btree (worker_id) WHERE ((worker_id IS NOT NULL) AND (status = 'doing'::public.procrastinate_job_status));


--
-- Name: idx_procrastinate_workers_last_heartbeat; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX idx_procrastinate_workers_last_heartbeat ON public.procrastinate_workers USING btree (last_heartbeat);


--
-- Name: job_stops_recent; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_stops_recent ON public.job_stops USING btree (stopped_at);


--
-- Name: labels_target; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX labels_target ON public.labels USING btree (user_id, target_kind, target_id);


--
-- Name: procrastinate_events_job_id_fkey_v1; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX procrastinate_events_job_id_fkey_v1 ON public.procrastinate_events USING btree (job_id);


--
-- Name: procrastinate_jobs_id_lock_idx_v1; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX procrastinate_jobs_id_lock_idx_v1 ON public.procrastinate_jobs USING btree (id, lock) WHERE (status = ANY (ARRAY['todo'::public.procrastinate_job_status, 'doing'::public.procrastinate_job_status]));


--
-- Name: procrastinate_jobs_lock_idx_v1; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX procrastinate_jobs_lock_idx_v1 ON public.procrastinate_jobs USING btree (lock) WHERE (status = 'doing'::public.procrastinate_job_status);


--
-- Name: procrastinate_jobs_priority_idx_v1; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX procrastinate_jobs_priority_idx_v1 ON public.procrastinate_jobs USING btree (priority DESC, id) WHERE (status = 'todo'::public.procrastinate_job_status);


--
-- Name: procrastinate_jobs_queue_name_idx_v1; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX procrastinate_jobs_queue_name_idx_v1 ON public.procrastinate_jobs USING btree (queue_name);


--
-- Name: procrastinate_jobs_queueing_lock_idx_v1; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX procrastinate_jobs_queueing_lock_idx_v1 ON public.procrastinate_jobs USING btree (queueing_lock) WHERE (status = 'todo'::public.procrastinate_job_status);


--
-- Name: procrastinate_periodic_defers_job_id_fkey_v1; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX procrastinate_periodic_defers_job_id_fkey_v1 ON public.procrastinate_periodic_defers USING btree (job_id);


--
-- Name: record_analyses_fts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX record_analyses_fts ON public.record_analyses USING gin (fts);


--
-- Name: record_analyses_user_ts; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX record_analyses_user_ts ON public.record_analyses USING btree (user_id, ts_start);


--
-- Name: records_deleted_at; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX records_deleted_at ON ONLY public.records USING btree (user_id, deleted_at) WHERE (deleted_at IS NOT NULL);


--
-- Name: records_timeline; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX records_timeline ON ONLY public.records USING btree (user_id, device_id, ts_start, client_record_id COLLATE "C");


--
-- Name: signals_user_day; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX signals_user_day ON public.signals USING btree (user_id, day_local, kind);


--
-- Name: user_categories_name; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX user_categories_name ON public.user_categories USING btree (user_id, COALESCE(parent_id, (0)::bigint), lower(name)) WHERE (name IS NOT NULL);


--
-- Name: user_categories_name_zh; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX user_categories_name_zh ON public.user_categories USING btree (user_id, COALESCE(parent_id, (0)::bigint), name_zh) WHERE (name_zh IS NOT NULL);


--
-- Name: user_rules_title_gram; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX user_rules_title_gram ON public.user_rules USING btree (user_id, "left"(public.timetrace_user_rule_title_piece(pattern), 3)) WHERE (kind = 'title'::text);


--
-- Name: web_sessions_expiry; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX web_sessions_expiry ON public.web_sessions USING btree (expires_at);


--
-- Name: aw_events aw_events_deleted; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER aw_events_deleted AFTER DELETE ON public.aw_events REFERENCING OLD TABLE AS aw_gone FOR EACH STATEMENT EXECUTE FUNCTION public.aw_count_deletes();


--
-- Name: aw_events aw_events_edited; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER aw_events_edited AFTER UPDATE ON public.aw_events FOR EACH ROW WHEN ((NOT (old.changed IS DISTINCT FROM new.changed))) EXECUTE FUNCTION public.aw_count_edit();


--
-- Name: procrastinate_jobs procrastinate_jobs_notify_queue_job_aborted_v1; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER procrastinate_jobs_notify_queue_job_aborted_v1 AFTER UPDATE OF abort_requested ON public.procrastinate_jobs FOR EACH ROW WHEN (((old.abort_requested = false) AND (new.abort_requested = true) AND (new.status = 'doing'::public.procrastinate_job_status))) EXECUTE FUNCTION public.procrastinate_notify_queue_abort_job_v1();


--
-- Name: procrastinate_jobs procrastinate_jobs_notify_queue_job_inserted_v1; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER procrastinate_jobs_notify_queue_job_inserted_v1 AFTER INSERT ON public.procrastinate_jobs FOR EACH ROW WHEN ((new.status = 'todo'::public.procrastinate_job_status)) EXECUTE FUNCTION public.procrastinate_notify_queue_job_inserted_v1();


--
-- Name: procrastinate_jobs procrastinate_trigger_abort_requested_events_v1; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER procrastinate_trigger_abort_requested_events_v1 AFTER UPDATE OF abort_requested ON public.procrastinate_jobs FOR EACH ROW WHEN ((new.abort_requested = true)) EXECUTE FUNCTION public.procrastinate_trigger_abort_requested_events_procedure_v1();


--
-- Name: procrastinate_jobs procrastinate_trigger_delete_jobs_v1; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER procrastinate_trigger_delete_jobs_v1 BEFORE DELETE ON public.procrastinate_jobs FOR EACH ROW EXECUTE FUNCTION public.procrastinate_unlink_periodic_defers_v1();


--
-- Name: procrastinate_jobs procrastinate_trigger_scheduled_events_v1; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER procrastinate_trigger_scheduled_events_v1 AFTER INSERT OR UPDATE ON public.procrastinate_jobs FOR EACH ROW WHEN (((new.scheduled_at IS NOT NULL) AND (new.status = 'todo'::public.procrastinate_job_status))) EXECUTE FUNCTION public.procrastinate_trigger_function_scheduled_events_v1();


--
-- Name: procrastinate_jobs procrastinate_trigger_status_events_insert_v1; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER procrastinate_trigger_status_events_insert_v1 AFTER INSERT ON public.procrastinate_jobs FOR EACH ROW WHEN ((new.status = 'todo'::public.procrastinate_job_status)) EXECUTE FUNCTION public.procrastinate_trigger_function_status_events_insert_v1();


--
-- Name: procrastinate_jobs procrastinate_trigger_status_events_update_v1; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER procrastinate_trigger_status_events_update_v1 AFTER UPDATE OF status ON public.procrastinate_jobs FOR EACH ROW EXECUTE FUNCTION public.procrastinate_trigger_function_status_events_update_v1();


--
-- Name: record_analyses record_analyses_start; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER record_analyses_start BEFORE INSERT ON public.record_analyses FOR EACH ROW EXECUTE FUNCTION public.timetrace_analysis_start();


--
-- Name: api_tokens api_tokens_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.api_tokens
    ADD CONSTRAINT api_tokens_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: aw_buckets aw_buckets_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.aw_buckets
    ADD CONSTRAINT aw_buckets_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: aw_converted aw_converted_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.aw_converted
    ADD CONSTRAINT aw_converted_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: aw_edits aw_edits_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.aw_edits
    ADD CONSTRAINT aw_edits_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: aw_events aw_events_user_id_bucket_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.aw_events
    ADD CONSTRAINT aw_events_user_id_bucket_id_fkey FOREIGN KEY (user_id, bucket_id) REFERENCES public.aw_buckets(user_id, bucket_id) ON DELETE CASCADE;


--
-- Name: aw_settings aw_settings_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.aw_settings
    ADD CONSTRAINT aw_settings_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: build_marks build_marks_user_id_device_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.build_marks
    ADD CONSTRAINT build_marks_user_id_device_id_fkey FOREIGN KEY (user_id, device_id) REFERENCES public.devices(user_id, device_id) ON DELETE CASCADE;


--
-- Name: conversation_turns conversation_turns_user_id_conversation_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversation_turns
    ADD CONSTRAINT conversation_turns_user_id_conversation_id_fkey FOREIGN KEY (user_id, conversation_id) REFERENCES public.conversations(user_id, conversation_id) ON DELETE CASCADE;


--
-- Name: conversations conversations_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.conversations
    ADD CONSTRAINT conversations_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: devices devices_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.devices
    ADD CONSTRAINT devices_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: digests digests_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.digests
    ADD CONSTRAINT digests_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: episode_redirects episode_redirects_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.episode_redirects
    ADD CONSTRAINT episode_redirects_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: episodes episodes_user_id_device_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.episodes
    ADD CONSTRAINT episodes_user_id_device_id_fkey FOREIGN KEY (user_id, device_id) REFERENCES public.devices(user_id, device_id) ON DELETE CASCADE;


--
-- Name: episodes episodes_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.episodes
    ADD CONSTRAINT episodes_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: imports imports_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.imports
    ADD CONSTRAINT imports_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: labels labels_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.labels
    ADD CONSTRAINT labels_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: procrastinate_events procrastinate_events_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.procrastinate_events
    ADD CONSTRAINT procrastinate_events_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.procrastinate_jobs(id) ON DELETE CASCADE;


--
-- Name: procrastinate_jobs procrastinate_jobs_worker_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.procrastinate_jobs
    ADD CONSTRAINT procrastinate_jobs_worker_id_fkey FOREIGN KEY (worker_id) REFERENCES public.procrastinate_workers(id) ON DELETE SET NULL;


--
-- Name: procrastinate_periodic_defers procrastinate_periodic_defers_job_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.procrastinate_periodic_defers
    ADD CONSTRAINT procrastinate_periodic_defers_job_id_fkey FOREIGN KEY (job_id) REFERENCES public.procrastinate_jobs(id);


--
-- Name: record_analyses record_analyses_user_id_record_id_ts_start_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.record_analyses
    ADD CONSTRAINT record_analyses_user_id_record_id_ts_start_fkey FOREIGN KEY (user_id, record_id, ts_start) REFERENCES public.records(user_id, record_id, ts_start) ON DELETE CASCADE;


--
-- Name: retention retention_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.retention
    ADD CONSTRAINT retention_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: signals signals_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.signals
    ADD CONSTRAINT signals_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: user_categories user_categories_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_categories
    ADD CONSTRAINT user_categories_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: user_categories user_categories_user_id_parent_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_categories
    ADD CONSTRAINT user_categories_user_id_parent_id_fkey FOREIGN KEY (user_id, parent_id) REFERENCES public.user_categories(user_id, category_id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: user_rules user_rules_user_id_category_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_rules
    ADD CONSTRAINT user_rules_user_id_category_id_fkey FOREIGN KEY (user_id, category_id) REFERENCES public.user_categories(user_id, category_id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: user_rules user_rules_user_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.user_rules
    ADD CONSTRAINT user_rules_user_id_fkey FOREIGN KEY (user_id) REFERENCES public.users(user_id) ON DELETE CASCADE;


--
-- Name: web_sessions web_sessions_user_id_token_id_fkey; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.web_sessions
    ADD CONSTRAINT web_sessions_user_id_token_id_fkey FOREIGN KEY (user_id, token_id) REFERENCES public.api_tokens(user_id, token_id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--

\unrestrict timetrace

