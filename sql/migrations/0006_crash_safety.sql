-- 0006: crash safety. What a digest was computed from, so a sweep can tell a digest
-- older than its sources (a rollup lost to a crash) from one that is merely unchanged;
-- tombstones without client text; and one way to put a job back in the queue that can
-- never leave a twin that cannot run.

-- The newest `updated_at` of what the digest was computed from: a day's episodes, or a
-- week's or month's day digests. A digest is due when its sources moved past it.
ALTER TABLE digests ADD COLUMN sources_through timestamptz;

-- A deleted record keeps a hash of its client key, never the key itself (client text),
-- so that replaying the deleted record changes nothing (ingest looks the hash up).
CREATE FUNCTION timetrace_tombstone_key(client_record_id text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT 'deleted:' || encode(sha256(convert_to(client_record_id, 'UTF8')), 'hex')
$$;

-- Deferring a job and requeueing one both take this transaction-scoped advisory lock on
-- the job's queueing lock, then look for a waiting twin: no unique violation (and no
-- ERROR in the server log) when a job is already waiting.
CREATE FUNCTION timetrace_queueing_lock_key(queueing_lock text) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT hashtextextended('timetrace-queue:' || queueing_lock, 0)
$$;

-- Put a `doing` job back to `todo` (a retry after an error, or a job whose worker died).
-- When a twin already waits under the same queueing lock, the twin does the work and this
-- one ends `aborted`: procrastinate's own retry would hit the twin's unique index and
-- leave the job `doing` for good, holding its lock, so that the twin could never run.
-- plpgsql: procrastinate's schema is installed after these migrations.
CREATE FUNCTION timetrace_requeue_job(
    job_id bigint,
    retry_at timestamptz,
    new_priority integer,
    new_queue_name character varying,
    new_lock character varying
) RETURNS text
LANGUAGE plpgsql AS $$
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
