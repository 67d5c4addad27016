-- 0019: L0 is append-only. An episode is a span of its device's timeline, from its
-- first member's position (ts_start, first_key) to its last one's (last_start,
-- last_key), positions ordered by (ts_start, client_record_id COLLATE "C") as the
-- duration rule orders them. A record belongs to the episode whose span holds its
-- position; building never writes a record.
--
-- "Not yet built" is, per device, everything after the watermark (the last position
-- of its newest episode, stale or not) and every day in build_marks: the days a
-- deletion, a late record, a re-label or a reopened build left to rebuild. A marked
-- day's episodes are stale (or gone) until its rebuild clears the mark.

ALTER TABLE episodes ADD COLUMN first_key text, ADD COLUMN last_start timestamptz,
                     ADD COLUMN last_key text;

-- The last reader of records.episode_id: each episode's first and last live member.
WITH m AS (
    SELECT user_id, episode_id,
           min(ts_start) AS first_start,
           (array_agg(client_record_id ORDER BY ts_start, client_record_id COLLATE "C"))[1]
               AS first_key,
           max(ts_start) AS last_start,
           (array_agg(client_record_id ORDER BY ts_start DESC, client_record_id COLLATE "C" DESC))[1]
               AS last_key
    FROM records WHERE episode_id IS NOT NULL AND deleted_at IS NULL
    GROUP BY user_id, episode_id
)
UPDATE episodes e SET ts_start = m.first_start, first_key = m.first_key,
                      last_start = m.last_start, last_key = m.last_key
FROM m WHERE e.user_id = m.user_id AND e.episode_id = m.episode_id;

CREATE TABLE build_marks (
    user_id    bigint NOT NULL,
    device_id  text NOT NULL,
    day_local  date NOT NULL,
    first_ts   timestamptz,  -- earliest late live record (it may cut an earlier day short)
    first_gone timestamptz,  -- earliest deleted record (the same, for the record it freed)
    marked_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (user_id, device_id, day_local),
    FOREIGN KEY (user_id, device_id) REFERENCES devices ON DELETE CASCADE
);

-- What is left to rebuild today: days with stale or memberless episodes, and days with
-- live records outside any episode below their device's watermark (late records, and
-- the rest of a day a deletion emptied).
WITH watermark AS (
    SELECT DISTINCT ON (user_id, device_id) user_id, device_id, last_start, last_key
    FROM episodes WHERE first_key IS NOT NULL
    ORDER BY user_id, device_id, ts_start DESC, first_key COLLATE "C" DESC
), late AS (
    SELECT r.user_id, r.device_id, r.day_local,
           min(r.ts_start) FILTER (WHERE r.deleted_at IS NULL) AS first_ts,
           min(r.ts_start) FILTER (WHERE r.deleted_at IS NOT NULL) AS first_gone
    FROM records r JOIN watermark w ON w.user_id = r.user_id AND w.device_id = r.device_id
    WHERE r.episode_id IS NULL
      AND (r.ts_start, r.client_record_id COLLATE "C") <= (w.last_start, w.last_key COLLATE "C")
    GROUP BY r.user_id, r.device_id, r.day_local
    HAVING count(*) FILTER (WHERE r.deleted_at IS NULL) > 0
)
INSERT INTO build_marks (user_id, device_id, day_local, first_ts, first_gone)
SELECT user_id, device_id, day_local, min(first_ts), min(first_gone) FROM (
    SELECT user_id, device_id, day_local, first_ts, first_gone FROM late
    UNION ALL
    SELECT user_id, device_id, day_local, NULL, NULL FROM episodes
    WHERE stale OR first_key IS NULL
) x
GROUP BY user_id, device_id, day_local;

DELETE FROM episodes WHERE first_key IS NULL;  -- no live member: its day is marked above
UPDATE episodes e SET stale = true, updated_at = now()
FROM build_marks m
WHERE e.user_id = m.user_id AND e.device_id = m.device_id AND e.day_local = m.day_local
  AND NOT e.stale;
ALTER TABLE episodes ALTER first_key SET NOT NULL, ALTER last_start SET NOT NULL,
                     ALTER last_key SET NOT NULL;
-- The timeline of episodes: the watermark is one backward probe, a record's episode one
-- LIMIT-1 probe (timetrace_episode_of).
CREATE INDEX episodes_timeline ON episodes (user_id, device_id, ts_start, first_key COLLATE "C");

-- records.episode_id goes, with the foreign key that rewrote every member record when
-- its episode was deleted, and the partial indexes over unassigned records. The psql
-- views over records go with it and are made again below; a database migrated by the
-- thinned 0002 never had them (docs/architecture.md, "Migrations").
DROP VIEW IF EXISTS v_day_category_hours;
DROP VIEW IF EXISTS v_record_durations;
ALTER TABLE records DROP CONSTRAINT records_user_id_episode_id_fkey;
DROP INDEX records_episode, records_unassigned, records_unassigned_day;
ALTER TABLE records DROP COLUMN episode_id;

CREATE VIEW v_record_durations AS
SELECT r.user_id, r.record_id, r.device_id, r.client_record_id, r.ts_start, r.ts_end, r.day_local,
       r.app, r.window_title, r.domain, r.category, r.is_idle,
       timetrace_duration_s(r.ts_start, r.ts_end, r.next_start) AS duration_s
FROM (
    SELECT records.*,
           lead(ts_start) OVER (PARTITION BY user_id, device_id
                                ORDER BY ts_start, client_record_id COLLATE "C") AS next_start
    FROM records
    WHERE deleted_at IS NULL
) AS r;

CREATE VIEW v_day_category_hours AS
SELECT user_id, day_local, category,
       sum(duration_s) AS seconds,
       round((sum(duration_s) / 3600)::numeric, 2) AS hours,
       count(*) AS records
FROM v_record_durations
GROUP BY user_id, day_local, category;

-- The current episode whose span holds a record's position, or NULL (open tail, marked
-- day). The LIMIT-1 shape reads one index entry however long the history: never join
-- episodes on a bare lower bound.
CREATE FUNCTION timetrace_episode_of(p_user bigint, p_device text, p_ts timestamptz, p_key text)
RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT x.episode_id FROM (
        SELECT episode_id, stale, last_start, last_key FROM episodes
        WHERE user_id = p_user AND device_id = p_device
          AND (ts_start, first_key COLLATE "C") <= (p_ts, p_key COLLATE "C")
        ORDER BY ts_start DESC, first_key COLLATE "C" DESC LIMIT 1) x
    WHERE NOT x.stale AND (p_ts, p_key COLLATE "C") <= (x.last_start, x.last_key COLLATE "C")
$$;

-- The device build lock: a build's save takes it exclusive, an ingest's insert shared.
-- A record committed while a build runs then either changes the build's read stamp or
-- sees the watermark the build saved, and marks its day when it falls below it.
CREATE FUNCTION timetrace_build_lock_key(p_user bigint, p_device text) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT hashtextextended('timetrace-build:' || p_user || ':' || p_device, 0)
$$;

-- psql: each live record with its episode (NULL: not built yet).
CREATE VIEW v_record_episodes AS
SELECT r.user_id, r.record_id, r.device_id, r.client_record_id, r.ts_start, r.day_local,
       timetrace_episode_of(r.user_id, r.device_id, r.ts_start, r.client_record_id) AS episode_id
FROM records r WHERE r.deleted_at IS NULL;
