-- 0026: retention tiers, per user (docs/retention.md).
--
-- * `retention`: a user's tiers and how far each has been applied. `raw_days`: records
--   (titles, URLs, screenshots) and their L1 analyses (descriptions, embeddings) go
--   after that many logical days; `episode_days`: episodes keep their numbers but lose
--   their text (titles, summaries, cues, embeddings) after that many. NULL: kept (the
--   default). Digests, their metrics and signals are never expired here; with
--   `keep_digest_titles` false, the top titles and narratives of digests over expired
--   raw go (their numbers stay).
-- * `raw_expired_before` / `raw_expired_day`: every record of this user that starts
--   before it is gone (the start of that logical day). It is the tombstone of the whole
--   expired span: ingest and imports drop a record that starts before it, so a re-sent
--   or re-imported old batch adds nothing, and no day before `raw_expired_day` is ever
--   marked, reopened or rebuilt from raw again (its episodes and digests stand).
-- * `episodes_expired_day`: episodes of days before it keep no text.
CREATE TABLE retention (
    user_id              bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    raw_days             integer CHECK (raw_days >= 1),
    episode_days         integer CHECK (episode_days >= 1),
    -- Digests keep their top titles and narratives unless asked (false: when raw
    -- expires, the digests over it keep only the app or site of each title).
    keep_digest_titles   boolean NOT NULL DEFAULT true,
    raw_expired_before   timestamptz,
    raw_expired_day      date,
    episodes_expired_day date,
    applied_at           timestamptz,
    updated_at           timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id),
    -- Episode text outlives the raw it is built from (else a rebuild would bring it back).
    CHECK (episode_days IS NULL OR (raw_days IS NOT NULL AND episode_days >= raw_days)),
    CHECK ((raw_expired_before IS NULL) = (raw_expired_day IS NULL))
);

-- The first logical day of a user whose raw records are all kept ('-infinity': all).
CREATE FUNCTION timetrace_raw_expired_day(p_user bigint) RETURNS date
LANGUAGE sql STABLE AS $$
    SELECT COALESCE((SELECT raw_expired_day FROM retention WHERE user_id = p_user),
                    '-infinity'::date)
$$;

-- As 0023, but a day whose raw has expired is never marked: its records are gone, and a
-- rebuild would wipe the episodes and digests that are all that is left of it.
CREATE OR REPLACE FUNCTION timetrace_mark_days(p_user bigint, p_devices text[], p_days date[],
                                               p_first_ts timestamptz[],
                                               p_first_gone timestamptz[])
RETURNS integer
LANGUAGE sql VOLATILE AS $$
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

-- The expiry job drops an analysis with its record's month: found by time, not by id.
CREATE INDEX record_analyses_user_ts ON record_analyses (user_id, ts_start);
