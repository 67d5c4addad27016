-- Retention tiers (docs/retention.md): a user's settings, how far they have been
-- applied, what the daily job would remove and removes, and the bytes of each layer.

-- name: get_retention --
SELECT user_id, raw_days, episode_days, keep_digest_titles, raw_expired_before,
       raw_expired_day, episodes_expired_day, applied_at
FROM retention WHERE user_id = %(user_id)s;

-- name: set_retention --
INSERT INTO retention (user_id, raw_days, episode_days, keep_digest_titles)
VALUES (%(user_id)s, %(raw_days)s, %(episode_days)s, %(keep_digest_titles)s)
ON CONFLICT (user_id) DO UPDATE SET
    raw_days = EXCLUDED.raw_days, episode_days = EXCLUDED.episode_days,
    keep_digest_titles = EXCLUDED.keep_digest_titles, updated_at = now()
RETURNING user_id, raw_days, episode_days, keep_digest_titles, raw_expired_before,
          raw_expired_day, episodes_expired_day, applied_at;

-- name: raw_expired_before --
SELECT raw_expired_before FROM retention WHERE user_id = %(user_id)s;

-- name: retention_users --
-- global: the retention job: every user with a tier or an expiry not yet carried out
-- A saved expiry is carried out even after its tier was turned off (a job killed after
-- saving it, migration 0029).
SELECT t.user_id, u.name, u.time_zone, u.day_cut_hour, t.raw_days, t.episode_days,
       t.keep_digest_titles, t.raw_expired_before, t.raw_expired_day, t.episodes_expired_day,
       t.applied_at, t.raw_applied_before, t.episodes_applied_day
FROM retention t JOIN users u ON u.user_id = t.user_id
WHERE t.raw_days IS NOT NULL
   OR t.raw_expired_before IS DISTINCT FROM t.raw_applied_before
   OR t.episodes_expired_day IS DISTINCT FROM t.episodes_applied_day
ORDER BY t.user_id;

-- name: first_unsettled_day --
-- The first day of [day_from, day_to) that is not settled, so that raw must not expire
-- there yet: a device-day marked for a rebuild or with a stale episode, a live record
-- not built into an episode (after its device's watermark), a day digest that is stale
-- or not finalized, or a day with closed episodes and no digest.
WITH days AS (
    SELECT day_local FROM build_marks
    WHERE user_id = %(user_id)s AND day_local >= %(day_from)s AND day_local < %(day_to)s
    UNION ALL
    SELECT day_local FROM episodes
    WHERE user_id = %(user_id)s AND stale
      AND day_local >= %(day_from)s AND day_local < %(day_to)s
    UNION ALL
    SELECT n.day_local FROM devices d
    CROSS JOIN LATERAL (
        SELECT e.last_start, e.last_key FROM episodes e
        WHERE e.user_id = d.user_id AND e.device_id = d.device_id
        ORDER BY e.ts_start DESC, e.first_key COLLATE "C" DESC LIMIT 1
    ) w
    CROSS JOIN LATERAL (
        SELECT r.day_local FROM records r
        WHERE r.user_id = d.user_id AND r.device_id = d.device_id AND r.deleted_at IS NULL
          AND r.ts_start >= w.last_start
          AND (r.ts_start, r.client_record_id COLLATE "C") > (w.last_start, w.last_key COLLATE "C")
        ORDER BY r.ts_start, r.client_record_id COLLATE "C" LIMIT 1
    ) n
    WHERE d.user_id = %(user_id)s AND n.day_local < %(day_to)s
    UNION ALL
    SELECT r.day_local FROM devices d
    CROSS JOIN LATERAL (  -- a device with records and no episode at all
        SELECT r.day_local FROM records r
        WHERE r.user_id = d.user_id AND r.device_id = d.device_id AND r.deleted_at IS NULL
        ORDER BY r.ts_start LIMIT 1
    ) r
    WHERE d.user_id = %(user_id)s AND r.day_local < %(day_to)s
      AND NOT EXISTS (SELECT 1 FROM episodes e
                      WHERE e.user_id = d.user_id AND e.device_id = d.device_id)
    UNION ALL
    SELECT scope_key::date FROM digests
    WHERE user_id = %(user_id)s AND grain = 'day' AND (stale OR NOT finalized)
      AND scope_key >= to_char(%(day_from)s::date, 'YYYY-MM-DD')
      AND scope_key < to_char(%(day_to)s::date, 'YYYY-MM-DD')
    UNION ALL
    SELECT e.day_local FROM episodes e
    WHERE e.user_id = %(user_id)s AND e.closed
      AND e.day_local >= %(day_from)s AND e.day_local < %(day_to)s
      AND NOT EXISTS (SELECT 1 FROM digests g
                      WHERE g.user_id = e.user_id AND g.grain = 'day'
                        AND g.scope_key = to_char(e.day_local, 'YYYY-MM-DD'))
)
SELECT min(day_local) AS day FROM days WHERE day_local >= %(day_from)s;

-- name: expiry_counts --
-- What expiring one user up to these bounds removes (the dry run), counted and sized
-- (bytes of the rows' data, as stored), one scan each: records and analyses starting
-- before `raw_before`, the door's events before it, episodes of [episode_from,
-- episode_to) whose text goes, and the conversation turns that go (drop_expired_turns).
WITH r AS (
    SELECT count(*) AS n, COALESCE(sum(pg_column_size(r.*)), 0) AS b FROM records r
    WHERE r.user_id = %(user_id)s AND r.ts_start < %(raw_before)s
), a AS (
    SELECT count(*) AS n, COALESCE(sum(pg_column_size(a.*)), 0) AS b FROM record_analyses a
    WHERE a.user_id = %(user_id)s AND a.ts_start < %(raw_before)s
), v AS (
    SELECT count(*) AS n, COALESCE(sum(pg_column_size(v.*)), 0) AS b FROM aw_events v
    WHERE v.user_id = %(user_id)s AND v.ts < %(raw_before)s
), e AS (
    SELECT count(*) AS n,
           COALESCE(sum(COALESCE(pg_column_size(e.title), 0)
                        + COALESCE(pg_column_size(e.auto_title), 0)
                        + COALESCE(pg_column_size(e.summary), 0)
                        + COALESCE(pg_column_size(e.summary_raw), 0)
                        + COALESCE(pg_column_size(e.cues), 0)
                        + COALESCE(pg_column_size(e.tags), 0)
                        + COALESCE(pg_column_size(e.interruptions), 0)
                        + COALESCE(pg_column_size(e.summary_embedding), 0)
                        + COALESCE(pg_column_size(e.fts), 0)), 0) AS b
    FROM episodes e
    WHERE e.user_id = %(user_id)s
      AND e.day_local < COALESCE(%(episode_to)s::date, '-infinity')
      AND e.day_local >= COALESCE(%(episode_from)s::date, '-infinity')
), d AS (  -- as strip_digest_titles
    SELECT count(*) AS n FROM digests g
    WHERE g.user_id = %(user_id)s AND NOT %(keep_digest_titles)s
      AND COALESCE(%(turns_from)s::timestamptz, '-infinity') < %(raw_before)s
      AND g.period_start < %(raw_before)s
      AND g.period_end > COALESCE(%(turns_from)s::timestamptz, '-infinity')
      AND g.metrics ? 'top_titles'
), hit AS (  -- as drop_expired_turns
    SELECT c.conversation_id, min(c.turn_no) AS first_turn FROM conversation_turns c
    WHERE c.user_id = %(user_id)s
      AND ((c.reach IS NULL AND c.created_at < %(raw_before)s)
           OR c.reach && tstzrange(%(turns_from)s, %(raw_before)s))
    GROUP BY c.conversation_id
), t AS (
    SELECT count(*) AS n FROM conversation_turns x JOIN hit USING (conversation_id)
    WHERE x.user_id = %(user_id)s AND x.turn_no >= hit.first_turn
)
SELECT r.n::bigint AS records, r.b::bigint AS record_bytes,
       a.n::bigint AS analyses, a.b::bigint AS analysis_bytes,
       v.n::bigint AS aw_events, v.b::bigint AS aw_event_bytes,
       e.n::bigint AS episodes, e.b::bigint AS episode_bytes, t.n::bigint AS turns,
       d.n::bigint AS digests
FROM r, a, v, e, t, d;

-- name: advance_retention --
-- The job's first step for a user: the new expiry, from which ingest drops older records.
UPDATE retention SET raw_expired_before = %(raw_before)s, raw_expired_day = %(raw_day)s,
       episodes_expired_day = COALESCE(%(episode_to)s::date, episodes_expired_day),
       applied_at = now()
WHERE user_id = %(user_id)s;

-- name: mark_retention_applied --
-- The user's row deletion, last in its transaction: the saved expiry is carried out, so
-- a later run starts its turns, digest titles and episode text from here.
UPDATE retention SET raw_applied_before = %(raw_before)s,
       episodes_applied_day = COALESCE(%(episode_to)s::date, episodes_applied_day),
       applied_at = now()
WHERE user_id = %(user_id)s;

-- name: record_months --
-- The monthly partitions of records (their first days), oldest first.
SELECT to_date(substr(c.relname, 9), 'YYYY_MM') AS month
FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
WHERE i.inhparent = 'records'::regclass AND c.relname ~ '^records_\d{4}_\d{2}$'
ORDER BY 1;

-- name: month_keeps_rows --
-- global: the retention job: whether a month of records holds a row any user keeps
-- Whether a month of records still holds a row that some user keeps: one of a user with
-- no tier, or at or after the user's (new) expiry. One index probe per user, in the one
-- partition the month's bounds (constants) leave to the planner.
WITH cut AS (
    SELECT * FROM unnest(%(users)s::bigint[], %(cutoffs)s::timestamptz[]) AS c(user_id, before)
)
SELECT EXISTS (
    SELECT 1 FROM users u
    LEFT JOIN cut ON cut.user_id = u.user_id
    WHERE COALESCE(cut.before, '-infinity') < %(month_to)s
      AND EXISTS (
        SELECT 1 FROM records r
        WHERE r.user_id = u.user_id
          AND r.ts_start >= %(month_from)s AND r.ts_start < %(month_to)s
          AND r.ts_start >= COALESCE(cut.before, '-infinity'))
) AS keeps;

-- name: month_rows --
-- global: the retention job: the size of a month of records it drops whole
SELECT count(*)::bigint AS rows, COALESCE(sum(pg_column_size(r.*)), 0)::bigint AS bytes
FROM records r WHERE r.ts_start >= %(month_from)s AND r.ts_start < %(month_to)s;

-- name: lock_records_for_drop --
-- global: the retention job: a month of records is dropped for every user at once
-- Nothing reads or writes records while a month is checked once more and detached
-- (a few milliseconds): a record stored meanwhile in that month is never lost.
LOCK TABLE records IN ACCESS EXCLUSIVE MODE;

-- name: drop_month_analyses --
-- The analyses of a month about to be dropped (their foreign key holds the detach).
DELETE FROM record_analyses
WHERE user_id = ANY(%(users)s::bigint[])
  AND ts_start >= %(month_from)s AND ts_start < %(month_to)s;

-- name: expire_analyses --
DELETE FROM record_analyses WHERE user_id = %(user_id)s AND ts_start < %(raw_before)s;

-- name: expire_records --
-- Every record before the expiry, tombstones too: the expiry itself is the tombstone.
DELETE FROM records WHERE user_id = %(user_id)s AND ts_start < %(raw_before)s;

-- name: expire_aw_events --
-- The ActivityWatch door's own events (titles, URLs) before the expiry.
DELETE FROM aw_events WHERE user_id = %(user_id)s AND ts < %(raw_before)s;

-- name: expire_build_marks --
DELETE FROM build_marks WHERE user_id = %(user_id)s AND day_local < %(raw_day)s;

-- name: blank_expired_notes --
-- Re-label notes about expired records: the note may quote them.
UPDATE labels SET note = ''
WHERE user_id = %(user_id)s AND note <> '' AND touched && tstzrange(NULL, %(raw_before)s);

-- name: drop_expired_turns --
-- Conversation turns that may quote expired raw: those whose reach meets the span
-- expired since the last finished run ([turns_from, raw_before), turns_from being
-- raw_applied_before), and those of unknown reach asked
-- before the expiry; each with every later turn of its conversation, and a
-- conversation left with no turn goes whole (as deletion does).
WITH hit AS (
    SELECT t.conversation_id, min(t.turn_no) AS first_turn
    FROM conversation_turns t
    WHERE t.user_id = %(user_id)s
      AND ((t.reach IS NULL AND t.created_at < %(raw_before)s)
           OR t.reach && tstzrange(%(turns_from)s, %(raw_before)s))
    GROUP BY t.conversation_id
), turns AS (
    DELETE FROM conversation_turns t USING hit
    WHERE t.user_id = %(user_id)s AND t.conversation_id = hit.conversation_id
      AND t.turn_no >= hit.first_turn
    RETURNING t.conversation_id
), emptied AS (
    DELETE FROM conversations c USING hit
    WHERE c.user_id = %(user_id)s AND c.conversation_id = hit.conversation_id
      AND hit.first_turn = 1
    RETURNING c.conversation_id
)
SELECT (SELECT count(*) FROM turns)::bigint AS turns;

-- name: strip_episode_text --
-- The episode-text tier: an episode keeps its span, category, numbers and app label
-- (the part of its title before " · ") and loses its titles, summary, cues, tags, the
-- titles of its interruptions, its embedding and its keywords. `updated_at` stays, so
-- no rollup reads this as a change (its digests stand as built).
WITH stripped AS (
    UPDATE episodes SET
        title = split_part(auto_title, ' · ', 1), auto_title = split_part(auto_title, ' · ', 1),
        summary = NULL, summary_raw = NULL, summary_reason = NULL, cues = '[]', tags = '[]',
        interruptions = COALESCE((
            SELECT jsonb_agg(jsonb_set(i, '{title}', '""') ORDER BY n)
            FROM jsonb_array_elements(interruptions) WITH ORDINALITY AS x(i, n)), '[]'),
        summary_status = 'idle', summary_embedding = NULL, embedding_status = 'done',
        embedding_reason = NULL, fts = NULL
    WHERE user_id = %(user_id)s AND day_local < COALESCE(%(episode_to)s::date, '-infinity')
      AND day_local >= COALESCE(%(episode_from)s::date, '-infinity')
    RETURNING 1
)
SELECT count(*)::bigint AS episodes FROM stripped;

-- name: strip_digest_titles --
-- Asked for (keep_digest_titles false): the digests over raw expired since the last
-- finished run ([turns_from, raw_before): nothing when it is empty) keep
-- their numbers, and their top titles only the app or site of each (merged); their
-- narratives go. `updated_at` stays: no rollup reads this as a change. A week or month
-- that reaches past the expiry is stripped too (its kept days' titles come back when it
-- is next rolled up from its days).
WITH stripped AS (
    UPDATE digests g SET
        metrics = jsonb_set(g.metrics, '{top_titles}', COALESCE((
            SELECT jsonb_agg(jsonb_build_object('title', label, 'seconds', s)
                             ORDER BY s DESC, label)
            FROM (SELECT split_part(t->>'title', ' · ', 1) AS label,
                         sum((t->>'seconds')::double precision) AS s
                  FROM jsonb_array_elements(g.metrics->'top_titles') AS x(t)
                  GROUP BY 1) AS merged), '[]')),
        narrative = NULL, narrative_raw = NULL, narrative_reason = NULL,
        narrative_status = 'skipped'
    WHERE g.user_id = %(user_id)s AND NOT %(keep_digest_titles)s
      AND COALESCE(%(turns_from)s::timestamptz, '-infinity') < %(raw_before)s
      AND g.period_start < %(raw_before)s
      AND g.period_end > COALESCE(%(turns_from)s::timestamptz, '-infinity')
      AND g.metrics ? 'top_titles'
    RETURNING 1
)
SELECT count(*)::bigint AS digests FROM stripped;

-- name: erase_expired_episodes --
-- Deletion of a span whose raw has expired (retention): no record is left to tombstone,
-- so the episodes over the span go (every one it overlaps, whole: nothing can rebuild
-- them), and the device-days they were on come back for their digests and signals.
-- Only past an expiry: tiers saved and never applied (or all off) expire nothing, and
-- LEAST would ignore their NULL expiry.
WITH bound AS (
    SELECT raw_expired_before AS before FROM retention
    WHERE user_id = %(user_id)s AND raw_expired_before IS NOT NULL
), gone AS (
    DELETE FROM episodes e USING bound
    WHERE e.user_id = %(user_id)s AND %(record_ids)s::bigint[] IS NULL
      AND e.ts_start < LEAST(COALESCE(%(ts_to)s::timestamptz, 'infinity'), bound.before)
      AND e.ts_end >= COALESCE(%(ts_from)s::timestamptz, '-infinity')
      AND (%(device_id)s::text IS NULL OR e.device_id = %(device_id)s::text)
    RETURNING e.device_id, e.day_local
)
SELECT DISTINCT device_id, day_local, 0 AS records FROM gone ORDER BY device_id, day_local;
